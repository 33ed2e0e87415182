#!/usr/bin/env python3
"""worker_drive.py: tunetab's FlashInfer worker driven over its line protocol, without tunetab,
to tell what in a profiled run changes a race's times (docs/benchmarks.md, issue #28).

  worker_drive.py [--inproc] [--history none|screen|gemm1] [--rounds N] [--clocks] STAGE:BUCKET:T1/T2/...

Deployment: Qwen3-30B-A3B bf16 TP 1 (hidden 2048, 128 experts, intermediate 768, top-8,
Swiglu), the runner built with use_fused_finalize off (SGLang's default). A fresh worker
(`python3 scripts/tunetab-fi-worker.py 0`, as tunetab spawns it; --inproc: its Worker class in
this process) gets LOAD, then the history, then PREP of the race job (reps 32) and N ROUNDs of
the candidates (the race's batch: one delay, every candidate's lead-in call and sample back to
back). history: none; screen: first a screening PREP (reps 1) of every tactic of the same
entry and two screening rounds, as generate does; gemm1: a screen of GEMM1 at the same bucket
before. Prints each candidate's median and range of the rounds, in us.
"""
import argparse
import importlib.util
import io
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKER = os.path.join(ROOT, "scripts", "tunetab-fi-worker.py")
HIDDEN, INTER, EXPERTS, TOP_K = 2048, 768, 128, 8
IDS = {1: range(0, 45), 2: range(45, 90)}  # SM90 bf16, finalize off (cutlass-moe-tactics.md §3)


def load_worker():
    spec = importlib.util.spec_from_file_location("tunetab_fi_worker", WORKER)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


# the worker's module: its protocol's table, writer and reader (MESSAGES, write, read)
W = load_worker()


# the key's extras fields of FlashInfer 0.7.2+ (schemas/flashinfer/v0_7_2.yaml) and their values
# for this deployment (bf16, TP 1, EP 1, Swiglu, finalize off, PDL on)
FIELDS = ("x_dtype,weight_dtype,output_dtype,top_k,tp_size,ep_size,cluster_size,enable_alltoall,"
          "use_deepseek_fp8_block_scale,use_w4_group_scaling,use_mxfp8_act_scaling,"
          "use_wfp4afp8_humming,min_latency_mode,enable_pdl,activation_type,use_packed_weights,"
          "use_fused_finalize")
EXTRAS = ("(torch.bfloat16, torch.bfloat16, torch.bfloat16, %d, 1, 1, 1, False, False, False, False, "
          "False, False, True, 3, False, False)" % TOP_K)


def job(stage, bucket, reps, cands):
    feat, k = (2 * INTER, HIDDEN) if stage == 1 else (HIDDEN, INTER)
    key = "('trtllm::fused_moe::gemm%d', 'MoERunner', ((%d, %d), (%d, %d, %d), (0,), (%d, %d, %d), (0,)), %s)" % (
        stage, bucket, HIDDEN, EXPERTS, 2 * INTER, HIDDEN, EXPERTS, HIDDEN, INTER, EXTRAS)
    return W.write("PREP", W.REQUEST, items=[{"id": c} for c in cands], dtype="bf16",
                   batch=EXPERTS, tokens=1, features=feat, k=k, rounds=5, reps=reps, method=0,
                   stage=stage, bucket=bucket, hidden=HIDDEN, inter=INTER, local_experts=EXPERTS,
                   top_k=TOP_K, tp=1, tp_rank=0, ep=1, ep_rank=0, act=3, biases=0,
                   fused_finalize=0, key=key, key_fields=FIELDS, runner_args=None)


def round_line(min_reps, cands):
    return W.write("ROUND", W.REQUEST, items=[{"id": c, "reps": 0} for c in cands], method=0,
                   min_reps=min_reps)


def reply(line):
    """A reply's fields (the worker's own reader)."""
    words = line.split()
    return W.read(words[0], words[1:], direction=W.REPLY)[0]


class Spawned:
    def __init__(self):
        self.p = subprocess.Popen([sys.executable, WORKER, "0"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, line, until):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        got = []
        while True:
            r = self.p.stdout.readline()
            if not r:
                raise SystemExit("worker exited")
            r = r.strip()
            got.append(r)
            if r.split()[0] in until:
                return got


class InProc:
    def __init__(self):
        self.m = load_worker()
        self.lines = []
        self.m.out = lambda line: self.lines.append(line)
        import __main__  # the test stub (TUNETAB_FI_KERNELS) reports through the worker's note()
        __main__.note = self.m.note
        self.w = self.m.Worker(0)

    def ask(self, line, until):
        self.lines = []
        sys.stdin = io.StringIO(line + "\n")
        self.w.serve()
        return list(self.lines)


def times(lines):
    return {f["id"]: f["us"] for f in map(reply, (r for r in lines if r.startswith("T ")))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("entry")
    ap.add_argument("--inproc", action="store_true")
    ap.add_argument("--history", choices=("none", "screen", "gemm1", "sleep"), default="none")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--clocks", action="store_true", help="NVML's SM clock and power after each round")
    a = ap.parse_args()
    stage, bucket, cands = a.entry.split(":")
    stage, bucket = int(stage), int(bucket)
    cands = [int(c) for c in cands.split("/")]
    w = InProc() if a.inproc else Spawned()
    w.ask(W.write("LOAD", W.REQUEST, dtype="bf16"), ("OK", "ERR"))
    if a.history == "sleep":  # the GPU left alone for a second after LOAD's spin-up
        import time
        time.sleep(1.0)
    elif a.history != "none":
        s = stage if a.history == "screen" else 1
        ids = list(IDS[s])
        got = w.ask(job(s, bucket, 1, ids), ("END", "ERR"))
        ready = [reply(r)["id"] for r in got if r.startswith("READY")]
        for _ in range(2):
            w.ask(round_line(1, ready), ("END", "ERR"))
    w.ask(job(stage, bucket, 32, cands), ("END", "ERR"))
    per = {c: [] for c in cands}
    clocks = []
    for _ in range(a.rounds):
        for c, us in times(w.ask(round_line(16, cands), ("END", "ERR"))).items():
            per[c].append(us)
        if a.clocks:
            import torch  # NVML through torch: the SM clock and power right after the round
            clocks.append("%d/%.0f" % (torch.cuda.clock_rate(0), torch.cuda.power_draw(0) / 1000))
    if clocks:
        print("SM MHz/W after each round: " + " ".join(clocks))
    best = min(statistics.median(v) for v in per.values())
    print("%s history=%s %s: %s" % ("inproc" if a.inproc else "spawned", a.history, a.entry, " ".join(
        "%d %.2f [%.2f,%.2f] (+%.1f%%)" % (c, statistics.median(v), min(v), max(v),
                                          100 * (statistics.median(v) / best - 1))
        for c, v in per.items())))


if __name__ == "__main__":
    main()
