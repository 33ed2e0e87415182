# 230-py-encoding: a .py table is read as CPython reads its bytes (PEP 263, issue #48), with
# python3 as the oracle. Each case is a table from `tunetab generate` under a BOM and/or a coding
# declaration; python3 compiles its bytes as importlib does (compile(bytes)) and gives the text
# it read (tokenize.detect_encoding, checked to compile to the same code). validate must accept
# exactly the files whose Python text is their UTF-8 text, and refuse the others with an error
# at the line of the declaration. Then a sweep: every name in encodings.aliases, every module of
# the encodings package and some spellings of each, in a declaration over a table with a
# non-ASCII comment and over a pure-ASCII one (where only the names Python gives the ascii codec
# may pass too). Last, 3000 random first lines (comments holding pieces of declarations, blank
# lines, code; LF or CRLF; a BOM or none) over a non-ASCII str. First of all,
# configs/python/source-encodings.yaml and its C header against this python3.
. "$ROOT/tests/lib.sh"
(cd "$ROOT" && python3 scripts/dev/python-encodings.py check)
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --format py -o gen -q
NAME=v0_1_trtllm_fused_moe_NVIDIA_H200.py

cat >oracle.py <<'PY'
import codecs, encodings, encodings.aliases, io, os, pkgutil, random, re, sys, tokenize

BOM = b"\xef\xbb\xbf"


def python_view(data):
    """(text Python reads, why not) for a module's bytes, as importlib compiles them."""
    try:
        code = compile(data, "t.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        return None, "%s: %s" % (type(e).__name__, getattr(e, "msg", e))
    try:
        enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(enc)
    except (SyntaxError, LookupError, UnicodeDecodeError) as e:
        return None, "python3 disagrees with itself: compile() reads it, tokenize not (%s)" % e
    if compile(text, "t.py", "exec", dont_inherit=True) != code:
        return None, "python3 disagrees with itself: tokenize's %s text is not what compile() read" % enc
    return text, enc


def utf8_view(data):
    try:
        return (data[3:] if data.startswith(BOM) else data).decode("utf-8")
    except UnicodeDecodeError:
        return None


def expect(data):
    """Python reads the file, and reads the UTF-8 text tunetab checks."""
    text, why = python_view(data)
    return text is not None and text == utf8_view(data), text, why


def read_validate(path):
    """validate's verdict per file: (accepted, [(line, message)])."""
    res = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"(\S+\.py): (ok|FAIL): ", line)
        if m:
            res.setdefault(m.group(1), [None, []])[0] = m.group(2) == "ok"
        m = re.match(r"(\S+\.py):(\d+):(\d+): error: (.*)", line)
        if m:
            res.setdefault(m.group(1), [None, []])[1].append((int(m.group(2)), m.group(4)))
    return res


def cases(table):
    cafe = "note = 'caf\u00e9'  # a non-ASCII str: another codec reads other characters\n".encode()
    attack = b"# harmless comment +AAo-import os+ADs-os.system(+ACI-echo PWNED+ACI-)+AAo-#\n"
    ascii_note = b"note = 'plain ASCII'\n"
    L1, L2 = 1, 2
    # label, bytes, the declaration's line (where a refusal must point)
    yield "no declaration", cafe + table, 0
    yield "BOM", BOM + cafe + table, 0
    yield "BOM + utf-8 declaration", BOM + b"# -*- coding: utf-8 -*-\n" + cafe + table, L1
    yield "BOM + latin-1 declaration", BOM + b"# -*- coding: latin-1 -*-\n" + cafe + table, L1
    yield "BOM + utf8 declaration (only utf-8 spelt as the tokenizer knows it)", BOM + b"# coding: utf8\n" + cafe + table, L1
    yield "BOM + line-2 cp1252 declaration", BOM + b"#!/usr/bin/env python3\n# coding: cp1252\n" + cafe + table, L2
    yield "line 1: coding: latin-1", b"# -*- coding: latin-1 -*-\n" + cafe + table, L1
    yield "line 2 after a comment: coding: latin-1", b"#!/usr/bin/env python3\n# -*- coding: latin-1 -*-\n" + cafe + table, L2
    yield "line 2 after a blank line: coding: iso-8859-15", b"\n# coding: iso-8859-15\n" + cafe + table, L2
    yield "line 2 after a form feed and spaces: coding: latin-1", b" \f \n# coding: latin-1\n" + cafe + table, L2
    yield "line 2 after a CRLF comment line: coding: latin-1", b"# comment\r\n# coding: latin-1\r\n" + cafe + table, L2
    yield "line 2 after a code line (Python ignores it)", b"x = 1\n# -*- coding: latin-1 -*-\n" + cafe + table, 0
    yield "line 2 after a backslash line (Python ignores it)", b"\\\n# coding: latin-1\n" + cafe + table, 0
    yield "line 3 (Python ignores it)", b"#!/usr/bin/env python3\n# comment\n# coding: latin-1\n" + cafe + table, 0
    yield "coding=utf8", b"# coding=utf8\n" + cafe + table, L1
    yield "-*- coding: UTF-8 -*-", b"# -*- coding: UTF-8 -*-\n" + cafe + table, L1
    yield "vim: set fileencoding=utf-8 :", b"# vim: set fileencoding=utf-8 :\n" + cafe + table, L1
    yield "coding: utf_8", b"# coding: utf_8\n" + cafe + table, L1
    yield "coding: u8", b"# coding: u8\n" + cafe + table, L1
    yield "coding: utf-8-unix (Emacs)", b"# -*- coding: utf-8-unix -*-\n" + cafe + table, L1
    yield "coding: CP65001", b"#coding:CP65001\n" + cafe + table, L1
    yield "coding: --utf8-- (the registry drops the dashes)", b"# coding: --utf8--\n" + cafe + table, L1
    yield "coding: utf.8 (no codec of that name)", b"# coding: utf.8\n" + cafe + table, L1
    yield "coding: cp1252", b"# coding: cp1252\n" + cafe + table, L1
    yield "coding: utf-7, the issue's attack", b"# -*- coding: utf-7 -*-\n" + attack + table, L1
    yield "coding: utf-16", b"# coding: utf-16\n" + cafe + table, L1
    yield "coding: ascii, pure ASCII", b"# -*- coding: ascii -*-\n" + ascii_note + table, L1
    yield "coding: ascii, a non-ASCII byte", b"# -*- coding: ascii -*-\n" + cafe + table, L1
    yield "coding: us.ascii, pure ASCII", b"# coding: us.ascii\n" + ascii_note + table, L1
    yield "coding: unknown name", b"# coding: no-such-codec\n" + cafe + table, L1
    yield "coding: base64 (not a text encoding)", b"# coding: base64\n" + cafe + table, L1
    yield "second coding on the line: # coding: # coding=latin-1", b"# coding: # coding=latin-1\n" + cafe + table, L1
    yield "Coding: latin-1 (capital C: no declaration)", b"# Coding: latin-1\n" + cafe + table, 0
    yield "coding : latin-1 (space before the colon: no declaration)", b"# coding : latin-1\n" + cafe + table, 0


