#!/usr/bin/env python3
"""consumer-inputs.py CONSUMER [--counts]: scripts/lib/<CONSUMER>_options.lua on stdout, the
closed world of a serving stack's launch inputs (issue #47), from

  tests/consumers/options/<CONSUMER>-<VERSION>.tsv      its own parser's options, per release
                                                        (tests/consumers/dump_options.py)
  tests/consumers/options/<CONSUMER>-<VERSION>-env.tsv  the variables its source reads
  tests/consumers/options/flashinfer-<VERSION>-env.tsv  the variables FlashInfer reads
  configs/consumers/inputs/<CONSUMER>.yaml              what tunetab knows of them (classes)

Each option row gets its class: "m" modelled, "n" no effect, "" neither (doctor: cannot tell).
An option is no effect by its dest, or by its argument group (no_effect_groups) unless its dest
also reaches the engine. Every classified dest and variable must exist in some release's dump:
a stale class is an error. With --counts, prints per release how many options fall in each
class instead (tests/cli/201 prints them). Run from the repository root."""
import glob
import os
import re
import sys

import yaml


def lua_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def version_key(v):
    return tuple(int(x) if x.isdigit() else x for x in re.split(r"[.]", v))


def read_tsv(path):
    header, rows = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# allow_abbrev="):
                header["abbrev"] = line.split("=", 1)[1] == "True"
            elif line and not line.startswith("#"):
                rows.append(line.split("\t"))
    return header, rows


def fail(msg):
    sys.stderr.write(f"consumer-inputs.py: {msg}\n")
    sys.exit(1)


def main():
    consumer = sys.argv[1]
    counts = "--counts" in sys.argv[2:]
    ypath = f"configs/consumers/inputs/{consumer}.yaml"
    with open(ypath, encoding="utf-8") as f:
        spec = yaml.safe_load(f)["inputs"]
    modelled = spec.get("modelled") or {}
    no_effect = spec.get("no_effect") or {}
    groups = spec.get("no_effect_groups") or {}
    env_m = spec.get("env_modelled") or {}
    env_n = spec.get("env_no_effect") or {}
    both = set(modelled) & set(no_effect)
    if both:
        fail(f"{ypath}: both modelled and no effect: {', '.join(sorted(both))}")

    versions = {}
    for path in glob.glob(f"tests/consumers/options/{consumer}-*.tsv"):
        m = re.fullmatch(rf"{consumer}-([0-9][0-9.a-z]*)\.tsv", os.path.basename(path))
        if m:
            versions[m.group(1)] = read_tsv(path)
    if not versions:
        fail(f"no tests/consumers/options/{consumer}-VERSION.tsv")
    env_read = {}
    for path in sorted(glob.glob(f"tests/consumers/options/{consumer}-*-env.tsv") +
                       glob.glob("tests/consumers/options/flashinfer-*-env.tsv")):
        for row in read_tsv(path)[1]:
            env_read.setdefault(row[0], row[1])

    dests = {r[1] for _, rows in versions.values() for r in rows}
    dests.add("model_tag")  # vLLM's positional model (not an option row)
    for name in list(modelled) + list(no_effect):
        if name not in dests:
            fail(f"{ypath}: '{name}' is an option of no {consumer} release dumped")
    for name in list(env_m) + list(env_n):
        if name not in env_read and name not in ("HOME", "XDG_CACHE_HOME"):
            fail(f"{ypath}: variable '{name}' is read by no {consumer} or FlashInfer release dumped")

    def klass(row):
        dest = row[1]
        group = row[6] if len(row) > 6 else ""
        engine = len(row) > 7 and row[7] == "engine"
        if dest in modelled:
            return "m"
        if dest in no_effect or (group in groups and not engine):
            return "n"
        return ""

    if counts:
        for v in sorted(versions, key=version_key, reverse=True):
            rows = versions[v][1]
            c = {"m": 0, "n": 0, "": 0}
            for r in rows:
                c[klass(r)] += 1
            print(f"{consumer} {v}: {len(rows)} options classified: {c['m']} modelled, "
                  f"{c['n']} no effect, {c['']} cannot tell")
        print(f"{consumer}: {len(env_read)} variables read; {len(env_m)} modelled, "
              f"{len(env_n)} no effect, prefixes {' '.join(spec.get('env_prefixes') or [])}")
        return

    out = [f"-- {consumer}_options.lua: the closed world of {consumer}'s launch inputs (issue #47).",
           "-- Made by scripts/dev/consumer-inputs.py from tests/consumers/options/ (the releases'",
           f"-- own parsers and sources) and configs/consumers/inputs/{consumer}.yaml (the classes);",
           "-- do not edit. versions[V].options rows: option strings, dest, nargs (\"0\" a flag, \"\"",
           "-- one value, \"+\"/\"*\" a list, \"?\" optional), class (\"m\" modelled, \"n\" no effect,",
           "-- \"\" neither: cannot tell), the strings that store false, argparse's action class,",
           "-- the values argparse's choices= allows (comma-separated; SGLang's only: vLLM "
           "converts its",
           "-- values with type functions the dump does not record, str.upper for --log-level).",
           "-- env[NAME]: \"m\", \"n\", or",
           "-- \"r\" (read, neither). prefixes: names the stack builds at run time.",
           "return {",
           "  versions = {"]
    for v in sorted(versions, key=version_key, reverse=True):
        header, rows = versions[v]
        out.append(f"    [{lua_str(v)}] = {{ abbrev = {'true' if header.get('abbrev') else 'false'}, "
                   "options = {")
        for r in rows:
            neg = r[8] if len(r) > 8 else ""
            action = r[5] if len(r) > 5 else ""
            # SGLang's parser is plain argparse (sglang/srt/server_args.py prepare_server_args):
            # its choices compare the text (6 of 96 convert it first, int or an identity check)
            choices = r[4] if consumer == "sglang" and r[2] != "0" else ""
            out.append(f"      {{ {lua_str(r[0])}, {lua_str(r[1])}, {lua_str(r[2])}, "
                       f"{lua_str(klass(r))}, {lua_str(neg)}, {lua_str(action)}"
                       + (f", {lua_str(choices)}" if choices else "") + " },")
        out.append("    } },")
    out.append("  },")
    out.append("  env = {")
    for name in sorted(set(env_read) | set(env_m) | set(env_n)):
        c = "m" if name in env_m else "n" if name in env_n else "r"
        out.append(f"    [{lua_str(name)}] = {lua_str(c)},")
    out.append("  },")
    out.append("  prefixes = { " + ", ".join(lua_str(p) for p in spec.get("env_prefixes") or []) +
               " },")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
