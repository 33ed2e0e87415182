#!/usr/bin/env python3
"""budget_sim.py: which entries should `generate --profile --budget` measure? (issue #40)

An offline simulation on stored oracles (every valid tactic of every bucket timed on the GPU,
tests/bench/fi_bench.py `oracle`). Nothing here runs a GPU.

  prior OUTDIR [--tunetab PATH] [--deploy NAME ...]
      for each deployment, the heuristic's predicted time of every candidate of every entry
      (the default heuristic with the shipped fit, `--model-fit auto`, device h200), got by
      running `tunetab generate` with a wrapper of lib/moe_cost's rank() that prints what it
      returns; checks that the wrapper's table equals the default heuristic's. Writes
      OUTDIR/prior_NAME.json.
  sim PRIORDIR [--set cycle|first|both] [--json FILE] [--seeds N] [--mc N]
      per oracle: a budgeted run measures entries one at a time in some order; a measured entry
      gets the oracle's best tactic (optimistic), or -- the noisier variant -- the pick of
      tunetab's own full profiled run of that deployment (its table, judged by the oracle); an
      unmeasured entry keeps the heuristic's pick. Prints regret (geomean of ratios as
      fi_bench.py's geomean_regret, max, time-weighted) at budgets of B entries and B seconds
      (seconds: a per-entry cost model fitted on the journals of those full runs) for the
      orders below, per oracle and averaged.

Orders: plan (GEMM stage, then buckets ascending: timing.c today), random (mean of --seeds
seeds), voi (sum over candidates k of E[max(0, T_pick - T_k)] in us, T = predicted time x
lognormal error of sigma), voi_rel (voi / predicted pick time), voi_x_t (voi x predicted pick
time, the issue's "weighted by the entry's time" read literally), voi_min (E[T_pick - min_k T_k]
by Monte Carlo), voi_rel_b (voi_rel with sigma per entry, stage:bucket, pooled
over the other deployments), gap (smallest log gap between the model's #1 and #2 first), time
(largest predicted pick time first), hindsight (the entry's true regret first: not realizable,
the ceiling of any order); with a budget in seconds also voi_per_s (voi_min / the entry's
cost). sigma is estimated leave-one-deployment-out: the deployment's own oracles never order
it. Output is deterministic (fixed seeds, sorted iteration).
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import fi_bench  # noqa: E402  (standard library only at import time)

BENCH = "docs/bench"
# the oracles (every valid tactic timed, fused finalize on unless the case says off)
ORACLES = {
    "cycle": [  # 2026-12-01, 2 passes, whole routing cycles: the same session as the runs below
        ("%s/2026-12-01-h200-cycle/oracle_%s.json" % (BENCH, d), d, True)
        for d in ("qwen3-bf16", "dsv3-fp8-ep8", "mixtral-bf16-tp2", "glm45air-bf16-ep2",
                  "qwen3-235b-fp8-ep4", "mixtral22b-fp8-tp4", "minimax-m2-fp8-ep8", "glm45-bf16-ep4",
                  "scout-bf16-tp4")
    ] + [("%s/2026-12-02-h200-launch/oracle_off_dsv3-fp8-ep8.json" % BENCH, "dsv3-fp8-ep8", False)],
    "first": [  # 2026-12-01, 3 passes, the first oracles of each deployment
        ("%s/2026-12-01-h200-%s/oracle_%s.json" % (BENCH, s, d), d, True)
        for s, ds in (("flashinfer", ("qwen3-bf16", "dsv3-fp8-ep8", "mixtral-bf16-tp2")),
                      ("learn", ("glm45air-bf16-ep2", "qwen3-235b-fp8-ep4", "mixtral22b-fp8-tp4")),
                      ("fresh", ("minimax-m2-fp8-ep8", "glm45-bf16-ep4", "scout-bf16-tp4")))
        for d in ds
    ],
}
# tunetab's full profiled runs (flashinfer backend, held-out fits) of the same session as the
# cycle oracles: their tables are the noisier "measured" picks, their journals the cost model
RUNS = {d: "%s/2026-12-01-h200-cycle/%s/tt-%s-1" % (BENCH, "fresh-fit" if d in (
    "minimax-m2-fp8-ep8", "glm45-bf16-ep4", "scout-bf16-tp4") else "withfit", d)
    for d in ("qwen3-bf16", "dsv3-fp8-ep8", "mixtral-bf16-tp2", "glm45air-bf16-ep2", "qwen3-235b-fp8-ep4",
              "mixtral22b-fp8-tp4", "minimax-m2-fp8-ep8", "glm45-bf16-ep4", "scout-bf16-tp4")}
BUDGETS = (0, 2, 4, 8, 12, 16, 21, 32, 42)
BUDGET_FRACS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)  # of the full run's profiling seconds

DUMP_LUA = """-- budget_sim.py: the default heuristic, printing what rank() returns
local cost = tunetab.lib("moe_cost")
local gemm = tunetab.lib("gemm_cost")
local function rank(q)
  local r = cost.rank(q)
  for i, c in ipairs(r) do
    print(string.format("prior %d %d %d %d %.6f", q.stage, q.tokens, i, c.id, c.time))
  end
  return r
