#!/usr/bin/env python3
"""bad_inputs.py TUNETAB [--markdown FILE] [--root DIR] [-v]

Runs every malformed or hostile input of the table below against a tunetab binary and
checks, for each: the exit code is the expected one of the documented codes (docs/exit-codes.md,
"Exit codes") and not a signal; there is a clear error line (`tunetab: error: ...`, or for
`validate` a finding line `FILE:LINE:COL: error: ...`); stderr holds no sanitizer report;
no output file is left behind where an output folder or file was given.

Inputs come from the existing corpora (tests/data/tables, tests/data/yaml, tests/data/scripts,
tests/data/logs), from tests/data/bad/<reader>/<name>, and from generators below for what
is too big to commit (oversized files are sparse, deep nesting, long lines, huge entry
counts). Prints one line per case and `bad inputs: N cases, N ok, N failed`; --markdown FILE
writes the table `| # | reader | input | command | exit | first error line |`.
"""
import concurrent.futures
import glob
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time

SAN_MARKS = ("AddressSanitizer", "runtime error:", "LeakSanitizer", "UndefinedBehaviorSanitizer")
CASE_TIMEOUT = 60

K3 = ("('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2048), (128, 1536, 2048), (0,), "
      "(128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 0, 1, 0, "
      "1, 0, False, False, False, False, False, False, True, 3, False, True))")
PYN = "v0_1_trtllm_fused_moe_NVIDIA_H200.py"
JSN = "flashinfer_autotune_NVIDIA_H200.json"
GEN = ["generate", "--device", "h200", "--model", "qwen3-30b-a3b", "--dtype", "bf16", "-q"]
VAL = ["validate", "--flashinfer", "0.7.4", "--device", "h200"]


# ------------------------------------------------------------------ generators
def w(path, data):
    with open(path, "wb") as f:
        f.write(data)


def sparse(path, size):
    with open(path, "wb") as f:
        f.truncate(size)


def py_entries(n):
    body = "".join('    "k%d": (0, 1),\n' % i for i in range(n))
    return ("best_configs = {\n" + body + "}\n").encode()


def json_entries(n):
    body = ",\n".join('  "k%d": ["MoERunner", 1]' % i for i in range(n))
    return ("{\n" + body + "\n}\n").encode()


def yaml_deep(top, n):
    return (top + ":\n  x: " + "[" * n + "]" * n + "\n").encode()


def symlink_loop(t, name):
    p = os.path.join(t, name)
    os.symlink(p + ".b", p)
    os.symlink(p, p + ".b")


def unreadable(t, name, data=b"x\n"):
    p = os.path.join(t, name)
    w(p, data)
    os.chmod(p, 0)


# ------------------------------------------------------------------ the cases
# (reader, input, args, expected exit, setup, output path that must not exist afterwards)
# args: {B} tests/data/bad, {R} the checkout, {T} this case's scratch folder, {O} {T}/out.
CASES = []


def case(reader, what, args, rc, setup=None, out=None, user=None, stdin=None):
    CASES.append(dict(reader=reader, what=what, args=args, rc=rc, setup=setup, out=out, user=user, stdin=stdin))


def corpora(root):
    # broken tables of tests/data/tables (validate with their args)
    for d in sorted(glob.glob(os.path.join(root, "tests/data/tables/*/"))):
        name = os.path.basename(d.rstrip("/"))
        if name.startswith("ok-") or "[exit 0]" in open(os.path.join(d, "expected")).read():
            continue  # valid tables, or findings that are warnings and notes only
        f = [x for x in sorted(os.listdir(d)) if x not in ("args", "expected")][0]
        args = open(os.path.join(d, "args")).read().split() if os.path.exists(os.path.join(d, "args")) else []
        reader = "table-json" if f.endswith(".json") else "table-py"
        case(reader, "tables/" + name, ["validate"] + args + ["{R}/tests/data/tables/%s/%s" % (name, f)], 1)
    # broken YAML data files (check-data)
    for f in sorted(glob.glob(os.path.join(root, "tests/data/yaml/*.yaml"))):
        want = open(f[:-5] + ".expected").read()
        if "[exit 0]" in want:
            continue
        case("yaml-data", "yaml/" + os.path.basename(f), ["check-data", "{R}/tests/data/yaml/" + os.path.basename(f)],
             2 if "[exit 2]" in want else 1)
    # hostile heuristics (generate --heuristic), as tests/cli/022
    for s in ["loop", "membomb", "os_execute", "io_open", "require", "dofile", "dump", "bytecode",
              "syntax", "runtime_error", "bad_id", "no_register"]:
        case("lua", "scripts/%s.lua" % s, GEN + ["-o", "{O}", "--heuristic", "{R}/tests/data/scripts/%s.lua" % s,
                                                 "--script-mem", "16", "--script-instructions", "5000000"], 3, out="{O}")
    case("log", "logs/corrupt.log.gz", ["scan-log", "{R}/tests/data/logs/corrupt.log.gz"], 5)


