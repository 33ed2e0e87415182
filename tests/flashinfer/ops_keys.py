#!/usr/bin/env python3
"""ops_keys.py: the keys FlashInfer's own tuner computes for the worker's inputs of each op,
against the keys of that op in a table tunetab wrote (issue #39). CPU only; run with a FlashInfer
venv's python (ops_keys.sh picks 0.7.4):

    python ops_keys.py --table TABLE.json --provenance PROV.json [--mutate FIELD=DELTA] [--forward]

PROV's "ops": [{"op", "runner", "calls": [{job fields}, ...]}]. For each call the worker's
op.inputs(job, m, "cpu") (scripts/tunetab-fi-worker.py, imported by path), FlashInfer's real
runner class with its compiled module replaced by recorder_ops.py, the op's TuningConfig, then
AutoTuner._generate_optimization_profiles and _get_cache_key(...).file_key per profile; with
tune=buckets (vLLM) inside autotune(True, tuning_buckets=get_hybrid_num_tokens_buckets(tune_max),
round_up=True) after tuner._apply_tuning_overrides(cfg). CuteDSLFp4GemmRunner: its class
statement, taken from gemm/gemm_base.py (_cute_dsl_gemm_fp4_runner) and executed alone in
gemm_base's namespace (it needs nvidia-cutlass-dsl only inside its methods); its extras are the
TunableRunner default. Every table entry of the op must be [runner, tactic, policy, ...] with
FlashInfer's _profiling_policy(cfg). --forward runs runner.forward(inputs, tactic=-1) once per
op through the recorder (not the CuTe-DSL runner: its forward needs cutlass).
Exit 0 all equal, 1 a difference, 2 usage, 3 harness error.
"""
import argparse
import ast
import importlib.util
import json
import os
import re
import sys
import traceback

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))


def load_worker():
    spec = importlib.util.spec_from_file_location("tunetab_fi_worker",
                                                  os.path.join(root, "scripts", "tunetab-fi-worker.py"))
    w = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(w)
    return w


def cute_dsl_runner_class():
    import flashinfer.gemm.gemm_base as gb
    src = open(gb.__file__).read()
    tree = ast.parse(src)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_cute_dsl_gemm_fp4_runner")
    cls = next(n for n in ast.walk(fn) if isinstance(n, ast.ClassDef) and n.name == "CuteDSLFp4GemmRunner")
    mod = ast.Module(body=[cls], type_ignores=[])
    ns = dict(vars(gb))
    exec(compile(mod, gb.__file__, "exec"), ns)
    return ns["CuteDSLFp4GemmRunner"]


def make_runner(w, job, rec):
    import flashinfer.gemm.gemm_base as gb
    import tvm_ffi
    if job["op"] == "fp4_gemm":
        if job["runner"] == "CutlassFp4GemmRunner":
            return gb._create_cutlass_fp4_gemm_module(rec.Fp4GemmModule(int(job.get("sm", 100))),
                                                      "flashinfer::cutlass_fp4_gemm", "cutlass_fp4_gemm").cutlass_fp4_gemm_runner()
        return cute_dsl_runner_class()()
    return w.TrtllmFp4Moe.runner(None, job, moe_op=tvm_ffi.system_lib())


def op_keys(w, job, runner, inputs):
    """The file keys FlashInfer's tuner stores for this call, and the policy it requests."""
    from flashinfer.autotuner import AutoTuner, autotune
    from flashinfer.fused_moe.utils import get_hybrid_num_tokens_buckets
    op = w.OPS[job["op"]]
    tuner = AutoTuner.get()
    cfg = op.tuning_config(job, inputs, runner) if op is w.TrtllmFp4Moe else op.tuning_config(job, inputs)
    extras = runner.get_cache_key_extras(inputs)

    def keys(c):
        return [AutoTuner._get_cache_key(op.name, runner, p.get_opt_shapes(), c, extras).file_key
                for p in tuner._generate_optimization_profiles(c, inputs)]
    if job["tune"] == "buckets":
        with autotune(True, tuning_buckets=get_hybrid_num_tokens_buckets(job["tune_max"]), round_up=True):
            cfg = tuner._apply_tuning_overrides(cfg)
            got = keys(cfg)
    elif job["tune"] == "at_m":
        got = keys(cfg)
    else:
        raise ValueError(f"unknown tune mode {job['tune']!r}")
    return got, list(AutoTuner._profiling_policy(cfg))


