#!/usr/bin/env python3
"""dump_env.py PACKAGE_DIR: the environment variables a released package reads, by name, as
a TSV on stdout (name, then the first file:line that reads it), read from its source without
importing it: os.environ.get("X") / os.getenv("X") / os.environ["X"] / "X" in os.environ /
os.environ.setdefault("X"), and the fields of SGLang's env registry (sglang/srt/environ.py:
`NAME = EnvBool(...)` in class Envs) and vLLM's (vllm/envs.py: "NAME": lambda ...). Names made
at run time (f-strings) are not seen: the consumers' prefixes stand for them (inputs.lua)."""
import os
import re
import sys

READ = re.compile(r"""(?:os\.environ\.get|os\.getenv|os\.environ\.setdefault|environ\.get)\(\s*
                      ["']([A-Za-z_][A-Za-z0-9_]*)["']
                    |os\.environ\[\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*\]
                    |["']([A-Za-z_][A-Za-z0-9_]*)["']\s+(?:not\s+)?in\s+os\.environ""", re.X)
SGLANG_FIELD = re.compile(r"^    ([A-Z][A-Z0-9_]*)\s*=\s*Env[A-Za-z]*\(")
VLLM_FIELD = re.compile(r"""^    ["'](VLLM_[A-Z0-9_]*|[A-Z][A-Z0-9_]*)["']\s*:\s*(?:lambda|env_)""")


def main():
    root = sys.argv[1]
    found = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in ("test", "tests", "__pycache__"))
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, os.path.dirname(root))
            registry = rel.endswith(("srt/environ.py", "vllm/envs.py"))
            with open(path, encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    names = [g for m in READ.finditer(line) for g in m.groups() if g]
                    if registry:
                        for rx in (SGLANG_FIELD, VLLM_FIELD):
                            m = rx.match(line)
                            if m:
                                names.append(m.group(1))
                    for name in names:
                        found.setdefault(name, f"{rel}:{n}")
    for name in sorted(found):
        print(f"{name}\t{found[name]}")


if __name__ == "__main__":
    main()