end
tunetab.heuristic { name = "default", rank = rank, rank_op = gemm.rank, params = cost.params }
"""


def case_name(deploy, finalize):
    return deploy if finalize else deploy + "-off"


# ----------------------------------------------------------------------------- prior

def cmd_prior(args):
    os.makedirs(args.outdir, exist_ok=True)
    cases = sorted({(d, f) for s in ORACLES.values() for _, d, f in s})
    if args.deploy:
        cases = [c for c in cases if case_name(*c) in args.deploy]
    with tempfile.TemporaryDirectory(prefix="budget_sim_") as tmp:
        lua = os.path.join(tmp, "dump.lua")
        with open(lua, "w") as f:
            f.write(DUMP_LUA)
        for d, fin in cases:
            gen = [args.tunetab, "generate", "--device", "h200"] + fi_bench.DEPLOYS[d].tunetab_args.split()
            if not fin:
                gen += ["--fused-finalize", "off"]
            a, b = os.path.join(tmp, case_name(d, fin) + "-dump"), os.path.join(tmp, case_name(d, fin) + "-default")
            p = subprocess.run(gen + ["--heuristic", lua, "-o", a], capture_output=True, text=True)
            q = subprocess.run(gen + ["-o", b], capture_output=True, text=True)
            if p.returncode or q.returncode:
                sys.exit("%s: generate failed:\n%s%s" % (d, p.stderr, q.stderr))
            ta = fi_bench.load_table(os.path.join(a, "flashinfer_autotune_NVIDIA_H200.json"))["entries"]
            tb = fi_bench.load_table(os.path.join(b, "flashinfer_autotune_NVIDIA_H200.json"))["entries"]
            if {k: v["tactic"] for k, v in ta.items()} != {k: v["tactic"] for k, v in tb.items()}:
                sys.exit("%s: the wrapper's table differs from the default heuristic's" % d)
            ents = {}
            for line in p.stderr.splitlines():
                m = re.match(r"tunetab: script: prior (\d) (\d+) (\d+) (\d+) (\S+)$", line)
                if m:
                    s, t, i, tid, us = m.groups()
                    ents.setdefault("%s:%s" % (s, t), []).append([int(tid), float(us)])
            picks = {"%d:%d" % (v["stage"], v["bucket"]): v["tactic"] for v in tb.values()}
            for name, lst in ents.items():
                if picks.get(name) != lst[0][0]:
                    sys.exit("%s %s: table picks %s, the ranking's first is %s" % (d, name, picks.get(name), lst[0][0]))
            fit = [l for l in q.stderr.splitlines() if "model: " in l]
            out = {"deploy": d, "fused_finalize": fin, "command": " ".join(gen[1:]),
                   "model": fit[0].split("model: ", 1)[1] if fit else None, "entries": ents}
            path = os.path.join(args.outdir, "prior_%s.json" % case_name(d, fin))
            fi_bench.write_text(path, json.dumps(out, indent=0, sort_keys=True) + "\n")
            print("%s: %d entries, %d candidates ranked; table equals the default heuristic's; wrote %s"
                  % (case_name(d, fin), len(ents), sum(len(v) for v in ents.values()), path))
    return 0


# ----------------------------------------------------------------------------- inputs

def load_case(path, deploy, finalize, priordir):
    with open(os.path.join(ROOT, path)) as f:
        oracle = json.load(f)
    with open(os.path.join(priordir, "prior_%s.json" % case_name(deploy, finalize))) as f:
        prior = json.load(f)
    entries = []
    for name in sorted(oracle["entries"], key=lambda n: tuple(map(int, n.split(":")))):
        oe = oracle["entries"][name]
        best, best_us = fi_bench.oracle_best(oe)
        ranked = prior["entries"].get(name)
        if best is None or not ranked:
            continue
        times = {int(t): v for t, v in oe["times_us"].items() if v is not None}
        st, pick_us = fi_bench.judge_entry(oe, ranked[0][0])
        if st != "ok":
            sys.exit("%s %s: the heuristic's pick %d has no oracle time" % (path, name, ranked[0][0]))
        s, t = map(int, name.split(":"))
        entries.append({"name": name, "stage": s, "tokens": t, "pred": ranked, "times": times,
                        "best_us": best_us, "pick_us": pick_us})
    return {"path": path, "deploy": deploy, "finalize": finalize, "case": case_name(deploy, finalize),
            "entries": entries}


def last_records(journal):
    """{(stage, tokens): {id: (median, n)}}: the last M record of each candidate, ok ones."""
    out = {}
    with open(os.path.join(ROOT, journal)) as f:
        for line in f:
            p = line.split()
            if len(p) >= 10 and p[0] == "M":
                out.setdefault((int(p[1]), int(p[2])), {})[int(p[3])] = (float(p[5]), int(p[8]), p[4] == "0")
    return out


def run_info(deploy):
    d = os.path.join(ROOT, RUNS[deploy])
    jl = glob.glob(os.path.join(d, "*.journal"))[0]
    table = fi_bench.load_table(os.path.join(d, "flashinfer_autotune_NVIDIA_H200.json"))["entries"]
    picks = {"%d:%d" % (v["stage"], v["bucket"]): v["tactic"] for v in table.values()}
    with open(d + ".log") as f:
        m = re.search(r"profiled in ([0-9.]+) s", f.read())
    rec = last_records(os.path.relpath(jl, ROOT))
    per = {}
    for (s, t), ids in rec.items():
        per["%d:%d" % (s, t)] = (sum(n for _, n, _ in ids.values()),
                                 sum(n * med for med, n, _ in ids.values()) / 1e6)
    return {"picks": picks, "profiled_s": float(m.group(1)), "samples": per}


def fit_cost(infos):
    """profiled_s = a x samples + b x sum(n x median) per run: least squares, a, b >= 0."""
    rows = [(sum(v[0] for v in i["samples"].values()), sum(v[1] for v in i["samples"].values()),
             i["profiled_s"]) for i in infos.values()]
    sxx = sum(x * x for x, _, _ in rows); syy = sum(y * y for _, y, _ in rows)
    sxy = sum(x * y for x, y, _ in rows); sxz = sum(x * z for x, _, z in rows)
    syz = sum(y * z for _, y, z in rows)
    det = sxx * syy - sxy * sxy
    a, b = (sxz * syy - syz * sxy) / det, (syz * sxx - sxz * sxy) / det
    if a < 0 or b < 0:  # one term alone
        a1, b1 = sxz / sxx, syz / syy
        ea = sum((z - a1 * x) ** 2 for x, _, z in rows); eb = sum((z - b1 * y) ** 2 for _, y, z in rows)
        a, b = (a1, 0.0) if ea <= eb else (0.0, b1)
    resid = [(z, a * x + b * y) for x, y, z in rows]
    return a, b, resid


# ----------------------------------------------------------------------------- the prior's error

def residuals(case):
    """Per entry, the centred log errors log(oracle/predicted) of the candidates both know."""
    out = []
    for e in case["entries"]:
        r = [math.log(e["times"][i] / p) for i, p in e["pred"] if i in e["times"] and p > 0]
        if len(r) >= 2:
            mu = sum(r) / len(r)
            out.append([x - mu for x in r])
    return out


def sigma_of(cases):
    xs = [x for c in cases for r in residuals(c) for x in r]
    return math.sqrt(sum(x * x for x in xs) / max(len(xs) - 1, 1))


def sigma_by_entry(cases):
    """sigma per entry name (stage:bucket), pooled over the cases given."""
    xs = {}
    for c in cases:
        for e in c["entries"]:
            r = [math.log(e["times"][i] / p) for i, p in e["pred"] if i in e["times"] and p > 0]
            if len(r) >= 2:
                mu = sum(r) / len(r)
                xs.setdefault(e["name"], []).extend(x - mu for x in r)
    return {n: math.sqrt(sum(x * x for x in v) / max(len(v) - 1, 1)) for n, v in xs.items()}


def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


GRID = [(-6.0 + 12.0 * i / 120) for i in range(121)]
GRID_W = [math.exp(-z * z / 2) for z in GRID]
GRID_WS = sum(GRID_W)


def e_pos_diff(a, b, s):
    """E[max(0, a e^X - b e^Y)], X, Y ~ N(-s^2/2, s^2) independent (mean-preserving lognormal
    errors): Black-Scholes in X, quadrature over Y."""
    if s <= 0:
        return max(0.0, a - b)
    tot = 0.0
    for z, w in zip(GRID, GRID_W):
        k = b * math.exp(s * z - s * s / 2)
        d1 = (math.log(a / k) + s * s / 2) / s
        tot += w * (a * phi(d1) - k * phi(d1 - s))
    return tot / GRID_WS


def voi_sum(e, s):
    p = e["pred"]
    a = p[0][1]
    return sum(e_pos_diff(a, t, s) for _, t in p[1:])


def voi_min(e, s, draws, rng):
    p = [t for _, t in e["pred"]]
    tot = 0.0
    for _ in range(draws):
        ts = [t * math.exp(rng.gauss(-s * s / 2, s)) for t in p]
        tot += ts[0] - min(ts)
    return tot / draws


# ----------------------------------------------------------------------------- the runs

def score(case, measured, picks_measured):
    """(geomean regret, max regret, time-weighted regret) of a table: measured entries get
    picks_measured's tactic (None: the oracle's best), the others the heuristic's pick."""
    rs, num, den = [], 0.0, 0.0
    for e in case["entries"]:
        if e["name"] in measured:
            pm = picks_measured.get(e["name"]) if picks_measured is not None else None
            t = e["best_us"] if pm is None else e["times"].get(pm, e["pick_us"])
        else:
            t = e["pick_us"]
        rs.append(t / e["best_us"] - 1.0)
        num += t
        den += e["best_us"]
    return fi_bench.geomean_regret(rs), max(rs), num / den - 1.0


