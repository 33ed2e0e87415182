#!/usr/bin/env python3
"""pylit_oracle.py: prints the Python-oracle tables of test_pylit.c: Python's repr() of tricky
strings and str() of tricky literals, as C initialisers. Written with Python 3.11.7 (Unicode
14.0.0, the version src/base/unicode_np.h was generated from); run it with that Python and
paste its output into test_pylit.c when either list changes."""
import sys
import unicodedata
import warnings

warnings.simplefilter("ignore")  # '\z', '\q': invalid escapes are kept, with a warning
if unicodedata.unidata_version != "14.0.0":
    sys.exit("pylit_oracle.py: needs Unicode 14.0.0 (Python 3.11), not " + unicodedata.unidata_version)

def c(b):
    if isinstance(b, str): b = b.encode('utf-8')
    out = '"'
    for x in b:
        ch = chr(x)
        if ch == '"' or ch == '\\': out += '\\' + ch
        elif 0x20 <= x < 0x7f: out += ch
        else: out += '\\%03o' % x
    return out + '"'
def cu(s):
    # C literal keeping printable non-ASCII as UTF-8 text
    out = '"'
    for ch in s:
        if ch == '"' or ch == '\\': out += '\\' + ch
        elif 0x20 <= ord(ch) < 0x7f: out += ch
        elif ord(ch) >= 0xa0 and ch.isprintable(): out += ch
        else:
            for x in ch.encode('utf-8'): out += '\\%03o' % x
    return out + '"'
strs = ["", "plain", "it's", 'say "hi"', "both ' and \"", "'", '"', "\\", "back\\slash 'q'",
 "\t\n\r", "\x00\x01\x07\x08\x0b\x0c\x1b\x1f", "\x7f", "\x80\x85\x9f", "\xa0", "\xa1\xa9\xad\xae\xff",
 "caf\u00e9", "e\u0301", "\u0378", "\u05d0\u05d1", "\u200b\u200e\u2028\u2029\u2060", "\u3000", "\u4e2d\u6587",
 "\ue000", "\uf8ff", "\ufeff", "\ufffd", "\uffff", "\U0001F600", "\U0001F9FF", "\U0001FAF8", "\U000E0001", "\U000E0100",
 "\U0010FFFF", "\U00020000", "\u0600", "\u061c", "\u1680", "\u180e", "\u2000", "\u202f", "\u205f", "\ud7ff",
 "mix \x00 'é' \"\U0001F600\" \\n", "\u00ad\u034f\u061c\u115f\u17b4", "\u0ebd\u0ebe"]
print("/* py_str_repr: input (UTF-8), Python's repr() */")
for s in strs:
    print("\t{ %s, %d, %s }," % (c(s), len(s.encode('utf-8')), cu(repr(s))))
# the literals are the comment lines after the marker at the end of this file, "%%" between
with open(__file__, encoding="utf-8") as f:
    own = f.read()
body = own[own.index("\n# --- literals ---\n") + 20:]
lits = "\n".join(l[2:] for l in body.rstrip("\n").split("\n")).split("\n%%\n")
print("/* literals: text, Python's str() of eval(text) */")
for l in lits:
    try: v = str(eval(l))
    except Exception as e: v = 'ERR %r' % e
    print("\t{ %s, %s }," % (cu(l), cu(v)))

# --- literals ---
# (1, 'a', ("b",), [], {}, (), [()], {1: (2,)}, None, True, False)
# %%
# {'k': [1, -2, 0x1F], "v": {'n': None}, (1, 2): 'x'}
# %%
# ('a' "b" 'c', '''tri'ple''', """do"uble""", r'raw\n', R"\q", U'up', r'\'', r"a\"b")
# %%
# (
#   1,  # one
#   2,
# )
# %%
# ['\x41\101\u0041\U00000041', '\0', '\12', '\777', '\1234', '\177']
# %%
# ('\a\b\f\v', '\z', 'line\
# cont', '''two
# lines''', "\'\"")
# %%
# [-0, +5, - 3, 0_0, 1_000_000, 0XfF, 0O7_7, 0B1_0, -9223372036854775807, 9223372036854775807]
# %%
# (('\u00e9',), "\U0001f600", '\u00a0', 'a\tb', "it's", '"', '\xad\u200b')
# %%
# {(1,): [{}], 'é': ('\U0010ffff',)}
