#!/usr/bin/env python3
"""fi_bench.py: measure FlashInfer's real CUTLASS fused-MoE kernels (SM90, FlashInfer 0.7.4) and
judge tactic tables (tunetab's or FlashInfer's own JSON autotune cache) against them.

GPU subcommands (need torch + flashinfer, one NVIDIA GPU; written for an H200):
  autotune DEPLOY --out DIR       FlashInfer's own autotuner, as a user runs it: one
                                  cutlass_fused_moe call inside autotune(True, cache=...);
                                  wall time, and its JSON cache DIR/fi_autotune_DEPLOY.json
  oracle DEPLOY --out DIR         every valid tactic of every bucket of both GEMM stages timed
                                  on the real kernels (MoERunner.forward = FlashInfer's profiling
                                  entry point), interleaved passes, median of per-call means
  layer DEPLOY --out DIR --cache LABEL=PATH ...
                                  the whole cutlass_fused_moe layer per token count with
                                  FlashInfer's fallback and with each cache loaded
  check-load DEPLOY TABLE.json    FlashInfer's own load_configs + lookup for every bucket/op
  regimes DEPLOY S:B:T1/T2... --out DIR
                                  a few tactics of an entry timed as the oracle times them and
                                  as the tunetab worker does (back to back, with/without gaps)
No-GPU subcommands (stdlib only):
  regret ORACLE.json TABLE.json... [--journal J] [--label L...] [--json OUT]
  compare A.json B.json [--oracle ORACLE.json]
  oracles ORACLE.json [--against OTHER.json]
                                  its passes against each other; its picks judged by OTHER
  journal ORACLE.json -o OUT      the oracle as a tunetab journal (every tactic's median of
                                  passes): training data for `tunetab learn`
  list                            the deployments and the tunetab arguments that match them
  selftest                        synthetic oracle/tables/journal through regret/compare/keys

Deployments (SwiGLU, no biases, tune_max_num_tokens 8192, hybrid buckets):
  qwen3-bf16        Qwen3-30B-A3B bf16, TP1 EP1:  H 2048, I 768,  E 128, top-8
  dsv3-fp8-ep8      DeepSeek-V3 fp8 per-tensor, EP8 rank 0: H 7168, I 2048, E 256 (32 local), top-8
  mixtral-bf16-tp2  Mixtral-8x7B bf16, TP2 rank 0: H 4096, I 14336 (7168 local), E 8, top-2
  glm45air-bf16-ep2   GLM-4.5-Air bf16, EP2 rank 0: H 4096, I 1408, E 128 (64 local), top-8
  qwen3-235b-fp8-ep4  Qwen3-235B-A22B fp8 per-tensor, EP4 rank 0: H 4096, I 1536, E 128 (32 local), top-8
  mixtral22b-fp8-tp4  Mixtral-8x22B fp8 per-tensor, TP4 rank 0: H 6144, I 16384 (4096 local), E 8, top-2
  minimax-m2-fp8-ep8  MiniMax-M2 fp8 per-tensor, EP8 rank 0: H 3072, I 1536, E 256 (32 local), top-8
  glm45-bf16-ep4      GLM-4.5 bf16, EP4 rank 0: H 5120, I 1536, E 160 (40 local), top-8
  scout-bf16-tp4      Llama-4-Scout-17B-16E bf16, TP4 rank 0: H 5120, I 8192 (2048 local), E 16, top-1

On an H200, with FlashInfer installed under /tmp/site and tunetab built for the GPU:
  export PYTHONPATH=/tmp/site; B=tests/bench/fi_bench.py; O=out/fi
  python3 $B autotune qwen3-bf16 --out $O          # also dsv3-fp8-ep8, mixtral-bf16-tp2
  python3 $B oracle qwen3-bf16 --out $O            # --buckets 1,512,8192 for a quick look
  build/gpu/tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -o $O/tt-qwen3-bf16
  python3 $B check-load qwen3-bf16 $O/tt-qwen3-bf16/flashinfer_autotune_NVIDIA_H200.json
  python3 $B regret $O/oracle_qwen3-bf16.json $O/tt-qwen3-bf16/flashinfer_autotune_NVIDIA_H200.json \
      $O/fi_autotune_qwen3-bf16.json --label tunetab flashinfer \
      --journal $O/tt-qwen3-bf16/v0_1_trtllm_fused_moe_NVIDIA_H200.journal --json $O/regret_qwen3-bf16.json
  python3 $B layer qwen3-bf16 --out $O --cache tunetab=$O/tt-qwen3-bf16/flashinfer_autotune_NVIDIA_H200.json \
      --cache flashinfer=$O/fi_autotune_qwen3-bf16.json
`list` prints the tunetab arguments of each deployment. tests/bench/fi_bench_dryrun.py runs all
of this without a GPU against FlashInfer's real Python code with simulated kernels (plumbing only).

Facts about FlashInfer 0.7.4 this relies on are cited where used (flashinfer/... file:line).
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import io
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass

TUNE_MAX = 8192
OPS = {1: "trtllm::fused_moe::gemm1", 2: "trtllm::fused_moe::gemm2"}
RUNNER = "MoERunner"
SWIGLU = 3  # flashinfer/tllm_enums.py ActivationType.Swiglu
ROUTING_SAMPLES = 16  # GemmProfilerBackend::NUM_ROUTING_SAMPLES (moe_kernels.h), one per call
RESERVED = ("_metadata", "_records", "_generation")  # JSON cache keys that are not entries


def say(*a):
    print(*a, flush=True)


def die(msg, code=1):
    print("fi_bench: error: " + msg, file=sys.stderr, flush=True)
    sys.exit(code)


# ----------------------------------------------------------------------------- deployments

@dataclass(frozen=True)
class Deploy:
    name: str
    model: str
    dtype: str  # "bf16" or "fp8" (e4m3 activations and weights, per-tensor scales)
    hidden: int
    inter_local: int  # intermediate size per rank (I / TP)
    experts_total: int
    experts_local: int  # E / EP
    top_k: int
    tp_size: int = 1
    tp_rank: int = 0
    ep_size: int = 1
    ep_rank: int = 0
    tunetab_args: str = ""

    @property
    def x_dtype(self):
        return "float8_e4m3fn" if self.dtype == "fp8" else "bfloat16"

    @property
    def w_dtype(self):
        return self.x_dtype

    out_dtype = "bfloat16"


DEPLOYS = {
    d.name: d
    for d in (
        Deploy("qwen3-bf16", "Qwen3-30B-A3B", "bf16", 2048, 768, 128, 128, 8,
               tunetab_args="--model qwen3-30b-a3b --dtype bf16"),
        Deploy("dsv3-fp8-ep8", "DeepSeek-V3", "fp8", 7168, 2048, 256, 32, 8, ep_size=8, ep_rank=0,
               tunetab_args="--model deepseek-v3 --dtype fp8 --ep 8"),
        Deploy("mixtral-bf16-tp2", "Mixtral-8x7B", "bf16", 4096, 14336 // 2, 8, 8, 2, tp_size=2,
               tp_rank=0, tunetab_args="--model mixtral-8x7b --dtype bf16 --tp 2"),
        Deploy("glm45air-bf16-ep2", "GLM-4.5-Air", "bf16", 4096, 1408, 128, 64, 8, ep_size=2, ep_rank=0,
               tunetab_args="--model glm-4-5-air --dtype bf16 --ep 2"),
        Deploy("qwen3-235b-fp8-ep4", "Qwen3-235B-A22B", "fp8", 4096, 1536, 128, 32, 8, ep_size=4, ep_rank=0,
               tunetab_args="--model qwen3-235b-a22b --dtype fp8 --ep 4"),
        Deploy("mixtral22b-fp8-tp4", "Mixtral-8x22B", "fp8", 6144, 16384 // 4, 8, 8, 2, tp_size=4,
               tp_rank=0, tunetab_args="--model mixtral-8x22b --dtype fp8 --tp 4"),
        # issue #17's fresh deployments: never used to fit or to choose anything
        Deploy("minimax-m2-fp8-ep8", "MiniMax-M2", "fp8", 3072, 1536, 256, 32, 8, ep_size=8, ep_rank=0,
               tunetab_args="--model minimax-m2 --dtype fp8 --ep 8"),
        Deploy("glm45-bf16-ep4", "GLM-4.5", "bf16", 5120, 1536, 160, 40, 8, ep_size=4, ep_rank=0,
               tunetab_args="--model glm-4-5 --dtype bf16 --ep 4"),
        Deploy("scout-bf16-tp4", "Llama-4-Scout-17B-16E", "bf16", 5120, 8192 // 4, 16, 16, 1, tp_size=4,
               tp_rank=0, tunetab_args="--model llama-4-scout --dtype bf16 --tp 4"),
        # issue #30's deployments (its table of profiling times): no oracle, no fit has seen them
        Deploy("qwen3-235b-bf16-ep8", "Qwen3-235B-A22B", "bf16", 4096, 1536, 128, 16, 8, ep_size=8, ep_rank=0,
               tunetab_args="--model qwen3-235b-a22b --dtype bf16 --ep 8"),
        Deploy("kimi-k2-fp8-ep8", "Kimi-K2", "fp8", 7168, 2048, 384, 48, 8, ep_size=8, ep_rank=0,
               tunetab_args="--model kimi-k2 --dtype fp8 --ep 8"),
        Deploy("scout-bf16-tp8", "Llama-4-Scout-17B-16E", "bf16", 5120, 8192 // 8, 16, 16, 1, tp_size=8,
               tp_rank=0, tunetab_args="--model llama-4-scout --dtype bf16 --tp 8"),
    )
}


class TorchName:
    """A key element printed as `torch.<name>` (what str() of a torch dtype gives)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        return isinstance(other, TorchName) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


def profile_shapes(d: Deploy, bucket: int):
    """The five input shapes of the cutlass MoE op (core.py:1296-1329: input, fc1 weights,
    fc1 biases=None -> (0,), fc2 weights, fc2 biases=None), input dim 0 bucketed."""
    e, h, i = d.experts_local, d.hidden, d.inter_local
    return ((bucket, h), (e, 2 * i, h), (0,), (e, h, i), (0,))


def key_extras(d: Deploy, enable_pdl=True, fused_finalize=True):
    """MoERunner.get_cache_key_extras of 0.7.4 (fused_moe/core.py:1008-1038), 17 fields."""
    t = lambda n: TorchName("torch." + n)
    return (t(d.x_dtype), t(d.w_dtype), t(d.out_dtype), d.top_k, d.tp_size, d.ep_size, 1,
            False, False, False, False, False, False, enable_pdl, SWIGLU, False, fused_finalize)


def tunetab_key(d: Deploy, stage: int, bucket: int, fused_finalize=True) -> str:
    """The key string tunetab writes for FlashInfer 0.7.4 (4-tuple, ProfilingCacheKey.file_key,
    autotuner/autotuner.py:1446), built without torch."""
    return str((OPS[stage], RUNNER, profile_shapes(d, bucket), key_extras(d, fused_finalize=fused_finalize)))


# ----------------------------------------------------------------------------- keys and tables

def parse_key(text: str):
    """The tuple str() printed as `text` (torch.X names kept as TorchName), or raise ValueError."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise ValueError("not a Python expression: %s" % e.msg) from None

    def conv(n):
        if isinstance(n, ast.Tuple):
            return tuple(conv(e) for e in n.elts)
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant):
            return -n.operand.value
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "torch":
            return TorchName("torch." + n.attr)
        raise ValueError("unexpected element %r" % ast.get_source_segment(text, n))

    key = conv(node)
    if not isinstance(key, tuple) or len(key) not in (3, 4):
        raise ValueError("not a 3- or 4-tuple")
    op, runner, profile = key[0], key[1], key[2]
    if not isinstance(op, str) or not isinstance(runner, str):
        raise ValueError("op and runner are not strings")
    if (not isinstance(profile, tuple) or not profile or not all(isinstance(s, tuple) for s in profile)
            or not profile[0] or not isinstance(profile[0][0], int)):
        raise ValueError("profile is not a tuple of shape tuples")
    return key


def key_entry(text: str):
    """(stage, bucket, canonical) of a cutlass MoE key; stage None for another op."""
    key = parse_key(text)
    op = key[0]
    stage = 1 if op == OPS[1] else 2 if op == OPS[2] else None
    return stage, key[2][0][0], str(key) == text


def load_table(path: str):
    """A FlashInfer JSON autotune cache (tunetab's or FlashInfer's own): dict key -> info.
    Values are [runner, tactic] (tunetab) or [runner, tactic, policy, selection] (FlashInfer's
    save_configs, autotuner.py:4676); load_configs reads value[0] and value[1] (4927-4928)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict):
        raise ValueError("%s: top level is not a JSON object" % path)
    out, other, bad = {}, 0, []
    for k, v in data.items():
        if k in RESERVED:
            continue
        try:
            stage, bucket, canonical = key_entry(k)
        except ValueError as e:
            bad.append((k, str(e)))
            continue
        if stage is None:
            other += 1
            continue
        if not isinstance(v, (list, tuple)) or len(v) < 2 or not isinstance(v[0], str):
            bad.append((k, "value is not [runner, tactic, ...]"))
            continue
        tactic = v[1]
        if isinstance(tactic, bool) or not isinstance(tactic, int):
            bad.append((k, "tactic %r is not an int" % (tactic,)))
            continue
        out[k] = {"stage": stage, "bucket": bucket, "tactic": tactic, "runner": v[0],
                  "canonical": canonical}
    return {"path": path, "metadata": data.get("_metadata"), "entries": out, "other_ops": other,
            "bad": bad}


