#!/usr/bin/env python3
"""fleet_bench.py TUNETAB OUTDIR [REPEATS] (FLEET_ONLY=a,b: only deployments whose name has a or b,
or is a or b where that is a whole name;
FLEET_ARGS="--backend flashinfer": more generate arguments for every arm; FLEET_DEVICES_ALL=1: a
third arm): issues #8 and #18's acceptance run on a machine with two GPUs of one model
(docs/fleet.md).

For each deployment, REPEATS times (default 2), alternating the order of the two arms:
 (1) single: one process on GPU 0 profiles the whole table (process wall time);
 (2) fleet: two launcher-style processes started at once (OMPI_COMM_WORLD_RANK/SIZE and
     OMPI_COMM_WORLD_LOCAL_RANK set as `mpirun -np 2` sets them, so each takes its shard from
     the launcher and its GPU from the local rank), then `tunetab merge`; wall time from the
     launch of the first process to the end of the merge;
 (3) with FLEET_DEVICES_ALL=1: one process with `--devices all` (a worker per GPU, one queue).
Then it checks the merged table against the single run's, key by key, and sorts every difference:
a tie the single run declared (its provenance lists the merged tactic among the candidates whose
interval overlapped the chosen one's), a tie only the shard declared, or undeclared; for an
undeclared one, how each run's journal timed the other's pick (raced or screened out, and how
far from its own). Prints one
JSON line per run and writes OUTDIR/fleet_bench.json.

fleet_bench.py --compare SINGLE MERGED SHARD...: only that check, of tables already made (the
one-GPU stand-in of tests/bench/fi_h200.sh startup); one JSON line.
fleet_bench.py --pairs RUN...: the same check between every two whole-table runs (the first of
a pair as "single", the second as its own shard): how often runs disagree with no sharding."""
import json, os, shlex, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fi_bench import key_entry  # noqa: E402
DEPLOYS = [("deepseek-v3-fp8-ep8", ["--model", "deepseek-v3", "--dtype", "fp8", "--ep", "8"]),
           ("qwen3-30b-a3b-bf16", ["--model", "qwen3-30b-a3b", "--dtype", "bf16"]),
           ("deepseek-v3-fp8-ep8-top8", ["--model", "deepseek-v3", "--dtype", "fp8", "--ep", "8",
                                         "--top", "8"]),
           ("deepseek-v3-fp8-ep8-exhaustive", ["--model", "deepseek-v3", "--dtype", "fp8", "--ep", "8",
                                               "--top", "all"])]
if os.environ.get("FLEET_ONLY"):  # e.g. FLEET_ONLY=exhaustive,top8; a whole name: only that one
    _words = os.environ["FLEET_ONLY"].split(",")
    _names = [d[0] for d in DEPLOYS]
    DEPLOYS = [d for d in DEPLOYS
               if any(w == d[0] or (w not in _names and w in d[0]) for w in _words)]
BASE = ["generate", "--device", "auto", "--profile", "-q"] + shlex.split(os.environ.get("FLEET_ARGS", ""))
CLEAN = {k: v for k, v in os.environ.items()
         if not k.startswith(("OMPI_", "SLURM_", "PMI_")) and k != "CUDA_VISIBLE_DEVICES"}


def prov(d):
    f = [x for x in os.listdir(d) if x.startswith("tunetab_provenance_")][0]
    return json.load(open(os.path.join(d, f)))


def table(d):
    f = [x for x in os.listdir(d) if x.endswith(".json") and not x.startswith("tunetab_")][0]
    j = json.load(open(os.path.join(d, f)))
    return {k: v[1] for k, v in j.items() if not k.startswith("_")}