def table_cases():
    for d in ["nul-byte", "invalid-utf8", "truncated", "empty", "bom-only", "best-configs-int", "value-string",
              "tactic-huge-int", "unterminated-string", "bad-escape", "lone-surrogate", "import-os", "lambda",
              "tabs-mixed"]:
        case("table-py", "bad/table-py/" + d, VAL + ["{B}/table-py/%s/%s" % (d, PYN)], 1)
    for d in ["empty", "open-brace", "nul-byte", "invalid-utf8", "trailing-garbage", "number-overflow",
              "int-overflow", "top-level-string", "truncated", "value-object", "escaped-nul-key",
              "lone-surrogate", "single-quotes"]:
        case("table-json", "bad/table-json/" + d, VAL + ["{B}/table-json/%s/cache.json" % d], 1)
    # generated: size, depth, line length, entry count, file kinds
    case("table-py", "oversized module (300 MiB, sparse)", VAL + ["{T}/" + PYN], 1,
         lambda t: sparse(os.path.join(t, PYN), 300 << 20))
    case("table-json", "oversized cache (300 MiB, sparse)", VAL + ["{T}/" + JSN], 1,
         lambda t: sparse(os.path.join(t, JSN), 300 << 20))
    case("table-py", "nesting 100000 deep", VAL + ["{T}/" + PYN], 1,
         lambda t: w(os.path.join(t, PYN), b"best_configs = " + b"[" * 100000 + b"]" * 100000 + b"\n"))
    case("table-py", "key nesting 100000 deep", VAL + ["{T}/" + PYN], 1,
         lambda t: w(os.path.join(t, PYN), b'best_configs = {"' + b"(" * 100000 + b'": (0, 1)}\n'))
    case("table-json", "nesting 100000 deep", VAL + ["{T}/" + JSN], 1,
         lambda t: w(os.path.join(t, JSN), b'{"k": ' + b"[" * 100000 + b"]" * 100000 + b"}\n"))
    case("table-json", "nesting 3000 deep", VAL + ["{T}/" + JSN], 1,
         lambda t: w(os.path.join(t, JSN), b'{"k": ' + b"[" * 3000 + b"]" * 3000 + b"}\n"))
    case("table-py", "one 20 MB line (key)", VAL + ["{T}/" + PYN], 1,
         lambda t: w(os.path.join(t, PYN), b'best_configs = {"' + b"x" * (20 << 20) + b'": (0, 1)}\n'))
    case("table-json", "one 20 MB line (key)", VAL + ["{T}/" + JSN], 1,
         lambda t: w(os.path.join(t, JSN), b'{"' + b"x" * (20 << 20) + b'": ["MoERunner", 1]}\n'))
    case("table-py", "200001 entries", VAL + ["{T}/" + PYN], 1,
         lambda t: w(os.path.join(t, PYN), py_entries(200001)))
    case("table-json", "200001 entries", VAL + ["{T}/" + JSN], 1,
         lambda t: w(os.path.join(t, JSN), json_entries(200001)))
    case("table-py", "directory instead of file", VAL + ["{T}/" + PYN], 1,
         lambda t: os.mkdir(os.path.join(t, PYN)))
    case("table-py", "missing file", VAL + ["{T}/" + PYN], 1)
    case("table-py", "symlink loop", VAL + ["{T}/" + PYN], 1, lambda t: symlink_loop(t, PYN))
    case("table-py", "unreadable (mode 000, as uid 65534)", VAL + ["{T}/" + PYN], 5,
         lambda t: unreadable(t, PYN), user=65534)
    case("table-json", "/dev/null", VAL + ["/dev/null"], 1)
    case("table-py", "/dev/zero (endless, not a regular file)", VAL + ["/dev/zero"], 1)
    # the same reader behind explain, diff and convert
    case("table-py", "explain: truncated module", ["explain", "--flashinfer", "0.7.4", "{B}/table-py/truncated/" + PYN], 1)
    case("table-json", "diff: truncated cache", ["diff", "{B}/table-json/truncated/cache.json",
                                                "{B}/table-json/truncated/cache.json"], 1)
    case("table-json", "convert: invalid UTF-8, -o FILE", ["convert", "{B}/table-json/invalid-utf8/cache.json",
                                                          "-o", "{O}"], 1, out="{O}")
    case("table-py", "convert: NUL byte, -o FILE", ["convert", "{B}/table-py/nul-byte/" + PYN, "-o", "{O}"], 1, out="{O}")


