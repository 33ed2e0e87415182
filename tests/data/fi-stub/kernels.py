"""A stand-in for FlashInfer's fused-MoE runner, for CPU tests of the flashinfer backend's
protocol (TUNETAB_FI_KERNELS=tests/data/fi-stub/kernels.py). It has the real Kernels class's
methods (scripts/tunetab-fi-worker.py) and synthetic, deterministic timings: a base time per
stage and bucket times a factor per tactic (every 4th tactic 3x slower), with 0.2% noise. SM90 tactic ranges as in
cutlass-moe-tactics.md §3.0.1. TUNETAB_STUB_UNUSABLE=<text> makes it refuse to start, like a
Python without FlashInfer; TUNETAB_STUB_NO_KERNELS=<dtype> aborts when that dtype's runner is
built, like a FlashInfer build without its kernels; TUNETAB_STUB_VERSION sets the FlashInfer version it claims, TUNETAB_STUB_DELAY_MS slows every
sample. TUNETAB_STUB_ROUTING=<a> adds FlashInfer's routing samples (scripts/tunetab-fi-worker.py,
Kernels.routing_cycle): call n after a preparation runs on sample n % 16, and a tactic's time on
sample s is its time times 1 + a*cos(2*pi*(s + 3*tactic)/16), which averages to its time over
any 16 consecutive calls and ranks tactics otherwise on fewer. TUNETAB_FAKE_GPUS=N: it sees N
GPUs (default 1) and refuses a device beyond them; TUNETAB_STUB_RENDEZVOUS=DIR[:S]: a worker's start
waits (up to S s, default 10) until the workers of all N GPUs have started, as workers started one after
the other never would (the test of `--devices` starting them together). Like the real class it
captures whole-cycle samples as "graphs" (capture(): a replay runs on the routing samples of the
capture, the stub's call count does not move) with TUNETAB_FI_GRAPHS=1;
TUNETAB_STUB_CAPTURE_FAIL=1 makes every capture fail where the plain call works (graphs off).

The ops beside the fused MoE (issue #39: fp4_gemm, trtllm_fp4_block_scale_moe) go to Ops
(op_kernels()), which the worker's profile_op, PREP, ROUND and GATE drive as they drive its
OpKernels: a bucket's tactics are range(8) whatever the op and runner (a candidate that is an
integer outside it is not valid; one that is not an integer always is), and the times are
exact, without noise (op_time: the fastest tactic is 3 at buckets up to 64, 5 above, the
fallback -1 slower than all of range(8) but 0 above 64). TUNETAB_TEST_WRONG_TACTIC=<id> fails
that candidate in the gate; TUNETAB_STUB_CANNOT_RUN=1 makes every op refuse this GPU (SM90),
with OPTEST's words. An integer tactic from 1 << 20 up is valid, and raises when called."""
import json
import math
import os
import random
import time
import zlib

RANGES = {"bf16": (45, 81), "fp16": (45, 81), "fp8": (36, 72)}


