#!/usr/bin/env python3
"""fi_inputs.py --schema SCHEMA.yaml --sm N KEYS...: the flashinfer worker's runner and tensors
for every key, checked against FlashInfer's own Python layer (issue #29).

Run with a venv's python (tests/flashinfer/setup.sh): torch and the flashinfer-python release
under test, no GPU. For each key (one per line in the KEYS files) the worker's own code
(scripts/tunetab-fi-worker.py: Kernels._key_runner, _inputs, _check_key, the path `generate
--profile --backend flashinfer` takes) builds FlashInfer's `MoERunner` from the key's extras and
the key's tensors, on the CPU; FlashInfer's `get_cutlass_fused_moe_module` is the release's own,
with its compiled module replaced by a recorder that applies the binding's rules (recorder.py:
the FusedMoeRunner constructor's choice of runner from the dtypes and flags, and runMoe's
dtype, rank, expert-count, inter-size and alignment checks, applied to what the profiler is
given; the versions whose binding it models). Then FlashInfer's tuner path: get_valid_tactics and forward(do_preparation=True).
A tensor or runner FlashInfer would refuse fails. Prints one line per key and a summary; exit 1
on any failure.
"""
import argparse
import importlib.util
import os
import re
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recorder import Refused, fi_module  # noqa: E402


def schema_fields(path):
    """The extras fields' names of a schema file (schemas/flashinfer/*.yaml, key: extras_fields)."""
    text = open(path).read()
    return re.findall(r"- \{name: (\w+),", text.split("extras_fields:", 1)[1].split("\n\n")[0])


def load_worker():
    spec = importlib.util.spec_from_file_location(
        "tunetab_fi_worker", os.path.join(ROOT, "scripts", "tunetab-fi-worker.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", required=True)
    ap.add_argument("--sm", type=int, required=True)
    ap.add_argument("keys", nargs="+")
    a = ap.parse_args()
    import flashinfer.version
    W = load_worker()
    fields = schema_fields(a.schema)
    k = W.Kernels.__new__(W.Kernels)
    k.torch, k.module, k.dev, k.device = torch, fi_module(a.sm), torch.device("cpu"), 0
    k.fi = sys.modules["flashinfer"]
    k.runners, k.weights, k.gate_cache = {}, {}, {}
    ok = bad = 0
    for path in a.keys:
        for line in open(path):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key = W.parse_key(line)
            stage = 1 if key[0].endswith("gemm1") else 2
            job = {"key": key, "key_fields": fields, "runner": None, "tp_rank": 0, "ep_rank": 0, "stage": stage,
                   "bucket": key[2][0][0], "method": 0}
            what = "%s GEMM%d %d tokens" % (os.path.basename(path), stage, job["bucket"])
            try:
                runner, args = k._key_runner(job)
                inputs = k._inputs(runner, key[2], args["x_dtype"], args["weight_dtype"],
                                   args["output_dtype"])
                k._check_key(job, runner, inputs)
                runner.gemm_idx_for_tuning = stage
                valid = runner.get_valid_tactics(inputs, None)
                rec = runner.fused_moe_runner
                rec.profiled.clear()
                runner.forward(inputs, tactic=-1, do_preparation=True, gemm_idx=stage)
                ok += 1
                print("ok   %s: %s runner, x %s %s, fc1 %s %s, %d tactics, profiled: %s" % (
                    what, rec.kind, tuple(inputs[0].shape), inputs[0].dtype,
                    tuple(inputs[1].shape), inputs[1].dtype, len(valid), "; ".join(rec.profiled)))
            except (Refused, ValueError, RuntimeError, TypeError) as e:
                bad += 1
                print("FAIL %s: %s: %s" % (what, type(e).__name__, e))
    print("flashinfer %s, SM%d: %d keys, %d built as FlashInfer takes them, %d refused"
          % (flashinfer.version.__version__, a.sm, ok + bad, ok, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