def load_journal(path: str):
    """tunetab journal M lines: `M stage tokens id status median lo hi n why`; status 0 = ok.
    Returns {(stage, tokens): {id: median}} of the ok measurements."""
    ok, lines = {}, 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            p = line.split()
            if not p or p[0] != "M":
                continue
            if len(p) < 10:
                raise ValueError("%s: short M line: %r" % (path, line.rstrip()))
            lines += 1
            if p[4] == "0":
                ok.setdefault((int(p[1]), int(p[2])), {})[int(p[3])] = float(p[5])
    return ok, lines


# ----------------------------------------------------------------------------- regret

def geomean_regret(rs):
    rs = list(rs)
    if not rs:
        return None
    return math.exp(sum(math.log1p(r) for r in rs) / len(rs)) - 1.0


def oracle_best(entry):
    times = {int(t): v for t, v in entry["times_us"].items() if v is not None}
    if not times:
        return None, None
    best = min(times, key=lambda t: (times[t], t))
    return best, times[best]


def judge_entry(entry, tactic):
    """(status, t_us): status ok | failed | unknown; tactic -1 is the oracle's fallback time."""
    if tactic == -1:
        return ("ok", entry["fallback_us"]) if entry.get("fallback_us") is not None else ("unknown", None)
    if str(tactic) in entry.get("failed", {}):
        return "failed", None
    t = entry["times_us"].get(str(tactic))
    return ("ok", t) if t is not None else ("unknown", None)


def regret_table(oracle, table, label, slow_tol=0.02):
    ents = oracle["entries"]
    rows, key_mismatch, not_canonical, unmatched = [], [], [], []
    covered = set()
    for k, e in sorted(table["entries"].items(), key=lambda kv: (kv[1]["stage"], kv[1]["bucket"])):
        name = "%d:%d" % (e["stage"], e["bucket"])
        if not e["canonical"]:
            not_canonical.append(name)
        oe = ents.get(name)
        if oe is None:
            unmatched.append(name)
            continue
        best, best_us = oracle_best(oe)
        if oe.get("key") and oe["key"] != k:
            # FlashInfer never looks this key up for the oracle's deployment: not scored
            key_mismatch.append(name)
            rows.append({"entry": name, "tactic": e["tactic"], "status": "key_mismatch", "t_us": None,
                         "best_tactic": best, "best_us": best_us, "fallback_us": oe.get("fallback_us"),
                         "regret": None, "vs_fallback": None})
            continue
        covered.add(name)
        status, t = judge_entry(oe, e["tactic"])
        row = {"entry": name, "tactic": e["tactic"], "status": status, "t_us": t, "best_tactic": best,
               "best_us": best_us, "fallback_us": oe.get("fallback_us"), "regret": None,
               "vs_fallback": None}
        if status == "ok" and best_us:
            row["regret"] = t / best_us - 1.0
            if oe.get("fallback_us"):
                row["vs_fallback"] = t / oe["fallback_us"] - 1.0
        rows.append(row)
    scored = [r for r in rows if r["regret"] is not None]
    worst = max(scored, key=lambda r: r["regret"], default=None)
    slower = [r for r in scored if r["vs_fallback"] is not None and r["vs_fallback"] > slow_tol]
    missing = sorted(set(ents) - covered, key=lambda n: tuple(map(int, n.split(":"))))
    # as FlashInfer uses the table: an entry it cannot find (missing, other key) runs the fallback
    used, unscorable = [], 0
    ok_rows = {r["entry"]: r for r in rows if r["status"] == "ok"}
    bad_rows = {r["entry"] for r in rows if r["status"] in ("failed", "unknown")}
    for name, oe in ents.items():
        best, best_us = oracle_best(oe)
        if not best_us:
            continue
        if name in ok_rows:
            used.append(ok_rows[name]["regret"])
        elif name in bad_rows or oe.get("fallback_us") is None:
            unscorable += 1
        else:
            used.append(oe["fallback_us"] / best_us - 1.0)
    return {
        "label": label, "path": table["path"], "entries": len(table["entries"]),
        "matched": sum(r["status"] != "key_mismatch" for r in rows), "scored": len(scored),
        "geomean_regret": geomean_regret(r["regret"] for r in scored),
        "geomean_regret_as_used": geomean_regret(used), "as_used_entries": len(used),
        "as_used_unscorable": unscorable,
        "max_regret": worst and {k: worst[k] for k in ("entry", "tactic", "best_tactic", "regret")},
        "slower_than_fallback": [r["entry"] for r in slower], "slow_tolerance": slow_tol,
        "failed": [r["entry"] for r in rows if r["status"] == "failed"],
        "unknown_tactic": [r["entry"] for r in rows if r["status"] == "unknown"],
        "key_differs_from_flashinfer": key_mismatch, "not_canonical": not_canonical,
        "not_in_oracle": unmatched, "oracle_entries_missing_from_table": missing,
        "other_ops": table["other_ops"], "bad_entries": [k for k, _ in table["bad"]], "rows": rows,
    }


def fallback_baseline(oracle):
    rs, worst = [], None
    for name, e in oracle["entries"].items():
        best, best_us = oracle_best(e)
        if best_us and e.get("fallback_us") is not None:
            r = e["fallback_us"] / best_us - 1.0
            rs.append(r)
            if worst is None or r > worst[1]:
                worst = (name, r)
    return geomean_regret(rs), worst, len(rs)


def oracle_noise(oracle):
    """Median over entries of the relative spread (max-min)/median of the best tactic's passes."""
    spreads = []
    for e in oracle["entries"].values():
        best, _ = oracle_best(e)
        ps = (e.get("passes_us") or {}).get(str(best)) or []
        ps = [p for p in ps if p is not None]
        if len(ps) >= 2:
            spreads.append((max(ps) - min(ps)) / statistics.median(ps))
    return statistics.median(spreads) if spreads else None


def pass_disagreement(oracle):
    """Per entry, how far the first pass's best is from the best by another pass, judged by
    that pass (the worse way round, over every pass pair): the oracle's own repeatability."""
    out = {}
    for name, e in oracle["entries"].items():
        ps = {int(t): v for t, v in (e.get("passes_us") or {}).items()
              if int(t) != -1 and str(t) not in e.get("failed", {})}
        n = min((len(v) for v in ps.values()), default=0)
        worst = 0.0
        for i in range(n):
            for j in range(n):
                if i != j:
                    bi = min(ps, key=lambda t: (ps[t][i], t))
                    bj = min(ps, key=lambda t: (ps[t][j], t))
                    worst = max(worst, ps[bi][j] / ps[bj][j] - 1)
        if n >= 2:
            out[name] = worst
    return out


def cmd_oracles(args):
    """The oracle's passes against each other; with --against, its best tactics judged by
    another oracle of the same deployment."""
    a = json.load(open(args.oracle))
    rs = pass_disagreement(a)
    if rs:
        worst = max(rs, key=rs.get)
        say("%s: its passes against each other, regret geomean %s, max %s at %s; entries over 3%%: %d"
            % (args.oracle, pct(geomean_regret(rs.values())), pct(rs[worst]), worst,
               sum(r > 0.03 for r in rs.values())))
    if args.against:
        b = json.load(open(args.against))
        rs = {}
        for name, e in a["entries"].items():
            best, _ = oracle_best(e)
            other = b["entries"].get(name)
            if best is None or other is None:
                continue
            status, t = judge_entry(other, best)
            ob, ot = oracle_best(other)
            if status == "ok" and ot:
                rs[name] = t / ot - 1
        worst = max(rs, key=rs.get)
        say("%s's best tactics judged by %s: %d entries, regret geomean %s, max %s at %s"
            % (args.oracle, args.against, len(rs), pct(geomean_regret(rs.values())), pct(rs[worst]),
               worst))
    return 0


def cmd_journal(args):
    """The oracle as a tunetab journal (src/tune/journal.h): the identity of its deployment and
    one M line per tactic timed (the median of its passes, the range, the count), so that
    `tunetab learn` trains on every tactic of every entry timed by whole routing cycles rather
    than on a profiled run's screen. Written to a temp file and renamed."""
    o = json.load(open(args.oracle))
    d = o["deploy"]
    lines = ["# tunetab journal v1 version=%s device=%s model=%s dtype=%s tp=%d ep=%d tp_rank=%d "
             "ep_rank=%d top_k=%d max=%d\n" % (o["flashinfer_version"], o["gpu"], d["model"], d["dtype"],
                                             d["tp_size"], d["ep_size"], d["tp_rank"], d["ep_rank"],
                                             d["top_k"], max(int(k.split(":")[1]) for k in o["entries"])),
             "# command fi_bench.py journal %s\n" % args.oracle,
             "# backend flashinfer %s (torch %s): fi_bench.py oracle, %d passes\n"
             % (o["flashinfer_version"], o.get("torch_version", "?"), o["passes"])]
    n = 0
    for name, e in o["entries"].items():
        stage, tokens = name.split(":")
        for t, ps in (e.get("passes_us") or {}).items():
            ps = [p for p in ps if p is not None]
            if t == "-1" or t in e.get("failed", {}) or not ps:
                continue
            lines.append("M %s %s %s 0 %.4f %.4f %.4f %d -\n"
                         % (stage, tokens, t, statistics.median(ps), min(ps), max(ps), len(ps)))
            n += 1
    write_text(args.o, "".join(lines))
    say("%s: %d entries, %d tactics timed -> %s" % (args.oracle, len(o["entries"]), n, args.o))
    return 0


def cmd_heldout(args):
    """One line for learn_bench.sh / learn_fresh.sh: the heuristic-only tables' regret (from a
    `regret --json` file) and a profiled --top 4 run simulated from the oracle: each entry's
    fastest oracle time among the fit's first four ids, and whether the oracle's best is among
    them. The fit's rankings come from `learn --json` (held.picks) or TUNETAB_DUMP_RANKING."""
    r = json.load(open(args.regret_json))
    cells = ["%s %.2f%% / %.2f%%" % (t["label"], 100 * t["geomean_regret"],
                                     100 * (t["max_regret"]["regret"] if t["max_regret"] else float("nan")))
             for t in r["tables"]]
    rankings = []  # (stage, tokens, ids best first)
    if args.picks:
        rankings = [(p["stage"], p["tokens"], p["top"]) for p in json.load(open(args.picks))["held"]["picks"]]
    for line in open(args.ranking) if args.ranking else ():
        m = re.match(r"(?:tunetab: )?ranking GEMM(\d) (\d+): (.*)", line.strip())
        if m:
            rankings.append((int(m.group(1)), int(m.group(2)), [int(i) for i in m.group(3).split()]))
    oracle = json.load(open(args.oracle))["entries"]
    hit, rs = 0, []
    for stage, tokens, ids in rankings:
        e = oracle["%d:%d" % (stage, tokens)]
        times = {int(k): v for k, v in e["times_us"].items() if v is not None}
        best, best_us = oracle_best(e)
        top = [i for i in ids if i in times][:4]
        hit += best in top
        rs.append(min(times[i] for i in top) / best_us - 1)
    print("%-20s %s; against the oracle, geomean / max: %s; simulated profiled --top 4 with the "
          "fit: recall %d/%d, regret %.2f%% / %.2f%%" % (args.name, args.kind, "; ".join(cells), hit,
          len(rs), 100 * geomean_regret(rs), 100 * max(rs)))
    return 0


def journal_recall(oracle, journal, tol=0.02):
    hits, near, n, sizes, uncovered = 0, 0, 0, [], 0
    for name, e in oracle["entries"].items():
        stage, bucket = map(int, name.split(":"))
        best, best_us = oracle_best(e)
        if best is None:
            continue
        ids = journal.get((stage, bucket))
        if not ids:
            uncovered += 1
            continue
        n += 1
        sizes.append(len(ids))
        hits += best in ids
        ts = [e["times_us"].get(str(i)) for i in ids]
        near += any(t is not None and t <= best_us * (1 + tol) for t in ts)
    return {"entries": n, "best_timed": hits, "recall": hits / n if n else None,
            "within_tol": near, "recall_within_tol": near / n if n else None, "tolerance": tol,
            "median_ids_timed": statistics.median(sizes) if sizes else None,
            "oracle_entries_not_in_journal": uncovered}


def pct(x):
    return "-" if x is None else "%.1f%%" % (100.0 * x)


