"""Dump every CLI option of `python -m sglang.launch_server` (SGLang's own parser)."""
import argparse, sys, types
import torch
torch.cuda.is_available = lambda: False
from sglang.srt.server_args import ServerArgs
p = argparse.ArgumentParser(prog="sglang serve"); ServerArgs.add_cli_args(p)
print(f"# allow_abbrev={p.allow_abbrev} (argparse accepts any unique prefix of a long option)")
print("# option_strings\tdest\tnargs\tdefault\tchoices")
for a in p._actions:
    if not a.option_strings or a.dest == "help":
        continue
    ch = ",".join(map(str, a.choices)) if a.choices else ""
    print(f"{' '.join(a.option_strings)}\t{a.dest}\t{a.nargs if a.nargs is not None else ''}\t{a.default!r}\t{ch}")
