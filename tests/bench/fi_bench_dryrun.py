#!/usr/bin/env python3
"""fi_bench_dryrun.py: run tests/bench/fi_bench.py without a GPU, against FlashInfer 0.7.4's real
Python code (AutoTuner, autotune(), load_configs/save_configs, the cutlass MoERunner class and the
public cutlass_fused_moe wrapper), for checking the script's plumbing. Nothing here is a
measurement: the CUDA module is a stub whose "kernels" only advance a simulated clock that the
stubbed CUDA events read, with a fixed pseudo-random cost per (stage, tactic, rows), so the
fastest tactic is known exactly; torch.cuda calls are patched and tensors live on the CPU.

Needs a Python with torch and flashinfer-python 0.7.4 importable on the CPU, e.g. the venv of
tests/flashinfer/setup.sh 0.7.4 (about 3 GB):

    PY=.venv-flashinfer/0.7.4/bin/python
    $PY tests/bench/fi_bench_dryrun.py check            # every subcommand, with assertions
    $PY tests/bench/fi_bench_dryrun.py oracle qwen3-bf16 --out /tmp/o   # one fi_bench subcommand

`check` ends with one line `N passed, N failed`; exit 1 when a check failed.
FI_DRY_LOSE=<tactic> makes that tactic fail and the CUDA context unusable afterwards.
"""
import contextlib
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch

CLOCK = [0.0]  # simulated GPU time, us
FAIL = {1: {17}, 2: {45 + 50}}  # bf16 tactics that "cannot be implemented"
CALLS = {"gemm_profile": 0, "run_moe": 0}


class FakeEvent:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        self.t = CLOCK[0]

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return (other.t - self.t) / 1000.0


class FakeStream:
    def synchronize(self):
        pass


class FakeGraph:
    def replay(self):
        pass


tc = torch.cuda
tc.is_available = lambda: True
tc.current_device = lambda: 0
tc.get_device_name = lambda *a, **k: "NVIDIA H200"
tc.synchronize = lambda *a, **k: None
tc.Event = FakeEvent
tc.current_stream = lambda *a, **k: FakeStream()
tc.stream = lambda s: contextlib.nullcontext()
tc.device = lambda d: contextlib.nullcontext()
tc.is_current_stream_capturing = lambda: False
tc.CUDAGraph = FakeGraph
tc.cudart = lambda: types.SimpleNamespace(cudaGetLastError=lambda: 0)
tc.empty_cache = lambda: None
tc.get_device_properties = lambda *a, **k: types.SimpleNamespace(L2_cache_size=50 << 20, major=9, minor=0)

import flashinfer  # noqa: E402
import flashinfer.utils as fu  # noqa: E402
import flashinfer.tllm_utils as tu  # noqa: E402
import flashinfer.autotuner.autotuner as at  # noqa: E402
import flashinfer.fused_moe.core as core  # noqa: E402

cc = lambda dev: (9, 0)
pdl = lambda dev: True
for m in (fu, core):
    m.get_compute_capability = cc
    m.device_support_pdl = pdl
DELAYS = []
tu.delay_kernel = lambda us: DELAYS.append(us)
at.delay_kernel = lambda us: DELAYS.append(us)
at.get_trtllm_utils_module = lambda: None


def cost(g1, stage, tactic, rows):
    if tactic == -1:
        tactic = 0 if stage == 1 else g1
    f = 1.0 + ((tactic * 2654435761 + rows * 40503) % 1000) / 1000.0
    return (5.0 + rows * 0.01) * f