def cmd_regret(args):
    with open(args.oracle, encoding="utf-8") as f:
        oracle = json.load(f)
    if args.label and len(args.label) != len(args.tables):
        die("--label: %d labels for %d tables" % (len(args.label), len(args.tables)), 2)
    labels = args.label or [os.path.basename(p) for p in args.tables]
    ents = oracle.get("entries", {})
    noise = oracle_noise(oracle)
    fb_geo, fb_worst, fb_n = fallback_baseline(oracle)
    dep = oracle.get("deploy")
    dep_name = dep.get("name") if isinstance(dep, dict) else dep
    say("oracle %s: %s, %d entries (%s), FlashInfer %s, %s passes; noise (median spread of the best "
        "tactic over passes) %s" % (args.oracle, dep_name, len(ents), oracle.get("gpu", "?"),
                                    oracle.get("flashinfer_version", "?"), oracle.get("passes", "?"), pct(noise)))
    if fb_n:
        say("  baseline FlashInfer fallback (-1 everywhere): geomean regret %s over %d entries, max %s at %s"
            % (pct(fb_geo), fb_n, pct(fb_worst[1]), fb_worst[0]))
    result = {"oracle": args.oracle, "deploy": dep_name, "noise": noise,
              "fallback_baseline": {"geomean_regret": fb_geo, "entries": fb_n,
                                    "max": fb_worst and {"entry": fb_worst[0], "regret": fb_worst[1]}},
              "tables": [], "journals": []}
    for path, label in zip(args.tables, labels):
        try:
            table = load_table(path)
        except (OSError, ValueError) as e:
            die("%s: %s" % (path, e))
        r = regret_table(oracle, table, label, args.slow_tolerance)
        result["tables"].append(r)
        mx = r["max_regret"]
        say("table %s (%s): %d entries, %d matched, %d scored; geomean regret %s; max %s%s; "
            "%d slower than fallback beyond %s"
            % (label, path, r["entries"], r["matched"], r["scored"], pct(r["geomean_regret"]),
               pct(mx and mx["regret"]),
               mx and " at %s (tactic %s, best %s)" % (mx["entry"], mx["tactic"], mx["best_tactic"]) or "",
               len(r["slower_than_fallback"]), pct(args.slow_tolerance)))
        if r["as_used_entries"] != r["scored"]:
            say("  as FlashInfer uses it (oracle entries without a usable key run the fallback): geomean "
                "regret %s over %d entries" % (pct(r["geomean_regret_as_used"]), r["as_used_entries"]))
        for what, lst in (("slower than fallback", r["slower_than_fallback"]),
                          ("tactic failed in the oracle", r["failed"]),
                          ("tactic not among the oracle's valid tactics", r["unknown_tactic"]),
                          ("key differs from the key FlashInfer looks up (would miss)",
                           r["key_differs_from_flashinfer"]),
                          ("key not in str(tuple) form (can never hit)", r["not_canonical"]),
                          ("not in the oracle", r["not_in_oracle"]),
                          ("oracle entries the table lacks (FlashInfer falls back)",
                           r["oracle_entries_missing_from_table"]),
                          ("unreadable entries", r["bad_entries"])):
            if lst:
                say("  %s: %d: %s" % (what, len(lst), " ".join(lst[:12]) + (" ..." if len(lst) > 12 else "")))
        if r["other_ops"]:
            say("  %d entries of other ops ignored" % r["other_ops"])
    for jpath in args.journal or []:
        try:
            journal, nlines = load_journal(jpath)
        except (OSError, ValueError) as e:
            die("%s: %s" % (jpath, e))
        jr = journal_recall(oracle, journal, args.slow_tolerance)
        jr.update(path=jpath, m_lines=nlines)
        result["journals"].append(jr)
        say("journal %s: %d M lines; oracle's best among the ids timed ok in %d of %d entries (recall %s; "
            "within %s of best: %s); median ids timed per entry %s; %d oracle entries not in the journal"
            % (jpath, nlines, jr["best_timed"], jr["entries"], pct(jr["recall"]), pct(jr["tolerance"]),
               pct(jr["recall_within_tol"]), jr["median_ids_timed"], jr["oracle_entries_not_in_journal"]))
    if args.json:
        write_json(args.json, result)
        say("wrote %s" % args.json)
    return 0


def cmd_compare(args):
    try:
        a, b = load_table(args.a), load_table(args.b)
    except (OSError, ValueError) as e:
        die(str(e))
    oracle = None
    if args.oracle:
        with open(args.oracle, encoding="utf-8") as f:
            oracle = json.load(f)
    ea, eb = a["entries"], b["entries"]
    common = sorted(set(ea) & set(eb), key=lambda k: (ea[k]["stage"], ea[k]["bucket"]))
    agree = [k for k in common if ea[k]["tactic"] == eb[k]["tactic"]]
    differ = [k for k in common if ea[k]["tactic"] != eb[k]["tactic"]]
    only_a = set(ea) - set(eb)
    only_b = set(eb) - set(ea)
    by_entry = lambda keys, t: {(t[k]["stage"], t[k]["bucket"]): k for k in keys}
    ia, ib = by_entry(only_a, ea), by_entry(only_b, eb)
    renamed = sorted(set(ia) & set(ib))
    say("compare %s vs %s: %d keys in common: %d agree, %d differ; %d only in A, %d only in B"
        % (args.a, args.b, len(common), len(agree), len(differ), len(only_a), len(only_b)))
    if renamed:
        say("  %d (stage, bucket) entries are in both under different key strings, e.g.\n    A %s\n    B %s"
            % (len(renamed), ia[renamed[0]], ib[renamed[0]]))
    rows = []
    for k in differ:
        s, bk = ea[k]["stage"], ea[k]["bucket"]
        row = {"entry": "%d:%d" % (s, bk), "a": ea[k]["tactic"], "b": eb[k]["tactic"]}
        line = "  %-8s A %4d  B %4d" % (row["entry"], row["a"], row["b"])
        oe = oracle and oracle.get("entries", {}).get(row["entry"])
        if oe:
            best, best_us = oracle_best(oe)
            for side in ("a", "b"):
                st, t = judge_entry(oe, row[side])
                row[side + "_us"] = t
                row[side + "_regret"] = t / best_us - 1.0 if t is not None and best_us else None
            line += "   A %s  B %s  (regret A %s, B %s; best %s %.2f us)" % (
                "-" if row["a_us"] is None else "%.2f us" % row["a_us"],
                "-" if row["b_us"] is None else "%.2f us" % row["b_us"],
                pct(row["a_regret"]), pct(row["b_regret"]), best, best_us or float("nan"))
        rows.append(row)
        say(line)
    if args.json:
        write_json(args.json, {"a": args.a, "b": args.b, "common": len(common), "agree": len(agree),
                               "differ": rows, "only_a": len(only_a), "only_b": len(only_b),
                               "same_entry_other_key": len(renamed)})
    return 0


def write_text(path, text):
    """path's new content, written to a temp file beside it and renamed over it."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".fi_bench_", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_json(path, obj):
    write_text(path, json.dumps(obj, indent=1, sort_keys=False) + "\n")


def cmd_list(args):
    for d in DEPLOYS.values():
        say("%-17s %s %s: H %d, I_local %d, E %d (%d local), top-%d, TP %d rank %d, EP %d rank %d"
            % (d.name, d.model, d.dtype, d.hidden, d.inter_local, d.experts_total, d.experts_local,
               d.top_k, d.tp_size, d.tp_rank, d.ep_size, d.ep_rank))
        say("%-17s tunetab generate --device auto %s" % ("", d.tunetab_args))
        say("%-17s key %s" % ("", tunetab_key(d, 1, 1)))
    return 0


# ----------------------------------------------------------------------------- FlashInfer plumbing

class ContextLost(RuntimeError):
    pass


class FI:
    """torch + FlashInfer 0.7.4, imported on first use, and everything built from them."""

    def __init__(self, seed=1234, device=None):
        os.environ.pop("FLASHINFER_AUTOTUNER_LOAD_FROM_FILE", None)  # no bundled .py lookups
        import torch
        import flashinfer
        from flashinfer.autotuner import AutoTuner, autotune
        from flashinfer.fused_moe import ActivationType, cutlass_fused_moe
        from flashinfer.fused_moe.core import get_cutlass_fused_moe_module
        from flashinfer.fused_moe.utils import get_hybrid_num_tokens_buckets
        from flashinfer.tllm_utils import delay_kernel
        from flashinfer.utils import device_support_pdl, get_compute_capability

        if not torch.cuda.is_available():
            die("no CUDA device visible to torch", 4)
        self.torch, self.flashinfer = torch, flashinfer
        self.AutoTuner, self.autotune = AutoTuner, autotune
        self.ActivationType, self.cutlass_fused_moe = ActivationType, cutlass_fused_moe
        self.delay_kernel = delay_kernel
        # device: only for a dry run of this script's plumbing without a GPU
        self.dev = torch.device(device) if device else torch.device("cuda", torch.cuda.current_device())
        major, minor = get_compute_capability(self.dev)
        self.arch = "%d" % (major * 10 + minor)  # cutlass_fused_moe's device_arch (core.py:1890)
        self.enable_pdl = device_support_pdl(self.dev)  # what enable_pdl=None resolves to
        self.fused_finalize = not torch.are_deterministic_algorithms_enabled()  # core.py:1812
        self.mod = get_cutlass_fused_moe_module(self.arch)  # loads the prebuilt module
        self.R = self.mod.MoERunner
        self.R.refine_tuning_config(TUNE_MAX)  # as cutlass_fused_moe does (core.py:1294)
        self.buckets = tuple(get_hybrid_num_tokens_buckets(TUNE_MAX))
        self.tuner = AutoTuner.get()
        self.gpu = torch.cuda.get_device_name(self.dev)
        self.version = getattr(flashinfer, "__version__", "?")
        self.gen = torch.Generator(device=self.dev)
        self.gen.manual_seed(seed)
        if self.arch != "90":
            say("note: SM%s, not SM90: tactic lists differ from cutlass-moe-tactics.md §3.3" % self.arch)
        for var in ("FLASHINFER_TACTICS_BLOCKLIST", "FLASHINFER_AUTOTUNE_TIMER"):
            if os.environ.get(var):
                say("note: %s=%s is set; it changes FlashInfer's own tuning" % (var, os.environ[var]))
        delay_kernel(10)  # load the delay helper before anything is timed
        torch.cuda.synchronize()

    def info(self):
        t = self.torch
        return {"gpu": self.gpu, "sm": self.arch, "flashinfer_version": self.version,
                "torch_version": t.__version__, "cuda_version": t.version.cuda,
                "enable_pdl": self.enable_pdl, "use_fused_finalize": self.fused_finalize}

    def dtype(self, name):
        return getattr(self.torch, name)

    # weights and inputs
    def weights(self, d: Deploy):
        """fc1 [E_local, 2*I_local, H] and fc2 [E_local, H, I_local], randn*0.05 in the
        deployment's weight dtype (fp8: weight scale 1.0), made one expert at a time."""
        t = self.torch
        wd = self.dtype(d.w_dtype)
        e, h, i = d.experts_local, d.hidden, d.inter_local
        fc1 = t.empty((e, 2 * i, h), dtype=wd, device=self.dev)
        fc2 = t.empty((e, h, i), dtype=wd, device=self.dev)
        for x in range(e):
            fc1[x].copy_((t.randn((2 * i, h), generator=self.gen, device=self.dev) * 0.05).to(wd))
            fc2[x].copy_((t.randn((h, i), generator=self.gen, device=self.dev) * 0.05).to(wd))
        t.cuda.synchronize()
        return {"fc1": fc1, "fc2": fc2}

    def layer_input(self, d: Deploy, tokens: int):
        """A routed input of `tokens` tokens: random top-k with distinct experts per token over
        all experts_total (an EP rank gets global ids and keeps its own), softmax weights; fp8
        activations are quantized per tensor, with the scale list of FlashInfer's fp8 tests."""
        t = self.torch
        x = t.randn((tokens, d.hidden), generator=self.gen, device=self.dev).to(t.bfloat16)
        experts = t.rand((tokens, d.experts_total), generator=self.gen, device=self.dev) \
            .topk(d.top_k, dim=1).indices.to(t.int32).contiguous()
        scales = t.softmax(t.randn((tokens, d.top_k), generator=self.gen, device=self.dev), dim=1) \
            .float().contiguous()
        quant_scales = None
        if d.dtype == "fp8":
            fmax = t.finfo(t.float8_e4m3fn).max
            x_scale = (x.float().abs().max() / fmax).clamp(min=1e-12)
            x = (x.float() / x_scale).clamp(-fmax, fmax).to(t.float8_e4m3fn)
            e = d.experts_local
            # [fc1 dequant (per expert), fc2 activation quant, fc2 dequant (per expert),
            #  fc1 input dequant] (cutlass_fused_moe docstring, core.py "FP8:")
            quant_scales = [(t.ones(e, device=self.dev) * x_scale).float(),
                            t.tensor(1.0, device=self.dev), t.ones(e, device=self.dev).float(),
                            x_scale.reshape(()).float()]
        out = t.empty((tokens, d.hidden), dtype=t.bfloat16, device=self.dev)
        return {"tokens": tokens, "x": x.contiguous(), "experts": experts, "scales": scales,
                "quant_scales": quant_scales, "out": out}

    def layer(self, d: Deploy, w, inp):
        """One call of FlashInfer's public cutlass_fused_moe (core.py:1540) for the deployment."""
        return self.cutlass_fused_moe(
            inp["x"], inp["experts"], inp["scales"], w["fc1"], w["fc2"], self.torch.bfloat16,
            inp["quant_scales"], tp_size=d.tp_size, tp_rank=d.tp_rank, ep_size=d.ep_size,
            ep_rank=d.ep_rank, output=inp["out"], tune_max_num_tokens=TUNE_MAX,
            activation_type=self.ActivationType.Swiglu, use_fused_finalize=self.fused_finalize)

    # the runner FlashInfer tunes
    def runner(self, d: Deploy):
        """The MoERunner cutlass_fused_moe builds for this deployment (core.py:1269-1290)."""
        t = self.torch
        return self.R(
            x_dtype=self.dtype(d.x_dtype), weight_dtype=self.dtype(d.w_dtype),
            output_dtype=t.bfloat16, top_k=d.top_k, tp_size=d.tp_size, tp_rank=d.tp_rank,
            ep_size=d.ep_size, ep_rank=d.ep_rank, cluster_size=1, cluster_rank=0,
            enable_alltoall=False, use_deepseek_fp8_block_scale=False, use_w4_group_scaling=False,
            use_mxfp8_act_scaling=False, min_latency_mode=False, enable_pdl=self.enable_pdl,
            activation_type=self.ActivationType.Swiglu, use_packed_weights=False,
            use_fused_finalize=self.fused_finalize, use_wfp4afp8_humming=False)

    def op_inputs(self, d: Deploy, w, x):
        """The five tuner inputs of both ops (core.py:1301-1307)."""
        return [x, w["fc1"], None, w["fc2"], None]

    def shapes(self, inputs):
        t = self.torch
        return tuple(tuple(a.size()) if isinstance(a, t.Tensor) else (0,) for a in inputs)

    def file_key(self, runner, stage, inputs):
        """The string FlashInfer itself looks up / saves for these inputs: AutoTuner._get_cache_key
        (autotuner.py:4497) with the runner's extras, then ProfilingCacheKey.file_key (1446)."""
        return self.AutoTuner._get_cache_key(OPS[stage], runner, self.shapes(inputs), self.R.tuning_config,
                                             runner.get_cache_key_extras(inputs)).file_key

    def profile_inputs(self, d: Deploy, w, bucket):
        """(tensors, profile) for one bucket exactly as choose_one makes them in tuning mode:
        _generate_optimization_profiles, then _prepare_input_tensors (the input is synthesized
        with the config's initializer, default autotuner_initializer_rand_scaled, U[-5,5],
        autotuner.py:4579; weights are reused)."""
        template = self.op_inputs(d, w, self.torch.empty((1, d.hidden), dtype=self.dtype(d.x_dtype),
                                                         device=self.dev))
        profiles = self.tuner._generate_optimization_profiles(self.R.tuning_config, template)
        for p in profiles:
            if p.get_opt_shapes()[0][0] == bucket:
                return self.tuner._prepare_input_tensors(p, template), p
        raise ValueError("bucket %d is not one of FlashInfer's tuning buckets %s"
                         % (bucket, [p.get_opt_shapes()[0][0] for p in profiles]))

    # timing
    def check_context(self, what):
        """After a failure: raise ContextLost when the CUDA context is unusable."""
        t = self.torch
        try:
            t.cuda.synchronize()
            t.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            raise ContextLost("the CUDA context is unusable after %s: %s"
                              % (what, (str(e).strip().splitlines() or [type(e).__name__])[0]))
        with contextlib.suppress(Exception):
            t.cuda.cudart().cudaGetLastError()

    def host_cost_us(self, call, n=8):
        """Host time to enqueue one call (after a synchronize), in microseconds."""
        self.torch.cuda.synchronize()
        h0 = time.perf_counter()
        for _ in range(n):
            call()
        h1 = time.perf_counter()
        self.torch.cuda.synchronize()
        return (h1 - h0) * 1e6 / n

    def time_calls(self, call, repeat, delay_us, warmup=0):
        """FlashInfer's measurement shape (autotuner.py _profile_single_kernel, pure_profile):
        warm-up, synchronize, delay kernel, start event, `repeat` back-to-back calls, end event,
        synchronize. Returns (us per call, host-bound): host-bound when enqueueing took longer
        than the delay, so the GPU may have waited for launches."""
        t = self.torch
        for _ in range(warmup):
            call()
        t.cuda.synchronize()
        start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
        h0 = time.perf_counter()
        self.delay_kernel(int(delay_us))
        start.record()
        for _ in range(repeat):
            call()
        end.record()
        h1 = time.perf_counter()
        end.synchronize()
        return start.elapsed_time(end) * 1000.0 / repeat, (h1 - h0) * 1e6 > delay_us


