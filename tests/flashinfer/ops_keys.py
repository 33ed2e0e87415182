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
TunableRunner default. --forward runs runner.forward(inputs, tactic=-1) once per op (the
CUTLASS MoE: with gemm_idx 1 and 2) through the recorder (not the CuTe-DSL runner: its forward
needs cutlass).

The CUTLASS fused MoE (PROV op "trtllm::fused_moe::gemm1", runner MoERunner) is checked as the
two ops cutlass_fused_moe tunes, trtllm::fused_moe::gemm1 and gemm2 (fused_moe/core.py
1294-1325: one choose_one each, the same runner, tuning config and inputs). Not through the
worker: the runner is FlashInfer's own MoERunner class (fi_oracle.cutlass_moe_runner_class: its
class statement executed alone, with recorder_ops.CutlassMoeModule as the compiled `module`),
built by its real __init__ with what cutlass_fused_moe passes it (core.py 1280-1291), and the
tensors and arguments are the ones SGLang 0.5.23 / vLLM 0.34.0 hand cutlass_fused_moe for an
NVFP4 checkpoint, read in their released wheels (cutlass_moe_call below), from the call's
deployment fields (hidden, inter, local_experts, top_k, tp, ep, tune_max) only.
Each table entry's policy is FlashInfer's: entry[2], or for [runner, tactic] alone (a legacy
entry) _default_profiling_policy(cfg), must equal _profiling_policy(cfg), as search_cache asks
in tuning mode (autotuner/autotuner.py 2395-2400).
--set FIELD=VALUE sets a call field outright (plan_cases.py: the padded intermediate size the
consumer's own code computes). --emit, instead of --table: print the keys FlashInfer's tuner
computes per op, as JSON, with the policy fields of the op's TuningConfig (those
AutoTuner._profiling_policy reads) and the policy FlashInfer requests and assumes for an entry
without one: {"ops": [{"op", "runner", "keys", "config", "policy", "default_policy"}]}.
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


CUTLASS_MOE = "trtllm::fused_moe::gemm1"
CUTLASS_MOE_OPS = ("trtllm::fused_moe::gemm1", "trtllm::fused_moe::gemm2")


