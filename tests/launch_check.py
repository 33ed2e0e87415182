#!/usr/bin/env python3
"""launch_check.py TUNETAB CASES EXPECTED [--write DIR]: SGLang (or, with CASES named vllm-*,
vLLM) launch commands read by tunetab against what the server's own code made of them.

CASES is tests/data/launch/sglang-cases.txt (GPU SM | GPU memory GiB | model folder under
tests/data/hf | the command). For SGLang 0.5.22 (FlashInfer 0.7.1, its pin) and 0.5.23 (0.7.2),
each command runs through `tunetab install --for sglang --dry-run --consumer-version V
--flashinfer F --device D --cache-dir ROOT -- COMMAND` with the model's config.json in a
Hugging Face cache (HF_HUB_CACHE, laid out as huggingface_hub lays it out) and the fields below
are read off what it prints. vLLM 0.33.0 (FlashInfer 0.7.2): the same through `--for vllm`
into a root with one config-hash folder (vLLM names it by a hash of its whole config, which
tunetab finds, never computes), against tests/consumers/vllm_launch.py's outputs (vLLM's own
parser, create_engine_config, its first MoE layer's backend selection, rank file names). EXPECTED (tests/data/launch/sglang-expected.json) holds the same
fields as SGLang 0.5.22/0.5.23's own parser, resolution pipeline, ModelConfig and
flashinfer_autotune_cache_path computed them (tests/consumers/sglang_launch.py, run by
`make test-consumers`, which also rewrites EXPECTED with --write from its outputs). Prints one
line per disagreement and a summary; exit 1 on any.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "consumers"))
from hf_cache import plant_hub  # noqa: E402
VERSIONS = [("0.5.22", "0.7.1"), ("0.5.23", "0.7.2")]
# the device profile of each case's GPU (SM, memory class as SGLang sizes its defaults)
DEVICES = {("90", "139"): "h200", ("90", "80"): "h100-sxm", ("100", "179"): "b200",
           ("120", "95"): "rtx-pro-6000-server"}
FIELDS = ["torch_dtype", "quantization", "moe_runner_backend", "tp", "pp", "dp", "attn_dp",
          "moe_ep", "moe_tp", "hf_config_class", "rank_files", "tune_max"]


def cases(path):
    out = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        sm, mem, model, cmd = line.rstrip("\n").split("|", 3)
        out.append((sm, mem, model, cmd))
    return out


def hub(root, models):
    """models' config files laid out as huggingface_hub's cache does."""
    for m in models:
        plant_hub(root, m, os.path.join(HERE, "data", "hf", m), hashlib.sha1(m.encode()).hexdigest())


def tunetab_view(tunetab, case, version, fi, root, env):
    sm, mem, model, cmd = case
    args = [tunetab, "install", "--for", "sglang", "--dry-run", "--consumer-version", version,
            "--flashinfer", fi, "--device", DEVICES[(sm, mem)], "--cache-dir", root, "--"]
    r = subprocess.run(args + cmd.split(), capture_output=True, text=True, env=env)
    got = {}
    m = re.search(r"^tunetab: server: TP (\d+) PP (\d+) DP (\d+) \(attention DP (\d+), MoE EP "
                  r"(\d+)\), (\S+), quantization (\S+), MoE runner backend (\S+)$", r.stderr, re.M)
    if m:
        for k, v in zip(["tp", "pp", "dp", "attn_dp", "moe_ep"], m.groups()[:5]):
            got[k] = int(v)
        got["torch_dtype"], got["quantization"], got["moe_runner_backend"] = m.groups()[5:]
    m = re.search(r"^tunetab: model \S+: \S+ \((\w+),", r.stderr, re.M)
    if m:
        got["hf_config_class"] = m.group(1)
    m = re.search(r"tp_size (\d+), ep_size \d+, .* token buckets up to (\d+)$", r.stderr, re.M)
    if m:
        got["moe_tp"], got["tune_max"] = int(m.group(1)), int(m.group(2))
    got["rank_files"] = [os.path.relpath(p, root) for p in r.stdout.split()]
    if not m and "does not tune FlashInfer's CUTLASS MoE" in r.stderr:
        got["tune_max"] = None
    got["_stderr"] = r.stderr
    return got


def tune_max(oracle):
    """The largest token bucket the CUTLASS MoE tunes: 0.5.23 passes a number; 0.5.22 passes
    next_power_of_2 of each call's tokens, and its warm-up's one call is decode-shaped at the
    CUDA graph's largest batch (which SGLang's own resolution computed)."""
    v = oracle["cutlass_tune_max_num_tokens"]
    if isinstance(v, int):
        return v
    bs, p = oracle["decode_cuda_graph_max_bs"], 1
    while p < bs:
        p *= 2
    return p


def expected_of(oracle):
    """The compared fields of one sglang_launch.py --json output."""
    root = os.path.dirname(oracle["cache_path"])
    root = root[:root.index("/flashinfer/autotune/")]
    cutlass = oracle["moe_runner_backend"] in ("flashinfer_cutlass", "flashinfer_mxfp4")
    return {
        "torch_dtype": oracle["dtype"], "quantization": oracle["quantization"],
        "moe_runner_backend": oracle["moe_runner_backend"], "tp": oracle["tp_size"],
        "pp": oracle["pp_size"], "dp": oracle["dp_size"], "attn_dp": oracle["attn_dp_size"],
        "moe_ep": oracle["moe_ep_size"], "moe_tp": oracle["moe_tp_size"] if cutlass else None,
        "hf_config_class": oracle["hf_config_class"],
        "rank_files": [os.path.relpath(p, root) for p in oracle["rank_files"]],
        "tune_max": tune_max(oracle) if cutlass else None,
        "model_key": oracle["model_key"],
    }


VLLM_FIELDS = ["torch_dtype", "quantization", "tp", "pp", "dp", "moe_ep", "moe_tp", "fi_cutlass",
               "rank_files", "tune_max"]


def vllm_expected_of(o):
    par = o["fused_moe_parallel_config"]
    fi = (o["moe"].get("backend") or "").startswith("FLASHINFER_CUTLASS")
    return {"torch_dtype": o["dtype"], "quantization": str(o["quantization"]),
            "tp": o["tensor_parallel_size"], "pp": o["pipeline_parallel_size"],
            "dp": o["data_parallel_size"], "moe_ep": par["ep_size"],
            "moe_tp": par["tp_size"] if fi else None, "fi_cutlass": fi,
            "rank_files": o["rank_files"], "tune_max": o["max_num_batched_tokens"] if fi else None,
            "backend": o["moe"].get("backend")}


def vllm_view(tunetab, case, root, env):
    sm, mem, model, cmd = case
    key = os.path.join(root, "0" * 64)  # the folder a first vLLM start made
    os.makedirs(key, exist_ok=True)
    args = [tunetab, "install", "--for", "vllm", "--dry-run", "--consumer-version", "0.33.0",
            "--flashinfer", "0.7.2", "--device", DEVICES[(sm, mem)], "--cache-dir", root, "--"]
    r = subprocess.run(args + cmd.split(), capture_output=True, text=True, env=env)
    got = {}
    m = re.search(r"^tunetab: server: TP (\d+) PP (\d+) DP (\d+) \(attention DP \d+, MoE EP "
                  r"(\d+)\), (\S+), quantization (\S+), MoE runner backend (\S+)$", r.stderr, re.M)
    if m:
        for k, v in zip(["tp", "pp", "dp", "moe_ep"], m.groups()[:4]):
            got[k] = int(v)
        got["torch_dtype"], got["quantization"] = m.group(5), m.group(6)
    m = re.search(r"tp_size (\d+), ep_size \d+, .* token buckets up to (\d+)$", r.stderr, re.M)
    got["fi_cutlass"] = bool(m)
    got["moe_tp"], got["tune_max"] = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    got["rank_files"] = [os.path.basename(p) for p in r.stdout.split()]
    got["_stderr"] = r.stderr
    return got


def compare(cases, runs, fields, expected_file, who, summary, skip_untuned=False):
    """Every run's fields against EXPECTED; runs(tmp, env) yields (n, label, expected key,
    tunetab's view). skip_untuned: where tunetab says the server runs no CUTLASS MoE, the
    runner's fields are not compared (the folder is)."""
    expected = json.load(open(expected_file))
    tmp = tempfile.mkdtemp()
    try:
        hub(os.path.join(tmp, "hub"), sorted({c[2] for c in cases}))
        env = dict(os.environ, HF_HUB_CACHE=os.path.join(tmp, "hub"))
        bad = checked = runs_n = 0
        for n, label, key, got in runs(tmp, env):
            runs_n += 1
            want = expected[key]
            for f in fields:
                checked += 1
                w, g = want.get(f), got.get(f)
                if (skip_untuned and f in ("moe_tp", "tune_max") and g is None and
                        got.get("tune_max", 0) is None):
                    continue
                if w != g:
                    bad += 1
                    print(f"case {n} {label} ({cases[n - 1][3]}): {f}: tunetab {g!r}, {who} {w!r}")
                    if os.environ.get("VERBOSE"):
                        print(got["_stderr"])
        print(f"{runs_n} {summary}, {checked} fields: {checked - bad} agree with {who}'s own "
              f"code, {bad} do not")
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp)


