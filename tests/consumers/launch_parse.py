#!/usr/bin/env python3
"""launch_parse.py [--real] JOBS.jsonl: whether SGLang's own launch parser accepts each command.

Each line of JOBS.jsonl: {"version": "0.5.23", "words": [...]} (a launch command as the shell
splits it: VAR=VALUE words, `env`, then `python -m sglang.launch_server` or `sglang serve`, then
the options). Prints one JSON line per job: {"refused": null} or {"refused": "<argparse's
message>"}.

The parser: Python's own argparse (the module SGLang's parser is: prepare_server_args builds an
argparse.ArgumentParser and ServerArgs.add_cli_args adds every option, sglang/srt/server_args.py)
with every option the release's parser has, as tests/consumers/dump_options.py dumped it from
the wheel into tests/consumers/options/sglang-<version>.tsv (`make test-consumers` dumps it
again and compares): the option strings (aliases too), nargs, choices and allow_abbrev, so
argparse's own rules decide abbreviations, ambiguity, unknown options and bad choices. It does
not know the options' types (a bad number passes). With --real it runs the release's own
parser instead (dump_options.sglang_parser, in a Python that imports the release: make
test-consumers' .venv-consumers/options), to check this reading against it."""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENTRY = (["python", "-m", "sglang.launch_server"], ["python3", "-m", "sglang.launch_server"],
         ["sglang", "serve"])


class Refused(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Refused(message)


def tsv_parser(version):
    p = Parser(prog="sglang serve", add_help=False)
    with open(os.path.join(HERE, "options", "sglang-%s.tsv" % version), encoding="utf-8") as f:
        for line in f:
            if line.startswith("# allow_abbrev="):
                p.allow_abbrev = line.strip().endswith("True")
                continue
            if line.startswith("#") or not line.strip():
                continue
            strings, dest, nargs, _default, choices = line.rstrip("\n").split("\t")[:5]
            kw = {"dest": dest}
            if nargs == "0":
                kw["action"] = "store_true"
            else:
                if nargs:
                    kw["nargs"] = int(nargs) if nargs.isdigit() else nargs
                if choices:
                    kw["choices"] = choices.split(",")
            p.add_argument(*strings.split(), **kw)
    return p


def real_parser():
    sys.path.insert(0, HERE)
    import dump_options

    p, _ = dump_options.sglang_parser()

    def error(message):
        raise Refused(message)

    p.error = error
    return p


def options_of(words):
    """The server's own words: after VAR=VALUE words, `env` and the entry point."""
    i = 0
    while i < len(words) and (words[i] == "env" or
                              ("=" in words[i] and not words[i].startswith("-"))):
        i += 1
    for e in ENTRY:
        if words[i:i + len(e)] == e:
            return words[i + len(e):]
    raise SystemExit("launch_parse: not an SGLang launch command: %s" % " ".join(words))


def main():
    args = sys.argv[1:]
    real = args[:1] == ["--real"]
    jobs = [json.loads(line) for line in open(args[-1], encoding="utf-8") if line.strip()]
    parsers = {}
    for job in jobs:
        v = job["version"]
        if v not in parsers:
            parsers[v] = real_parser() if real else tsv_parser(v)
        try:
            parsers[v].parse_args(options_of(job["words"]))
            print(json.dumps({"refused": None}))
        except Refused as e:
            print(json.dumps({"refused": str(e)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
