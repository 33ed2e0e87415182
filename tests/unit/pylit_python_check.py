#!/usr/bin/env python3
"""pylit_python_check.py: Python 3 as the oracle for test_pylit.c's module tables: every module
in pylit_module_python_rejects must fail ast.parse (a SyntaxError, printed with Python's line
and offset beside the position the test expects from tunetab), every one in
pylit_module_python_accepts must parse. Run from the repository root; exits 1 on a mismatch."""
import ast
import re
import sys
import warnings

warnings.simplefilter("ignore")
SRC = "tests/unit/test_pylit.c"
ESC = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def c_bytes(lits):
    """The bytes of adjacent C string literals (the escapes the tests use)."""
    out = bytearray()
    for lit in lits:
        i = 0
        while i < len(lit):
            ch = lit[i]
            if ch != "\\":
                out += ch.encode("utf-8")
                i += 1
                continue
            e = lit[i + 1]
            if e == "x":
                m = re.match(r"[0-9a-fA-F]+", lit[i + 2:])
                out.append(int(m.group(0), 16) & 0xFF)
                i += 2 + len(m.group(0))
            else:
                out += ESC[e].encode()
                i += 2
    return bytes(out)


def body(text, name):
    start = text.index("TEST(%s)" % name)
    return text[start:text.index("\nTEST(", start + 1)]


LIT = r'"((?:[^"\\]|\\.)*)"'
text = open(SRC, encoding="utf-8").read()
bad = 0
for m in re.finditer(r"BAD\(((?:\s*%s)+),\s*(\d+),\s*(\d+)," % LIT, body(text, "pylit_module_python_rejects")):
    src = c_bytes(re.findall(LIT, m.group(1)))
    want = "%s:%s" % (m.group(len(m.groups()) - 1), m.group(len(m.groups())))
    try:
        ast.parse(src)
        print("ACCEPTED %-40r tunetab %s" % (src, want))
        bad += 1
    except (SyntaxError, ValueError) as e:
        at = "%s:%s" % (getattr(e, "lineno", None), getattr(e, "offset", None))
        print("rejects  %-40r python %-7s tunetab %-7s %s" % (src, at, want, "" if at == want else "(differs)"))
block = body(text, "pylit_module_python_accepts")
block = block[block.index("ok[] = {"):block.index("};")]
for line in block.splitlines()[1:]:
    lits = re.findall(LIT, line.split("/*")[0])
    if not lits:
        continue
    src = c_bytes(lits)
    try:
        ast.parse(src)
        print("parses   %r" % src)
    except SyntaxError as e:
        print("REJECTED %r: %s" % (src, e))
        bad += 1
sys.exit(1 if bad else 0)