class StubRunner:
    def __init__(self, g1, g2):
        self.g1, self.g2 = g1, g2

    def get_gemm1_tactic_count(self):
        return self.g1

    def get_gemm2_tactic_count(self):
        return self.g2

    def get_tactic_num(self):
        return self.g1 + self.g2

    def get_tactic_occupancy(self, t):
        return 1

    def run_gemm_profile(self, *a):
        x, gemm_idx, tactic, prep = a[0], a[14], a[15], a[16]
        CALLS["gemm_profile"] += 1
        assert gemm_idx in (1, 2), gemm_idx
        if tactic != -1:
            lo, hi = (0, self.g1) if gemm_idx == 1 else (self.g1, self.g1 + self.g2)
            if not lo <= tactic < hi:
                raise RuntimeError("Invalid gemm%d profile id: %d" % (gemm_idx, tactic))
            if os.environ.get("FI_DRY_LOSE") and tactic == int(os.environ["FI_DRY_LOSE"]):
                def boom(*a, **k):
                    raise RuntimeError("CUDA error: an illegal memory access was encountered")
                tc.synchronize = boom
                raise RuntimeError("launch failed")
            if self.g1 == 45 and tactic in FAIL[gemm_idx]:
                raise RuntimeError("stub: tactic %d cannot be implemented\nsecond line" % tactic)
        CLOCK[0] += cost(self.g1, gemm_idx, tactic, x.shape[0])

    def run_moe(self, *a):
        CALLS["run_moe"] += 1
        rows = a[1].shape[0]
        ids = [x for x in a if isinstance(x, list) and len(x) == 2 and all(isinstance(i, int) for i in x)]
        assert len(ids) == 1, ids
        g = ids[0]
        assert g[0] == -1 or 0 <= g[0] < self.g1, g
        assert g[1] == -1 or self.g1 <= g[1] < self.g1 + self.g2, g
        CLOCK[0] += cost(self.g1, 1, g[0], rows) + cost(self.g1, 2, g[1], rows) + 3.0


class StubModule:
    def set_deepgemm_jit_include_dirs(self, dirs):
        pass

    def init(self, x_dtype, w_dtype, out_dtype, *flags):
        fp8 = x_dtype == torch.float8_e4m3fn
        return StubRunner(36, 72) if fp8 else StubRunner(45, 81)

    interleave_moe_weights_for_sm90_mixed_gemm = None


core.gen_cutlass_fused_moe_sm90_module = lambda use_fast_build=False: types.SimpleNamespace(
    build_and_load=lambda: StubModule())

import fi_bench  # noqa: E402

Base = fi_bench.FI


class DryFI(Base):
    def __init__(self, seed=1234, device=None):
        super().__init__(seed, device="cpu")

    def weights(self, d):
        t = self.torch
        wd = self.dtype(d.w_dtype)
        return {"fc1": t.empty((d.experts_local, 2 * d.inter_local, d.hidden), dtype=wd),
                "fc2": t.empty((d.experts_local, d.hidden, d.inter_local), dtype=wd)}


fi_bench.FI = DryFI

def run(args, tmp):
    """One fi_bench subcommand in a fresh process under this simulation: (exit code, output)."""
    import subprocess
    r = subprocess.run([sys.executable, os.path.abspath(__file__)] + args, capture_output=True, text=True,
                       cwd=tmp, env=dict(os.environ, PYTHONWARNINGS="ignore"))
    return r.returncode, r.stdout + r.stderr