def time_graph(fi, call, repeat, samples):
    """The layer as a decode step replays it (SGLang's and vLLM's decode CUDA graphs): `repeat`
    calls captured in one CUDA graph (warmed up on a side stream first, as capture needs),
    replayed `samples` times between events. Returns us per call, one value per replay."""
    t = fi.torch
    side = t.cuda.Stream()
    side.wait_stream(t.cuda.current_stream())
    with t.cuda.stream(side):
        for _ in range(3):
            call()
    t.cuda.current_stream().wait_stream(side)
    t.cuda.synchronize()
    g = t.cuda.CUDAGraph()
    with t.cuda.graph(g):
        for _ in range(repeat):
            call()
    g.replay()
    t.cuda.synchronize()
    out = []
    for _ in range(samples):
        start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
        start.record()
        g.replay()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) * 1000.0 / repeat)
    del g
    return out


def delay_for(host_us, repeat):
    """Enough delay to cover the host enqueueing `repeat` calls (twice over), in whole us."""
    return int(min(max(2.0 * host_us * (repeat + 1) + 100.0, 200.0), 200000.0))


def deploy_dict(d: Deploy):
    out = asdict(d)
    out["x_dtype"], out["w_dtype"], out["out_dtype"] = d.x_dtype, d.w_dtype, d.out_dtype
    return out


# ----------------------------------------------------------------------------- autotune (a)

def cmd_autotune(args):
    d = DEPLOYS[args.deploy]
    os.makedirs(args.out, exist_ok=True)
    cache = os.path.abspath(os.path.join(args.out, "fi_autotune_%s.json" % d.name))
    if os.path.exists(cache):
        os.remove(cache)  # autotune(cache=) would load it and skip every bucket it holds
        say("removed the previous %s" % cache)
    t_start = time.perf_counter()
    fi = FI(args.seed)
    fi.fused_finalize = bool(args.fused_finalize)  # the runner the server builds
    torch = fi.torch
    say("autotune %s on %s (SM%s), FlashInfer %s" % (d.name, fi.gpu, fi.arch, fi.version))
    w = fi.weights(d)
    inp = fi.layer_input(d, args.tokens)
    fi.tuner.clear_cache()
    fi.layer(d, w, inp)  # warm: module loaded, fallback tactics (tuning off, nothing cached)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    # autotune(True, cache=path): on entry clears the loaded file configs and loads the file if
    # it exists (autotuner.py:1083-1091); on exit save_configs(path) runs when tuning mode was on
    # and something was profiled (_dirty, 1180). One choose_one per op profiles every bucket of
    # MoERunner.tuning_config (the 21 hybrid buckets), gemm1 fully before gemm2 (core.py:1296-1329).
    with fi.autotune(True, cache=cache):
        t1 = time.perf_counter()
        fi.layer(d, w, inp)
        torch.cuda.synchronize()
        t2 = time.perf_counter()
    t3 = time.perf_counter()
    if not os.path.exists(cache):
        die("FlashInfer wrote no cache to %s" % cache)
    table = load_table(cache)
    entries = table["entries"]
    # the keys against tunetab's format, per (stage, bucket)
    expect = {tunetab_key(d, s, b, fi.fused_finalize): (s, b) for s in (1, 2) for b in fi.buckets}
    same = [k for k in entries if k in expect]
    by_entry = {(e["stage"], e["bucket"]): e["tactic"] for e in entries.values()}
    missing = ["%d:%d" % sb for sb in sorted(set(expect.values()) - set(by_entry))]
    extra = sorted(k for k in entries if k not in expect)
    failed = {op: sorted(v, key=str) for op, v in fi.tuner.stats.failed_tactics.items()}
    result = {"deploy": deploy_dict(d), **fi.info(), "tokens": args.tokens, "wall_s": t3 - t0,
              "call_s": t2 - t1, "save_s": t3 - t2, "cache": cache, "entries": len(entries),
              "expected_entries": len(expect), "keys_in_tunetab_format": len(same),
              "keys_not_in_tunetab_format": extra, "missing": missing,
              "tactics": {"%d:%d" % sb: t for sb, t in sorted(by_entry.items())},
              "failed_tactics": {k: [str(x) for x in v] for k, v in failed.items()},
              "metadata": table["metadata"], "process_s": t3 - t_start}
    out = os.path.join(args.out, "autotune_%s.json" % d.name)
    write_json(out, result)
    say("FlashInfer autotune: %.1f s wall (call %.1f s, save %.2f s); %d entries of %d expected; "
        "%d keys identical to tunetab's format" % (t3 - t0, t2 - t1, t3 - t2, len(entries), len(expect),
                                                   len(same)))
    for k in extra[:5]:
        say("  key not in tunetab's format: %s" % k)
    if missing:
        say("  missing entries: %s" % " ".join(missing))
    for op, v in failed.items():
        say("  failed tactics %s: %d (%s)" % (op, len(v), " ".join(map(str, v[:20]))))
    say("wrote %s and %s" % (cache, out))
    return 0 if len(same) == len(entries) and not missing else 1


# ----------------------------------------------------------------------------- oracle (c)

def cmd_oracle(args):
    d = DEPLOYS[args.deploy]
    os.makedirs(args.out, exist_ok=True)
    out_path = os.path.join(args.out, "oracle_%s.json" % d.name)
    t_start = time.perf_counter()
    fi = FI(args.seed)
    fi.fused_finalize = bool(args.fused_finalize)  # the runner the server builds
    torch = fi.torch
    w = fi.weights(d)
    runner = fi.runner(d)
    g1 = int(runner.fused_moe_runner.get_gemm1_tactic_count())
    g2 = int(runner.fused_moe_runner.get_gemm2_tactic_count())
    buckets = [b for b in fi.buckets if not args.buckets or b in args.buckets]
    stages = args.stages or [1, 2]
    result = {"deploy": deploy_dict(d), **fi.info(), "passes": args.passes, "repeat_max": args.repeat,
              "repeat_min": args.min_repeat, "window_us": args.window_us, "method": args.method,
              "routing_cycle": args.cycle,
              "gemm1_tactics": g1, "gemm2_tactics": g2, "buckets": buckets, "entries": {},
              "complete": False}
    say("oracle %s on %s (SM%s), FlashInfer %s: %d GEMM1 + %d GEMM2 tactics, stages %s, %d buckets, "
        "%d passes, <= %d calls per sample (method %s)" % (d.name, fi.gpu, fi.arch, fi.version, g1, g2,
                                                           stages, len(buckets), args.passes, args.repeat,
                                                           args.method))
    t_loop = time.perf_counter()
    try:
        for stage in stages:
            for bucket in buckets:
                name = "%d:%d" % (stage, bucket)
                e = oracle_entry(fi, d, runner, w, stage, bucket, args)
                result["entries"][name] = e
                b = e["best_tactic"]
                if e.get("error"):
                    say("[%7.1f s] stage %d bucket %5d: %s" % (time.perf_counter() - t_start, stage, bucket,
                                                              e["error"]))
                    continue
                say("[%7.1f s] stage %d bucket %5d: %3d tactics x %d passes x %2d calls, delay %5d us; best %s "
                    "%.2f us; fallback %.2f us (%.2fx best); %d failed%s"
                    % (time.perf_counter() - t_start, stage, bucket, e["valid"], args.passes, e["repeat"],
                       e["delay_us"], b, e["best_us"] or float("nan"), e["fallback_us"] or float("nan"),
                       (e["fallback_us"] / e["best_us"]) if e["best_us"] and e["fallback_us"] else float("nan"),
                       len(e["failed"]),
                       ", %d host-bound re-timings" % e["host_bound_retimed"] if e["host_bound_retimed"] else ""))
        result["complete"] = True
    except ContextLost as e:
        result["error"] = str(e)
        result["wall_s"] = time.perf_counter() - t_start
        write_json(out_path, result)
        say("stopped: %s; partial results in %s" % (e, out_path))
        return 3
    result["wall_s"] = time.perf_counter() - t_start
    result["measure_s"] = time.perf_counter() - t_loop
    ratios = [e["fallback_vs_first"] for e in result["entries"].values() if e.get("fallback_vs_first")]
    if ratios:
        result["fallback_vs_first_median"] = statistics.median(ratios)
    write_json(out_path, result)
    say("oracle %s: %d entries in %.1f s wall (%.1f s measuring)%s; wrote %s"
        % (d.name, len(result["entries"]), result["wall_s"], result["measure_s"],
           "; fallback / first tactic of the stage list: median %.3f" % statistics.median(ratios) if ratios else "",
           out_path))
    noise = oracle_noise(result)
    fb_geo, fb_worst, fb_n = fallback_baseline(result)
    say("  noise (median spread of the best tactic over passes) %s; fallback geomean regret %s, max %s at %s"
        % (pct(noise), pct(fb_geo), pct(fb_worst and fb_worst[1]), fb_worst and fb_worst[0]))
    return 0