def cutlass_moe_call(job):
    """(cutlass_fused_moe's tensors and keyword arguments, tune_max_num_tokens it is passed) as
    the consumer calls it for an NVFP4 (modelopt_fp4) checkpoint, M = job["m"] tokens. Read in
    the released wheels (lines of those files):
      weights, both consumers: w13_weight (local experts, 2 * inter, hidden // 2) uint8 and
        w2_weight (local experts, hidden, inter // 2) uint8 (gated act; sglang
        srt/layers/quantization/modelopt_quant.py 2494-2530, vllm
        model_executor/layers/quantization/modelopt.py 958-990), passed viewed as torch.long
        (sglang srt/layers/moe/moe_runner/flashinfer_cutlass.py 358-360; vllm
        model_executor/layers/fused_moe/experts/flashinfer_cutlass_moe.py 321-322); no biases.
      SGLang (flashinfer_cutlass.py _run_flashinfer_cutlass 297-392): input = the dispatched
        hidden states, bf16 (M, hidden), input_sf None (_prepare_input 255-275: x_sf is set
        only by the fp4 all-gather, layers/moe/utils.py 707-718, which needs DP attention: not
        in these launch commands); output_dtype bf16 (266); tp_size/ep_size = moe_tp/ep size;
        tune_max_num_tokens = _cutlass_moe_tune_max_num_tokens (168-181: min(prefill tokens x
        attn DP, 8192), the call's tune_max); activation Swiglu (silu, gated);
        use_fused_finalize = SGLANG_FLASHINFER_MOE_FUSED_FINALIZE (srt/environ.py 1251:
        default False); enable_pdl not passed.
      vLLM (FlashInferExperts.apply 252-396): input = a1q, the prepare step's NVFP4
        quantization (fused_moe/prepare_finalize/no_dp_ep.py 11-30 moe_kernel_quantize_input,
        fused_moe/utils.py 312-317, 621-623: ops.scaled_fp4_quant, packed uint8 (M, hidden // 2);
        expects_unquantized_inputs is False for nvfp4, 131-133); output_dtype = moe_config.in_dtype
        (bf16); tp_size/ep_size from moe_parallel_config; tune_max_num_tokens, use_fused_finalize,
        enable_pdl not passed (the tuner's buckets come from kernel_warmup's
        autotune(tuning_buckets=...), applied in op_keys).
      FlashInfer 0.7.4 (fused_moe/core.py cutlass_fused_moe 1540-1965) then: use_fused_finalize
        None -> not torch.are_deterministic_algorithms_enabled() (True in a server);
        enable_pdl None -> device_support_pdl (utils.py 932-936: SM major >= 9; True on B200 and
        RTX PRO 6000, not on these CPU tensors, so given here); tune_max_num_tokens default 8192;
        activation_type default Swiglu; min_latency_mode, alltoall, the fp8/w4/mxfp8/humming
        flags, use_packed_weights False; cluster 1/0."""
    import torch
    from flashinfer.fused_moe.core import ActivationType
    m, hidden, inter = job["m"], job["hidden"], job["inter"]
    e, top_k = job["local_experts"], job["top_k"]
    fc1 = torch.zeros((e, 2 * inter, hidden // 2), dtype=torch.uint8).view(torch.long)
    fc2 = torch.zeros((e, hidden, inter // 2), dtype=torch.uint8).view(torch.long)
    if job["consumer"] == "sglang":
        x = torch.zeros((m, hidden), dtype=torch.bfloat16)
        tune_max, finalize = job["tune_max"], False
    elif job["consumer"] == "vllm":
        x = torch.zeros((m, hidden // 2), dtype=torch.uint8)
        tune_max, finalize = 8192, not torch.are_deterministic_algorithms_enabled()
    else:
        raise ValueError(f"no CUTLASS MoE call known for consumer {job['consumer']!r}")
    kw = dict(x_dtype=x.dtype, weight_dtype=fc1.dtype, output_dtype=torch.bfloat16,
              top_k=top_k, tp_size=job["tp"], tp_rank=0, ep_size=job["ep"], ep_rank=0,
              cluster_size=1, cluster_rank=0, enable_alltoall=False,
              use_deepseek_fp8_block_scale=False, use_w4_group_scaling=False,
              use_mxfp8_act_scaling=False, min_latency_mode=False, enable_pdl=True,
              activation_type=ActivationType.Swiglu, use_packed_weights=False,
              use_fused_finalize=finalize, use_wfp4afp8_humming=False)
    return [x, fc1, None, fc2, None], kw, tune_max


def cutlass_moe(job, rec):
    """(runner, inputs, tuning config) of cutlass_fused_moe for this call: a fresh MoERunner
    class each time, so that refine_tuning_config's lru_cache and class attribute start
    clean, as in a server process."""
    import flashinfer.autotuner as at
    import flashinfer.fused_moe.core as core
    sys.path.insert(0, here)
    import fi_oracle
    cls, _, _, _, ns = fi_oracle.cutlass_moe_runner_class(core, at)
    ns["module"] = rec.CutlassMoeModule()
    tensors, kw, tune_max = cutlass_moe_call(job)
    runner = cls(**kw)
    cls.refine_tuning_config(tune_max)
    inputs = op_inputs(tensors)
    return runner, inputs, cls.tuning_config


def op_inputs(tensors):
    """The list choose_one gets, with no keyword arguments for the runner."""
    class Inputs(list):
        kwargs = {}
    return Inputs(tensors)


def make_runner(w, job, rec):
    import flashinfer.gemm.gemm_base as gb
    import tvm_ffi
    if job["op"] == "fp4_gemm":
        if job["runner"] == "CutlassFp4GemmRunner":
            return gb._create_cutlass_fp4_gemm_module(rec.Fp4GemmModule(int(job.get("sm", 100))),
                                                      "flashinfer::cutlass_fp4_gemm", "cutlass_fp4_gemm").cutlass_fp4_gemm_runner()
        return cute_dsl_runner_class()()
    return w.TrtllmFp4Moe.runner(None, job, moe_op=tvm_ffi.system_lib())


def op_keys(op_name, job, runner, inputs, cfg):
    """The file keys FlashInfer's tuner stores for this call, and the policy it requests."""
    from flashinfer.autotuner import AutoTuner, autotune
    from flashinfer.fused_moe.utils import get_hybrid_num_tokens_buckets
    tuner = AutoTuner.get()
    extras = runner.get_cache_key_extras(inputs)

    def keys(c):
        return [AutoTuner._get_cache_key(op_name, runner, p.get_opt_shapes(), c, extras).file_key
                for p in tuner._generate_optimization_profiles(c, inputs)]
    if job["tune"] == "buckets":
        with autotune(True, tuning_buckets=get_hybrid_num_tokens_buckets(job["tune_max"]), round_up=True):
            cfg = tuner._apply_tuning_overrides(cfg)
            got = keys(cfg)
    elif job["tune"] == "at_m":
        got = keys(cfg)
    else:
        raise ValueError(f"unknown tune mode {job['tune']!r}")
    if not hasattr(AutoTuner, "_profiling_policy"):  # before 0.7.1: entries carry no policy
        return got, None, None
    return got, list(AutoTuner._profiling_policy(cfg)), list(AutoTuner._default_profiling_policy(cfg))


# the TuningConfig fields AutoTuner._profiling_policy reads (l2_cache_policy and uses_cold_chain
# are properties of these)
POLICY_FIELDS = ("use_cold_l2_cache", "use_cuda_graph", "cuda_graph_profile_replays",
                 "use_cuda_graph_individual_timing", "cold_chain_launches",
                 "profile_arena_input_indices", "value_aware_input_indices")


def policy_config(cfg):
    return {f: list(v) if isinstance(v, tuple) else v
            for f, v in ((f, getattr(cfg, f)) for f in POLICY_FIELDS if hasattr(cfg, f))}


def key_head(k):
    m = re.match(r"\('([^']*)', '([^']*)'", k)
    return (m.group(1), m.group(2)) if m else (None, None)


def compare(table, name, rname, want, pol, note=""):
    """Print the op's line (and what differs); 1 when the table's keys or entries are not
    FlashInfer's. pol: [[requested policy, default policy], ...] of the op's calls."""
    bad = 0
    have = {k for k in table if k != "_metadata" and key_head(k) == (name, rname)}
    if have == want:
        print(f"{name} {rname}: {len(have)} keys in the table, {len(want)} from FlashInfer's tuner: equal{note}")
    else:
        bad = 1
        only_t, only_f = sorted(have - want), sorted(want - have)
        print(f"{name} {rname}: {len(have)} keys in the table, {len(want)} from FlashInfer's tuner: "
              f"differ ({len(only_t)} only in the table, {len(only_f)} only from FlashInfer)")
        for k in only_t[:2]:
            print(f"  only in the table: {k}")
        for k in only_f[:2]:
            print(f"  only from FlashInfer: {k}")
    for k in sorted(have):
        v = table[k]
        ok = isinstance(v, list) and len(v) >= 2 and v[0] == rname and (any(
            (v[2] if len(v) >= 3 else dpol) == rpol for rpol, dpol in pol) or all(
            rpol is None for rpol, _ in pol))
        if not ok:
            print(f"  entry not [{rname}, tactic, {pol[0][0] if pol else '?'}, ...] (FlashInfer's "
                  f"_profiling_policy; a [runner, tactic] entry counts as {pol[0][1] if pol else '?'}): "
                  f"{k} -> {json.dumps(v)}")
            return 1
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table")
    ap.add_argument("--provenance", required=True)
    ap.add_argument("--mutate", action="append", default=[])
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--emit", action="store_true")
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
    if bool(a.table) == a.emit:
        print("ops_keys: give --table or --emit", file=sys.stderr)
        return 2
    sets = {}
    for m in a.sets:
        f, _, v = m.partition("=")
        try:
            sets[f] = int(v)
        except ValueError:
            print(f"ops_keys: --set wants FIELD=INTEGER, not '{m}'", file=sys.stderr)
            return 2
    try:
        table = json.load(open(a.table)) if a.table else {}
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
        emitted = []
        for entry in ops:
            name, rname = entry["op"], entry["runner"]
            names = CUTLASS_MOE_OPS if name == CUTLASS_MOE and rname == "MoERunner" else (name,)
            want = {n: set() for n in names}
            policies = set()
            first = None
            for call in entry["calls"]:
                job = dict(call, op=name, runner=rname)
                for f, d in mut.items():
                    if isinstance(job.get(f), int):
                        job[f] += d
                for f, v in sets.items():
                    if isinstance(job.get(f), int):
                        job[f] = v
                if name == CUTLASS_MOE:
                    runner, inputs, cfg = cutlass_moe(job, rec)
                else:
                    op = w.OPS[name]
                    for f, (_, dflt) in getattr(op, "optional", {}).items():
                        job.setdefault(f, dflt)
                    runner = make_runner(w, job, rec)
                    inputs = op.inputs(job, job["m"], "cpu")
                    cfg = op.tuning_config(job, inputs, runner) if op is w.TrtllmFp4Moe else op.tuning_config(job, inputs)
                for n in names:
                    ks, pol, dpol = op_keys(n, job, runner, inputs, cfg)
                    want[n].update(ks)
                    policies.add(json.dumps([pol, dpol]))
                    if a.emit:
                        emitted.append({"op": n, "runner": rname, "keys": ks,
                                        "config": policy_config(cfg), "policy": pol,
                                        "default_policy": dpol})
                if a.forward and first is None:
                    first = (job, runner, inputs)
            if a.emit:
                continue
            pol = [json.loads(p) for p in policies]
            for n in names:
                bad |= compare(table, n, rname, want[n], pol,
                               "" if entry.get("tuned_at_start", True) else " (not tuned at start: no calls)")
            if a.forward and first is not None:
                job, runner, inputs = first
                if rname == "CuteDSLFp4GemmRunner":
                    print("  forward not run: the CuTe-DSL runner's forward needs nvidia-cutlass-dsl")
                else:
                    if name not in ("fp4_gemm", CUTLASS_MOE):
                        runner.moe_op = rec.Module()
                    try:
                        for n in names:  # cutlass_fused_moe: gemm_idx 1 for gemm1, 2 for gemm2
                            kw = {"gemm_idx": names.index(n) + 1} if name == CUTLASS_MOE else {}
                            runner(inputs, tactic=-1, **inputs.kwargs, **kw)
                        print("  forward ok")
                    except (rec.BindingError, AssertionError, ValueError) as e:
                        bad = 1
                        print(f"  forward: {type(e).__name__}: {e}")
        if a.emit:
            print(json.dumps({"ops": emitted}))
        return bad
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        return 3


if __name__ == "__main__":
    sys.exit(main())