class Kernels:
    routing_cycle = 16

    def __init__(self, device):
        why = os.environ.get("TUNETAB_STUB_UNUSABLE")
        if why:
            raise RuntimeError(why)
        self.visible = int(os.environ.get("TUNETAB_FAKE_GPUS") or 1)
        if device >= self.visible:
            raise RuntimeError(f"no GPU {device} ({self.visible} visible)")
        meet = os.environ.get("TUNETAB_STUB_RENDEZVOUS")
        if meet:
            meet, _, wait = meet.partition(":")
            wait = float(wait or 10)
            open(os.path.join(meet, f"started-{device}"), "w").close()
            end = time.monotonic() + wait
            while len([f for f in os.listdir(meet) if f.startswith("started-")]) < self.visible:
                if time.monotonic() > end:
                    raise RuntimeError(f"GPU {device}'s worker waited {wait:g} s for the other "
                                       "GPUs' workers: they were not started together")
                time.sleep(0.02)
        self.device = device
        self.job = None
        self.loaded = False
        self.rng = random.Random(1)
        self.routing = float(os.environ.get("TUNETAB_STUB_ROUTING", "0"))
        self.calls = 0  # runner calls since the preparation, its own included
        self.graphs = {}  # (tactic, reps) -> the call count at capture (capture())
        self.graph_why = None if os.environ.get("TUNETAB_FI_GRAPHS") == "1" else \
            "off (TUNETAB_FI_GRAPHS=1 turns them on)"
        self.stats = dict(captures=0, capture_failed=0)

    def who(self):
        v = os.environ.get("TUNETAB_STUB_VERSION", "0.7.4")
        return v, "0.0-stub", f"FlashInfer stub {v} (tests/data/fi-stub)"

    # TUNETAB_STUB_GPU: the GPU it claims (name, cc, SMs, shared memory, L2, memory, clock, GB/s)
    GPUS = {
        "h200": ("NVIDIA H200", 9, 0, 132, 232448, 233472, 62914560, 150109880320, 1980.0, 4814.0),
        "b200": ("NVIDIA B200", 10, 0, 148, 232448, 233472, 132120576, 191514411008, 1965.0, 7672.0),
        "rtx-pro-6000-server": ("NVIDIA RTX PRO 6000 Blackwell Server Edition", 12, 0, 188, 101376,
                                102400, 134217728, 102642122752, 2617.0, 1597.0),
    }

    def info(self):
        g = self.GPUS[os.environ.get("TUNETAB_STUB_GPU", "h200")]
        return g + (self.visible, 13000, 13000)

    def load(self, dtype):
        if not self.loaded:
            import __main__
            __main__.note("loading FlashInfer's fused-MoE module for SM90 from the stub")
            self.loaded = True

    @staticmethod
    def check_key(job):
        """The job's key (hex on the PREP line, parsed by the worker) names what the job's
        fields say, as the real worker builds its runner from the key and checks it: the
        bucket, the experts, hidden size and the key's extras, or the runner's arguments where
        the key has none (top_k, tp_size, ep_size, activation_type, use_fused_finalize). A key
        that is not the entry's is an error."""
        if "key" not in job:  # not from a PREP line (regret.py asks for the tactic lists)
            return
        key, fields = job["key"], job["key_fields"]
        if key is None or fields is None:
            raise ValueError("PREP without the entry's key and its extras' names")
        ex = dict(zip(fields, job["runner"] if job.get("runner") is not None else key[3]))
        (x, fc1, b1, fc2, b2) = key[2]
        want = {"bucket": x[0], "local_experts": fc2[0], "hidden": fc2[1], "top_k": ex.get("top_k"),
                "tp": ex.get("tp_size"), "ep": ex.get("ep_size"), "act": ex.get("activation_type"),
                "fused_finalize": int(ex["use_fused_finalize"]) if "use_fused_finalize" in ex else None,
                "biases": int(tuple(b1) != (0,))}
        bad = ["%s %s, the key's %s" % (k, job[k], v) for k, v in want.items() if v is not None and job[k] != v]
        if bad:
            raise ValueError("the key is not the job's: " + "; ".join(bad))

    def prepare(self, job):
        self.check_key(job)
        if os.environ.get("TUNETAB_STUB_NO_KERNELS") == job["dtype"]:
            # a FlashInfer build without this dtype's kernels: the runner's constructor aborts
            # (the H200 bundle's stubbed-out kernels print FI_STUB_CALLED and abort)
            import sys
            print("FI_STUB_CALLED MoeGemmRunner<%s>" % job["dtype"], file=sys.stderr, flush=True)
            os.abort()
        if job["dtype"] not in RANGES:
            raise ValueError(f"the stub has no tactic list for {job['dtype']} (bf16, fp16, fp8)")
        n1, n2 = RANGES[job["dtype"]]
        rec = os.environ.get("TUNETAB_STUB_RECORD")
        if rec and not job.get("for_gate"):  # the preparations for timing
            with open(rec, "a") as f:
                f.write("dtype {dtype} stage {stage} finalize {fused_finalize} act {act} biases {biases} "
                        "tp {tp} ep {ep} top_k {top_k} hidden {hidden} inter {inter} experts {local_experts}\n".format(**job))
        self.job = job
        self.calls = 1
        self.graphs = {}
        if job["stage"] == 1:
            return set(range(n1))
        return set(range(n1, n1 + (n2 if job.get("fused_finalize", 1) else n1)))

    def gate(self, tactic, bounds):
        """The correctness gate: every tactic computes the right answer but the one named by
        TUNETAB_TEST_WRONG_TACTIC (as the real worker perturbs it); a dtype without bounds is
        unchecked."""
        if bounds[0] <= 0:
            return "unchecked", 0.0, 0.0, "the dtype has no gate bounds (configs/dtypes.yaml)"
        if os.environ.get("TUNETAB_TEST_WRONG_TACTIC") == str(tactic):
            return "bad", 3.25, 0.5, "differs from FlashInfer's default tactics by 0.5 of their largest value (bound %g)" % bounds[0]
        return "ok", 0.0, 0.0, "-"

    def _time(self, tactic):
        j = self.job
        if tactic >= 1 << 20:
            raise RuntimeError(f"Invalid gemm{j['stage']} profile id: {tactic}")
        base = 5.0 + j["bucket"] * j["top_k"] * j["hidden"] * j["inter"] / 4e8
        # every 4th tactic, the first of each stage's list among them (FlashInfer's fallback
        # for gemm1), is 3x slower at every bucket: what a screen may leave out a bucket later
        slow = 3.0 if tactic % 4 == 0 else 1.0
        # GEMM2 without the fused finalize: another epilogue, other winners
        salt = 7919 if j["stage"] == 1 or j.get("fused_finalize", 1) else 104729
        return slow * base * (1.0 + 0.25 * ((tactic * salt + j["bucket"]) % 13) / 13.0)

    def _calls(self, tactic, n):
        """The mean time of the next n calls of tactic, each on its routing sample."""
        t, cycle = self._time(tactic), self.routing_cycle
        ts = [t * (1.0 + self.routing * math.cos(2 * math.pi * ((self.calls + 1 + i) % cycle + 3 * tactic) / cycle))
              for i in range(n)]
        self.calls += n
        return sum(ts) / n

    def warm(self, tactic):
        self._calls(tactic, 6)
        return self._time(tactic), 20.0

    def delay(self, us):
        d = os.environ.get("TUNETAB_STUB_DELAY_MS")
        if d:  # slow runs, for kill tests
            time.sleep(int(d) / 1000.0)

    def capture(self, tactic, reps):
        if self.graph_why is not None:
            return False
        self._time(tactic)  # an invalid tactic fails its capture, and its plain call too
        if os.environ.get("TUNETAB_STUB_CAPTURE_FAIL") == "1":
            self.stats["capture_failed"] += 1
            self.graph_why = "capturing a sample failed: the stub's capture fails"
            return False
        self.graphs[(tactic, reps)] = self.calls
        self.calls += reps + 1  # the capture took the profiler's next reps + 1 samples
        self.stats["captures"] += 1
        return True

    def start(self, tactic, reps):
        at = self.graphs.get((tactic, reps))
        if at is not None:  # a replay: the captured calls, on the captured routing samples
            now, self.calls = self.calls, at
            self._calls(tactic, 1)
            us = self._calls(tactic, reps)
            self.calls = now
            return us
        self._calls(tactic, 1)  # the untimed lead-in call
        return self._calls(tactic, reps)

    def mark(self):
        return None

    def wait(self, mark):
        pass

    def elapsed_us(self, handle):
        # the noise is drawn when a sample is read, once per candidate and round, so a batch
        # the worker takes again (its host timing varies) leaves the sequence as it was
        return handle * (1.0 + 0.002 * self.rng.random())

    def sync(self):
        pass

    def fi_sample(self, tactic):
        return self._time(tactic)

    def layer(self, job, pairs, load):
        """The whole layer per (GEMM1, GEMM2) pair (the real Kernels.layer's contract), made up:
        the two stages' times at the bucket, the sum scaled by the measured rank's share of the
        picks (1 under uniform routing), and a GEMM1 tactic that is among the fastest few at the
        bucket ((tactic * 7919 + bucket) % 13 < 2: the fastest by _time) slower by 1 + 0.15 *
        log2(peak) where the hottest local expert gets peak times the mean rows: the collapse
        under a hot rank that issue #49 measured on the real kernels. 0.2% noise per pair.
        TUNETAB_STUB_LAYER_FAIL=G1,G2 makes that pair raise; TUNETAB_STUB_NO_LAYER=<text>
        makes every pair unmeasurable with that reason (a FlashInfer whose public call takes
        no profile_ids)."""
        self.prepare(dict(job, for_gate=True))
        j = self.job
        nolayer = os.environ.get("TUNETAB_STUB_NO_LAYER")
        local, ep = j["local_experts"], j["ep"]
        pop = load["popularity"]
        if pop is not None and len(pop) != local * ep:
            raise ValueError(f"popularity of {len(pop)} experts, the layer has {local * ep}")
        share = peak = 1.0
        if pop is not None:
            total = sum(pop)
            mine = pop[j["ep_rank"] * local:(j["ep_rank"] + 1) * local]
            share = sum(mine) / total * ep
            peak = max(mine) / total * local * ep
        n1, n2 = RANGES[j["dtype"]]
        fail = os.environ.get("TUNETAB_STUB_LAYER_FAIL")
        for g1, g2 in pairs:
            if nolayer:
                yield g1, g2, 1, float("nan"), nolayer
                continue
            if fail == "%d,%d" % (g1, g2) or not (0 <= g1 < n1 and n1 <= g2 < n1 + n2):
                yield g1, g2, 2, float("nan"), "RuntimeError: the stub's layer call raised"
                continue
            self.job = dict(j, stage=1)
            t1 = self._time(g1)
            self.job = dict(j, stage=2)
            t2 = self._time(g2)
            self.job = j
            if (g1 * 7919 + j["bucket"]) % 13 < 2 and peak > 1:
                t1 *= 1.0 + 0.15 * math.log2(peak)
            yield g1, g2, 0, share * (t1 + t2) * (1.0 + 0.002 * self.rng.random()), "-"

    def broken(self):
        return None

    def op_kernels(self):
        return Ops(self)