def check():
    import json
    import tempfile
    tmp = tempfile.mkdtemp(prefix="fi_bench_dryrun_")
    results = []

    def ok(cond, what, out=""):
        results.append(bool(cond))
        print(("ok   " if cond else "FAIL ") + what, flush=True)
        if not cond and out:
            print("\n".join(out.splitlines()[-15:]))

    from flashinfer.fused_moe.utils import get_hybrid_num_tokens_buckets
    buckets = get_hybrid_num_tokens_buckets(8192)
    meta = {"flashinfer_version": flashinfer.__version__, "cuda_version": "*", "cublas_version": "*",
            "cudnn_version": "*", "cudnn_frontend_version": "*", "cutlass_dsl_version": "*",
            "gpu": "NVIDIA H200"}
    for name, d in fi_bench.DEPLOYS.items():
        g1 = 36 if d.dtype == "fp8" else 45
        table = {"_metadata": meta}
        for s in (1, 2):
            for b in buckets:
                table[fi_bench.tunetab_key(d, s, b)] = ["MoERunner", 3 if s == 1 else g1 + 20]
        path = os.path.join(tmp, "tt_%s.json" % name)
        json.dump(table, open(path, "w"))
        rc, out = run(["check-load", name, path], tmp)
        ok(rc == 0 and "check-load: 42 of 42 lookups hit" in out,
           "check-load %s: tunetab-format keys with '*' metadata hit 42 of 42" % name, out)
        table["_metadata"] = dict(meta, gpu="NVIDIA H100 80GB HBM3")
        json.dump(table, open(path, "w"))
        rc, out = run(["check-load", name, path], tmp)
        ok(rc == 1 and "0 of 42 lookups hit" in out and "load_configs returned False" in out,
           "check-load %s: another gpu in _metadata is ignored (0 of 42, exit 1)" % name, out)
    d = "qwen3-bf16"
    rc, out = run(["autotune", d, "--out", "o", "--tokens", "512"], tmp)
    ok(rc == 0 and "42 entries of 42 expected; 42 keys identical to tunetab's format" in out,
       "autotune: FlashInfer's own cache has 42 entries in tunetab's key format", out)
    rc, out = run(["oracle", d, "--out", "o"], tmp)
    ok(rc == 0 and "oracle %s: 42 entries" % d in out, "oracle: 42 entries", out)
    cache = os.path.join("o", "fi_autotune_%s.json" % d)
    rc, out = run(["regret", os.path.join("o", "oracle_%s.json" % d), cache, "--json", "r.json"], tmp)
    r = json.load(open(os.path.join(tmp, "r.json"))) if rc == 0 else None
    ok(r and r["tables"][0]["scored"] == 42 and r["tables"][0]["geomean_regret"] == 0.0,
       "regret: FlashInfer's picks are the oracle's best (same measurement, no noise)", out)
    rc, out = run(["check-load", d, cache], tmp)
    ok(rc == 0 and "42 of 42 lookups hit" in out, "check-load of FlashInfer's own cache: 42 of 42", out)
    rc, out = run(["layer", d, "--out", "o", "--cache", "fi=" + cache, "--tokens", "1,8192", "--samples", "3"], tmp)
    lay = json.load(open(os.path.join(tmp, "o", "layer_%s.json" % d))) if rc == 0 else None
    ok(lay and lay["configs"]["fi"]["loaded"] and all(
        -1 not in lay["configs"]["fi"]["results"][t]["tactics"] and
        lay["configs"]["fallback"]["results"][t]["tactics"] == [-1, -1] for t in ("1", "8192")),
       "layer: the cache's tactics run, the fallback runs -1/-1", out)
    for name in ("dsv3-fp8-ep8", "mixtral-bf16-tp2"):
        rc, out = run(["layer", name, "--out", "o", "--tokens", "1,64", "--samples", "2"], tmp)
        ok(rc == 0, "layer %s runs (fp8 scales / EP / TP arguments)" % name, out)
        rc, out = run(["oracle", name, "--out", "o", "--buckets", "1,8192", "--method", "flashinfer"], tmp)
        ok(rc == 0 and "oracle %s: 4 entries" % name in out, "oracle %s --method flashinfer" % name, out)
    os.environ["FI_DRY_LOSE"] = "20"
    rc, out = run(["oracle", d, "--out", "lost", "--buckets", "1"], tmp)
    del os.environ["FI_DRY_LOSE"]
    part = json.load(open(os.path.join(tmp, "lost", "oracle_%s.json" % d))) if rc == 3 else None
    ok(part and part["complete"] is False and "unusable" in part["error"],
       "oracle stops with exit 3 and partial results when the CUDA context is lost", out)
    passed = sum(results)
    print("%d passed, %d failed" % (passed, len(results) - passed))
    if passed == len(results):
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["check"]:
        sys.exit(check())
    rc = fi_bench.main(sys.argv[1:])
    print("dry-run: exit %s; stub calls %s; delays %d" % (rc, CALLS, len(DELAYS)))
    sys.exit(rc)
