#!/usr/bin/env python3
"""layers.py [ROOT]: the layer rules of src/ (docs/development.md "Architecture", STYLE.md "Shape of the
program"), checked on the text of every .c, .h and .cu file. One line "FILE:LINE: rule: what"
per breach, then "layers: N breaches"; exit 1 when there is any.

  output   only the cmd layer (src/cmd/, src/cmd.c) and src/main.c write to stdout/stderr
  lua      only src/script/ includes <lua.h>, <lauxlib.h>, <lualib.h>
  yaml     only src/data/ includes <cyaml/cyaml.h> or data/yamlload.h (the libcyaml boundary)
  cuda     only src/gpu/ includes CUDA headers (cuda.h, cuda_runtime*.h, cublas*.h)
  layer    a folder includes only from itself and the folders below it, in LAYERS' order;
           every file under src/ belongs to a layer (a new folder must be placed in LAYERS)

A file at src/'s top level named after a layer belongs to it (src/cmd.c and src/cmd.h, the
command table, are the cmd layer); src/main.c sits above every layer. A quoted include is
resolved as the compiler does (the including file's folder first, then -Isrc), so "cmd.h"
names src/cmd.h.
"""
import os
import re
import sys

# lowest first; src/main.c sits above them all. deployment: what the server computes (#46), below
# tune/ and deploy/, which build on it, and above ops/, which it may use.
LAYERS = ["base", "gpu", "data", "script", "flashinfer", "ops", "deployment", "inspect", "tune",
          "deploy", "cmd"]

# Where library code may still write to stdout/stderr, each for its reason. (path, a regular
# expression the line must match): a line that matches is allowed, nothing else in the file is.
OUTPUT_EXCEPTIONS = [
    # The worker's line protocol: `tunetab __worker` runs as a child process and answers its
    # parent on stdout (START/DEV/RES/END/ERR lines); its stderr is the worker's trace (the
    # TUNETAB_PROF_TIMING and TUNETAB_LT_DUMP lines of gpu_trace), which the parent passes on.
    ("src/tune/worker.c", r".*"),
    # The one out-of-memory message: oom() aborts; there is no caller left to return to.
    ("src/base/util.c", r'fputs\("tunetab: error: out of memory\\n", stderr\);'),
    # A broken invariant (BUG()): like oom(), it aborts; the message is for the bug report.
    ("src/base/util.c", r'fprintf\(stderr, "tunetab: BUG: %s:%d: %s\\n", file, line, msg\);'),
    # The SIGINT/SIGTERM handler of a file set (write_file_atomic's staging) says why it exits
    # from inside the handler, where only write(2) is async-signal-safe.
    ("src/base/util.c", r"ssize_t ignored = write\(2, msg, sizeof msg - 1\);"),
]

# functions that write to stdout or stderr by themselves
IMPLICIT = re.compile(r"\b(printf|vprintf|puts|putchar|perror|psignal)\s*\(")
# the streams and descriptors by name
STREAMS = re.compile(r"\b(stdout|stderr|STDOUT_FILENO|STDERR_FILENO)\b")
# write(2, ...), dprintf(1, ...)
RAW_FD = re.compile(r"\b(write|dprintf|vdprintf)\s*\(\s*[12]\s*,")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
LUA = re.compile(r"(^|/)(lua|lauxlib|lualib|luaconf)\.h$")
YAML = re.compile(r"^(cyaml/cyaml\.h|data/yamlload\.h)$")
CUDA = re.compile(r"(^|/)(cuda|cuda_runtime\w*|cublas\w*|cuda_\w+)\.h$")


def strip_code(text):
    """The text with comments and string/char literals blanked (newlines kept), so that a
    word in a comment or a message is not taken for code."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def folder_of(rel):
    """The layer a file under src/ belongs to: its folder, or for a file at src/'s top level
    the layer it is named after (src/cmd.c: "cmd"); "" for src/main.c and any other."""
    parts = rel.split("/")
    if len(parts) == 3:
        return parts[1]
    if len(parts) == 2 and parts[0] == "src":
        stem = os.path.splitext(parts[1])[0]
        return stem if stem in LAYERS else ""
    return ""


def layer_of(rel):
    """Rank of the file's layer in LAYERS (main.c above them all), None outside them."""
    if rel == "src/main.c":
        return len(LAYERS)
    folder = folder_of(rel)
    return LAYERS.index(folder) if folder in LAYERS else None


def included(root, rel, name):
    """The src/-relative path a quoted include names: next to the including file when it is
    there, else under src/ (-Isrc)."""
    here = os.path.normpath(os.path.join(os.path.dirname(rel), name))
    if os.path.isfile(os.path.join(root, here)):
        return here
    return os.path.normpath(os.path.join("src", name))


def check_file(root, rel, breaches):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    raw = text.split("\n")
    code = strip_code(text).split("\n")
    folder = folder_of(rel)
    printer = rel == "src/main.c" or folder == "cmd"
    rank = layer_of(rel)

    def breach(lineno, rule, what):
        breaches.append("%s:%d: %s: %s" % (rel, lineno, rule, what))

    if rank is None:
        breach(1, "layer", "%s is in no layer (place its folder in tests/layers.py's LAYERS)"
               % rel)

    for k, line in enumerate(raw):
        lineno = k + 1
        m = INCLUDE.match(line)
        if m:
            name = m.group(2)
            if LUA.search(name) and folder != "script":
                breach(lineno, "lua", "includes %s outside src/script/" % name)
            if YAML.match(name) and folder != "data":
                breach(lineno, "yaml", "includes %s outside src/data/" % name)
            if CUDA.search(name) and folder != "gpu":
                breach(lineno, "cuda", "includes %s outside src/gpu/" % name)
            top = folder_of(included(root, rel, name)) if m.group(1) == '"' else None
            if top in LAYERS and rank is not None and LAYERS.index(top) > rank:
                breach(lineno, "layer", "%s includes %s from the layer above it (%s)"
                       % ("src/main.c" if rank == len(LAYERS) else folder, name, top))
            continue
        if printer:
            continue
        c = code[k]
        hit = IMPLICIT.search(c) or STREAMS.search(c) or RAW_FD.search(c)
        if not hit:
            continue
        if any(rel == path and re.search(rx, line) for path, rx in OUTPUT_EXCEPTIONS):
            continue
        breach(lineno, "output", "writes to stdout/stderr outside src/cmd/: %s" % line.strip())


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = []
    for dirpath, _, names in os.walk(os.path.join(root, "src")):
        for name in names:
            if name.endswith((".c", ".h", ".cu")):
                files.append(os.path.relpath(os.path.join(dirpath, name), root))
    files.sort()
    breaches = []
    for rel in files:
        check_file(root, rel, breaches)
    for b in breaches:
        print(b)
    print("layers: %d breach%s" % (len(breaches), "" if len(breaches) == 1 else "es"))
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