def key_cases():
    for k in ["empty", "comments-only", "nul-byte", "invalid-utf8", "not-a-tuple", "unclosed", "non-canonical",
              "unknown-op", "three-tuple", "json-line", "bad-shapes"]:
        case("keys", "bad/keys/%s.keys" % k, ["generate", "--device", "h200", "--dtype", "bf16", "-q",
                                              "--keys", "{B}/keys/%s.keys" % k, "-o", "{O}"], 1, out="{O}")
    kg = ["generate", "--device", "h200", "--dtype", "bf16", "-q", "--keys", "{T}/k.keys", "-o", "{O}"]
    case("keys", "oversized key file (100 MiB, sparse)", kg, 1, lambda t: sparse(os.path.join(t, "k.keys"), 100 << 20), out="{O}")
    case("keys", "one 1 MiB line", kg, 1, lambda t: w(os.path.join(t, "k.keys"), b"(" + b"'x', " * (1 << 18) + b")\n"), out="{O}")
    case("keys", "key nested 5000 deep", kg, 1, lambda t: w(os.path.join(t, "k.keys"), b"(" * 5000 + b"\n"), out="{O}")
    case("keys", "20001 keys", kg, 1, lambda t: w(os.path.join(t, "k.keys"), (K3 + "\n").encode() * 20001), out="{O}")
    case("keys", "directory instead of file", kg, 1, lambda t: os.mkdir(os.path.join(t, "k.keys")), out="{O}")
    case("keys", "missing file", kg, 1, out="{O}")
    case("keys", "/dev/zero (endless)", kg[:-3] + ["/dev/zero", "-o", "{O}"], 1, out="{O}")
    case("keys", "symlink loop", kg, 1, lambda t: symlink_loop(t, "k.keys"), out="{O}")
    case("keys", "unreadable (mode 000, as uid 65534)", kg, 1, lambda t: unreadable(t, "k.keys", (K3 + "\n").encode()),
         out="{O}", user=65534)


