#!/usr/bin/env python3
"""dump_options.py sglang|vllm: every option of the server's own launch parser, as a TSV on
stdout (run in a Python that imports the release: tests/consumers/options.sh makes one).

SGLang: the parser of `python -m sglang.launch_server` (ServerArgs.add_cli_args, as
prepare_server_args builds it: sglang/srt/server_args.py). vLLM: the `vllm serve` subparser
(ServeSubcommand.subparser_init -> make_arg_parser: vllm/entrypoints/cli/serve.py), imported
with tests/consumers/vllm_launch.py's CPU stand-ins for the CUDA extensions.

Columns: option strings (space-separated), dest, nargs ("0" a flag, "" one value, else
argparse's nargs), default (repr), choices (comma-separated), the action's class, its
argument group's title, and (vLLM) "engine" where the dest is a field of AsyncEngineArgs
(what EngineArgs.from_cli_args hands the engine: vllm/engine/arg_utils.py), and the option
strings of a boolean-optional action that store False (--no-X; vLLM's --disable-X). The first
line says whether the parser accepts abbreviations (allow_abbrev)."""
import argparse
import importlib.util
import os
import sys


def sglang_parser():
    import torch

    torch.cuda.is_available = lambda: False
    from sglang.srt.server_args import ServerArgs

    p = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(p)
    return p, set()


def vllm_parser():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import torch
    import vllm_launch

    os.environ.setdefault("VLLM_HAS_FLASHINFER_CUBIN", "1")
    os.environ.setdefault("VLLM_LOGGING_STREAM", "ext://sys.stderr")
    # the stand-ins look for vLLM's extensions beside torch: point them at this vllm
    site = os.path.dirname(os.path.dirname(importlib.util.find_spec("vllm").origin))
    torch_file = torch.__file__
    torch.__file__ = os.path.join(site, "torch", "__init__.py")
    vllm_launch._stub_extensions(["triton_kernels", "vllm.third_party.triton_kernels"])
    torch.__file__ = torch_file
    vllm_launch._fake_cuda(9, 0, 1, 80, "NVIDIA H200")
    from vllm import platforms
    from vllm.platforms.cuda import NonNvmlCudaPlatform

    platforms.current_platform = NonNvmlCudaPlatform()
    import vllm.entrypoints.cli.serve as serve
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    import dataclasses

    from vllm.engine.arg_utils import AsyncEngineArgs

    top = FlexibleArgumentParser(description="vLLM CLI")
    sub = top.add_subparsers(required=False, dest="subparser")
    engine = {f.name for f in dataclasses.fields(AsyncEngineArgs)}
    return serve.ServeSubcommand().subparser_init(sub), engine


def negative(a):
    """The option strings of a boolean-optional action that store False, in its order."""
    neg = getattr(a, "negative_option_strings", None)
    if neg is None and isinstance(a, argparse.BooleanOptionalAction):
        neg = {s for s in a.option_strings if s.startswith("--no-")}
    neg = set(neg or ())
    if isinstance(a, argparse.BooleanOptionalAction):  # hidden --no-X aliases store False too
        neg |= {s for s in a.option_strings if s.startswith("--no-")}
    return sorted(neg)


def main():
    which = sys.argv[1]
    p, engine = sglang_parser() if which == "sglang" else vllm_parser()
    out = sys.stdout
    out.write(f"# allow_abbrev={p.allow_abbrev}\n")
    out.write("# option_strings\tdest\tnargs\tdefault\tchoices\taction\tgroup\tengine\tnegative\n")
    group = {id(a): g.title for g in p._action_groups for a in g._group_actions}
    for a in p._actions:
        if not a.option_strings or a.dest == "help":
            continue
        # every string the parser takes for it (hidden aliases too), declared ones first
        strings = list(a.option_strings) + sorted(
            k for k, v in p._option_string_actions.items() if v is a and k not in a.option_strings)
        nargs = "0" if a.nargs == 0 else ("" if a.nargs is None else str(a.nargs))
        ch = a.choices or ()
        if isinstance(ch, (set, frozenset, dict)):  # unordered (a set's order is the hash seed's)
            ch = sorted(ch, key=str)
        ch = ",".join(map(str, ch))
        default = repr(a.default).replace("\t", " ").replace("\n", " ")
        out.write(f"{' '.join(strings)}\t{a.dest}\t{nargs}\t{default}\t{ch}\t"
                  f"{type(a).__name__}\t{group.get(id(a)) or ''}\t"
                  f"{'engine' if a.dest in engine else ''}\t{' '.join(negative(a))}\n")


if __name__ == "__main__":
    main()