def key_head(k):
    m = re.match(r"\('([^']*)', '([^']*)'", k)
    return (m.group(1), m.group(2)) if m else (None, None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", required=True)
    ap.add_argument("--provenance", required=True)
    ap.add_argument("--mutate", action="append", default=[])
    ap.add_argument("--forward", action="store_true")
    try:
        a = ap.parse_args()
    except SystemExit:
        return 2
    mut = {}
    for m in a.mutate:
        f, _, d = m.partition("=")
        try:
            mut[f] = int(d)
        except ValueError:
            print(f"ops_keys: --mutate wants FIELD=DELTA, not '{m}'", file=sys.stderr)
            return 2
    try:
        table = json.load(open(a.table))
        prov = json.load(open(a.provenance))
        ops = prov["ops"]
    except (OSError, ValueError, KeyError) as e:
        print(f"ops_keys: {e}", file=sys.stderr)
        return 2
    try:
        sys.path.insert(0, here)
        import recorder_ops as rec
        w = load_worker()
        bad = 0
        for entry in ops:
            name, rname = entry["op"], entry["runner"]
            want, policies = set(), set()
            first = None
            for call in entry["calls"]:
                job = dict(call, op=name, runner=rname)
                for f, d in mut.items():
                    if isinstance(job.get(f), int):
                        job[f] += d
                op = w.OPS[name]
                for f, (_, dflt) in getattr(op, "optional", {}).items():
                    job.setdefault(f, dflt)
                runner = make_runner(w, job, rec)
                inputs = op.inputs(job, job["m"], "cpu")
                ks, pol = op_keys(w, job, runner, inputs)
                want.update(ks)
                policies.add(json.dumps(pol))
                if a.forward and first is None:
                    first = (job, runner, inputs)
            have = {k for k in table if k != "_metadata" and key_head(k) == (name, rname)}
            if have == want:
                print(f"{name} {rname}: {len(have)} keys in the table, {len(want)} from FlashInfer's tuner: equal")
            else:
                bad = 1
                only_t, only_f = sorted(have - want), sorted(want - have)
                print(f"{name} {rname}: {len(have)} keys in the table, {len(want)} from FlashInfer's tuner: "
                      f"differ ({len(only_t)} only in the table, {len(only_f)} only from FlashInfer)")
                for k in only_t[:2]:
                    print(f"  only in the table: {k}")
                for k in only_f[:2]:
                    print(f"  only from FlashInfer: {k}")
            pol = [json.loads(p) for p in policies]
            for k in sorted(have):
                v = table[k]
                if not (isinstance(v, list) and len(v) >= 3 and v[0] == rname and v[2] in pol):
                    bad = 1
                    print(f"  entry not [{rname}, tactic, {pol[0] if pol else '?'}, ...] (FlashInfer's "
                          f"_profiling_policy): {k} -> {json.dumps(v)}")
                    break
            if a.forward and first is not None:
                job, runner, inputs = first
                if rname == "CuteDSLFp4GemmRunner":
                    print("  forward not run: the CuTe-DSL runner's forward needs nvidia-cutlass-dsl")
                else:
                    if name != "fp4_gemm":
                        runner.moe_op = rec.Module()
                    try:
                        runner(inputs, tactic=-1, **inputs.kwargs)
                        print("  forward ok")
                    except (rec.BindingError, AssertionError, ValueError) as e:
                        bad = 1
                        print(f"  forward: {type(e).__name__}: {e}")
        return bad
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        return 3


if __name__ == "__main__":
    sys.exit(main())