def yaml_cases():
    gd = ["generate", "--model", "qwen3-30b-a3b", "--dtype", "bf16", "-q", "-o", "{O}", "--device"]
    for y in ["empty", "nul-byte", "invalid-utf8", "sequence", "sm-count-string", "truncated", "billion-laughs",
              "two-documents", "tabs"]:
        case("yaml-device", "bad/yaml-device/%s.yaml" % y, gd + ["{B}/yaml-device/%s.yaml" % y], 1, out="{O}")
    case("yaml-device", "oversized (10 MiB, sparse)", gd + ["{T}/d.yaml"], 1, lambda t: sparse(os.path.join(t, "d.yaml"), 10 << 20), out="{O}")
    case("yaml-device", "nesting 100000 deep", gd + ["{T}/d.yaml"], 1, lambda t: w(os.path.join(t, "d.yaml"), yaml_deep("device", 100000)), out="{O}")
    case("yaml-device", "one 3 MiB line", gd + ["{T}/d.yaml"], 1,
         lambda t: w(os.path.join(t, "d.yaml"), b"device:\n  id: d\n  name: \"" + b"x" * (3 << 20) + b"\"\n"), out="{O}")
    case("yaml-device", "directory instead of file", gd + ["{T}/d.yaml"], 1, lambda t: os.mkdir(os.path.join(t, "d.yaml")), out="{O}")
    case("yaml-device", "missing file", gd + ["{T}/d.yaml"], 1, out="{O}")
    case("yaml-device", "symlink loop", gd + ["{T}/d.yaml"], 1, lambda t: symlink_loop(t, "d.yaml"), out="{O}")
    gm = ["generate", "--device", "h200", "--dtype", "bf16", "-q", "-o", "{O}", "--model"]
    for y in ["empty", "hidden-string", "huge-number", "topk-over-experts", "device-doc", "nul-byte", "anchor-loop"]:
        # a model size out of range is an input error (#48 item 4: exit 2)
        case("yaml-model", "bad/yaml-model/%s.yaml" % y, gm + ["{B}/yaml-model/%s.yaml" % y],
             2 if y == "topk-over-experts" else 1, out="{O}")
    case("yaml-model", "20000 sequence entries", gm + ["{T}/m.yaml"], 1,
         lambda t: w(os.path.join(t, "m.yaml"), b"model:\n  aliases:\n" + b"    - a\n" * 20000), out="{O}")
    case("yaml-model", "unreadable (mode 000, as uid 65534)", gm + ["{T}/m.yaml"], 5,
         lambda t: unreadable(t, "m.yaml", open(os.path.join(ROOT, "configs/models/qwen3-30b-a3b.yaml"), "rb").read()),
         out="{O}", user=65534)
    gc = GEN + ["-o", "{O}", "--calibration"]
    for y in ["empty", "wrong-type", "unknown-key", "too-many-tiles", "invalid-utf8", "list"]:
        case("yaml-calibration", "bad/yaml-calibration/%s.yaml" % y, gc + ["{B}/yaml-calibration/%s.yaml" % y], 1, out="{O}")
    case("yaml-calibration", "nesting 100000 deep", gc + ["{T}/c.yaml"], 1,
         lambda t: w(os.path.join(t, "c.yaml"), yaml_deep("calibration", 100000)), out="{O}")
    case("yaml-calibration", "directory instead of file", gc + ["{T}"], 1, out="{O}")
    case("yaml-data", "check-data: directory", ["check-data", "{T}"], 1)
    case("yaml-data", "check-data: oversized (5 MiB, sparse)", ["check-data", "{T}/x.yaml"], 1,
         lambda t: sparse(os.path.join(t, "x.yaml"), 5 << 20))
    case("yaml-data", "check-data: nesting 100000 deep", ["check-data", "{T}/x.yaml"], 1,
         lambda t: w(os.path.join(t, "x.yaml"), yaml_deep("device", 100000)))
    case("yaml-data", "check-data: missing file", ["check-data", "{T}/x.yaml"], 1)
    case("yaml-data", "check-data: top-level sequence 100000 deep", ["check-data", "{T}/x.yaml"], 1,
         lambda t: w(os.path.join(t, "x.yaml"), b"[" * 100000 + b"]" * 100000 + b"\n"))
    case("yaml-data", "check-data: flow mapping 100000 deep", ["check-data", "{T}/x.yaml"], 1,
         lambda t: w(os.path.join(t, "x.yaml"), b"device: " + b"{a: " * 100000 + b"}" * 100000 + b"\n"))
    case("yaml-device", "/dev/zero (endless)", gd + ["/dev/zero"], 1, out="{O}")


def lua_cases():
    lg = GEN + ["-o", "{O}", "--script-mem", "16", "--script-instructions", "5000000", "--heuristic"]
    for s in ["recursion", "error-table", "error-huge", "rank-nan", "rank-string", "rank-huge-list", "string-rep",
              "load-text", "setmetatable-gc", "invalid-utf8", "empty", "coroutine-loop", "rank-not-function",
              "pattern-backtrack", "pattern-nul", "pattern-gsub", "table-move", "debug-sethook", "string-dump"]:
        case("lua", "bad/lua/%s.lua" % s, lg + ["{B}/lua/%s.lua" % s], 3, out="{O}")
    case("lua", "oversized script (8 MiB, sparse)", lg + ["{T}/h.lua"], 3, lambda t: sparse(os.path.join(t, "h.lua"), 8 << 20), out="{O}")
    case("lua", "nesting 100000 deep", lg + ["{T}/h.lua"], 3,
         lambda t: w(os.path.join(t, "h.lua"), b"local x = " + b"{" * 100000 + b"}" * 100000 + b"\n"), out="{O}")
    case("lua", "directory instead of file", lg + ["{T}"], 3, out="{O}")
    case("lua", "missing file", lg + ["{T}/h.lua"], 3, out="{O}")
    case("lua", "/dev/zero (endless)", lg + ["/dev/zero"], 3, out="{O}")
    case("lua", "symlink loop", lg + ["{T}/h.lua"], 3, lambda t: symlink_loop(t, "h.lua"), out="{O}")


