#!/usr/bin/env python3
"""sglang_digest.py SGLANG_SITE JSON: what SGLang's own `_autotune_cache_digest` (the rank's
fingerprint that `_drop_diverged_autotune_cache` gathers over the TP group before tuning; the
caches are deleted when they differ) returns for each rank file. The function's source is taken
from the release's flashinfer_autotune.py and run alone. JSON: {"paths": [...], "env": {the
server's _collect_metadata()}}. Prints one digest per line ("" for a missing file)."""
import ast
import hashlib
import json
import sys
from pathlib import Path


def main():
    site, job = sys.argv[1], json.loads(sys.argv[2])
    src = Path(site) / "sglang/srt/model_executor/runner/flashinfer_autotune.py"
    tree = ast.parse(src.read_text(), str(src))
    keep = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_autotune_cache_digest"]
    if not keep:
        sys.exit(f"{src}: _autotune_cache_digest not found")
    g = {"json": json, "hashlib": hashlib, "Path": Path}
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(src), "exec"), g)
    for p in job["paths"]:
        print(g["_autotune_cache_digest"](Path(p), job["env"]))


main()
