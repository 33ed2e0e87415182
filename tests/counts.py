#!/usr/bin/env python3
"""counts.py [--brief] [--no-duplicates] [ROOT]: the counts of issue 46's "Done when", measured on the source. One line per
count, "NAME: N (limit L)" and " OVER" when N is over L, each followed by what makes it up, one
indented line each (FILE:LINE where there is a line); then "counts: N over their limits". Every
count is printed, whichever fail; exit 1 when any is over. Sibling of layers.py.

  finalize   struct members that carry the fused-finalize flag, outside src/data/: at most 4 (the
             deployment's value and why, the key, the GPU shape). A member counts when its name,
             lower-cased, contains "finalize" (fused_finalize, no_fused_finalize,
             fused_finalize_set, fused_finalize_from, finalize) or one of its '_'-separated words
             is "ff" (install_job.ff; "diff" or "off" are not). Members are those of every
             struct and union definition (`struct NAME {`, `struct {`, nested ones included) in
             src/**/*.h and src/**/*.c, comments and strings left out; each declarator counts on
             its own (`char *a, *fused_finalize;` is one). Enum constants, locals, parameters
             and functions are not members.
  cmd-lines  every src/cmd/*.c at most 400 lines
  install    src/cmd/install.c at most 300 lines
  jansson    no `#include <jansson.h>` in src/deployment/, src/deploy/, src/ops/, src/gpu/,
             src/script/ (data/ reads config.json and keeps jansson inside its .c files)
  json_t     no `json_t` (code, not comments) in a .h outside src/flashinfer/ and src/cmd/ (the
             command layer's output helper)
  duplicates real pairs `duplicates --repo src` lists (the tool of /work/.library/duplicates):
             at most 3. A real pair is one the tool does not mark boilerplate (what it shares is
             thin, punctuation and keywords, or a shape that recurs across a folder: libcyaml
             field lists, getopt loops); the line says how many it marks so. Not on PATH:
             said, and not counted as over.
  layers     breaches of tests/layers.py: 0
  cli-help   functions of src/cmd/cli.c called in src/cmd/help.c and of help.c called in cli.c:
             not both ways (a circle)
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers  # noqa: E402  (tests/layers.py: strip_code and the layer check)

FINALIZE_LIMIT = 4
CMD_LINES_LIMIT = 400
INSTALL_LINES_LIMIT = 300
JANSSON_FREE = ["deployment", "deploy", "ops", "gpu", "script"]
JSON_T_ALLOWED = ["flashinfer", "cmd"]
DUPLICATES_LIMIT = 3
DUPLICATES_SECONDS = 120


def sources(root, exts):
    out = []
    for dirpath, dirs, names in os.walk(os.path.join(root, "src")):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(exts):
                out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(out)


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


# --- finalize -----------------------------------------------------------------------------

AGGREGATE = re.compile(r"\b(struct|union)\s+(\w+\s*)?\{")


def finalize_name(name):
    low = name.lower()
    return "finalize" in low or "ff" in low.split("_")


def closing(code, i):
    """Index of the '}' that closes the '{' at code[i]."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def declarator_name(d):
    """The name a member declarator declares: `*name`, `name[N]`, `name : 3`, `(*name)(...)`."""
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)", d)
    if m:
        return m.group(1)
    d = re.sub(r"\[[^\]]*\]", "", d)
    d = d.split(":")[0]
    words = re.findall(r"[A-Za-z_]\w*", d)
    return words[-1] if words else None


