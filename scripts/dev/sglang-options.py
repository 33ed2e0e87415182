#!/usr/bin/env python3
"""sglang-options.py DUMP.tsv=VERSION... > scripts/lib/sglang_options.lua

Turns the option tables scripts/dev/sglang-dump-options.py prints (run in a Python that has the
sglang release installed: `python sglang-dump-options.py > options-0.5.23.tsv`; it reads
SGLang's own argparse parser, ServerArgs.add_cli_args) into the Lua table the SGLang consumer
script reads launch commands with: per release, each option's strings, dest and nargs."""
import sys


def lua_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    out = ["-- sglang_options.lua: every option `sglang serve` / `python -m sglang.launch_server`",
           "-- accepts, per SGLang release, as its own argparse parser defines them (allow_abbrev",
           "-- on: a unique prefix of a long option is that option). Made by",
           "-- scripts/dev/sglang-options.py from scripts/dev/sglang-dump-options.py's output; do not",
           "-- edit. Rows: option strings, dest, nargs (\"0\": a flag, \"\": one value, \"+\"/\"*\": a list).",
           "return {"]
    for arg in sys.argv[1:]:
        path, version = arg.split("=")
        out.append(f"  [{lua_str(version)}] = {{")
        for line in open(path):
            if line.startswith("#") or not line.strip():
                continue
            names, dest, nargs = line.rstrip("\n").split("\t")[:3]
            out.append(f"    {{ {lua_str(names)}, {lua_str(dest)}, {lua_str(nargs)} }},")
        out.append("  },")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