def sweep_names():
    aliases = encodings.aliases.aliases
    base = set(aliases) | set(aliases.values())
    base |= {m.name for m in pkgutil.iter_modules(encodings.__path__)}
    base |= {"utf-8-sig", "utf8-sig", "utf-8-anything", "latin-1-x", "iso-latin-1", "x-utf8", "utf..8"}
    names = set()
    for n in base:
        for v in (n, n.upper(), n.replace("_", "-"), n.replace("_", "."), "-" + n + "_", n.capitalize()):
            if re.fullmatch(r"[-\w.]+", v, re.ASCII):
                names.add(v)
    return sorted(names)


def is_ascii_codec(name):
    try:
        return codecs.lookup(name).name == "ascii"
    except LookupError:
        return False


def main():
    mode, table_path = sys.argv[1], sys.argv[2]
    table = open(table_path, "rb").read()
    name = os.path.basename(table_path)
    if mode == "write-cases":
        for i, (label, data, line) in enumerate(cases(table), 1):
            os.makedirs("cases/%02d" % i)
            open("cases/%02d/%s" % (i, name), "wb").write(data)
            open("cases/%02d/label" % i, "w").write("%s\t%d\n" % (label, line))
    elif mode == "judge-case":
        d = sys.argv[3]
        data = open("%s/%s" % (d, name), "rb").read()
        label, line = open(d + "/label").read().rstrip("\n").split("\t")
        ok, text, why = expect(data)
        print("== %s: %s" % (d[-2:], label))
        if ok:
            print("python3: reads its UTF-8 text (%s)" % why)
        elif text is not None:
            print("python3: reads another text (%s)" % why)
        else:
            print("python3: refuses it (%s)" % why)
        got = read_validate(d + "/v.txt").get("%s/%s" % (d, name), [None, []])
        rc = int(open(d + "/rc").read())
        if ok:
            verdict = "agrees" if got[0] and rc == 0 else "DISAGREES: tunetab refuses it"
        else:
            lines = [l for l, _ in got[1]]
            if got[0] is not False or rc == 0:
                verdict = "DISAGREES: tunetab accepts it"
            elif not (int(line) and lines and lines[0] == int(line)):
                verdict = "DISAGREES: tunetab's error is not at the declaration, line %s" % line
            else:
                verdict = "agrees, names line %s" % line
        for l, msg in got[1]:
            print("tunetab: line %d: %s" % (l, msg))
        print("[exit %d] %s" % (rc, verdict))
    elif mode == "write-sweep":
        # a one-entry table cut from the generated one keeps the sweep small
        first = table.split(b"\n    ),\n")[0] + b"\n    ),\n}\n"
        forms = ("# -*- coding: %s -*-\n", "# vim: set fileencoding=%s :\n", "#coding=%s\n")
        with open("sweep.tsv", "w") as out:
            for i, n in enumerate(sweep_names()):
                decl = (forms[i % 3] % n).encode()
                if i % 2:
                    decl = b"#!/usr/bin/env python3\n" + decl
                for kind, note in (("u", "note = 'caf\u00e9 +AAo-'\n".encode()), ("a", b"note = 'plain +AAo-'\n")):
                    d = "sweep/%s%d" % (kind, i)
                    os.makedirs(d)
                    open("%s/%s" % (d, name), "wb").write(decl + note + first)
                    out.write("%s\t%s\t%d\n" % (d, n, 2 if i % 2 else 1))
    elif mode == "write-random":
        # the first lines' shapes: comments (holding pieces of declarations), blank lines and
        # code, LF or CRLF (a lone CR, a line break to Python, is refused by tunetab's reader
        # for another reason), a BOM or none; a non-ASCII str after them
        rnd = random.Random(263)
        first = table.split(b"\n    ),\n")[0] + b"\n    ),\n}\n"
        bits = [b" ", b"\t", b"\f", b"#", b"coding", b"coding:", b"coding=", b" coding: ", b"-*-",
                b"utf-8", b"UTF8", b"u8", b"ascii", b"us-ascii", b"-", b"_", b".", b"latin-1",
                b"x = 1", b"\\", b"utf_8_sig", b"cp1252", b"utf-7", b"fileencoding=",
                "\u00e9".encode(), b"vim: set ", b"Coding:", b"ANSI_X3.4-1968", b"--utf8--",
                b"utf-8-x", b"UTF_8", b"ibm367", b"8859", BOM]
        blank = [b"", b" ", b"\t", b"\f", b"  \f "]

        def line():
            r = rnd.random()
            if r < 0.7:
                return rnd.choice(blank) + b"#" + b"".join(rnd.choice(bits) for _ in range(rnd.randint(0, 8)))
            return rnd.choice(blank) if r < 0.85 else b"x = 1"
        with open("random.tsv", "w") as out:
            for i in range(int(sys.argv[3])):
                head = (BOM if rnd.random() < 0.2 else b"") + b"".join(
                    line() + rnd.choice([b"\n", b"\n", b"\r\n"]) for _ in range(rnd.randint(1, 3)))
                d = "random/%d" % i
                os.makedirs(d)
                open("%s/%s" % (d, name), "wb").write(head + "note = 'caf\u00e9'\n".encode() + first)
                out.write("%s\n" % d)
    elif mode == "judge-random":
        got = read_validate("random.txt")
        files = bad = accepted = 0
        for row in open("random.tsv"):
            d = row.rstrip("\n")
            data = open("%s/%s" % (d, name), "rb").read()
            ok, text, why = expect(data)
            g = got.get("%s/%s" % (d, name), [None, []])
            good = g[0] is True if ok else g[0] is False and g[1] and g[1][0][0] in (1, 2)
            files += 1
            accepted += bool(g[0])
            if not good:
                bad += 1
                print("DISAGREES: %r: python3 %s, tunetab %s %s" % (
                    data[:data.index(b"note = ")], "reads its UTF-8 text" if ok else "does not (%s)" % why,
                    "accepts it" if g[0] else "refuses it", g[1][:1]))
        print("random first lines: %d files, %d accepted, %d disagree with python3" % (files, accepted, bad))
    elif mode == "judge-sweep":
        got = read_validate("sweep.txt")
        files = bad = accepted = 0
        for row in open("sweep.tsv"):
            d, n, line = row.rstrip("\n").split("\t")
            data = open("%s/%s" % (d, name), "rb").read()
            ok, text, why = expect(data)
            if d.startswith("sweep/a"):
                # pure ASCII: every ASCII-compatible codec reads the same text; the policy
                # admits only the names Python gives utf_8 (those pass the non-ASCII file) or ascii
                ok = ok and (expect(open("sweep/u%s/%s" % (d[7:], name), "rb").read())[0]
                             or is_ascii_codec(n))
            files += 1
            g = got.get("%s/%s" % (d, name), [None, []])
            if ok:
                good = g[0] is True
            else:
                good = g[0] is False and g[1] and g[1][0][0] == int(line)
            accepted += bool(g[0])
            if not good:
                bad += 1
                print("DISAGREES: '%s' (%s, line %s): python3 %s, tunetab %s %s" % (
                    n, d, line, "reads its UTF-8 text" if ok else "does not (%s)" % why,
                    "accepts it" if g[0] else "refuses it", g[1][:1]))
        print("sweep: %d names, %d files (a non-ASCII and a pure-ASCII table each), %d accepted, "
              "%d disagree with python3" % (files // 2, files, accepted, bad))


main()
PY

python3 oracle.py write-cases "gen/$NAME"
for d in cases/*; do
    rc=0; tunetab validate "$d/$NAME" >"$d/v.txt" 2>&1 || rc=$?
    echo $rc >"$d/rc"
    python3 oracle.py judge-case "gen/$NAME" "$d"
done
python3 oracle.py write-sweep "gen/$NAME"
tunetab validate sweep >sweep.txt 2>&1 || true
python3 oracle.py judge-sweep "gen/$NAME"
python3 oracle.py write-random "gen/$NAME" 3000
tunetab validate random >random.txt 2>&1 || true
python3 oracle.py judge-random "gen/$NAME"