def op_time(bucket, tactic):
    """An op's tactic's time at a bucket, us: base = 5 + bucket / 64; tactic t (an integer; any
    other tactic counts as the crc32 of its compact JSON text mod 8) takes
    base * (1 + 0.1 * |t - w|), w = 3 at buckets up to 64 and 5 above; FlashInfer's fallback -1
    takes base * 1.45 (it beats only tactics 5 or more from w: tactic 0 above 64, 10 and up), as
    does [-1, -1] (the trtllm MoE's name for it)."""
    base = 5.0 + bucket / 64.0
    if tactic in (-1, [-1, -1]):
        return base * 1.45
    if not isinstance(tactic, int) or isinstance(tactic, bool):
        tactic = zlib.crc32(json.dumps(tactic, separators=(",", ":")).encode()) % 8
    w = 3 if bucket <= 64 else 5
    return base * (1.0 + 0.1 * abs(tactic - w))


class Ops:
    """The ops' stand-in for the worker's OpKernels (prepare, tactic, warm, start, elapsed_us,
    gate, usable; the rest is the stub's Kernels'): synthetic times from op_time, no routing
    cycle, no graphs."""

    routing_cycle = 1
    capture = None
    graph_why = "off for ops"

    def __init__(self, base):
        self.base = base
        self.job = None

    def __getattr__(self, name):  # delay, sync, mark, wait, broken, who, info, stats
        return getattr(self.base, name)

    def load(self, dtype=None):
        pass

    def usable(self, name, runner):
        if os.environ.get("TUNETAB_STUB_CANNOT_RUN") == "1":
            return (f"cannot run on SM90: {name}'s modules are built for SM100, SM103, SM120, "
                    "SM121 (the stub, TUNETAB_STUB_CANNOT_RUN)")
        return None

    def prepare(self, job):
        self.job = dict(job)
        if job.get("for_gate"):
            return set(job["tactics"])
        if job["tactics"] is None:  # the runner's own list
            self.job["tactics"] = {t: t for t in range(8)}
            return set(range(8))
        # from 1 << 20 up: listed, but the call raises (a tactic FlashInfer lists and cannot run)
        return {c for c, tac in job["tactics"].items()
                if not isinstance(tac, int) or 0 <= tac < 8 or tac >= 1 << 20}

    def tactic(self, c):
        return self.job["tactics"].get(c, c)

    def _time(self, c):
        tac = self.tactic(c)
        if isinstance(tac, int) and tac >= 1 << 20:
            raise RuntimeError(f"invalid tactic {tac} (the stub's ops)")
        return op_time(self.job["bucket"], tac)

    def warm(self, c):
        return self._time(c), 20.0

    def start(self, c, reps):
        return self._time(c)

    def elapsed_us(self, handle):
        return handle

    def fi_sample(self, c):
        return self._time(c)

    def gate(self, c, bounds):
        if bounds[0] <= 0:
            return "unchecked", 0.0, 0.0, "the dtype has no gate bounds (configs/dtypes.yaml)"
        if os.environ.get("TUNETAB_TEST_WRONG_TACTIC") == str(c):
            return "bad", 0.5, 0.25, ("differs from FlashInfer's default tactic by 0.25 of its "
                                      "largest value (bound %g)" % bounds[0])
        return "ok", 0.0, 0.0, "-"