def log_cases():
    for g in ["gzip-bad-crc", "gzip-bad-length", "gzip-bad-method", "gzip-corrupt-deflate"]:
        case("log", "bad/log/%s.log.gz" % g, ["scan-log", "{B}/log/%s.log.gz" % g], 5)
    case("log", "missing file", ["scan-log", "{T}/x.log"], 5)
    case("log", "corrupt gzip on stdin", ["scan-log", "-"], 5, stdin="{B}/log/gzip-corrupt-deflate.log.gz")
    case("log", "bad gzip CRC on stdin", ["scan-log"], 5, stdin="{B}/log/gzip-bad-crc.log.gz")
    case("log", "directory instead of file", ["scan-log", "{T}"], 5)
    case("log", "symlink loop", ["scan-log", "{T}/x.log"], 5, lambda t: symlink_loop(t, "x.log"))
    case("log", "unreadable (mode 000, as uid 65534)", ["scan-log", "{T}/x.log"], 5, lambda t: unreadable(t, "x.log"), user=65534)
    case("log", "--keys-out /proc/x", ["scan-log", "{R}/tests/data/logs/bundled-v0.6.6.log", "--keys-out", "/proc/x"], 5)
    case("log", "--keys-out into a missing folder", ["scan-log", "{R}/tests/data/logs/bundled-v0.6.6.log",
                                                      "--keys-out", "{T}/no/such/dir/k.keys"], 5)
    case("log", "--keys-out is a folder", ["scan-log", "{R}/tests/data/logs/bundled-v0.6.6.log", "--keys-out", "{T}"], 5)


def cli_cases():
    g = GEN + ["-o", "{O}"]
    for opt, val in [("--tp", "0"), ("--tp", "-1"), ("--tp", "abc"), ("--tp", ""), ("--tp", "1e3"), ("--ep", "0"),
                     ("--max-tokens", "99999999999"), ("--max-tokens", "0"), ("--max-tokens", "2097152"),
                     ("--top-k", "99999999999"), ("--top-k", "0"), ("--script-mem", "0"),
                     ("--script-mem", "99999999999999"), ("--script-instructions", "10"),
                     ("--script-instructions", "999999999999999999999"), ("--timeout", "0"),
                     ("--timeout", "99999999999"), ("--format", "xml"), ("--dtype", "int4"), ("--weight-view", "bogus"),
                     ("--flashinfer", "garbage"), ("--metadata", "noequals"),
                     ("--tp-rank", "99999999999"), ("--rounds", "2"), ("--top", "0"), ("--devices", "99999"),
                     ("--backend", "gpu"), ("--python", "/nonexistent/python3")]:
        rc = 2
        case("cli", "generate %s %s" % (opt, val or "''"), g + [opt, val], rc, out="{O}")
    case("cli", "generate --tp 99999999999", g + ["--tp", "99999999999"], 1, out="{O}")
    case("cli", "generate --device unknown", ["generate", "--device", "NVIDIA Nope", "--model", "qwen3-30b-a3b",
                                              "--dtype", "bf16", "-q", "-o", "{O}"], 1, out="{O}")
    case("cli", "generate --model unknown", ["generate", "--device", "h200", "--model", "nope", "--dtype", "bf16",
                                             "-q", "-o", "{O}"], 1, out="{O}")
    case("cli", "generate -o /proc/x", GEN + ["-o", "/proc/x"], 5)
    case("cli", "generate -o /dev/null/x", GEN + ["-o", "/dev/null/x"], 1)
    case("cli", "generate -o an existing file", GEN + ["-o", "{T}/f"], 5, lambda t: w(os.path.join(t, "f"), b""))
    case("cli", "generate: 100 KiB argument", GEN + ["-o", "{O}", "--flashinfer", "9" * (100 << 10)], 2, out="{O}")
    case("cli", "generate: invalid UTF-8 argument", GEN + ["-o", "{O}", "--tp", "\udcff\udcfe"], 2, out="{O}")
    case("cli", "generate: missing option value", GEN + ["-o"], 2)
    case("cli", "generate: unknown option", GEN + ["-o", "{O}", "--frobnicate"], 2, out="{O}")
    case("cli", "unknown command", ["frobnicate"], 2)
    case("cli", "validate: no file", ["validate"], 2)
    case("cli", "validate --format yaml", ["validate", "--format", "yaml", "{B}/table-py/empty/" + PYN], 2)
    case("cli", "validate --flashinfer 0.0.1", ["validate", "--flashinfer", "0.0.1", "{B}/table-py/empty/" + PYN], 1)
    case("cli", "diff: one file", ["diff", "{B}/table-py/empty/" + PYN], 2)
    case("cli", "convert --to xml", ["convert", "{R}/tests/data/tables/ok-py-h200-bf16/" + PYN, "-o", "{O}", "--to", "xml"], 2, out="{O}")
    case("cli", "convert -o /proc/x", ["convert", "{R}/tests/data/tables/ok-py-h200-bf16/" + PYN, "-o", "/proc/x"], 5)
    case("cli", "catalog --sm 0", ["catalog", "--sm", "0", "--dtype", "nvfp4"], 2)
    case("cli", "catalog --sm 99999999999", ["catalog", "--sm", "99999999999", "--dtype", "nvfp4"], 2)
    case("cli", "catalog --dtype int4", ["catalog", "--device", "h200", "--dtype", "int4"], 2)
    case("cli", "doctor --max-tokens 99999999999", ["doctor", "--flashinfer", "0.7.4", "--device", "h200", "--model",
                                                    "qwen3-30b-a3b", "--dtype", "bf16", "--max-tokens", "99999999999"], 2)
    case("cli", "doctor --flashinfer-dir missing", ["doctor", "--flashinfer-dir", "{T}/none", "--device", "h200"], 1)
    case("cli", "calibrate --device -1", ["calibrate", "--device", "-1"], 2)
    # install --for sglang: the cache written to {O} (its --cache-dir) must not appear
    src = "{T}/c.json"
    mk = lambda t: w(os.path.join(t, "c.json"), b'{"_metadata": {"flashinfer_version": "0.7.4", "gpu": "NVIDIA H200"}}\n')
    inst = ["install", "--for", "sglang", "--model-path", "m", "--hf-config-class", "X", "--cache-dir", "{O}"]
    for opt, val in [("--tp", "0"), ("--tp", "abc"), ("--pp", "-1"), ("--dp", "99999"), ("--sm", "5")]:
        case("cli", "install %s %s" % (opt, val), inst + ["--from", src, opt, val], 2, mk, out="{O}")
    case("cli", "install --for unknown", ["install", "--for", "nope", "--from", src, "--cache-dir", "{O}"], 1, mk, out="{O}")
    case("cli", "install --for ../x", ["install", "--for", "../x", "--from", src, "--cache-dir", "{O}"], 1, mk, out="{O}")
    case("cli", "install --from missing", inst + ["--from", "{T}/none.json"], 1, out="{O}")
    for what, data in [("empty", b""), ("truncated", b'{"_metadata": {'), ("not an object", b"[1]\n"),
                       ("NUL byte", b'{"a\x00": 1}\n'), ("nesting 100000 deep", b'{"a": ' + b"[" * 100000 + b"]" * 100000 + b"}\n")]:
        case("cli", "install --from: " + what, inst + ["--from", src], 1, lambda t, d=data: w(os.path.join(t, "c.json"), d),
             out="{O}")
    case("cli", "install: no model path", ["install", "--for", "sglang", "--from", src, "--cache-dir", "{O}"], 2, mk, out="{O}")
    case("cli", "generate --profile --backend flashinfer --python missing",
         g + ["--profile", "--backend", "flashinfer", "--python", "{T}/none"], 4, out="{O}")


