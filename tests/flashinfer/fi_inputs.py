#!/usr/bin/env python3
"""fi_inputs.py --schema SCHEMA.yaml --sm N KEYS...: the flashinfer worker's runner and tensors
for every key, checked against FlashInfer's own Python layer (issue #29).

Run with a venv's python (tests/flashinfer/setup.sh): torch and the flashinfer-python release
under test, no GPU. For each key (one per line in the KEYS files) the worker's own code
(scripts/tunetab-fi-worker.py: Kernels._key_runner, _inputs, _check_key, the path `generate
--profile --backend flashinfer` takes) builds FlashInfer's `MoERunner` from the key's extras and
the key's tensors, on the CPU; FlashInfer's `get_cutlass_fused_moe_module` is the release's own,
with its compiled module replaced by a recorder that applies the binding's rules
(flashinfer/data/csrc/fused_moe/cutlass_backend/flashinfer_cutlass_fused_moe_binding.cu of
0.7.4: the FusedMoeRunner constructor's choice of runner from the dtypes and flags, and runMoe's
dtype, rank, expert-count, inter-size and alignment checks, applied to what the profiler is
given). Then FlashInfer's tuner path: get_valid_tactics and forward(do_preparation=True).
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

F16, BF16, FP8 = torch.float16, torch.bfloat16, torch.float8_e4m3fn
I64, U8 = torch.int64, torch.uint8
GATED = {3, 4, 5, 7, 8, 10, 13}  # isGatedActivation (runner.h): Swiglu .. PowLU


class Refused(Exception):
    """What the binding would raise (TVM_FFI_ICHECK and friends)."""


def check(cond, msg):
    if not cond:
        raise Refused(msg)


class RecorderRunner:
    """FusedMoeRunner(activation, weight, output, ds_fp8_block, w4_group, mxfp8_act, packed,
    fused_finalize, humming) as binding.cu builds it; records what the profiler is given."""

    def __init__(self, sm, act, w, out, ds, w4, mx8, packed, finalize, humming):
        self.sm, self.act, self.w, self.out = sm, act, w, out
        self.ds, self.w4, self.mx8, self.packed, self.humming = ds, w4, mx8, packed, humming
        self.mult = 1
        kind = None
        if act == F16 and w == F16:
            kind = "half x half"
        elif act == BF16 and w == BF16:
            kind = "bf16 x bf16"
        elif act == BF16 and w == FP8:
            kind = "bf16 x fp8"
        fp8q = not ds and act == FP8 and w == FP8 and not mx8
        wmx8 = not ds and act == FP8 and w == FP8 and mx8
        if wmx8 or fp8q:
            kind = self._output("mxfp8 x mxfp8" if wmx8 else "fp8 x fp8")
        self.nvfp4 = w == I64 and act != FP8
        self.wfp4a16 = w4 and act in (F16, BF16) and w == U8 and not packed and not humming
        self.int4 = w == U8 and packed
        self.hum = humming and w4 and act in (F16, BF16) and w == U8 and not packed and not mx8
        self.mxfp4_fp8 = act == FP8 and w == I64 and not mx8
        self.mxfp4_mxfp8 = act == FP8 and w == I64 and mx8
        if sm >= 100 and (self.mxfp4_fp8 or self.mxfp4_mxfp8):
            self.mult, kind = 16, self._output("fp8 x fp4")
        if self.hum:
            check(sm == 90, "Humming-style MXFP4 x FP8 is only supported on SM90.")
            check(act in (F16, BF16), "Humming-style MXFP4 x FP8 requires FP16/BF16 inputs")
            check(act == out, "Humming-style MXFP4 x FP8 requires activation dtype == output dtype")
            self.mult, kind = 2, self._output("humming mxfp4 x fp8")
        if self.nvfp4:
            self.mult, kind = 16, self._output("nvfp4")
        if self.wfp4a16:
            check(act == BF16, "SM90 MXFP4 W4A16 supports BF16 activations only")
            self.mult, kind = 2, "bf16 x mxfp4"
        if self.int4:
            self.mult = 2
            if act in (F16, BF16):
                kind = "fp8 x int4" if w4 else "%s x int4" % act
        check(kind is not None, "Could not construct fused moe op with the requested input "
              "combination Activation: %s, Weight: %s, Output: %s" % (act, w, out))
        self.kind = kind
        self.profiled = []

    def _output(self, kind):
        if self.out in (I64, FP8):
            raise Refused("Outputting %s directly is not currently supported" % self.out)
        check(self.out in (F16, BF16), "Invalid output type %s" % self.out)
        return kind

    # the tactic lists: sizes do not matter here
    def get_gemm1_tactic_count(self):
        return 4

    def get_gemm2_tactic_count(self):
        return 4

    def get_tactic_num(self):
        return 8

    def get_tactic_occupancy(self, t):
        return 1

    def get_valid_tactics_for_shape(self, stage, n, k):
        return list(range(4)) if stage == 1 else list(range(4, 8))

    def run_gemm_profile(self, x, fc1, b1, fc2, b2, top_k, tp, tp_rank, ep, ep_rank, cluster_size,
                         cluster_rank, alltoall, min_latency, gemm_idx, tactic, do_preparation,
                         enable_pdl, activation):
        if self.ds:  # "TODO: support profiling under fp8 block scaling": returns at once
            self.profiled.append("skipped (fp8 block scale)")
            return
        # runMoe's checks (binding.cu), on what the profiler gets
        check(x.dtype == self.act, "input dtype %s, the runner's activation %s" % (x.dtype, self.act))
        for name, t in (("fc1", fc1), ("fc2", fc2)):
            check(t.dtype == self.w, "%s_expert_weights dtype %s, the runner's weight %s" % (name, t.dtype, self.w))
            check(t.dim() == 3, "%s_expert_weights must be 3-D" % name)
        check(x.dim() == 2, "input must be 2-D")
        if b1 is not None or b2 is not None:
            check(b1 is not None and b2 is not None, "both biases or neither")
            check(b1.dtype == self.out and b2.dtype == self.out, "biases must be the output dtype")
            check(b1.dim() == 2 and b2.dim() == 2, "biases must be 2-D")
            check(b1.size(0) == fc1.size(0) and b2.size(0) == fc2.size(0), "biases: experts")
            check(b1.size(1) == fc1.size(1) and b2.size(1) == fc2.size(1), "biases: output shape")
        check(fc1.size(0) == fc2.size(0), "fc1 and fc2 must have the same number of experts")
        inter = fc2.size(2) * self.mult
        want = inter * 2 if int(activation) in GATED else inter
        check(fc1.size(1) == want, "fc1_expert_weights inter size %d, want %d" % (fc1.size(1), want))
        hidden = fc2.size(1)
        if self.mxfp4_mxfp8 or self.mxfp4_fp8 or self.hum:
            check(hidden % 128 == 0 and inter % 128 == 0,
                  "hidden %d and inter %d must be divisible by 128 for MXFP4 weights" % (hidden, inter))
        else:
            align = 128 // (8 * min(self.act.itemsize, self.w.itemsize))
            check(hidden % align == 0 and inter % align == 0,
                  "hidden %d and inter %d must be divisible by %d" % (hidden, inter, align))
        check(gemm_idx in (1, 2), "gemm_idx %s" % gemm_idx)
        self.profiled.append("gemm%d %s x %s" % (gemm_idx, tuple(x.shape), self.kind))


class RecorderModule:
    def __init__(self, sm):
        self.sm = sm

    def init(self, act, w, out, ds, w4, mx8, packed, finalize, humming):
        return RecorderRunner(self.sm, act, w, out, ds, w4, mx8, packed, finalize, humming)

    def set_deepgemm_jit_include_dirs(self, dirs):
        pass

    def __getattr__(self, name):
        """The module's other functions (weight interleaving, ...): not on the tuner's path."""
        def other(*a, **k):
            raise Refused("the recorder has no %s" % name)
        return other


def fi_module(sm):
    """The release's get_cutlass_fused_moe_module(sm) with its compiled module the recorder."""
    import flashinfer.fused_moe.core as core

    class Spec:
        @staticmethod
        def build_and_load():
            return RecorderModule(sm)

    for name in dir(core):
        if re.fullmatch(r"gen_cutlass_fused_moe_sm\d+_module", name):
            setattr(core, name, lambda use_fast_build=False: Spec)
    core.get_cutlass_fused_moe_module.cache_clear()
    return core.get_cutlass_fused_moe_module(str(sm))


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
    k.runners, k.weights, k.gate_cache = {}, {}, {}
    ok = bad = 0
    for path in a.keys:
        for line in open(path):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key = W.parse_key(line)
            stage = 1 if key[0].endswith("gemm1") else 2
            job = {"key": key, "key_fields": fields, "tp_rank": 0, "ep_rank": 0, "stage": stage,
                   "bucket": key[2][0][0], "method": 0}
            what = "%s GEMM%d %d tokens" % (os.path.basename(path), stage, job["bucket"])
            try:
                runner, args = k._key_runner(job)
                inputs = k._inputs(key[2], args["x_dtype"], args["weight_dtype"], args["output_dtype"])
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