def prefix_by_count(order, b):
    return set(order[:b])


def prefix_by_cost(order, cost, budget):
    out, used = set(), 0.0
    for n in order:
        if used + cost[n] > budget + 1e-12:
            break  # today's rule: the budget is spent, the rest keep the prediction
        used += cost[n]
        out.add(n)
    return out


def orders_for(case, s, mc, seed, s_entry):
    ents = case["entries"]
    plan = [e["name"] for e in ents]  # stage, then bucket ascending
    key = {}
    rng = random.Random(seed)
    for e in ents:
        v = voi_sum(e, s)
        a = e["pred"][0][1]
        g = math.log(e["pred"][1][1] / a) if len(e["pred"]) > 1 else float("inf")
        vb = voi_sum(e, s_entry.get(e["name"], s))
        key[e["name"]] = {"voi": v, "voi_rel": v / a, "voi_x_t": v * a, "voi_min": voi_min(e, s, mc, rng),
                          "voi_rel_b": vb / a, "gap": -g, "time": a,
                          # not realizable: the entry's true regret, known only in hindsight
                          "hindsight": math.log(e["pick_us"] / e["best_us"])}
    pos = {n: i for i, n in enumerate(plan)}
    out = {"plan": plan}
    for k in ("voi", "voi_rel", "voi_x_t", "voi_min", "voi_rel_b", "gap", "time", "hindsight"):
        out[k] = sorted(plan, key=lambda n: (-key[n][k], pos[n]))
    return out, key


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