def fleet_cases():
    # provenance files (validate checks them; merge reads them), plans, journals for report
    PV = "tunetab_provenance_NVIDIA_H200.json"
    for what, data in [("empty", b""), ("truncated", b'{"device": "NVIDIA H200", "entries": {'),
                       ("not an object", b"[1, 2]\n"), ("entries of the wrong type", b'{"entries": 5}\n'),
                       ("NUL byte", b'{"device": "NVIDIA\x00 H200"}\n'), ("invalid UTF-8", b'{"device": "\xff\xfe"}\n'),
                       ("nesting 100000 deep", b'{"runs": ' + b"[" * 100000 + b"]" * 100000 + b"}\n")]:
        case("provenance", "validate: " + what, VAL + ["{T}/" + PV], 1, lambda t, d=data: w(os.path.join(t, PV), d))
        case("provenance", "merge: " + what, ["merge", "{O}", "{T}/" + PV], 1, lambda t, d=data: w(os.path.join(t, PV), d),
             out="{O}")
    case("provenance", "oversized (300 MiB, sparse)", VAL + ["{T}/" + PV], 1, lambda t: sparse(os.path.join(t, PV), 300 << 20))
    case("cli", "merge: no input", ["merge", "{O}"], 2, out="{O}")
    case("cli", "merge: missing input", ["merge", "{O}", "{T}/none.json"], 1, out="{O}")
    case("cli", "merge -o /proc/x", ["merge", "/proc/x", "{R}/tests/data/report/h200-small"], 5)
    plan = ["generate", "--plan", "{T}/p.yaml", "--device", "h200", "-q", "-o", "{O}"]
    for what, data in [("empty", b""), ("not a mapping", b"- 1\n"), ("unknown device", b"plan:\n  devices: [NVIDIA H900]\n"
                        b"  deployments: [{model: qwen3-30b-a3b, dtype: bf16}]\n"),
                       ("invalid UTF-8", b"plan:\n  devices: [\xff]\n"), ("nesting 100000 deep", yaml_deep("plan", 100000)),
                       ("1001 deployments", b"plan:\n  devices: [NVIDIA H200]\n  deployments:\n" +
                        b"".join(b"    - {model: qwen3-30b-a3b, dtype: bf16, tp: %d}\n" % (i + 1) for i in range(1001)))]:
        case("yaml-plan", what, plan, 1, lambda t, d=data: w(os.path.join(t, "p.yaml"), d), out="{O}")
    rep = ["report", "{T}/j.journal", "-o", "{O}"]
    for what, data in [("empty", b""), ("binary junk", bytes(range(256)) * 16), ("a table, not a journal",
                        b"best_configs = {}\n"), ("header only", b"# tunetab journal v1 version=0.7.4\n")]:
        case("journal", what, rep, 1, lambda t, d=data: w(os.path.join(t, "j.journal"), d), out="{O}")
    case("journal", "oversized (300 MiB, sparse)", rep, 1, lambda t: sparse(os.path.join(t, "j.journal"), 300 << 20), out="{O}")
    case("journal", "directory instead of file", ["report", "{T}", "-o", "{O}"], 1, out="{O}")
    case("cli", "report -o /proc/x", ["report", "{R}/tests/data/report/h200-small/v0_1_trtllm_fused_moe_NVIDIA_H200.journal",
                                      "-o", "/proc/x"], 5)
    for val in ["2/2", "-1/2", "1/0", "1/99999999", "x"]:
        case("cli", "generate --shard " + val, GEN + ["-o", "{O}", "--shard", val], 2, out="{O}")
    case("cli", "generate --report /proc/x", GEN + ["-o", "{O}", "--report", "/proc/x"], 5)