def split_top(text, sep):
    """text split at sep outside (), [] and {}."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append((start, text[start:i]))
            start = i + 1
    parts.append((start, text[start:]))
    return parts


def members(code, lo, hi, struct, out):
    """(offset, struct, name) for each member declared in code[lo:hi] (a struct's body);
    nested struct/union bodies are walked as members of their own (or the outer) struct."""
    body = code[lo:hi]
    for start, decl in split_top(body, ";"):
        off = lo + start
        m = AGGREGATE.search(decl)
        if m:  # a nested struct/union: its members, then the declarators after its '}'
            open_at = off + m.end() - 1
            close_at = closing(code, open_at)
            inner = (m.group(2) or "").strip() or struct
            members(code, open_at + 1, close_at, inner, out)
            decl_rest, rest_off = code[close_at + 1:off + len(decl)], close_at + 1
        else:
            decl_rest, rest_off = decl, off
        # the type is the first declarator's prefix; every declarator names one member
        for dstart, d in split_top(decl_rest, ","):
            if not d.strip() or d.strip().startswith("#"):
                continue
            name = declarator_name(d)
            if name:
                out.append((rest_off + dstart + len(d) - len(d.lstrip()), struct, name))


def finalize_members(root):
    found = []
    for rel in sources(root, (".c", ".h")):
        if rel.startswith("src/data/"):
            continue
        text = read(root, rel)
        code = layers.strip_code(text)
        # preprocessor lines are not declarations
        code = re.sub(r"(?m)^[ \t]*#.*$", lambda m: " " * len(m.group(0)), code)
        pos = 0
        while True:
            m = AGGREGATE.search(code, pos)
            if not m:
                break
            open_at = m.end() - 1
            close_at = closing(code, open_at)
            # a struct defined inside another is walked with its outer one
            name = (m.group(2) or "").strip() or "(anonymous)"
            got = []
            members(code, open_at + 1, close_at, name, got)
            for off, struct, member in got:
                if finalize_name(member):
                    line = code.count("\n", 0, off) + 1
                    found.append("%s:%d: struct %s: %s" % (rel, line, struct, member))
            pos = close_at + 1
    return found


# --- the other counts ---------------------------------------------------------------------

def line_count(root, rel):
    return read(root, rel).count("\n")


def cmd_files(root):
    over = []
    for rel in sources(root, (".c",)):
        if os.path.dirname(rel) == "src/cmd":
            n = line_count(root, rel)
            if n > CMD_LINES_LIMIT:
                over.append("%s: %d lines" % (rel, n))
    return over


def jansson_includes(root):
    out = []
    for rel in sources(root, (".c", ".h", ".cu")):
        if layers.folder_of(rel) not in JANSSON_FREE:
            continue
        for k, line in enumerate(read(root, rel).split("\n")):
            m = layers.INCLUDE.match(line)
            if m and m.group(2) == "jansson.h":
                out.append("%s:%d: %s" % (rel, k + 1, line.strip()))
    return out


def json_t_headers(root):
    out = []
    for rel in sources(root, (".h",)):
        if layers.folder_of(rel) in JSON_T_ALLOWED:
            continue
        text = read(root, rel)
        for k, line in enumerate(layers.strip_code(text).split("\n")):
            if re.search(r"\bjson_t\b", line):
                out.append("%s:%d: %s" % (rel, k + 1, text.split("\n")[k].strip()))
    return out


def duplicates(root):
    """(pairs, a note, rows) from `duplicates --repo src`; pairs None when it did not run."""
    exe = shutil.which("duplicates")
    if not exe:
        return None, "not counted: the duplicates command is not on PATH", []
    try:
        r = subprocess.run([exe, "--repo", "src", "--most", "200", "--seconds",
                            str(DUPLICATES_SECONDS)], cwd=root, capture_output=True, text=True,
                           timeout=DUPLICATES_SECONDS + 60)
    except (OSError, subprocess.SubprocessError) as e:
        return None, "not counted: %s" % e, []
    lines = r.stdout.splitlines()
    rows = [x for x in lines if re.match(r"D\d+ ", x)]
    incomplete = [x for x in lines if x.startswith("incomplete:")]
    head = lines[0] if lines else ""
    if head.startswith("no duplicates"):
        return 0, "", incomplete
    m = re.match(r"(\d+) pairs? ", head)
    if not m:
        return None, "not counted: cannot read its first line %r" % head, lines[:5]
    boiler = re.search(r"(\d+) of those marked boilerplate", head)
    nboiler = int(boiler.group(1)) if boiler else 0
    note = "of %d, %d marked boilerplate by the tool" % (int(m.group(1)), nboiler)
    if incomplete:
        note += "; " + "; ".join(incomplete)
    real = [x for x in rows if not x.endswith("boilerplate") and "boilerplate (" not in x]
    return int(m.group(1)) - nboiler, note, real + incomplete


def c_functions(text):
    """Names of the functions a .c file defines with external linkage."""
    code = layers.strip_code(text)
    names = set()
    for m in re.finditer(r"(?m)^(?!static\b)[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{]*\)\s*\{", code):
        if m.group(1) not in ("if", "for", "while", "switch", "return", "sizeof"):
            names.add(m.group(1))
    return names


def calls(text, names):
    code = layers.strip_code(text)
    return sorted(n for n in names if re.search(r"\b%s\s*\(" % re.escape(n), code))


def cli_help_circle(root):
    a, b = "src/cmd/cli.c", "src/cmd/help.c"
    if not all(os.path.isfile(os.path.join(root, p)) for p in (a, b)):
        return 0, []
    ta, tb = read(root, a), read(root, b)
    fa, fb = c_functions(ta), c_functions(tb)
    a_uses_b = calls(ta, fb - fa)
    b_uses_a = calls(tb, fa - fb)
    info = ["cli.c calls help.c's: %s" % (", ".join(a_uses_b) or "none"),
            "help.c calls cli.c's: %s" % (", ".join(b_uses_a) or "none")]
    return (1 if a_uses_b and b_uses_a else 0), info


def main():
    args = sys.argv[1:]
    brief = "--brief" in args                # the counts alone (tests/cli/200: no line numbers)
    no_dup = "--no-duplicates" in args       # make test: the duplicates tool's rows vary by run
    rest = [a for a in args if not a.startswith("--")]
    root = rest[0] if rest else "."
    over = 0

    def report(name, n, limit, detail):
        nonlocal over
        bad = n is not None and n > limit
        over += bad
        print("%s: %s (limit %d)%s" % (name, "-" if n is None else n, limit, " OVER" if bad else ""))
        for d in [] if brief else detail:
            print("  " + d)

    fin = finalize_members(root)
    report("finalize flag in struct members outside src/data/", len(fin), FINALIZE_LIMIT, fin)
    big = cmd_files(root)
    report("src/cmd/*.c over %d lines" % CMD_LINES_LIMIT, len(big), 0, big)
    inst = os.path.join(root, "src/cmd/install.c")
    report("src/cmd/install.c lines", line_count(root, "src/cmd/install.c")
           if os.path.isfile(inst) else 0, INSTALL_LINES_LIMIT, [])
    jan = jansson_includes(root)
    report("<jansson.h> included in src/{%s}/" % ",".join(JANSSON_FREE), len(jan), 0, jan)
    jt = json_t_headers(root)
    report("json_t in headers outside src/{%s}/" % ",".join(JSON_T_ALLOWED), len(jt), 0, jt)
    if not no_dup:
        pairs, note, rows = duplicates(root)
        report("duplicates --repo src real pairs%s" % (" (%s)" % note if note else ""), pairs,
               DUPLICATES_LIMIT, rows)
    br = []
    for rel in sources(root, (".c", ".h", ".cu")):
        layers.check_file(root, rel, br)
    report("layers.py breaches", len(br), 0, br)
    circle, info = cli_help_circle(root)
    report("circles between src/cmd/cli.c and src/cmd/help.c", circle, 0, info)
    print("counts: %d over their limits" % over)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