def single(args, d):
    t0 = time.perf_counter()
    r = subprocess.run([T] + BASE + args + ["-o", d], env=CLEAN, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode:
        sys.exit("single run failed: " + r.stderr[-2000:])
    return dt


def fleet(args, d):
    t0 = time.perf_counter()
    procs = []
    for rank in range(2):
        env = dict(CLEAN, OMPI_COMM_WORLD_RANK=str(rank), OMPI_COMM_WORLD_SIZE="2",
                   OMPI_COMM_WORLD_LOCAL_RANK=str(rank))
        procs.append(subprocess.Popen([T] + BASE + args + ["-o", d], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    shard_s = []
    for p in procs:
        _, err = p.communicate()
        shard_s.append(time.perf_counter() - t0)
        if p.returncode:
            sys.exit("shard failed: " + err[-2000:])
    merged = os.path.join(d, "merged")
    r = subprocess.run([T, "merge", merged, os.path.join(d, "shard-0-of-2"),
                        os.path.join(d, "shard-1-of-2")], env=CLEAN, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode:
        sys.exit("merge failed: " + r.stderr[-2000:])
    return dt, shard_s, merged


def journal_times(d):
    """(stage, bucket, tactic) -> (median us, "raced" or "screened out") from d's journal."""
    got = {}
    for f in os.listdir(d):
        if not f.endswith(".journal"):
            continue
        for line in open(os.path.join(d, f)):
            w = line.split()
            if len(w) >= 10 and w[0] == "M":
                got[(int(w[1]), int(w[2]), int(w[3]))] = (
                    float(w[5]), "screened out" if w[9] == "screened_out" else "raced")
    return got


def in_run(times, key, pick, other):
    """How the run of times measured other against its own pick for key: 'raced, +0.8%'."""
    stage, bucket, _ = key_entry(key)
    mine, them = times.get((stage, bucket, pick)), times.get((stage, bucket, other))
    if not them:
        return "not timed"
    return f"{them[1]}, {100 * (them[0] / mine[0] - 1):+.1f}%" if mine else them[1]


def compare(sdir, mdir, shard_dirs):
    a, b = table(sdir), table(mdir)
    pa = prov(sdir)["entries"]
    pb = {}
    for sd in shard_dirs:
        pb.update(prov(sd)["entries"])
    ja, jb = journal_times(sdir), {}
    for sd in shard_dirs:
        jb.update(journal_times(sd))
    same = ties = shard_ties = other = 0
    bad = []
    assert set(a) == set(b), "the merged table has other keys than the single run's"
    for k in a:
        if a[k] == b[k]:
            same += 1
        elif b[k] in pa[k].get("ties", []):
            ties += 1
        elif a[k] in pb[k].get("ties", []):
            shard_ties += 1
        else:
            other += 1
            bad.append({"key": k[:80], "single": a[k], "merged": b[k], "single_entry": pa[k],
                        "shard_entry": pb[k],
                        # the merged pick in the single run, and the single pick in the shard's
                        "merged_in_single": in_run(ja, k, a[k], b[k]),
                        "single_in_shard": in_run(jb, k, b[k], a[k])})
    return {"entries": len(a), "same": same, "tie_declared_by_single": ties,
            "tie_declared_by_shard_only": shard_ties, "undeclared": other,
            "undeclared_detail": bad[:5]}


def main():
    global T
    if sys.argv[1] == "--compare":
        print(json.dumps(compare(sys.argv[2], sys.argv[3], sys.argv[4:])))
        return
    if sys.argv[1] == "--pairs":
        runs, differing = sys.argv[2:], 0
        for i, a in enumerate(runs):
            for b in runs[i + 1:]:
                r = compare(a, b, [b])
                differing += r["undeclared"] > 0
                print(json.dumps({"first": os.path.basename(a), "second": os.path.basename(b),
                                  "undeclared": r["undeclared"],
                                  "detail": [{k: u[k] for k in ("key", "single", "merged",
                                              "merged_in_single", "single_in_shard")}
                                             for u in r["undeclared_detail"]]}))
        n = len(runs) * (len(runs) - 1) // 2
        print(json.dumps({"pairs": n, "pairs_with_undeclared": differing}))
        return
    T, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    os.makedirs(out, exist_ok=True)
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm",
                              "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except OSError:
        gpu = "no nvidia-smi"  # a dry run with the fake backend or the FlashInfer stub
    rep = {"gpu": gpu, "args": BASE, "runs": []}
    for name, args in DEPLOYS:
        for i in range(repeats):
            sd, fd = os.path.join(out, f"{name}-{i}-single"), os.path.join(out, f"{name}-{i}-fleet")
            if i % 2 == 0:
                ts = single(args, sd)
                tf, shard_s, merged = fleet(args, fd)
            else:
                tf, shard_s, merged = fleet(args, fd)
                ts = single(args, sd)
            shards = [os.path.join(fd, "shard-0-of-2"), os.path.join(fd, "shard-1-of-2")]
            r = {"deployment": name, "repeat": i, "single_s": round(ts, 3), "fleet_s": round(tf, 3),
                 "shard_done_s": [round(x, 3) for x in shard_s], "ratio": round(tf / ts, 3)}
            r.update(compare(sd, merged, shards))
            if os.environ.get("FLEET_DEVICES_ALL") == "1":
                dd = os.path.join(out, f"{name}-{i}-devices-all")
                ta = single(args + ["--devices", "all"], dd)
                r.update(devices_all_s=round(ta, 3), devices_all_ratio=round(ta / ts, 3),
                         devices_all=compare(sd, dd, [dd]))
            rep["runs"].append(r)
            print(json.dumps(r), flush=True)
    json.dump(rep, open(os.path.join(out, "fleet_bench.json"), "w"), indent=1)
    print(json.dumps({"max_ratio": max(r["ratio"] for r in rep["runs"]),
                      "undeclared": sum(r["undeclared"] for r in rep["runs"])}))


if __name__ == "__main__":
    main()
