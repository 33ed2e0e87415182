#!/usr/bin/env python3
"""routing_bench.py: the MoE layer time of tactic tables under balanced and hot-rank routing
(issue #49), measured with tunetab's own layer measurement (the flashinfer worker's LAYER:
FlashInfer's whole cutlass_fused_moe per (GEMM1, GEMM2) pair, one CUDA graph over router
draws, the median of rounds) on the very jobs a `generate --profile --routing` run timed.

  TUNETAB_LAYER_TRACE=T tunetab generate ... --profile --backend flashinfer --routing robust -o D
  routing_bench.py --trace T --provenance D/tunetab_provenance_<DEV>.json \\
      --table tunetab=D/flashinfer_autotune_<DEV>.json --table flashinfer=fi_autotune.json \\
      --out routing.json [--rounds 5] [--seed-offset 1000]

Per bucket and routing load (each LAYER line of the trace) it times, in one fresh worker, the
union of the run's candidate pairs and every table's pair at that bucket (the provenance gives
the per-GEMM pairs as the table "per-GEMM"), with other router draws than the run's (the seed
moved by --seed-offset) and --rounds rounds; a table's regret at a bucket is its pair's time
over the best pair timed there, minus 1. Prints, per load and table, the geomean and the largest
regret over the buckets and the layer time summed over buckets against the best's; writes all
of it to --out. Needs the worker's Python with torch and FlashInfer on a GPU (--python)."""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def words(line):
    out = {}
    for w in line.split(" -- ")[0].split()[1:]:
        k, _, v = w.partition("=")
        out[k] = v
    return out


def table_pairs(path):
    """{bucket: [g1, g2]} of a FlashInfer JSON cache (keys' first input shape gives the bucket)."""
    with open(path) as f:
        doc = json.load(f)
    got = {}
    for key, value in doc.items():
        if key.startswith("_") or "fused_moe::gemm" not in key:
            continue
        m = re.search(r"'MoERunner', \(\((\d+), ", key)
        stage = 0 if "gemm1" in key else 1
        got.setdefault(int(m.group(1)), [None, None])[stage] = int(value[1])
    return got


def provenance_pairs(path):
    """The run's per-GEMM pairs and candidates, by bucket (its entries' "layer")."""
    with open(path) as f:
        doc = json.load(f)
    per_gemm, cands = {}, {}
    for key, e in doc["entries"].items():
        layer = e.get("layer")
        m = re.search(r"'MoERunner', \(\((\d+), ", key)
        if not layer or not m:
            continue
        b = int(m.group(1))
        per_gemm[b] = layer["per_gemm"]
        cands[b] = [p[:2] for p in layer["pairs"]]
    return per_gemm, cands


class Worker:
    def __init__(self, python, device):
        self.p = subprocess.Popen([python, os.path.join(ROOT, "scripts", "tunetab-fi-worker.py"),
                                   str(device)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.ask("WHO v=3")

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        replies = []
        while True:
            r = self.p.stdout.readline()
            if not r:
                raise SystemExit("the worker stopped")
            verb = r.split()[0]
            if verb == "NOTE":
                continue
            if verb in ("ERR", "FAULT"):
                raise SystemExit("the worker: " + r.strip())
            replies.append(words(r))
            if verb in ("WHO", "END"):
                return replies


def geomean(rs):
    return math.exp(sum(math.log1p(r) for r in rs) / len(rs)) - 1 if rs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trace", required=True)
    ap.add_argument("--table", action="append", default=[], metavar="LABEL=PATH")
    ap.add_argument("--provenance")
    ap.add_argument("--out", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed-offset", type=int, default=1000)
    a = ap.parse_args()
    tables = {}
    for spec in a.table:
        label, _, path = spec.partition("=")
        tables[label] = table_pairs(path)
    cands = {}
    if a.provenance:
        tables["per-GEMM"], cands = provenance_pairs(a.provenance)
    jobs = {}
    with open(a.trace) as f:
        for line in f:
            if line.startswith("LAYER "):
                w = words(line)
                jobs[(int(w["bucket"]), w["load"])] = line.rstrip("\n").split(" pairs=")[0]
    t0 = time.monotonic()
    worker = Worker(a.python, a.device)
    res = {}
    for (bucket, load), head in sorted(jobs.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        pairs = [tuple(p) for p in cands.get(bucket, [])]
        for t in tables.values():
            p = t.get(bucket)
            if p and None not in p and tuple(p) not in pairs:
                pairs.append(tuple(p))
        w = words(head)
        head = re.sub(r" layer_rounds=\d+", " layer_rounds=%d" % a.rounds, head)
        head = re.sub(r" seed=\d+", " seed=%d" % (int(w["seed"]) + a.seed_offset), head)
        line = "%s pairs=%d cols=g1,g2 -- %s" % (head, len(pairs), " ".join("%d,%d" % p for p in pairs))
        us = {}
        for r in worker.ask(line):
            if r.get("status") == "0":
                us["%s,%s" % (r["g1"], r["g2"])] = float(r["us"])
        res.setdefault(load, {})[bucket] = us
        print("[%6.1f s] %-10s %5d tokens: %d pairs timed" % (time.monotonic() - t0, load, bucket, len(us)),
              file=sys.stderr, flush=True)
    summary = {}
    for load, by_bucket in res.items():
        summary[load] = {}
        for label, t in tables.items():
            rs, mine, best_sum = [], 0.0, 0.0
            for bucket, us in sorted(by_bucket.items()):
                p = t.get(bucket)
                if not us or not p or "%d,%d" % tuple(p) not in us:
                    continue
                best = min(us.values())
                rs.append(us["%d,%d" % tuple(p)] / best - 1)
                mine += us["%d,%d" % tuple(p)]
                best_sum += best
            summary[load][label] = dict(buckets=len(rs), geomean_pct=100 * geomean(rs),
                                        max_pct=100 * max(rs) if rs else None,
                                        sum_over_best_pct=100 * (mine / best_sum - 1) if best_sum else None)
    with open(a.out, "w") as f:
        json.dump(dict(trace=a.trace, tables={k: {str(b): p for b, p in v.items()} for k, v in tables.items()},
                       rounds=a.rounds, seed_offset=a.seed_offset, us=res, summary=summary,
                       seconds=time.monotonic() - t0), f, indent=1)
    print("| load | table | buckets | geomean regret | max regret | layer time summed over buckets vs best |")
    print("|---|---|---|---|---|---|")
    for load, s in summary.items():
        for label, v in s.items():
            print("| %s | %s | %d | %.2f%% | %s | %s |" % (
                load, label, v["buckets"], v["geomean_pct"],
                "%.2f%%" % v["max_pct"] if v["max_pct"] is not None else "-",
                "%+.2f%%" % v["sum_over_best_pct"] if v["sum_over_best_pct"] is not None else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