# ------------------------------------------------------------------ running
def first_error(text, strict=False):
    for line in text.splitlines():
        if "tunetab: error:" in line or ": error: " in line or (strict and ": warning: " in line):
            return line
    return None


def main():
    global ROOT
    args = sys.argv[1:]
    md = None
    verbose = False
    ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if "--markdown" in args:
        i = args.index("--markdown")
        md = args[i + 1]
        del args[i:i + 2]
    if "-v" in args:
        args.remove("-v")
        verbose = True
    if len(args) != 1:
        sys.exit(__doc__)
    binary = os.path.abspath(args[0])
    bad = os.path.join(ROOT, "tests/data/bad")
    corpora(ROOT)
    table_cases()
    key_cases()
    yaml_cases()
    lua_cases()
    log_cases()
    cli_cases()
    fleet_cases()
    env = dict(os.environ, LC_ALL="C", ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="print_stacktrace=1")
    work = tempfile.mkdtemp(prefix="tt-bad-")
    os.chmod(work, 0o755)

    def nobody_can_run(b, e=None):
        try:
            return subprocess.run([b, "check-data"], capture_output=True, user=65534, group=65534,
                                  extra_groups=[], env=e).returncode == 0
        except OSError:
            return False

    nobody_ok = True
    nobody_binary, nobody_env = binary, env
    if os.getuid() == 0 and not nobody_can_run(binary):
        # the checkout is not readable by uid 65534 (e.g. under /root): give it a copy of the
        # binary and the data folders in the work folder
        nb = os.path.join(work, "nobody")
        os.mkdir(nb)
        for d in ("configs", "schemas", "scripts"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(nb, d))
        os.mkdir(os.path.join(nb, "bin"))
        nobody_binary = os.path.join(nb, "bin", "tunetab")
        shutil.copy2(binary, nobody_binary)
        for dp, dn, fn in os.walk(nb):
            os.chmod(dp, 0o755)
            for f in fn:
                os.chmod(os.path.join(dp, f), 0o755)
        nobody_env = dict(env, TUNETAB_DATA_DIR=nb)
    if os.getuid() == 0:
        nobody_ok = nobody_can_run(nobody_binary, nobody_env)

    def run_case(n, c):
        t = os.path.join(work, "%03d" % n)
        os.mkdir(t)
        os.chmod(t, 0o777)
        sub = {"{B}": bad, "{R}": ROOT, "{T}": t, "{O}": os.path.join(t, "out")}

        def expand(s):
            for k, v in sub.items():
                s = s.replace(k, v)
            return s
        argv = [expand(a) for a in c["args"]]
        if c["setup"]:
            c["setup"](t)
        ids = {}
        if c["user"] is not None and os.getuid() == 0 and not nobody_ok:
            return False, "FAIL %03d %s %s: not run: uid %d cannot run %s (root ignores mode 000)" % (
                n, c["reader"], c["what"], c["user"], binary), (n, c["reader"], c["what"], "", "not run", "")
        run_bin, run_env = binary, env
        if c["user"] is not None and os.getuid() == 0:
            # root reads mode 000 files: run as nobody (no preexec_fn: threads)
            ids = dict(user=c["user"], group=c["user"], extra_groups=[])
            run_bin, run_env = nobody_binary, nobody_env
        t0 = time.time()
        try:
            fin = open(expand(c["stdin"]), "rb") if c["stdin"] else subprocess.DEVNULL
            r = subprocess.run([run_bin] + argv, cwd=t, env=run_env, capture_output=True, timeout=CASE_TIMEOUT,
                               stdin=fin, **ids)
            if c["stdin"]:
                fin.close()
            rc, out, err = r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, out, err = "timeout", "", ""
        except OSError as e:  # the binary itself could not be run
            return False, "FAIL %03d %s %s: cannot run %s: %s" % (n, c["reader"], c["what"], binary, e.strerror), (
                n, c["reader"], c["what"], "", "not run", "")
        secs = time.time() - t0
        problems = []
        if rc == "timeout":
            problems.append("hung for more than %d s" % CASE_TIMEOUT)
        elif rc < 0:
            problems.append("killed by signal %d" % -rc)
        elif rc not in (1, 2, 3, 4, 5):
            problems.append("exit %d is not an error code" % rc)
        elif rc != c["rc"]:
            problems.append("exit %d, expected %d" % (rc, c["rc"]))
        if any(m in err for m in SAN_MARKS):
            problems.append("sanitizer report")
        fe = first_error(err) or (first_error(out, "--strict" in argv) if argv[0] == "validate" else None)
        if rc != "timeout" and not fe:
            problems.append("no error line")
        if c["out"]:
            o = expand(c["out"])
            if os.path.lexists(o) and (not os.path.isdir(o) or os.listdir(o)):
                problems.append("output left behind in %s" % o.replace(t, "<tmp>"))

        def clean(s, cut=200):
            s = s.replace(t, "<tmp>").replace(bad, "<bad>").replace(ROOT, "<root>")
            return s[:cut] + ("..." if len(s) > cut else "")
        fe = clean(fe or "")
        cmd = " ".join(clean(a, 1 << 30) for a in ["tunetab"] + argv)
        cmd = " ".join(a if len(a) < 120 else a[:40] + "...(%d chars)" % len(a) for a in cmd.split(" "))
        line = "%s %03d %s %s: exit %s: %s%s" % ("FAIL" if problems else "ok", n, c["reader"], c["what"], rc, fe,
                                               (" [" + "; ".join(problems) + "]") if problems else "")
        if verbose:
            line += "\n  %.2f s: %s" % (secs, cmd)
            if problems:
                line += "\n  " + clean(err[-1500:]).replace("\n", "\n  ")
        # a mode 000 file must go away with the folder
        for dp, dn, fn in os.walk(t):
            for x in dn + fn:
                p = os.path.join(dp, x)
                if not os.path.islink(p):
                    os.chmod(p, 0o700)
        shutil.rmtree(t, ignore_errors=True)
        return not problems, line, (n, c["reader"], c["what"], cmd, rc, fe)

    ok = failed = 0
    rows = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
            futs = [pool.submit(run_case, n, c) for n, c in enumerate(CASES, 1)]
            for f in futs:
                good, line, row = f.result()
                ok += good
                failed += not good
                print(line)
                sys.stdout.flush()
                rows.append(row)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("bad inputs: %d cases, %d ok, %d failed" % (len(CASES), ok, failed))
    if md:
        def esc(s):
            s = str(s).encode("utf-8", "backslashreplace").decode("utf-8")  # invalid UTF-8 arguments
            return s.replace("|", "\\|").replace("`", "'")
        with open(md, "w") as f:
            f.write("| # | reader | input | command | exit | first error line |\n")
            f.write("|---|---|---|---|---|---|\n")
            for n, rd, what, cmd, rc, fe in rows:
                f.write("| %d | %s | %s | `%s` | %s | `%s` |\n" % (n, rd, esc(what), esc(cmd), rc, esc(fe)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