def cmd_sim(args):
    sets = ["cycle", "first"] if args.set == "both" else [args.set]
    cases = {s: [load_case(p, d, f, args.priordir) for p, d, f in ORACLES[s]] for s in sets}
    infos = {d: run_info(d) for d in sorted(RUNS)}
    a, b, resid = fit_cost(infos)
    print("cost model (journals of the full runs %s): entry seconds = %.4g x samples + %.4g x "
          "sum(samples x median s); per run measured/fitted s: %s"
          % (BENCH + "/2026-12-01-h200-cycle/{withfit,fresh-fit}/tt-*-1", a, b,
             ", ".join("%.1f/%.1f" % r for r in resid)))
    cost = {d: {n: a * v[0] + b * v[1] for n, v in i["samples"].items()} for d, i in infos.items()}
    allcases = [c for s in sets for c in cases[s]]
    sig_cases = cases.get("cycle") or cases[sets[0]]
    print("sigma (sd of centred log(oracle/predicted) over every candidate of every entry): all "
          "deployments %.3f" % sigma_of(sig_cases))
    result = {"cost_model": {"a_s_per_sample": a, "b": b}, "sets": {}}
    for s in sets:
        print("\n== oracle set %s" % s)
        rows = {}
        for c in cases[s]:
            sig = sigma_of([o for o in sig_cases if o["deploy"] != c["deploy"]])
            others = [o for o in sig_cases if o["deploy"] != c["deploy"]]
            orders, key = orders_for(c, sig, args.mc, 7, sigma_by_entry(others))
            rnd = [sorted(orders["plan"], key=lambda n, r=random.Random(1000 + k): r.random())
                   for k in range(args.seeds)]
            noisy = infos[c["deploy"]]["picks"] if c["finalize"] else None
            cst = cost[c["deploy"]]
            full_s = sum(cst[n] for n in orders["plan"])
            vps = sorted(orders["plan"], key=lambda n: (-key[n]["voi_min"] / cst[n], orders["plan"].index(n)))
            r = {"sigma": sig, "full_s": full_s, "count": {}, "noisy": {}, "seconds": {}}
            for name, od in list(orders.items()) + [("random", None)]:
                r["count"][name] = [
                    _avg([score(c, prefix_by_count(x, B), None) for x in rnd]) if od is None
                    else score(c, prefix_by_count(od, B), None) for B in BUDGETS]
                if noisy is not None:
                    r["noisy"][name] = [
                        _avg([score(c, prefix_by_count(x, B), noisy) for x in rnd]) if od is None
                        else score(c, prefix_by_count(od, B), noisy) for B in BUDGETS]
            for name, od in list(orders.items()) + [("voi_per_s", vps), ("random", None)]:
                r["seconds"][name] = [
                    _avg([score(c, prefix_by_cost(x, cst, f * full_s), None) for x in rnd]) if od is None
                    else score(c, prefix_by_cost(od, cst, f * full_s), None) for f in BUDGET_FRACS]
            r["first8"] = {k: orders[k][:8] for k in ("plan", "voi", "voi_rel", "voi_min")}
            rows[c["case"]] = r
            print("%-20s sigma %.3f (leave-one-out), full run %.1f s by the cost model; first 8 by voi_min: %s"
                  % (c["case"], sig, full_s, " ".join(orders["voi_min"][:8])))
        result["sets"][s] = rows
        report(rows, "count", BUDGETS, "B entries", "optimistic: a measured entry gets the oracle's best")
        if any(r["noisy"] for r in rows.values()):
            report({k: v for k, v in rows.items() if v["noisy"]}, "noisy", BUDGETS, "B entries",
                   "noisier: a measured entry gets the pick of tunetab's own full run")
        report(rows, "seconds", ["%g%%" % (100 * f) for f in BUDGET_FRACS], "budget (share of the full run's s)",
               "optimistic; per-entry seconds from the cost model")
        wins(rows, "count", BUDGETS)
    if args.json:
        fi_bench.write_json(args.json, result)
    if args.markdown:
        md = []
        for st in sets:
            rows = result["sets"][st]
            for what, budgets, head in (
                    ("count", BUDGETS, "optimistic, budget in entries"),
                    ("noisy", BUDGETS, "noisier (tunetab's own full-run pick), budget in entries"),
                    ("seconds", ["%g%%" % (100 * f) for f in BUDGET_FRACS], "optimistic, budget in seconds "
                     "(share of the full run's seconds)")):
                rs = [r for r in rows.values() if r[what]]
                md.append("\n**Oracle set `%s`, %s, %d oracles.** Cell: mean over oracles of geomean / max / "
                          "time-weighted regret (%%), then [worst oracle's geomean / max].\n" % (st, head, len(rs)))
                md.append("| order | " + " | ".join("B=%s" % b for b in budgets) + " |")
                md.append("|---" * (len(budgets) + 1) + "|")
                for n in rs[0][what]:
                    md.append("| %s | " % n + " | ".join(
                        "%.2f / %.1f / %.2f [%.2f / %.1f]" % tuple(100 * x for x in (
                            mean(r[what][n][i][0] for r in rs), mean(r[what][n][i][1] for r in rs),
                            mean(r[what][n][i][2] for r in rs), max(r[what][n][i][0] for r in rs),
                            max(r[what][n][i][1] for r in rs))) for i in range(len(budgets))) + " |")
        fi_bench.write_text(args.markdown, "\n".join(md) + "\n")
    return 0