def oracle_entry(fi, d, runner, w, stage, bucket, args):
    torch = fi.torch
    runner.gemm_idx_for_tuning = stage  # what cutlass_fused_moe sets before choose_one
    tensors, profile = fi.profile_inputs(d, w, bucket)
    valid = [int(t) for t in runner.get_valid_tactics(tensors, profile)]
    key = fi.file_key(runner, stage, tensors)
    tt_key = tunetab_key(d, stage, bucket, fi.fused_finalize)
    failed = {}
    # preparation as choose_one does it once per profile: forward(tactic=-1, do_preparation=True)
    try:
        runner.forward(tensors, tactic=-1, do_preparation=True, gemm_idx=stage)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 -- nothing of this entry can be timed
        fi.check_context("the preparation of stage %d bucket %d failed: %s" % (stage, bucket, e))
        return {"key": key, "key_is_tunetab_format": key == tt_key, "valid": len(valid), "times_us": {},
                "fallback_us": None, "failed": {}, "passes_us": {}, "best_tactic": None, "best_us": None,
                "error": "preparation: " + (str(e).strip().splitlines() or [type(e).__name__])[0][:400],
                "repeat": 0, "delay_us": 0, "host_bound_retimed": 0}

    def caller(tactic):
        return lambda: runner.forward(tensors, tactic=tactic, gemm_idx=stage)

    # repeat and delay from the fallback: per-call GPU time and host enqueue cost
    fb = caller(-1)
    for _ in range(3):
        fb()
    host_us = fi.host_cost_us(fb)
    probe_us, _ = fi.time_calls(fb, 5, delay_for(host_us, 5))
    repeat = max(args.min_repeat, min(args.repeat, math.ceil(args.window_us / max(probe_us, 1e-3))))
    if args.cycle > 0:
        # whole routing cycles: FlashInfer's profiler moves to the next of its 16 fake-router
        # samples at every call (GemmProfilerBackend::runProfiler, mSampleIndex), so a sample
        # of fewer calls times each tactic on other routings (cmd_routing measures how much)
        repeat = args.cycle * max(1, repeat // args.cycle)
    delay_us = delay_for(host_us, repeat)
    if args.method == "flashinfer":
        cfg, batches = fi.tuner.prepare_tactic_profile(tensors, fi.R.tuning_config)
        repeat, delay_us = fi.tuner.repeat, fi.tuner.stream_delay_micro_secs  # what it will use

    cands = [-1] + [t for t in valid if t != -1]
    samples = {t: [] for t in cands}
    retimed = 0
    for p in range(args.passes):
        shift = (p * len(cands)) // max(args.passes, 1)
        for tactic in cands[shift:] + cands[:shift]:  # interleaved, rotated start per pass
            if str(tactic) in failed:
                continue
            try:
                if args.method == "flashinfer":
                    # FlashInfer's own: 3 warm-up, 5000 us delay, mean of 10 (autotuner.py:4231)
                    us = fi.tuner.profile_tactic(runner, tensors, tactic, cfg, batches, gemm_idx=stage) * 1000.0
                else:
                    call = caller(tactic)
                    us, host_bound = fi.time_calls(call, repeat, delay_us, warmup=3 if p == 0 else 0)
                    if host_bound:  # once more with twice the delay
                        retimed += 1
                        delay_us = min(2 * delay_us, 200000)
                        us, _ = fi.time_calls(call, repeat, delay_us)
                samples[tactic].append(us)
            except ContextLost:
                raise
            except Exception as e:  # noqa: BLE001 -- like choose_one: record, skip the tactic
                fi.check_context("tactic %d (stage %d, bucket %d) failed: %s" % (tactic, stage, bucket, e))
                failed[str(tactic)] = (str(e).strip().splitlines() or [type(e).__name__])[0][:400]
    med = {t: statistics.median(v) for t, v in samples.items() if v and str(t) not in failed}
    times = {str(t): med[t] for t in valid if t in med and t != -1}
    best = min((t for t in valid if t in med and t != -1), key=lambda t: (med[t], t), default=None)
    first = 0 if stage == 1 else int(runner.fused_moe_runner.get_gemm1_tactic_count())
    return {
        "key": key, "key_is_tunetab_format": key == tt_key, "valid": len(valid),
        "valid_range": [min(valid), max(valid)] if valid else None,
        "times_us": times, "fallback_us": med.get(-1), "failed": failed,
        "passes_us": {str(t): v for t, v in samples.items() if v},
        "best_tactic": best, "best_us": med.get(best) if best is not None else None,
        "fallback_vs_first": (med[-1] / med[first]) if -1 in med and first in med else None,
        "repeat": repeat, "delay_us": delay_us, "host_us_per_call": host_us, "probe_us": probe_us,
        "host_bound_retimed": retimed,
    }


def probe_setup(args, kind):
    """What routing and regimes start from: the deployment, their JSON's path (OUT/KIND_D.json),
    FlashInfer, the weights and the MoERunner."""
    d = DEPLOYS[args.deploy]
    os.makedirs(args.out, exist_ok=True)
    fi = FI(args.seed)
    if getattr(args, "fused_finalize", None) is not None:
        fi.fused_finalize = bool(args.fused_finalize)  # the runner the server builds
    return d, os.path.join(args.out, "%s_%s.json" % (kind, d.name)), fi, fi.weights(d), fi.runner(d)


def cmd_routing(args):
    """Per tactic, the time of one call on each of the profiler's 16 routing samples.

    FlashInfer's profiler (GemmProfilerBackend, cutlass_fused_moe_kernels.cuh) builds 16 fake
    routings at do_preparation (prepareFakeRouterBuffers: uniform top-k, curand seeded by the
    sample index) and every later call runs on the next one (runProfiler: mSampleIndex =
    (mSampleIndex + 1) % 16; prepare sets it to 0 and the preparation call itself runs one).
    So call n after the preparation (n = 1 for the preparation's own) runs on sample n % 16.
    Each tactic: 3 warm-up calls, then `cycles` x 16 back-to-back calls with an event between
    every two (a single call's time, routing sample known), then one whole cycle between two
    events (16 calls: the mean over all samples, as the oracle times it)."""
    d, out_path, fi, w, runner = probe_setup(args, "routing")
    t = fi.torch
    n16 = ROUTING_SAMPLES
    result = {"deploy": deploy_dict(d), **fi.info(), "cycles": args.cycles, "entries": {}}
    for stage, bucket in args.entries:
        runner.gemm_idx_for_tuning = stage
        tensors, profile = fi.profile_inputs(d, w, bucket)
        valid = [int(x) for x in runner.get_valid_tactics(tensors, profile) if int(x) != -1]
        runner.forward(tensors, tactic=-1, do_preparation=True, gemm_idx=stage)
        calls = 1  # the preparation's own runProfiler
        t.cuda.synchronize()
        entry = {}
        for tactic in valid:
            def call():
                runner.forward(tensors, tactic=tactic, gemm_idx=stage)
            try:
                for _ in range(3):
                    call()
                calls += 3
                n = args.cycles * n16
                ev = [t.cuda.Event(enable_timing=True) for _ in range(n + 1)]
                t.cuda.synchronize()
                fi.delay_kernel(2000)
                ev[0].record()
                for j in range(n):
                    call()
                    ev[j + 1].record()
                t.cuda.synchronize()
                per = [[] for _ in range(n16)]
                for j in range(n):
                    per[(calls + j + 1) % n16].append(ev[j].elapsed_time(ev[j + 1]) * 1000.0)
                calls += n
                e0, e1 = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
                fi.delay_kernel(2000)
                e0.record()
                for _ in range(n16):
                    call()
                e1.record()
                t.cuda.synchronize()
                calls += n16
                entry[str(tactic)] = {"per_sample_us": [statistics.median(v) for v in per],
                                      "cycle_us": e0.elapsed_time(e1) * 1000.0 / n16}
            except Exception as e:  # noqa: BLE001
                fi.check_context("tactic %d: %s" % (tactic, e))
                entry[str(tactic)] = {"error": (str(e).strip().splitlines() or [type(e).__name__])[0][:200]}
        result["entries"]["%d:%d" % (stage, bucket)] = entry
        ok = {k: v for k, v in entry.items() if "cycle_us" in v}
        best = min(ok, key=lambda k: ok[k]["cycle_us"])
        ps = ok[best]["per_sample_us"]
        picks = [min(ok, key=lambda k: ok[k]["per_sample_us"][s]) for s in range(n16)]
        regrets = [ok[p]["cycle_us"] / ok[best]["cycle_us"] - 1 for p in picks]
        say("%s %d:%d: %d tactics; best by whole cycle %s %.1f us; its samples %.1f..%.1f us (%.1f%% apart); "
            "the best on one sample alone differs in %d of 16, regret up to %.1f%%"
            % (d.name, stage, bucket, len(ok), best, ok[best]["cycle_us"], min(ps), max(ps),
               100 * (max(ps) / min(ps) - 1), sum(p != best for p in picks), 100 * max(regrets)))
    write_json(out_path, result)
    say("wrote %s" % out_path)
    return 0


def worker_kernels(fi):
    """The tunetab worker's Kernels (scripts/tunetab-fi-worker.py) in this process, its module
    loaded (FlashInfer is the one this process imported)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                        "tunetab-fi-worker.py")
    spec = importlib.util.spec_from_file_location("tunetab_fi_worker", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    k = mod.Kernels(fi.dev.index or 0)
    return k


def worker_job(fi, d: Deploy, stage, bucket):
    """The job the C side sends for this entry, as the worker's parse_job reads it
    (scripts/tunetab-fi-worker.py MESSAGES: the job's fields)."""
    return {"dtype": d.dtype, "top_k": d.top_k, "tp": d.tp_size, "tp_rank": d.tp_rank,
            "ep": d.ep_size, "ep_rank": d.ep_rank, "act": int(fi.ActivationType.Swiglu),
            "fused_finalize": int(fi.fused_finalize), "local_experts": d.experts_local, "hidden": d.hidden,
            "inter": d.inter_local, "biases": 0, "bucket": bucket, "stage": stage, "method": 0}


def cmd_regimes(args):
    """A few tactics of one entry timed three ways, to tell the oracle's measurement from the
    tunetab worker's (scripts/tunetab-fi-worker.py, batch()) on the same kernels:
      gap    the oracle's: per sample synchronize, a delay kernel, then the calls (the GPU
             idles ~1 ms before each sample, as FlashInfer's own profiler does);
      chain  the worker's: one delay kernel, then every tactic's sample back to back (one
             untimed lead-in call each), one synchronize: the GPU never idles;
      chain+gap  the worker's, with a 2 ms delay kernel before each tactic's lead-in call.
    Samples are whole routing cycles (16 calls); rounds rotate the order. After each round the
    SM clock and the power draw as NVML reads them.
    With --worker, each entry is timed a second time on the tunetab worker's own Kernels
    (scripts/tunetab-fi-worker.py: its runner, weights, inputs and start()), as "w:" regimes in
    the same rounds: w:gap (synchronize and a delay before each sample), w:chain (the worker's
    batch: one delay, every tactic's lead-in call and sample back to back). A w:chain/w:gap
    difference is the regime; a w:gap/gap difference is what the two processes build.
    --fused-finalize: the runner's use_fused_finalize (SGLang's default is 0)."""
    d, out_path, fi, w, runner = probe_setup(args, "regimes")
    t = fi.torch
    n = ROUTING_SAMPLES
    result = {"deploy": deploy_dict(d), **fi.info(), "rounds": args.rounds, "entries": {}}
    wk = worker_kernels(fi) if args.worker else None
    if wk is not None:
        wk.load(d.dtype)
    for spec in args.entries:
        stage, bucket, tactics = spec
        runner.gemm_idx_for_tuning = stage
        tensors, profile = fi.profile_inputs(d, w, bucket)
        runner.forward(tensors, tactic=-1, do_preparation=True, gemm_idx=stage)
        t.cuda.synchronize()

        def call(tac):
            runner.forward(tensors, tactic=tac, gemm_idx=stage)
        for tac in tactics:
            for _ in range(3):
                call(tac)
        host = fi.host_cost_us(lambda: call(tactics[0]))
        regimes = ("gap", "chain", "chain+gap")
        if wk is not None:
            job = worker_job(fi, d, stage, bucket)
            if args.worker_weights == "fi":  # the worker on this process's weights
                # the worker's weights cache: (fc1, fc1 bias, fc2, fc2 bias shapes, dtypes) (_inputs)
                shapes = wk._job_shapes(job)
                wk.weights = {(tuple(shapes[1:]), str(fi.dtype(d.w_dtype)), str(fi.torch.bfloat16)):
                              (w["fc1"], None, w["fc2"], None)}
            wk.prepare(job)
            for tac in tactics:
                wk.warm(tac)
            regimes += ("w:gap", "w:chain")
        times = {r: {str(x): [] for x in tactics} for r in regimes}
        clocks = {r: [] for r in times}
        for rnd in range(args.rounds):
            order = tactics[rnd % len(tactics):] + tactics[:rnd % len(tactics)]
            for regime in regimes:
                if regime == "gap":
                    for tac in order:
                        us, _ = fi.time_calls(lambda: call(tac), n, delay_for(host, n))
                        times[regime][str(tac)].append(us)
                elif regime == "w:gap":
                    for tac in order:
                        wk.sync()
                        wk.delay(delay_for(host, n + 1))
                        h = wk.start(tac, 2 * n)
                        wk.sync()
                        times[regime][str(tac)].append(wk.elapsed_us(h))
                elif regime == "w:chain":
                    wk.sync()
                    wk.delay(int(min(200000, 1.5 * host * (2 * n + 1) * len(order) + 100)))
                    hs = {tac: wk.start(tac, 2 * n) for tac in order}
                    wk.sync()
                    for tac, h in hs.items():
                        times[regime][str(tac)].append(wk.elapsed_us(h))
                else:
                    t.cuda.synchronize()
                    ev = {}
                    fi.delay_kernel(int(min(200000, 1.5 * host * (n + 1) * len(order) + 100)))
                    for tac in order:
                        if regime == "chain+gap":
                            fi.delay_kernel(2000)
                        call(tac)
                        e0, e1 = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
                        e0.record()
                        for _ in range(n):
                            call(tac)
                        e1.record()
                        ev[tac] = (e0, e1)
                    t.cuda.synchronize()
                    for tac, (e0, e1) in ev.items():
                        times[regime][str(tac)].append(e0.elapsed_time(e1) * 1000.0 / n)
                try:
                    clocks[regime].append((t.cuda.clock_rate(fi.dev), t.cuda.power_draw(fi.dev) / 1000.0))
                except Exception:  # noqa: BLE001 -- NVML absent: no clocks
                    pass
        name = "%d:%d" % (stage, bucket)
        entry = {}
        for regime, per in times.items():
            med = {k: statistics.median(v) for k, v in per.items()}
            best = min(med, key=med.get)
            cl = clocks[regime]
            entry[regime] = {"median_us": med, "samples_us": per, "best": best,
                             "sm_mhz": statistics.median(c[0] for c in cl) if cl else None,
                             "watts": statistics.median(c[1] for c in cl) if cl else None}
            say("%s %s %-9s best %s; %s; SM %s MHz, %s W" % (
                d.name, name, regime, best,
                " ".join("%s %.1f us (+%.1f%%)" % (k, v, 100 * (v / med[best] - 1)) for k, v in med.items()),
                "%.0f" % entry[regime]["sm_mhz"] if cl else "-", "%.0f" % entry[regime]["watts"] if cl else "-"))
        result["entries"][name] = entry
    write_json(out_path, result)
    say("wrote %s" % out_path)
    return 0


# ----------------------------------------------------------------------------- layer (f)

def chosen_tactics(fi, d, w, inp):
    """The (gemm1, gemm2) tactics cutlass_fused_moe gets from choose_one outside tuning mode
    (autotuner.py:2838: search_cache only; no kernel runs)."""
    out = []
    for stage in (1, 2):
        r = fi.runner(d)
        r.gemm_idx_for_tuning = stage
        _, tac = fi.tuner.choose_one(OPS[stage], [r], fi.R.tuning_config, fi.op_inputs(d, w, inp["x"]),
                                     gemm_idx=stage)
        out.append(tac if isinstance(tac, int) else str(tac))
    return out


def cmd_layer(args):
    d = DEPLOYS[args.deploy]
    configs = [("fallback", None)]
    for spec in args.cache or []:
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            die("--cache wants LABEL=PATH, got %r" % spec, 2)
        if not os.path.isfile(path):
            die("--cache %s: no such file" % path, 2)
        if label in [c[0] for c in configs]:
            die("--cache: label %r given twice" % label, 2)
        configs.append((label, os.path.abspath(path)))
    os.makedirs(args.out, exist_ok=True)
    t_start = time.perf_counter()
    fi = FI(args.seed)
    fi.fused_finalize = bool(args.fused_finalize)  # the runner the server builds
    torch = fi.torch
    if fi.tuner.is_tuning_mode:
        die("the autotuner is in tuning mode", 3)
    w = fi.weights(d)
    say("layer %s on %s, FlashInfer %s: configs %s; tokens %s; %d samples x %d calls%s; "
        "use_fused_finalize %s"
        % (d.name, fi.gpu, fi.version, ", ".join(c[0] for c in configs), args.tokens, args.samples,
           args.calls, " replayed in a CUDA graph" if args.graph else "", fi.fused_finalize))
    res = {label: {"path": path, "loaded": None, "entries": None, "results": {}} for label, path in configs}
    out = os.path.join(args.out, "layer_%s.json" % d.name)

    def save(extra=None):
        write_json(out, {"deploy": deploy_dict(d), **fi.info(), "tokens": args.tokens, "samples": args.samples,
                         "calls": args.calls, "routing": "uniform random top-k over all %d experts, distinct "
                         "per token; EP ranks see global ids" % d.experts_total, "workspace": "allocated by "
                         "FlashInfer per call (workspace_buffer=None, the default)", "configs": res,
                         "wall_s": time.perf_counter() - t_start, **(extra or {})})

    fmt = lambda r: ("%.1f us (%s) %.3fx" % (r["us"], "/".join(map(str, r["tactics"])), r["speedup_vs_fallback"])
                     if "us" in r else "error")
    try:
        for T in args.tokens:
            inp = fi.layer_input(d, T)
            for label, path in configs:
                res[label]["results"][str(T)] = layer_config(fi, d, w, inp, path, args, res[label])
            fb = res["fallback"]["results"][str(T)].get("us")
            for label, _ in configs:
                r = res[label]["results"][str(T)]
                if "us" in r:
                    r["speedup_vs_fallback"] = fb / r["us"] if fb else None
            say("[%6.1f s] %5d tokens: %s" % (time.perf_counter() - t_start, T, "; ".join(
                "%s %s" % (label, fmt(res[label]["results"][str(T)])) for label, _ in configs)))
    except ContextLost as e:
        save({"error": str(e)})
        say("stopped: %s; partial results in %s" % (e, out))
        return 3
    for label, path in configs[1:]:
        if not res[label]["loaded"]:
            say("warning: FlashInfer loaded nothing from %s (%s): metadata mismatch or no entries; "
                "see `check-load`" % (label, path))
    say("\nus per layer call (speed-up over FlashInfer's fallback):")
    width = [max(18, len(label)) for label, _ in configs]
    say("%7s" % "tokens" + "".join("  %*s" % (wd, label) for wd, (label, _) in zip(width, configs)))
    for T in args.tokens:
        row = "%7d" % T
        for wd, (label, _) in zip(width, configs):
            r = res[label]["results"][str(T)]
            cell = "%.1f (%.3fx)" % (r["us"], r["speedup_vs_fallback"] or float("nan")) if "us" in r else "error"
            row += "  %*s" % (wd, cell)
        say(row)
    for label, _ in configs:
        for T in args.tokens:
            r = res[label]["results"][str(T)]
            if "error" in r:
                say("  %s at %d tokens: %s" % (label, T, r["error"]))
            elif r["host_bound_samples"]:
                say("  %s at %d tokens: %d of %d samples host-bound (the delay did not cover the host)"
                    % (label, T, r["host_bound_samples"], args.samples))
    save()
    say("wrote %s (%.1f s)" % (out, time.perf_counter() - t_start))
    return 0


def layer_config(fi, d, w, inp, path, args, state):
    """Time the layer for one input under one configuration: FlashInfer's fallback (path None)
    or a JSON cache loaded the way a user loads it."""
    fi.tuner.clear_cache()  # profiling cache and loaded file configs (autotuner.py:5132)
    # autotune(False, cache=path): clears the file configs, load_configs(path) when it exists
    # (autotuner.py:1083-1091), never saves (tune_mode False, 1180); lookups outside tuning mode
    # consult the loaded configs (search_cache level 2, choose_one 2838).
    ctx = fi.autotune(False, cache=path) if path else contextlib.nullcontext()
    tac = None
    try:
        with ctx:
            n = len(getattr(fi.tuner, "_file_configs", {}))
            state["entries"] = n if path else 0
            state["loaded"] = (n > 0) if path else None
            tac = chosen_tactics(fi, d, w, inp)
            call = lambda: fi.layer(d, w, inp)
            for _ in range(args.warmup):
                call()
            host_us = fi.host_cost_us(call, 3)
            delay_us = delay_for(host_us, args.calls)
            samples, bound = [], 0
            if getattr(args, "graph", False):
                samples = time_graph(fi, call, args.calls, args.samples)
            for _ in range(0 if getattr(args, "graph", False) else args.samples):
                us, hb = fi.time_calls(call, args.calls, delay_us)
                bound += hb
                samples.append(us)
    except ContextLost:
        raise
    except Exception as e:  # noqa: BLE001 -- e.g. a cached tactic that fails at run time
        fi.check_context("the layer failed (tactics %s): %s" % (tac, e))
        return {"tactics": tac, "error": (str(e).strip().splitlines() or [type(e).__name__])[0][:400]}
    return {"us": statistics.median(samples), "samples_us": samples, "tactics": tac, "host_us_per_call": host_us,
            "delay_us": delay_us, "host_bound_samples": bound}


# ----------------------------------------------------------------------------- check-load

def cmd_check_load(args):
    d = DEPLOYS[args.deploy]
    try:
        table = load_table(args.table)
    except (OSError, ValueError) as e:
        die("%s: %s" % (args.table, e))
    fi = FI(args.seed)
    torch = fi.torch
    fi.tuner.clear_cache()
    # load_configs (autotuner.py:4813): a _metadata field matches when equal or "*" (399); any
    # mismatch ignores the whole file and returns False.
    loaded = fi.tuner.load_configs(args.table)
    from flashinfer.autotuner import _collect_metadata
    cur = _collect_metadata()
    meta = table["metadata"] if isinstance(table["metadata"], dict) else {}
    diffs = ["%s: file %r vs current %r" % (k, meta.get(k), v) for k, v in cur.items()
             if meta.get(k) not in (v, "*")] if table["metadata"] is not None else []
    say("check-load %s for %s on %s: load_configs returned %s%s" % (
        args.table, d.name, fi.gpu, loaded, "; metadata differs: " + "; ".join(diffs) if diffs else ""))
    want = {(e["stage"], e["bucket"]): e["tactic"] for e in table["entries"].values()}
    w = {"fc1": torch.empty((d.experts_local, 2 * d.inter_local, d.hidden), dtype=fi.dtype(d.w_dtype),
                            device=fi.dev),
         "fc2": torch.empty((d.experts_local, d.hidden, d.inter_local), dtype=fi.dtype(d.w_dtype),
                            device=fi.dev)}
    hits, total, lines = 0, 0, []
    for stage in (1, 2):
        for bucket in fi.buckets:
            total += 1
            r = fi.runner(d)
            r.gemm_idx_for_tuning = stage
            x = torch.empty((bucket, d.hidden), dtype=fi.dtype(d.x_dtype), device=fi.dev)
            inputs = fi.op_inputs(d, w, x)
            key = fi.file_key(r, stage, inputs)
            # what choose_one consults outside tuning mode (autotuner.py:2838-2841)
            hit, _, tac, _ = fi.tuner.search_cache(OPS[stage], [r], fi.shapes(inputs), fi.R.tuning_config,
                                                   inputs=inputs)
            _, tac2 = fi.tuner.choose_one(OPS[stage], [r], fi.R.tuning_config, inputs, gemm_idx=stage)
            exp = want.get((stage, bucket))
            ok = bool(hit) and exp is not None and tac == exp and tac2 == exp and tac != -1
            hits += ok
            if not ok:
                lines.append("  miss %d:%d: table %s, FlashInfer %s (hit=%s, choose_one %s); key %s%s"
                             % (stage, bucket, exp, tac, hit, tac2, key,
                                "" if key in table["entries"] else " (not in the table)"))
    for line in lines[:50]:
        say(line)
    say("check-load: %d of %d lookups hit" % (hits, total))
    return 0 if hits == total else 1


# ----------------------------------------------------------------------------- sglang-start (#15)

def cmd_sglang_start(args):
    """SGLang 0.5.23's server start for this deployment, as far as FlashInfer sees it: one
    call of cutlass_fused_moe with the arguments SGLang's flashinfer_cutlass MoE path passes
    (sglang/srt/layers/moe/moe_runner/flashinfer_cutlass.py:370-392: keyword arguments,
    token_final_scales float32, no input_sf, no swiglu_*, tune_max_num_tokens 8192 (its
    min(max prefill tokens x attention DP, 8192)), Swiglu, enable_alltoall False,
    use_fused_finalize = SGLANG_FLASHINFER_MOE_FUSED_FINALIZE, default False; enable_pdl not
    passed) inside autotune(True, cache=CACHE), as SGLang tunes at start. Reports the wall
    time, how many configurations FlashInfer profiled (its own statistics), its cache-hit log
    lines, and per bucket whether FlashInfer's choice is the file's tactic."""
    import logging
    d = DEPLOYS[args.deploy]
    had_file = os.path.exists(args.cache)
    table = load_table(args.cache) if had_file else None
    fi = FI(args.seed)
    torch = fi.torch
    fi.fused_finalize = bool(args.fused_finalize)
    msgs = []

    class Grab(logging.Handler):
        def emit(self, rec):
            msgs.append(rec.getMessage())

    grab = Grab()
    lg = logging.getLogger("flashinfer.jit")
    lg.addHandler(grab)
    lg.setLevel(logging.INFO)
    w = fi.weights(d)
    inp = fi.layer_input(d, args.tokens)
    fi.tuner.clear_cache()

    def sglang_call():
        return fi.cutlass_fused_moe(
            output=inp["out"], input=inp["x"], token_selected_experts=inp["experts"].to(torch.int),
            token_final_scales=inp["scales"].to(torch.float32), fc1_expert_weights=w["fc1"],
            fc2_expert_weights=w["fc2"], output_dtype=torch.bfloat16, input_sf=None,
            quant_scales=inp["quant_scales"], swiglu_alpha=None, swiglu_beta=None, swiglu_limit=None,
            ep_size=d.ep_size, ep_rank=d.ep_rank, tp_size=d.tp_size, tp_rank=d.tp_rank,
            tune_max_num_tokens=TUNE_MAX, activation_type=fi.ActivationType.Swiglu,
            enable_alltoall=False, use_fused_finalize=fi.fused_finalize)[0]

    # FlashInfer's tuner profiles by calling its MoERunner's forward once per tactic and
    # bucket; the layer call itself does not go through forward: count those calls
    runs = [0]
    forward = fi.R.forward

    def counted(self, *a, **k):
        runs[0] += 1
        return forward(self, *a, **k)

    fi.R.forward = counted
    same = total = 0

    def check_buckets():
        nonlocal same, total
        want = {(e["stage"], e["bucket"]): e["tactic"] for e in table["entries"].values()}
        for stage in (1, 2):
            for bucket in fi.buckets:
                r = fi.runner(d)
                r.gemm_idx_for_tuning = stage
                x = torch.empty((bucket, d.hidden), dtype=fi.dtype(d.x_dtype), device=fi.dev)
                inputs = fi.op_inputs(d, w, x)
                hit, _, tac, _ = fi.tuner.search_cache(OPS[stage], [r], fi.shapes(inputs),
                                                       fi.R.tuning_config, inputs=inputs)
                total += 1
                same += bool(hit) and tac == want.get((stage, bucket))

    torch.cuda.synchronize()
    t0 = time.perf_counter()
    try:
        if args.managed_root:
            # vLLM 0.33.0 with one GPU (kernel_warmup.py:478-492): FlashInfer's managed store
            from flashinfer import autotune_v2
            with autotune_v2(mode="tune", cache_root=args.managed_root):
                sglang_call()
                torch.cuda.synchronize()
                wall = time.perf_counter() - t0
                fi.R.forward = forward
                if table is not None:
                    check_buckets()  # while the store is attached
        else:
            with fi.autotune(True, cache=args.cache):
                sglang_call()
                torch.cuda.synchronize()
            wall = time.perf_counter() - t0
    finally:
        fi.R.forward = forward
    profiled = runs[0]
    hits = [m for m in msgs if "cache hit" in m.lower()]
    if table is not None and not args.managed_root:
        check_buckets()
    how = ("autotune_v2(mode='tune', cache_root=%s)" % args.managed_root if args.managed_root
           else "autotune(True)")
    say("sglang-start %s, use_fused_finalize=%s, cache %s (%s): %s around SGLang's call "
        "took %.2f s; FlashInfer's tuner ran its MoERunner %d times (profiling); %d cache-hit log lines%s" % (
            d.name, fi.fused_finalize, args.cache, "present" if had_file else "absent", how, wall, profiled,
            len(hits), "; %d of %d buckets use the file's tactic" % (same, total) if total else ""))
    for m in hits[:4]:
        say("  FlashInfer: %s" % m)
    if args.json:
        write_json(args.json, {"deploy": deploy_dict(d), **fi.info(), "cache": args.cache,
                               "cache_present": had_file, "use_fused_finalize": fi.fused_finalize,
                               "managed_root": args.managed_root,
                               "wall_s": wall, "tuner_runner_calls": profiled, "hit_lines": hits,
                               "buckets_with_file_tactic": same, "buckets": total})
    if table is None:
        return 0
    return 0 if profiled == 0 and same == total else 1


# ----------------------------------------------------------------------------- selftest

def cmd_selftest(args):
    fails = []

    def check(cond, what):
        if not cond:
            fails.append(what)
            say("FAIL " + what)

    q = DEPLOYS["qwen3-bf16"]
    example = ("('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2048), (128, 1536, 2048), (0,), "
               "(128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, "
               "False, False, False, False, False, False, True, 3, False, True))")
    check(tunetab_key(q, 1, 1) == example, "tunetab_key(qwen3-bf16, 1, 1) is the brief's example key")
    dk = tunetab_key(DEPLOYS["dsv3-fp8-ep8"], 2, 8192)
    check(dk.startswith("('trtllm::fused_moe::gemm2', 'MoERunner', ((8192, 7168), (32, 4096, 7168), (0,), "
                        "(32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, "
                        "torch.bfloat16, 8, 1, 8, 1, False"), "dsv3 key: E_local 32, ep_size 8 in extras")
    mk = tunetab_key(DEPLOYS["mixtral-bf16-tp2"], 1, 768)
    check("((768, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,))" in mk and ", 2, 2, 1, 1, False" in mk,
          "mixtral key: I_local 7168, top_k 2, tp_size 2")
    check(key_entry(example) == (1, 1, True), "key_entry of the example")
    check(key_entry(dk) == (2, 8192, True), "key_entry of a gemm2 key")
    check(key_entry(example.replace(", 8, 1, 1, 1,", ",8, 1, 1, 1,"))[2] is False, "non-canonical key detected")
    check(key_entry("('fp4_gemm', 'TrtllmGemmRunner', ((1024, 4608),), (False,))")[0] is None, "other op")
    for bad in ("[1, 2]", "('a', 'b')", "(('x',), 'b', ((1,),))", "not a key", "('a', 'b', ((1,),), foo)"):
        try:
            parse_key(bad)
            check(False, "parse_key rejects %r" % bad)
        except ValueError:
            pass
    check(str(parse_key(dk)) == dk, "parse_key round trip")

    tmp = tempfile.mkdtemp(prefix="fi_bench_selftest_")
    buckets = [1, 8]
    # stage 1: tactics 0..3 (3 fails), stage 2: 4..7 (7 fails)
    t1 = {1: {0: 10.0, 1: 8.0, 2: 12.0}, 8: {0: 20.0, 1: 22.0, 2: 15.0}}
    t2 = {1: {4: 5.0, 5: 4.0, 6: 6.0}, 8: {4: 9.0, 5: 9.9, 6: 12.0}}
    oracle = {"deploy": deploy_dict(q), "gpu": "synthetic", "flashinfer_version": "0.7.4", "passes": 3,
              "entries": {}}
    for stage, tab, bad in ((1, t1, 3), (2, t2, 7)):
        for b in buckets:
            times = {str(t): v for t, v in tab[b].items()}
            best = min(tab[b], key=tab[b].get)
            oracle["entries"]["%d:%d" % (stage, b)] = {
                "key": tunetab_key(q, stage, b), "times_us": times, "failed": {str(bad): "boom"},
                "fallback_us": tab[b][min(tab[b])] * 1.01,
                "passes_us": {str(t): [v * 0.99, v, v * 1.02] for t, v in tab[b].items()},
                "best_tactic": best, "best_us": tab[b][best]}
    opath = os.path.join(tmp, "oracle.json")
    write_json(opath, oracle)

    def table(path, choice, fi_style=False, key=lambda s, b: tunetab_key(q, s, b)):
        data = {"_metadata": {"flashinfer_version": "0.7.4", "gpu": "*"}}
        for (s, b), t in choice.items():
            data[key(s, b)] = ["MoERunner", t] + ([["cuda_graph_profile_replays", None], {"time_ms": 0.1}]
                                                  if fi_style else [])
        if fi_style:
            data["_generation"] = "0" * 64
        write_json(path, data)
        return path

    best = {(1, 1): 1, (1, 8): 2, (2, 1): 5, (2, 8): 4}
    a = table(os.path.join(tmp, "a.json"), best)
    # b: fallback at 1:1 (10.1/8), 1:8 ok-but-slow tactic 1 (22/15, slower than fallback 20.2),
    #    2:1 failed tactic 7, 2:8 unknown tactic 99
    b = table(os.path.join(tmp, "b.json"), {(1, 1): -1, (1, 8): 1, (2, 1): 7, (2, 8): 99}, fi_style=True)
    c = table(os.path.join(tmp, "c.json"), {(1, 1): 1},
              key=lambda s, bk: tunetab_key(DEPLOYS["mixtral-bf16-tp2"], s, bk))
    jpath = os.path.join(tmp, "j.journal")
    with open(jpath, "w") as f:
        f.write("# tunetab journal v1 version=0.7.4 synthetic\n")
        f.write("M 1 1 1 0 8.1 8.0 8.2 5 -\nM 1 1 0 0 9.9 9.8 10.0 5 -\n")  # best 1 timed
        f.write("M 1 8 0 0 20.0 19.9 20.1 5 -\nM 1 8 2 1 0 0 0 0 no_algorithm\n")  # best 2 failed
        f.write("M 2 1 5 0 4.0 3.9 4.1 5 -\n")  # best 5 timed
        f.write("P 2 8 4 9.0\n")  # 2:8 not measured
    jout = os.path.join(tmp, "regret.json")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["regret", opath, a, b, c, "--journal", jpath, "--label", "A", "B", "C", "--json", jout])
    text = buf.getvalue()
    check(rc == 0, "regret exits 0")
    with open(jout) as f:
        r = json.load(f)
    ra, rb, rc_ = r["tables"]
    check(ra["scored"] == 4 and abs(ra["geomean_regret"]) < 1e-12 and ra["max_regret"]["regret"] == 0.0,
          "table A: zero regret on 4 entries")
    check(ra["slower_than_fallback"] == [] and ra["failed"] == [] and ra["unknown_tactic"] == [],
          "table A: nothing slower/failed/unknown")
    exp_b = math.sqrt((10.0 * 1.01 / 8.0) * (22.0 / 15.0)) - 1.0
    check(rb["scored"] == 2 and abs(rb["geomean_regret"] - exp_b) < 1e-9,
          "table B: geomean regret of fallback and tactic 1 (%s vs %s)" % (rb["geomean_regret"], exp_b))
    check(rb["max_regret"]["entry"] == "1:8" and rb["max_regret"]["tactic"] == 1, "table B: max at 1:8")
    check(rb["slower_than_fallback"] == ["1:8"], "table B: 1:8 slower than fallback")
    check(rb["failed"] == ["2:1"] and rb["unknown_tactic"] == ["2:8"], "table B: failed 2:1, unknown 2:8")
    check(rc_["key_differs_from_flashinfer"] == ["1:1"] and len(rc_["oracle_entries_missing_from_table"]) == 4
          and rc_["scored"] == 0 and rc_["matched"] == 0,
          "table C: key of another deployment flagged, not scored; 4 oracle entries missing")
    fb = r["fallback_baseline"]
    exp_fb = math.exp(sum(math.log(x) for x in (10.1 / 8, 20.2 / 15, 5.05 / 4, 9.09 / 9)) / 4) - 1
    check(abs(fb["geomean_regret"] - exp_fb) < 1e-9, "fallback baseline geomean")
    check(abs(rc_["geomean_regret_as_used"] - exp_fb) < 1e-9 and rc_["as_used_entries"] == 4,
          "table C as used = all fallback")
    check(abs(rb["geomean_regret_as_used"] - exp_b) < 1e-9 and rb["as_used_unscorable"] == 2,
          "table B as used: failed/unknown unscorable")
    check(abs(ra["geomean_regret_as_used"]) < 1e-12 and ra["as_used_entries"] == 4, "table A as used")
    j = r["journals"][0]
    check(j["entries"] == 3 and j["best_timed"] == 2 and j["oracle_entries_not_in_journal"] == 1,
          "journal recall 2 of 3 (%s)" % j)
    check(abs(r["noise"] - 0.03) < 1e-9, "noise = median pass spread")
    check("geomean regret 0.0%" in text and "journal" in text, "regret prints a summary")
    buf = io.StringIO()
    cjson = os.path.join(tmp, "compare.json")
    with contextlib.redirect_stdout(buf):
        rc = main(["compare", a, b, "--oracle", opath, "--json", cjson])
    with open(cjson) as f:
        cmp_ = json.load(f)
    check(rc == 0 and cmp_["common"] == 4 and cmp_["agree"] == 0 and len(cmp_["differ"]) == 4,
          "compare A B: 4 common, 4 differ")
    d0 = [x for x in cmp_["differ"] if x["entry"] == "1:1"][0]
    check(d0["a"] == 1 and d0["b"] == -1 and abs(d0["b_us"] - 10.1) < 1e-9, "compare annotates with the oracle")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(["compare", a, a])
    check("4 agree, 0 differ" in buf.getvalue(), "compare A A: all agree")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(["compare", a, c])
    check("1 (stage, bucket) entries are in both under different key strings" in buf.getvalue(),
          "compare notes same entry under another key")
    # journal: the oracle as training data for tunetab learn, every tactic's median of passes
    jo = os.path.join(tmp, "oracle.journal")
    with contextlib.redirect_stdout(io.StringIO()):
        main(["journal", opath, "-o", jo])
    head = open(jo).readline()
    check(head.startswith("# tunetab journal v1 version=0.7.4 device=synthetic model=Qwen3-30B-A3B "
                          "dtype=bf16 tp=1 ep=1 "), "journal: the deployment's identity")
    got, nm = load_journal(jo)
    want = {(st, b): {t: v for t, v in tab[b].items()} for st, tab in ((1, t1), (2, t2)) for b in buckets}
    check(nm == 12 and set(got) == set(want) and all(
        abs(got[e][t] - v) < 1e-3 for e in want for t, v in want[e].items()),
          "journal: one M line per tactic timed, its median of passes")
    if fails:
        say("selftest: %d check(s) failed (files in %s)" % (len(fails), tmp))
        return 1
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
    say("selftest: ok")
    return 0


# ----------------------------------------------------------------------------- CLI

def int_list(s):
    try:
        v = [int(x) for x in s.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("want comma-separated integers, got %r" % s)
    if not v or min(v) <= 0:
        raise argparse.ArgumentTypeError("want positive integers, got %r" % s)
    return v


def cmd_agree(args):
    """(d): two tunetab runs' provenance files: entries where they chose the same tactic,
    where each chose one of the other's declared ties, and neither."""
    try:
        with open(args.a, encoding="utf-8") as f:
            a = json.load(f)["entries"]
        with open(args.b, encoding="utf-8") as f:
            b = json.load(f)["entries"]
    except (OSError, ValueError, KeyError) as e:
        die(f"agree: {e}")
    same = mutual = other = 0
    ties = []
    for key, ea in a.items():
        eb = b.get(key)
        if eb is None:
            other += 1
            continue
        ta, tb = int(ea["tactic"]), int(eb["tactic"])
        ties += [len(ea.get("ties", [])), len(eb.get("ties", []))]
        if ta == tb:
            same += 1
        elif tb in set(ea.get("ties", [])) | {ta} and ta in set(eb.get("ties", [])) | {tb}:
            mutual += 1
        else:
            other += 1
            say("  %s: A %d, B %d, not both declared ties" % (key[:60], ta, tb))
    n = len(a)
    say("agree %s vs %s: %d entries; same %d, each among the other's declared ties %d, "
        "otherwise %d; same or tie %.1f%%; ties declared per entry mean %.1f, max %d"
        % (args.a, args.b, n, same, mutual, other, 100.0 * (same + mutual) / max(n, 1),
           sum(ties) / max(len(ties), 1), max(ties or [0])))


def main(argv=None):
    p = argparse.ArgumentParser(prog="fi_bench.py", description=" ".join(__doc__.split("\n\n")[0].split()),
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.split("\n")[2:]))
    sub = p.add_subparsers(dest="cmd", required=True)
    dep = dict(choices=sorted(DEPLOYS), metavar="DEPLOY", help=" | ".join(sorted(DEPLOYS)))

    s = sub.add_parser("autotune", help="FlashInfer's own autotuner, timed; its JSON cache")
    s.add_argument("deploy", **dep)
    s.add_argument("--out", required=True)
    s.add_argument("--tokens", type=int, default=TUNE_MAX, help="tokens of the tuned call (default 8192)")
    s.add_argument("--seed", type=int, default=1234)
    s.add_argument("--fused-finalize", type=int, choices=(0, 1), default=1,
                   help="the runner's use_fused_finalize (default 1, FlashInfer's; SGLang's is 0)")
    s.set_defaults(fn=cmd_autotune)

    s = sub.add_parser("oracle", help="every valid tactic of every bucket, timed on the real kernels")
    s.add_argument("deploy", **dep)
    s.add_argument("--out", required=True)
    s.add_argument("--passes", type=int, default=3)
    s.add_argument("--repeat", type=int, default=50, help="most back-to-back calls per sample (default 50)")
    s.add_argument("--min-repeat", type=int, default=5, help="fewest calls per sample (default 5)")
    s.add_argument("--window-us", type=float, default=5000.0,
                   help="aim for samples this long (by the fallback's time): calls = clamp(window / "
                        "t_fallback, min-repeat, repeat) (default 5000)")
    s.add_argument("--method", choices=("own", "flashinfer"), default="own",
                   help="own (above) or FlashInfer's AutoTuner.profile_tactic (3 warm-up, mean of 10)")
    s.add_argument("--cycle", type=int, default=ROUTING_SAMPLES,
                   help="calls per sample are a multiple of this (default %d, FlashInfer's routing "
                        "samples; 0: any count)" % ROUTING_SAMPLES)
    s.add_argument("--buckets", type=int_list, help="only these buckets (comma-separated)")
    s.add_argument("--stages", type=int_list, help="only these stages (1,2)")
    s.add_argument("--seed", type=int, default=1234)
    s.add_argument("--fused-finalize", type=int, choices=(0, 1), default=1,
                   help="the runner's use_fused_finalize (default 1, FlashInfer's; SGLang's is 0)")
    s.set_defaults(fn=cmd_oracle)

    s = sub.add_parser("regimes", help="a few tactics of an entry timed as the oracle and as the worker time them")
    s.add_argument("deploy", **dep)
    s.add_argument("entries", nargs="+",
                   type=lambda v: (int(v.split(":")[0]), int(v.split(":")[1]), [int(x) for x in v.split(":")[2].split("/")]),
                   help="STAGE:BUCKET:T1/T2/... (e.g. 1:1280:32/33/12)")
    s.add_argument("--out", required=True)
    s.add_argument("--rounds", type=int, default=7)
    s.add_argument("--seed", type=int, default=1234)
    s.add_argument("--fused-finalize", type=int, choices=(0, 1), default=1,
                   help="the runner's use_fused_finalize (default 1, FlashInfer's; SGLang's is 0)")
    s.add_argument("--worker", action="store_true",
                   help="also time each entry on the tunetab worker's Kernels, as w:gap and w:chain")
    s.add_argument("--worker-weights", choices=("worker", "fi"), default="worker",
                   help="the worker's Kernels on its own weights (default) or on this process's")
    s.set_defaults(fn=cmd_regimes)

    s = sub.add_parser("routing", help="each tactic's time on each of the profiler's routing samples")
    s.add_argument("deploy", **dep)
    s.add_argument("entries", type=lambda v: [tuple(int(x) for x in e.split(":")) for e in v.split(",")],
                   help="STAGE:BUCKET,... (e.g. 1:1280,2:8)")
    s.add_argument("--out", required=True)
    s.add_argument("--cycles", type=int, default=4, help="cycles of single timed calls per tactic (default 4)")
    s.add_argument("--seed", type=int, default=1234)
    s.set_defaults(fn=cmd_routing)

    s = sub.add_parser("regret", help="regret of tables against an oracle (no GPU)")
    s.add_argument("oracle")
    s.add_argument("tables", nargs="+")
    s.add_argument("--journal", action="append", help="tunetab journal: top-K recall")
    s.add_argument("--label", nargs="+", action="extend", help="one label per table")
    s.add_argument("--json", help="write all numbers here")
    s.add_argument("--slow-tolerance", type=float, default=0.02,
                   help="'slower than the fallback' beyond this fraction (default 0.02)")
    s.set_defaults(fn=cmd_regret)

    s = sub.add_parser("compare", help="entries where two tables agree / differ (no GPU)")
    s.add_argument("a")
    s.add_argument("b")
    s.add_argument("--oracle", help="annotate differences with the oracle's times")
    s.add_argument("--json")
    s.set_defaults(fn=cmd_compare)

    s = sub.add_parser("oracles", help="an oracle's passes against each other; --against: its picks "
                                       "judged by another oracle (no GPU)")
    s.add_argument("oracle")
    s.add_argument("--against", help="another oracle of the same deployment")
    s.set_defaults(fn=cmd_oracles)

    s = sub.add_parser("journal", help="the oracle as a tunetab journal, for tunetab learn (no GPU)")
    s.add_argument("oracle")
    s.add_argument("-o", required=True, help="the journal to write")
    s.set_defaults(fn=cmd_journal)

    s = sub.add_parser("heldout", help="a held-out deployment's line: tables' regret and a simulated "
                                       "--top 4 (no GPU; learn_bench.sh, learn_fresh.sh)")
    s.add_argument("name")
    s.add_argument("regret_json", help="fi_bench.py regret --json output")
    s.add_argument("oracle")
    g = s.add_mutually_exclusive_group(required=True)
    g.add_argument("--picks", help="tunetab learn --json output (its held.picks)")
    g.add_argument("--ranking", help="TUNETAB_DUMP_RANKING lines of generate --model-fit")
    s.add_argument("--kind", default="held out", help="how the line calls the deployment")
    s.set_defaults(fn=cmd_heldout)

    s = sub.add_parser("agree", help="(d): two runs' provenance, same tactic or declared ties (no GPU)")
    s.add_argument("a")
    s.add_argument("b")
    s.set_defaults(fn=cmd_agree)

    s = sub.add_parser("layer", help="the whole cutlass_fused_moe layer: fallback vs each cache")
    s.add_argument("deploy", **dep)
    s.add_argument("--out", required=True)
    s.add_argument("--cache", action="append", metavar="LABEL=PATH")
    s.add_argument("--tokens", type=int_list, default=[1, 8, 64, 512, 2048, 8192])
    s.add_argument("--samples", type=int, default=20)
    s.add_argument("--calls", type=int, default=10)
    s.add_argument("--warmup", type=int, default=3)
    s.add_argument("--seed", type=int, default=1234)
    s.add_argument("--graph", action="store_true",
                   help="replay --calls calls captured in one CUDA graph, as a decode step does")
    s.add_argument("--fused-finalize", type=int, choices=(0, 1), default=1,
                   help="the runner's use_fused_finalize (SGLang's default is 0)")
    s.set_defaults(fn=cmd_layer)

    s = sub.add_parser("check-load", help="FlashInfer's own load + lookup of a table, every bucket and op")
    s.add_argument("deploy", **dep)
    s.add_argument("table")
    s.add_argument("--seed", type=int, default=1234)
    s.set_defaults(fn=cmd_check_load)

    s = sub.add_parser("sglang-start", help="SGLang's start: its cutlass_fused_moe call under autotune(True, cache=)")
    s.add_argument("deploy", choices=sorted(DEPLOYS))
    s.add_argument("cache")
    s.add_argument("--fused-finalize", type=int, default=0, help="SGLANG_FLASHINFER_MOE_FUSED_FINALIZE (SGLang's default 0)")
    s.add_argument("--managed-root", help="tune inside autotune_v2(mode='tune', cache_root=this) as one-GPU "
                   "vLLM does, instead of autotune(True, cache=CACHE); CACHE is then only the table to compare")
    s.add_argument("--tokens", type=int, default=64)
    s.add_argument("--seed", type=int, default=1234)
    s.add_argument("--json")
    s.set_defaults(fn=cmd_sglang_start)

    s = sub.add_parser("list", help="the deployments")
    s.set_defaults(fn=cmd_list)
    s = sub.add_parser("selftest", help="no-GPU self-test of regret/compare/key parsing")
    s.set_defaults(fn=cmd_selftest)

    args = p.parse_args(argv)
    if getattr(args, "passes", 1) < 1 or getattr(args, "samples", 1) < 1 or getattr(args, "calls", 1) < 1:
        die("--passes, --samples and --calls must be at least 1", 2)
    if getattr(args, "min_repeat", 1) < 1 or getattr(args, "repeat", 1) < getattr(args, "min_repeat", 1):
        die("want 1 <= --min-repeat <= --repeat", 2)
    return args.fn(args)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into head and the like
        sys.stderr.close()
        sys.exit(1)