def main():
    tunetab, case_file, expected_file = sys.argv[1:4]
    all_cases = cases(case_file)
    if os.path.basename(case_file).startswith("vllm"):
        return main_vllm(tunetab, all_cases, expected_file)
    if sys.argv[4:5] == ["--write"]:  # from sglang_launch.py outputs: DIR/<n>-<version>.json
        outdir = sys.argv[5] if len(sys.argv) > 5 else "."
        exp = {}
        for n, _ in enumerate(all_cases, 1):
            for version, _ in VERSIONS:
                exp[f"{n} {version}"] = expected_of(json.load(open(f"{outdir}/{n}-{version}.json")))
        json.dump(exp, open(expected_file, "w"), indent=1, sort_keys=True)
        return 0

    def runs(tmp, env):
        for n, case in enumerate(all_cases, 1):
            for version, fi in VERSIONS:
                yield (n, f"SGLang {version}", f"{n} {version}",
                       tunetab_view(tunetab, case, version, fi, os.path.join(tmp, "root"), env))
    return compare(all_cases, runs, FIELDS, expected_file, "SGLang", "launch commands",
                   skip_untuned=True)


def main_vllm(tunetab, all_cases, expected_file):
    if sys.argv[4:5] == ["--write"]:  # from vllm_launch.py outputs: DIR/<n>.json
        outdir = sys.argv[5] if len(sys.argv) > 5 else "."
        exp = {str(n): vllm_expected_of(json.load(open(f"{outdir}/{n}.json")))
               for n, _ in enumerate(all_cases, 1)}
        json.dump(exp, open(expected_file, "w"), indent=1, sort_keys=True)
        return 0

    def runs(tmp, env):
        for n, case in enumerate(all_cases, 1):
            yield (n, "vLLM 0.33.0", str(n),
                   vllm_view(tunetab, case, os.path.join(tmp, f"root{n}"), env))
    return compare(all_cases, runs, VLLM_FIELDS, expected_file, "vLLM", "vLLM launch commands")


if __name__ == "__main__":
    sys.exit(main())
