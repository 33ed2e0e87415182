"""The flashinfer worker's own Kernels on the CPU, for `make test` (TUNETAB_FI_KERNELS; issue #29):
`tunetab generate --profile --backend flashinfer` runs as on a GPU (the C side's plan, PREP with
the entry's key and the runner's arguments over the worker's protocol, the worker's parse_job,
_key_runner, _inputs, _check_key and prepare, FlashInfer's real MoERunner, get_valid_tactics and
forward), with FlashInfer's compiled module the recorder of recorder.py (the binding's rules of
the installed version) and timings made up from the tactic (the CPU times nothing). Each
preparation is appended to TUNETAB_RECORDER_LOG as one line: "ok" with the runner FlashInfer
built and what its profiler was given, or "FAIL" with what the binding would raise (the worker
then answers with an error, and generate fails).

TUNETAB_RECORDER_DEVICE="NAME:MAJOR.MINOR" is the GPU it claims (default an H200).
"""
import os
import sys

import __main__ as W  # scripts/tunetab-fi-worker.py, which loads this file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recorder import fi_module  # noqa: E402


class Kernels(W.Kernels):
    routing_cycle = 16

    def __init__(self, device):
        import torch
        self.torch, self.fi = torch, W.import_flashinfer()
        self.device, self.dev = device, torch.device("cpu")
        self._fresh()  # runners, weights, module, job, graphs (off: TUNETAB_FI_GRAPHS), stats
        name, _, cc = os.environ.get("TUNETAB_RECORDER_DEVICE", "NVIDIA H200:9.0").rpartition(":")
        self.name, (self.major, self.minor) = name, (int(x) for x in cc.split("."))
        self.log = os.environ["TUNETAB_RECORDER_LOG"]

    def who(self):
        v, t, _ = super().who()
        return v, t, f"flashinfer {v} on the CPU, its compiled module the recorder (tests/flashinfer)"

    def info(self):
        return (self.name, self.major, self.minor, 132, 232448, 233472, 62914560, 150109880320,
                1980.0, 4800.0, 1, 13000, 13000)

    def arch(self):
        return f"{self.major * 10 + self.minor}"

    def load(self, dtype):
        if self.module is None:
            self.module = fi_module(int(self.arch()))

    def prepare(self, job):
        what = "%s GEMM%d %d tokens" % (job["dtype"], job["stage"], job["bucket"])
        try:
            valid = super().prepare(job)
            rec = self.job["runner"].fused_moe_runner
            x, fc1 = self.job["inputs"][:2]
            line = "ok   %s: %s runner, x %s %s, fc1 %s %s, profiled: %s" % (
                what, rec.kind, tuple(x.shape), x.dtype, tuple(fc1.shape), fc1.dtype,
                "; ".join(rec.profiled[-1:]))
        except Exception as e:
            line = "FAIL %s: %s: %s" % (what, type(e).__name__, e)
            raise
        finally:
            with open(self.log, "a") as f:
                f.write(line + "\n")
        return valid

    def _us(self, tactic):
        return 10.0 + (tactic % 7) + (3.0 if tactic % 4 == 3 else 0.0)

    def warm(self, tactic):
        self._call(tactic)
        return self._us(tactic), 1.0

    def delay(self, us):
        pass

    def start(self, tactic, reps):
        self._call(tactic)
        return self._us(tactic)

    def elapsed_us(self, handle):
        return handle

    def mark(self):
        return None

    def wait(self, mark):
        pass

    def sync(self):
        pass

    def broken(self):
        return None