def _avg(triples):
    return tuple(mean(t[i] for t in triples) for i in range(3))


def report(rows, what, budgets, blabel, note):
    names = list(next(iter(rows.values()))[what])
    print("\n-- %s, %d oracles: mean over oracles of geomean / max / time-weighted regret (%%); "
          "[worst oracle's geomean / max]" % (note, len(rows)))
    print("%-10s " % "order" + " ".join("%-22s" % ("%s=%s" % (blabel.split()[0], b)) for b in budgets))
    for n in names:
        cells = []
        for i in range(len(budgets)):
            g = mean(r[what][n][i][0] for r in rows.values())
            m = mean(r[what][n][i][1] for r in rows.values())
            t = mean(r[what][n][i][2] for r in rows.values())
            wg = max(r[what][n][i][0] for r in rows.values())
            wm = max(r[what][n][i][1] for r in rows.values())
            cells.append("%.2f/%.1f/%.2f [%.2f/%.1f]" % (100 * g, 100 * m, 100 * t, 100 * wg, 100 * wm))
        print("%-10s " % n + " ".join("%-22s" % c for c in cells))


def wins(rows, what, budgets):
    print("\n-- per oracle, at B = 4, 8, 12: orders whose geomean regret is below plan order's (of %d)" % len(rows))
    names = [n for n in next(iter(rows.values()))[what] if n != "plan"]
    for B in (4, 8, 12):
        i = budgets.index(B)
        cells = []
        for n in names:
            better = sum(r[what][n][i][0] < r[what]["plan"][i][0] - 1e-12 for r in rows.values())
            worse = sum(r[what][n][i][0] > r[what]["plan"][i][0] + 1e-12 for r in rows.values())
            cells.append("%s %d better %d worse" % (n, better, worse))
        print("B=%-3d %s" % (B, "; ".join(cells)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prior", help="the heuristic's predicted times per candidate per entry")
    p.add_argument("outdir")
    p.add_argument("--tunetab", default=os.path.join(ROOT, "build", "tunetab"))
    p.add_argument("--deploy", nargs="*")
    p.set_defaults(fn=cmd_prior)
    p = sub.add_parser("sim", help="budgeted runs on the oracles, per order")
    p.add_argument("priordir")
    p.add_argument("--set", choices=("cycle", "first", "both"), default="both")
    p.add_argument("--seeds", type=int, default=20, help="random orders averaged (default 20)")
    p.add_argument("--mc", type=int, default=400, help="Monte Carlo draws per entry for voi_min (default 400)")
    p.add_argument("--json", help="every number, per oracle")
    p.add_argument("--markdown", help="the tables as Markdown (docs/benchmarks.md)")
    p.set_defaults(fn=cmd_sim)
    args = ap.parse_args()
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
