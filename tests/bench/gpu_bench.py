#!/usr/bin/env python3
"""gpu_bench.py TUNETAB OUTDIR [MAX_TOKENS]: the profiling benchmark of issue #5, on a GPU, for
Qwen3-30B-A3B bf16 TP 1 and DeepSeek-V3 fp8 EP 8. In one run:
 (a) tunetab's tuning time for the full table (--profile, top 4 + fallback);
 (b) the same table by exhaustive profiling of every candidate with FlashInfer's method
     (3 warm-up, 10 timed, mean, warm L2): wall time and the ratio to (a);
 (c) regret of tunetab's choices against the best of an oracle: every candidate re-timed
     with long repeats (tunetab's method, 41 interleaved rounds, --method full: no racing),
     geomean and max;
 (d) agreement between two independent tunetab runs;
 (e) entries whose choice is slower than the fallback beyond noise (oracle intervals);
 (f) regret of heuristic-only generation without and with calibration.
All timings come from the cuBLASLt proxy GEMM (docs/guide.md: "Profiling"), not FlashInfer's kernels."""
import ast, json, math, os, re, subprocess, sys, time

T, OUT = sys.argv[1], sys.argv[2]
MAX = sys.argv[3] if len(sys.argv) > 3 else "8192"
os.makedirs(OUT, exist_ok=True)
DEPLOYS = [("qwen3-30b-a3b-bf16", ["--model", "qwen3-30b-a3b", "--dtype", "bf16", "--tp", "1"]),
           ("deepseek-v3-fp8-ep8", ["--model", "deepseek-v3", "--dtype", "fp8", "--ep", "8"])]

def run(args, tag):
    t0 = time.perf_counter()
    r = subprocess.run([T, "generate", "--device", "auto", "--max-tokens", MAX] + args,
                       capture_output=True, text=True)
    dt = time.perf_counter() - t0
    open(os.path.join(OUT, tag + ".log"), "w").write(r.stdout + r.stderr)
    if r.returncode:
        print("FAILED", tag, r.stderr[-2000:])
        sys.exit(1)
    return dt

def table(d):
    f = [x for x in os.listdir(d) if x.endswith(".py")][0]
    m = ast.literal_eval(open(os.path.join(d, f)).read().split("=", 1)[1])
    out = {}
    for k, v in m.items():
        op = k.split("'")[1]
        toks = int(re.search(r"\(\((\d+),", k).group(1))
        out[(1 if op.endswith("gemm1") else 2, toks)] = v[1]
    return out

def journal(d):
    f = [x for x in os.listdir(d) if x.endswith(".journal")][0]
    res = {}
    for line in open(os.path.join(d, f)):
        p = line.split()
        if p[0] == "M" and p[4] == "0":
            res.setdefault((int(p[1]), int(p[2])), {})[int(p[3])] = (float(p[5]), float(p[6]), float(p[7]))
    return res

os.system("nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > %s/gpu.txt 2>&1" % OUT)
report = {"gpu": open(os.path.join(OUT, "gpu.txt")).read().strip(), "max_tokens": MAX, "deployments": {}}
cal = os.path.join(OUT, "cal.yaml")
t0 = time.perf_counter()
subprocess.run([T, "calibrate", "-o", cal], check=True, capture_output=True)
report["calibrate_s"] = round(time.perf_counter() - t0, 2)
for name, args in DEPLOYS:
    d = lambda s: os.path.join(OUT, name + "-" + s)
    r = {}
    r["a_tunetab_s"] = round(run(args + ["--profile", "-o", d("A"), "-q"], name + "-A"), 2)
    r["b_exhaustive_flashinfer_method_s"] = round(run(args + ["--profile", "--top", "all", "--method", "flashinfer", "--rounds", "3", "-o", d("X"), "-q"], name + "-X"), 2)
    r["b_ratio"] = round(r["b_exhaustive_flashinfer_method_s"] / r["a_tunetab_s"], 2)
    r["oracle_s"] = round(run(args + ["--profile", "--top", "all", "--rounds", "41", "--method", "full", "-o", d("O"), "-q"], name + "-O"), 2)
    run(args + ["--profile", "-o", d("B"), "-q"], name + "-B")
    r["a8_tunetab_top8_s"] = round(run(args + ["--profile", "--top", "8", "-o", d("A8"), "-q"], name + "-A8"), 2)
    run(args + ["-o", d("H"), "-q"], name + "-H")
    run(args + ["--calibration", cal, "-o", d("C"), "-q"], name + "-C")
    A, B, H, C, X = table(d("A")), table(d("B")), table(d("H")), table(d("C")), table(d("X"))
    A8 = table(d("A8"))
    O = journal(d("O"))
    fb = {1: None, 2: None}
    def regrets(choice):
        out = []
        for key, t in choice.items():
            o = O.get(key, {})
            if t not in o or not o:
                continue
            best = min(v[0] for v in o.values())
            out.append(o[t][0] / best - 1)
        return out
    def summary(xs):
        if not xs:
            return None
        g = math.exp(sum(math.log(1 + x) for x in xs) / len(xs)) - 1
        return {"geomean_pct": round(100 * g, 3), "max_pct": round(100 * max(xs), 3), "n": len(xs)}
    r["c_regret_tunetab"] = summary(regrets(A))
    r["c_regret_exhaustive_flashinfer_method"] = summary(regrets(X))
    r["c_regret_tunetab_top8"] = summary(regrets(A8))
    r["b_ratio_top8"] = round(r["b_exhaustive_flashinfer_method_s"] / r["a8_tunetab_top8_s"], 2)
    r["d_agreement_pct"] = round(100 * sum(A[k] == B.get(k) for k in A) / len(A), 2)
    slower = 0
    for key, t in A.items():
        o = O.get(key, {})
        ids = sorted(o)
        if not o or t not in o:
            continue
        # the stage's fallback is its list's first entry: the smallest id timed for that stage
        f = min(ids)
        if o[t][1] > o[f][2]:
            slower += 1
    r["e_slower_than_fallback"] = slower
    r["f_regret_heuristic_only"] = summary(regrets(H))
    r["f_regret_heuristic_calibrated"] = summary(regrets(C))
    r["entries"] = len(A)
    report["deployments"][name] = r
    print(name, json.dumps(r))
json.dump(report, open(os.path.join(OUT, "gpu_bench.json"), "w"), indent=2)
print(json.dumps(report, indent=2))
