#!/usr/bin/env python3
"""plan_cases.py: the lookup plan's mismatch table (issue #38), each case installed with tunetab
and then checked twice: by `tunetab doctor --for CONSUMER -- LAUNCH` and by an oracle that does
not use tunetab's plan.

The oracle, per case and per rank of the server:
  - the file the server opens: SGLang's own flashinfer_autotune_cache_path (the 0.5.22/0.5.23
    wheels' source, tests/consumers/sglang_path.py); vLLM 0.34.0's own
    resolve_rank_flashinfer_autotune_file (its wheel's source, tests/consumers/vllm_path.py)
    with the config hash a case names (the folder vLLM's start made and logged: that hash is not
    computable outside vLLM, which is why doctor says it cannot tell without --cache-file);
  - whether that file loads and every lookup hits: FlashInfer's own AutoTuner.load_configs and
    search_cache (tests/flashinfer/fi_oracle.py --batch, the released 0.7.4 or 0.6.18 package)
    with _collect_metadata returning the server's environment and the lookups built by
    FlashInfer's real cutlass MoERunner class from the server's constructor values, which this
    file states per case (dtype flags, tp/ep size and rank, use_fused_finalize) rather than
    taking them from tunetab; the profiles looked up are those of `tunetab generate` for the
    server's model and parallelism (make test-flashinfer checks those against FlashInfer);
  - whether every tactic it would use is one FlashInfer's runner has on that GPU: the id ranges
    of cutlass-moe-tactics.md §3.0.1 (FlashInfer's source), written here.
Truth is "hits" when every rank's file is there, loads, hits every lookup with a valid tactic.
doctor must exit 0 exactly then; otherwise 1, or 6 where the case says tunetab cannot see the
truth (no FlashInfer to read the environment, vLLM's hash, no config.json for install's flags).

Environment: ROOT, TUNETAB; run in an empty folder. Prints one line per case and a summary;
exit 1 when doctor disagrees with the oracle anywhere (or the harness breaks).
"""
import glob
import json
import os
import shutil
import subprocess
import sys

ROOT = os.environ["ROOT"]
T = os.environ["TUNETAB"]
WORK = os.getcwd()
HUB = os.path.join(WORK, "hub")
SNAP = "0123456789abcdef0123456789abcdef01234567"
VHASH = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
VHASH2 = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

GPUS = {"h200": ("NVIDIA H200", "90"), "h100-sxm": ("NVIDIA H100 80GB HBM3", "90"),
        "rtx-pro-6000-server": ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "120")}

# The sizes of FlashInfer's cutlass MoE tactic lists, (sm, dtype) -> (G1, G2 with FINALIZE):
# GEMM1 ids 0..G1-1, GEMM2 ids G1..G1+G2-1, or G1..2*G1-1 without fused finalize (§3). SM90 bf16:
# cutlass-moe-tactics.md §3.0.1; SM120 nvfp4 in 0.7.1-0.7.4: get_candidate_configs_sm120 of those
# wheels drops the tiles that never dispatch, 8 base tiles left (the 0.6.11 list is §3.7's 10)
TACTICS = {("90", "bf16"): (45, 81), ("120", "nvfp4"): (16, 32)}

# the MoERunner constructor values per dtype (FlashInfer 0.7.4 fused_moe/core.py; what SGLang
# 0.5.23 and vLLM pass, flashinfer-moe-inputs.md)
DTYPE_RUNNER = {
    "bf16": {"x_dtype": "torch.bfloat16", "weight_dtype": "torch.bfloat16",
             "use_deepseek_fp8_block_scale": False},
    "fp8_block": {"x_dtype": "torch.bfloat16", "weight_dtype": "torch.float8_e4m3fn",
                  "use_deepseek_fp8_block_scale": True},
    "nvfp4": {"x_dtype": "torch.bfloat16", "weight_dtype": "torch.int64",
              "use_deepseek_fp8_block_scale": False},
}

SERVER = dict(consumer="sglang", cversion="0.5.23", model="Qwen/Qwen3-30B-A3B", model_id="qwen3-30b-a3b",
              hf="Qwen3MoeConfig", dtype="bf16", torch="bfloat16", device="h200", fi="0.7.4", tp=4,
              pp=1, dp=1, attn_dp=1, ep=1, finalize=False, quant=None, backend="flashinfer_cutlass",
              skip=[], extra=[], env={}, vfolder=VHASH, input_view=None, tunes=True, max_tokens=8192)


def run(args, env=None, cwd=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(args, capture_output=True, text=True, env=e, cwd=cwd or WORK)
    return r.returncode, r.stdout, r.stderr


def plant_hub():
    for m in ["Qwen/Qwen3-30B-A3B", "deepseek-ai/DeepSeek-V3", "nvidia/GLM-5.1-NVFP4"]:
        snap = os.path.join(HUB, "models--" + m.replace("/", "--"), "snapshots", SNAP)
        os.makedirs(snap, exist_ok=True)
        with open(os.path.join(os.path.dirname(os.path.dirname(snap)), "refs_main"), "w"):
            pass
        os.makedirs(os.path.join(HUB, "models--" + m.replace("/", "--"), "refs"), exist_ok=True)
        with open(os.path.join(HUB, "models--" + m.replace("/", "--"), "refs", "main"), "w") as f:
            f.write(SNAP)
        for fn in glob.glob(os.path.join(ROOT, "tests/data/hf", m, "*.json")):
            shutil.copy(fn, snap)


def env_meta(fi, gpu):
    return {"flashinfer_version": fi, "cuda_version": "13.0", "cublas_version": "13.1.0",
            "cudnn_version": "91500", "cudnn_frontend_version": "1.15.0",
            "cutlass_dsl_version": "unknown", "gpu": gpu}


def fake_python(fi, gpu):
    """A Python whose FlashInfer reports the server's environment (scripts/tunetab-fi-env.py's
    answer)."""
    path = os.path.join(WORK, "py-%s-%s" % (fi, gpu.replace(" ", "_")))
    doc = {"version": fi, "metadata": env_meta(fi, gpu),
           "consumers": {"sglang": "0.5.23", "vllm": "0.34.0"}, "modules": {"triton_kernels": False},
           "workspace_dir": "/ws/.cache/flashinfer/%s/90a" % fi}
    with open(path, "w") as f:
        f.write("#!/bin/sh\ncat <<'J'\n%s\nJ\n" % json.dumps(doc))
    os.chmod(path, 0o755)
    return path


def launch(s):
    """The server's launch command (words)."""
    if s["consumer"] == "vllm":
        w = ["vllm", "serve", s["model"], "--tensor-parallel-size", str(s["tp"])]
        if s["ep"] > 1:
            w.append("--enable-expert-parallel")
    else:
        w = ["python", "-m", "sglang.launch_server", "--model-path", s["model"], "--tp", str(s["tp"])]
        if s["pp"] > 1:
            w += ["--pp-size", str(s["pp"])]
        if s["dp"] > 1:
            w += ["--dp-size", str(s["dp"])]
        if s["attn_dp"] > 1:
            w += ["--dp-size", str(s["attn_dp"]), "--enable-dp-attention"]
        if s["ep"] > 1:
            w += ["--ep-size", str(s["ep"])]
        if s["quant"]:
            w += ["--quantization", s["quant"]]
        w += ["--moe-runner-backend", s["backend"]]
        if s["skip"]:
            w += ["--flashinfer-autotune-skip-ops"] + s["skip"]
    return w + s["extra"]


def moe_ranks(s):
    """Per server rank (file order: tp fastest, then pp, then dp): (tp_rank, pp_rank, dp_rank,
    world, moe tp_size, moe tp_rank, moe ep_size, moe ep_rank), as the consumers lay them out."""
    out = []
    dp = 1 if s["attn_dp"] > 1 else s["dp"]
    for d in range(dp):
        for p in range(s["pp"]):
            for t in range(s["tp"]):
                dpr = t // (s["tp"] // s["attn_dp"]) if s["attn_dp"] > 1 else d
                if s["consumer"] == "vllm" and s["ep"] > 1:  # FusedMoEParallelConfig: EP over DP x TP
                    mtp, mtr, mep, mer = 1, 0, s["tp"] * s["dp"], d * s["tp"] + t
                else:  # SGLang: moe_tp = tp / ep; moe_ep_rank = tp_rank // moe_tp
                    mtp = s["tp"] // s["ep"]
                    mtr, mep, mer = t % mtp, s["ep"], t // mtp
                out.append((t, p, dpr, (d * s["pp"] + p) * s["tp"] + t, mtp, mtr, mep, mer))
    return out


def oracle_paths(s, root):
    """The file each rank opens, by the consumer's own rule."""
    if s["consumer"] == "vllm":  # vLLM 0.34.0's own resolve_rank_flashinfer_autotune_file
        site = os.path.join(ROOT, ".venv-consumers", "vllm-" + s["cversion"])
        case = {"env": {"VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR": root}, "tp": s["tp"], "pp": s["pp"],
                "dp": s["dp"], "hash": s["vfolder"], "home": WORK,
                "workspace": "/ws/.cache/flashinfer/%s/90a" % s["fi"]}
        rc, out, err = run([sys.executable, os.path.join(ROOT, "tests/consumers/vllm_path.py"), site,
                            os.path.join(ROOT, ".venv-consumers", "flashinfer-none"), json.dumps(case)])
        if rc:
            raise SystemExit("plan_cases: vLLM's path function failed: " + err)
        return out.split()
    paths = []
    for (t, p, d, w, *_rest) in moe_ranks(s):
        site = os.path.join(ROOT, ".venv-consumers", "sglang-" + s["cversion"])
        case = {"model_path": s["model"], "dtype": s["torch"], "quantization": s["quant"],
                "moe_runner_backend": s["backend"], "tp": s["tp"], "pp": s["pp"],
                "attn_dp": s["attn_dp"], "ep": s["ep"], "hf_config_class": s["hf"],
                "skip_ops": s["skip"], "tp_rank": t, "pp_rank": p, "dp_rank": d,
                "sm": GPUS[s["device"]][1], "flashinfer": s["fi"], "cache_dir": root}
        rc, out, err = run([sys.executable, os.path.join(ROOT, "tests/consumers/sglang_path.py"), site,
                            json.dumps(case)])
        if rc:
            raise SystemExit("plan_cases: SGLang's path function failed: " + err)
        paths.append(out.strip())
    return paths


def deployment(s, mtp, mtr, mep, mer):
    d = {"output_dtype": "torch.bfloat16", "top_k": 8, "tp_size": mtp, "tp_rank": mtr,
         "ep_size": mep, "ep_rank": mer, "cluster_size": 1, "cluster_rank": 0,
         "enable_alltoall": False, "use_w4_group_scaling": False, "use_mxfp8_act_scaling": False,
         "use_wfp4afp8_humming": False, "min_latency_mode": False, "enable_pdl": True,
         "activation_type": 3, "use_packed_weights": False, "use_fused_finalize": s["finalize"]}
    d.update(DTYPE_RUNNER[s["dtype"]])
    return d


def sglang_diverged(s, paths):
    """SGLang's own fingerprint of each rank's cache, gathered over each TP group: the caches are
    deleted and tuned anew when they differ (_drop_diverged_autotune_cache)."""
    site = os.path.join(ROOT, ".venv-consumers", "sglang-" + s["cversion"])
    rc, out, err = run([sys.executable, os.path.join(ROOT, "tests/consumers/sglang_digest.py"), site,
                        json.dumps({"paths": paths, "env": env_meta(s["fi"], GPUS[s["device"]][0])})])
    if rc:
        raise SystemExit("plan_cases: SGLang's digest function failed: " + err)
    digests = out.split("\n")[:len(paths)]
    for g in range(0, len(paths), s["tp"]):
        if len(set(digests[g:g + s["tp"]])) > 1:
            return "the TP group's caches differ: SGLang deletes them and tunes anew"
    return ""


_keys = {}


def server_keys(s):
    """The profiles the server looks up (their extras are rebuilt by FlashInfer's real runner)."""
    mtp, mep = moe_ranks(s)[0][4], moe_ranks(s)[0][6]
    ck = (s["device"], s["model_id"], s["dtype"], mtp, mep, s["fi"], s["input_view"], s["finalize"],
          s["max_tokens"])
    if ck not in _keys:
        out = os.path.join(WORK, "keys-%d" % len(_keys))
        args = [T, "generate", "--device", s["device"], "--model", s["model_id"], "--dtype", s["dtype"],
                "--tp", str(mtp), "--ep", str(mep), "--flashinfer", s["fi"], "--format", "json",
                "--fused-finalize", "on" if s["finalize"] else "off", "--max-tokens", str(s["max_tokens"]),
                "-o", out, "-q"]
        if s["input_view"]:
            args += ["--input-view", s["input_view"]]
        rc, _, err = run(args)
        if rc:
            raise SystemExit("plan_cases: generate failed: " + err)
        doc = json.load(open(glob.glob(out + "/flashinfer_autotune_*.json")[0]))
        _keys[ck] = sorted(k for k in doc if not k.startswith("_"))
    return _keys[ck]


def valid_tactic(s, key, tactic):
    r = TACTICS.get((GPUS[s["device"]][1], s["dtype"]))
    if r is None or not isinstance(tactic, int):
        return True
    g1, g2 = r
    if "gemm1" in key:
        return 0 <= tactic < g1
    return g1 <= tactic < g1 + (g2 if s["finalize"] else g1)


class Case:
    """server: the truth; install: tunetab commands (or a plain command) run first; doctor: its
    extra options (--no-python: no FlashInfer to read, --no-hub: no config.json findable);
    env: the environment install and doctor run in (the server's, as when run beside it);
    unknown: tunetab cannot see the truth (doctor must exit 6); says: a word doctor's output must
    hold (the cause it names)."""
    def __init__(self, name, server, install, doctor=(), mutate=None, unknown=False, says=None,
                 oracle_fi=None, env=None):
        self.name, self.server, self.install, self.doctor = name, server, install, list(doctor)
        self.mutate, self.unknown, self.says, self.oracle_fi = mutate, unknown, says, oracle_fi
        self.env = env or {}


def S(**kw):
    s = dict(SERVER)
    s.update(kw)
    if "model_id" not in kw and s["model"] != SERVER["model"]:
        s["model_id"] = {"deepseek-ai/DeepSeek-V3": "deepseek-v3",
                         "nvidia/GLM-5.1-NVFP4": "glm-5"}.get(s["model"], s["model_id"])
    return s


def common(s, py=True):
    """install/doctor options for server s: its GPU, FlashInfer, consumer version, cache root."""
    o = ["--device", s["device"], "--consumer-version", s["cversion"]]
    if py:
        o += ["--python", fake_python(s["fi"], GPUS[s["device"]][0])]
    else:
        o += ["--flashinfer", s["fi"]]
    return o + ["--cache-dir", "root"]


def inst(s, *more, py=True):
    """tunetab install for server s (its own launch command), more options before '--'."""
    return ["install", "--for", s["consumer"]] + common(s, py) + list(more) + ["--"] + \
        [w for w in env_words(s)] + launch(s)


def env_words(s):
    return ["%s=%s" % kv for kv in sorted(s["env"].items())]


def gen(s, out, *more):
    mtp = moe_ranks(s)[0][4]
    return ["generate", "--device", s["device"], "--model", s["model_id"], "--dtype", s["dtype"],
            "--tp", str(mtp), "--ep", str(moe_ranks(s)[0][6]), "--flashinfer", s["fi"], "--format",
            "json", "--fused-finalize", "on" if s["finalize"] else "off", "-o", out, "-q"] + \
        (["--input-view", s["input_view"]] if s["input_view"] else []) + list(more)


def table(out):
    return glob.glob(os.path.join(WORK, out, "flashinfer_autotune_*.json"))[0]


def files(pattern):
    return sorted(glob.glob(os.path.join(WORK, "root", "**", pattern), recursive=True))


def edit(fn):
    """A mutation: fn(doc) applied to every rank file."""
    def m():
        for f in files("*.json"):
            d = json.load(open(f))
            fn(d)
            json.dump(d, open(f, "w"), indent=2)
    return m


def edit_one(fn, index=1):
    def m():
        f = files("*.json")[index]
        d = json.load(open(f))
        fn(d)
        json.dump(d, open(f, "w"), indent=2)
    return m


def set_meta(**kv):
    return edit(lambda d: d["_metadata"].update(kv))


def policy(pol):
    """Every entry's profiling policy (its value's 3rd element) set to pol, or dropped (None)."""
    def fn(d):
        for k, v in d.items():
            if not k.startswith("_"):
                d[k] = v[:2] + ([pol] if pol is not None else [])
    return fn


HOT = ["cuda_graph_profile_replays", None, "l2_cache_policy", "hot"]  # the CUTLASS MoE's own
HOT_GRAPH = ["cuda_graph_profile_replays", 1, "l2_cache_policy", "hot"]  # measured under a CUDA graph


def first_tactic(value):
    def fn(d):
        k = sorted(x for x in d if "gemm1" in x)[0]
        d[k][1] = value
    return fn


def cases():
    s = SERVER
    s0 = S(fi="0.7.2")
    fin = S(env={"SGLANG_FLASHINFER_MOE_FUSED_FINALIZE": "1"}, finalize=True)
    t8 = S(tp=8)
    e4 = S(ep=4)
    rk = S(fi="0.6.18")
    rk_e = S(fi="0.6.18", ep=4)
    v = S(consumer="vllm", cversion="0.34.0", model="deepseek-ai/DeepSeek-V3", hf="DeepseekV3Config",
          dtype="fp8_block", tp=8, ep=8, finalize=True)
    v_kv = dict(v, extra=["--kv-cache-dtype", "fp8"], vfolder=VHASH2)
    nv = S(model="nvidia/GLM-5.1-NVFP4", hf="GlmMoeDsaConfig", dtype="nvfp4", device="rtx-pro-6000-server",
           tp=8, quant="modelopt_fp4", input_view="bf16", backend="flashinfer_cutlass")
    # SGLang 0.5.22 tunes buckets up to its largest decode batch, 512 on an H200 at TP 4 (its
    # get_eager_max_batch_size; test 178 checks tunetab's reading against SGLang's own code)
    old = S(cversion="0.5.22", max_tokens=512)
    L = []
    add = L.append
    # --- the truth is hits
    add(Case("SGLang TP 4, installed from its launch command", s, [inst(s)]))
    add(Case("the same without a FlashInfer to read the environment: the generated table's \"*\" fields",
             s, [inst(s, py=False)], doctor=["--no-python"]))
    add(Case("TP 8", t8, [inst(t8)]))
    add(Case("TP 4 EP 4", e4, [inst(e4)]))
    add(Case("TP 2 DP 2 (replicas)", S(tp=2, dp=2), [inst(S(tp=2, dp=2))]))
    add(Case("TP 4 with attention DP 4", S(attn_dp=4), [inst(S(attn_dp=4))]))
    add(Case("TP 2 PP 2", S(tp=2, pp=2), [inst(S(tp=2, pp=2))]))
    add(Case("FlashInfer 0.7.2's folder and stamp", s0, [inst(s0)]))
    add(Case("SGLANG_FLASHINFER_MOE_FUSED_FINALIZE=1 on the command line, table for finalize on", fin,
             [inst(fin)]))
    add(Case("SGLang 0.5.22's folder (no candidate_selection part)", old, [inst(old)]))
    add(Case("SGLANG_FLASHINFER_MOE_FUSED_FINALIZE=1 in the environment, table for finalize on",
             S(finalize=True), [inst(S(finalize=True))],
             env={"SGLANG_FLASHINFER_MOE_FUSED_FINALIZE": "1"}))
    add(Case("rank-keyed FlashInfer 0.6.18: every rank's keys in every file", rk, [inst(rk)],
             oracle_fi="0.6.18"))
    add(Case("rank-keyed FlashInfer 0.6.18, TP 4 EP 4", rk_e, [inst(rk_e)], oracle_fi="0.6.18"))
    add(Case("no _metadata at all: accepted with no checks", s, [inst(s)],
             mutate=edit(lambda d: d.pop("_metadata"))))
    add(Case("every _metadata field \"*\"", s, [inst(s, "--metadata", "wildcard")], doctor=["--no-python"]))
    add(Case("RTX PRO 6000 (SM120), GLM-5.1 NVFP4 with bf16 input", nv, [inst(nv)]))
    add(Case("vLLM fp8_block EP 8, --cache-file the path vLLM logged", v, [inst(v)],
             doctor=["--cache-file", "root/%s/autotune_configs_dp0_rank0.json" % VHASH]))
    add(Case("install's flags, the model's config.json in the HF cache", s,
             [gen(s, "t"), ["install", "--for", "sglang", "--from", "t", "--model-path", s["model"],
                            "--hf-config-class", s["hf"], "--tp", "4"] + common(s)]))
    # --- the truth is no
    add(Case("nothing installed", s, [], says="nothing was installed"))
    add(Case("a table for finalize on, SGLang's default off", s,
             [gen(fin, "on"), inst(s, "--from", "on", "--force")], says="use_fused_finalize"))
    add(Case("finalize off table, the command line sets =1", fin,
             [gen(s, "off"), ["install", "--for", "sglang", "--force", "--from", "off"] + common(fin) +
              ["--"] + launch(fin)], says="use_fused_finalize"))
    add(Case("finalize on table, SGLANG_FLASHINFER_MOE_FUSED_FINALIZE=0 in the environment", s,
             [gen(fin, "on"), inst(s, "--from", "on", "--force")], says="use_fused_finalize",
             env={"SGLANG_FLASHINFER_MOE_FUSED_FINALIZE": "0"}))
    add(Case("a TP 8 table forced into TP 4's folder", s, [gen(t8, "t8"), inst(s, "--from", "t8", "--force")],
             says="tp_size"))
    add(Case("installed for TP 8, the server runs TP 4", s, [inst(t8)], says="another deployment's folder"))
    add(Case("installed for EP 1, the server runs EP 4", e4, [inst(s)], says="nothing was installed"))
    add(Case("an EP 1 table forced into EP 4's folder", e4, [gen(s, "e1"), inst(e4, "--from", "e1", "--force")],
             says="ep_size"))
    add(Case("installed for TP 4, the server runs TP 2 DP 2", S(tp=2, dp=2), [inst(S(tp=4))],
             says="nothing was installed"))
    add(Case("installed for PP 1, the server runs PP 2", S(tp=2, pp=2), [inst(S(tp=2))],
             says="nothing was installed"))
    add(Case("one rank file removed", s, [inst(s)], mutate=lambda: os.unlink(files("rank_tp2*")[0]),
             says="rank files missing"))
    add(Case("one rank file with another tactic (files differ)", s, [inst(s)],
             mutate=edit_one(first_tactic(0), 1), says="contents differ"))
    add(Case("installed under FlashInfer 0.7.4, the server imports 0.7.2", s0, [inst(s)],
             says="FlashInfer 0.7.4, which the server does not import"))
    add(Case("a 0.7.4 table copied into 0.7.2's folder", s0,
             [inst(s), ["cp", "-r", "root/flashinfer/autotune/0.7.4", "root/flashinfer/autotune/0.7.2"]],
             says="flashinfer_version"))
    add(Case("an H200 stamp on an H100 server", S(device="h100-sxm"),
             [inst(S(device="h100-sxm"))], mutate=set_meta(gpu="NVIDIA H200"), says="gpu"))
    add(Case("cuda_version 12.8 stamped, the server's 13.0 (FlashInfer read)", s, [inst(s)],
             mutate=set_meta(cuda_version="12.8"), says="cuda_version"))
    add(Case("cudnn_version 'unknown' stamped (a soft mismatch)", s, [inst(s)],
             mutate=set_meta(cudnn_version="unknown"), says="soft"))
    add(Case("a GEMM1 tactic SM90 does not have (999)", s, [inst(s)], mutate=edit(first_tactic(999)),
             says="tactic 999"))
    add(Case("a B200 NVFP4 table forced onto the RTX PRO 6000", nv,
             [gen(dict(nv, device="b200"), "b200"),
              inst(nv, "--from", "b200", "--force", "--metadata", "wildcard")], says="tactic"))
    add(Case("NVFP4 with its input as fp4, the server passes bf16", nv,
             [gen(dict(nv, input_view=None), "fp4in"), inst(nv, "--from", "fp4in", "--force")],
             says="x_dtype"))
    add(Case("vLLM: an fp8 (per-tensor) table for an fp8_block server", v,
             [gen(dict(v, dtype="fp8"), "fp8"), inst(v, "--from", "fp8", "--force")],
             doctor=["--cache-file", "root/%s/autotune_configs_dp0_rank0.json" % VHASH],
             says="use_deepseek_fp8_block_scale"))
    add(Case("vLLM: --kv-cache-dtype fp8 hashes another folder (the one vLLM logged)", v_kv, [inst(v)],
             doctor=["--cache-file", "root/%s/autotune_configs_dp0_rank0.json" % VHASH2],
             says="rank files missing"))
    add(Case("installed for SGLang 0.5.22, the server is 0.5.23", s, [inst(old)],
             says="nothing was installed"))
    add(Case("rank-keyed 0.6.18: rank 0's keys only, forced", rk,
             [gen(rk, "r0"), inst(rk, "--from", "r0", "--force")], says="tp_rank", oracle_fi="0.6.18"))
    add(Case("the server does not tune (--moe-runner-backend triton)", S(backend="triton"), [inst(s)],
             says="does not tune"))
    add(Case("installed without skip ops, the server skips one", S(skip=["a_op"]), [inst(s)],
             says="nothing was installed"))
    add(Case("installed for a local model path", s,
             [inst(S(model=os.path.join(ROOT, "tests/data/hf/Qwen/Qwen3-30B-A3B")))],
             says="nothing was installed"))
    add(Case("install's flags: a TP 8 table for --tp 4", s,
             [gen(t8, "t8"), ["install", "--for", "sglang", "--from", "t8", "--model-path", s["model"],
                              "--hf-config-class", s["hf"], "--tp", "4", "--force"] + common(s)],
             says="tp_size"))
    add(Case("install's flags: --hf-config-class names another class than the model's config.json", s,
             [gen(s, "t"), ["install", "--for", "sglang", "--from", "t", "--model-path", s["model"],
                            "--hf-config-class", "MixtralConfig", "--tp", "4", "--force"] + common(s)],
             says="hf-config-class"))
    # --- the truth is there but tunetab cannot see it: doctor says so (exit 6), never "hits"
    add(Case("cuda_version 12.8 stamped, no FlashInfer to read the environment", s, [inst(s)],
             mutate=set_meta(cuda_version="12.8"), doctor=["--no-python"], unknown=True))
    add(Case("the environment's stamp, no FlashInfer to read it", s, [inst(s)], doctor=["--no-python"],
             unknown=True))
    add(Case("vLLM: the one hash folder there, no --cache-file", v, [inst(v)], unknown=True))
    add(Case("vLLM: --enforce-eager (another hash), no --cache-file", dict(v, extra=["--enforce-eager"],
             vfolder=VHASH2), [inst(v)], unknown=True))
    add(Case("install's flags, the model's config.json nowhere", s,
             [gen(s, "t"), ["install", "--for", "sglang", "--from", "t", "--model-path", s["model"],
                            "--hf-config-class", s["hf"], "--tp", "4"] + common(s)],
             doctor=["--no-hub"], unknown=True))
    # --- issue #47: an entry counts only where FlashInfer's tune mode uses it (its profiling
    # policy the op's); the oracle looks up inside autotune(True) for SGLang
    add(Case("entries saved with the CUTLASS MoE's own profiling policy (FlashInfer 0.7.4 writes it)", s,
             [inst(s)], mutate=edit(policy(HOT))))
    add(Case("entries without a profiling policy (read as the op's default, the CUTLASS MoE's)", s,
             [inst(s)], mutate=edit(policy(None))))
    add(Case("vLLM: entries measured under another profiling policy (no tuning pass when they load)", v,
             [inst(v)], mutate=edit(policy(HOT_GRAPH)),
             doctor=["--cache-file", "root/%s/autotune_configs_dp0_rank0.json" % VHASH]))
    add(Case("entries measured under a CUDA graph: SGLang's tuning profiles them again (issue #47)", s,
             [inst(s)], mutate=edit(policy(HOT_GRAPH)), says="profiles them again"))
    add(Case("entries with a cold-L2 policy the CUTLASS MoE does not request", s, [inst(s)],
             mutate=edit(policy(["cuda_graph_profile_replays", None, "l2_cache_policy", "cold"])),
             says="profiles them again"))
    return L


def doctor_args(c):
    s = c.server
    py = "--no-python" not in c.doctor
    extra = [a for a in c.doctor if a not in ("--no-python", "--no-hub")]
    last = c.install[-1] if c.install else []
    if last[:2] == ["install", "--for"] and "--from" in last and "--" not in last:
        # install's flags: doctor with the same flags
        a = [x for x in last[1:] if x != "--force"]
        a[a.index("--from") + 1] = table(a[a.index("--from") + 1])
        return ["doctor"] + a + extra
    return ["doctor", "--for", s["consumer"]] + common(s, py) + extra + ["--"] + env_words(s) + launch(s)


def main():
    plant_hub()
    base_env = {"HF_HUB_CACHE": HUB, "TUNETAB_TEST_IGNORE_INSTALLED": "1"}
    for k in ("SGLANG_CACHE_DIR", "SGLANG_FLASHINFER_MOE_FUSED_FINALIZE", "VLLM_CACHE_ROOT"):
        os.environ.pop(k, None)
    L = cases()
    top = WORK
    jobs, per_case = [], []
    setup_failed = {}
    for i, c in enumerate(L):
        d = os.path.join(WORK, "c%02d" % i)
        os.makedirs(d)
        s = c.server
        os.makedirs(os.path.join(d, "root", VHASH), exist_ok=True)  # vLLM's first start (cases use it or not)
        if s["consumer"] != "vllm":
            shutil.rmtree(os.path.join(d, "root", VHASH))
        for step in c.install:
            step = list(step)
            if step[0] == "generate":  # tables are shared by name between cases
                j = step.index("-o") + 1
                step[j] = os.path.join(top, step[j])
                if os.path.isdir(step[j]):
                    continue
            if "--from" in step:
                j = step.index("--from") + 1
                step[j] = table(step[j])
            if step[0] in ("generate", "install"):
                ienv = dict(base_env)
                ienv.update(c.env)
                rc, o, e = run([T] + step, env=ienv, cwd=d)
            else:
                rc, o, e = run(step, cwd=d)
            if rc:  # counted as a disagreement below (an older tunetab may refuse a step)
                setup_failed[i] = "setup failed: %s: %s" % (" ".join(step[:3]), e.strip().splitlines()[0][:200])
                break
        if c.mutate:
            cwd = os.getcwd()
            os.chdir(d)
            globals()["WORK"] = d
            c.mutate()
            globals()["WORK"] = top
            os.chdir(cwd)
        args = doctor_args(c)
        denv = dict(base_env)
        denv.update(c.env)
        if "--no-hub" in c.doctor:
            denv["HF_HUB_CACHE"] = os.path.join(d, "empty-hub")
        rc, out, err = run([T] + args, env=denv, cwd=d)
        # the oracle's jobs: every rank's file
        fi = c.oracle_fi or "0.7.4"
        root = os.path.join(d, "root")
        paths = oracle_paths(s, root)
        gpu = GPUS[s["device"]][0]
        keys = server_keys(s) if s["tunes"] and s["backend"] != "triton" else []
        first = len(jobs)
        for (t, p, dd, w, mtp, mtr, mep, mer), path in zip(moe_ranks(s), paths):
            # SGLang looks its entries up inside autotune(True) (flashinfer_autotune.py:330-362
            # in 0.5.23: load_configs, then autotune(True)): tune mode, where FlashInfer compares
            # each entry's profiling policy; vLLM, when every rank's file loads, runs no tuning
            # pass (kernel_warmup.py:514-532, 623-624 in 0.34.0) and serves them as they are
            jobs.append({"table": path, "device": gpu, "keys": keys,
                         "deployment": deployment(s, mtp, mtr, mep, mer),
                         "metadata": env_meta(s["fi"], gpu), "fi": fi, "case": i,
                         "tune_mode": s["consumer"] == "sglang"})
        per_case.append((c, rc, out, err, first, len(jobs)))
    # one oracle process per FlashInfer version
    results = [None] * len(jobs)
    for fi in sorted({j["fi"] for j in jobs}):
        idx = [k for k, j in enumerate(jobs) if j["fi"] == fi]
        bf = os.path.join(WORK, "batch-%s.jsonl" % fi)
        with open(bf, "w") as f:
            for k in idx:
                f.write(json.dumps(jobs[k]) + "\n")
        py = os.path.join(ROOT, ".venv-flashinfer", fi, "bin", "python")
        rc, out, err = run([py, os.path.join(ROOT, "tests/flashinfer/fi_oracle.py"), "--batch", bf])
        lines = [l for l in out.splitlines() if l.startswith("{")]
        if rc or len(lines) != len(idx):
            print("plan_cases: the FlashInfer %s oracle failed (exit %d):\n%s" % (fi, rc, err[-3000:]))
            return 1
        for k, line in zip(idx, lines):
            results[k] = json.loads(line)
    agree = truth_hits = 0
    for i, (c, rc, out, err, a, b) in enumerate(per_case):
        s = c.server
        why = ""
        if s["backend"] == "triton":
            why = "the server runs Triton's MoE: no cache read"
        for k in range(a, b):
            r = results[k]
            name = os.path.basename(jobs[k]["table"])
            if why:
                break
            if r.get("note") == "no such file":
                why = "%s missing" % name
            elif r.get("error"):
                why = "%s: FlashInfer raises %s" % (name, r["error"][:80])
            elif not r["loaded"]:
                note = r.get("note") or ""
                note = note[note.find("environment (") + 13:note.find("). Ignoring")] if "). Ignoring" in note else note
                why = "%s not loaded: %s" % (name, note[:120])
            elif r["misses"]:
                why = "%s: %d of %d lookups miss" % (name, r["misses"], len(r["results"]))
            else:
                bad = [(x["key"], x["value"][1]) for x in r["results"] if not valid_tactic(s, x["key"], x["value"][1])]
                if bad:
                    why = "%s: tactic %s is not among FlashInfer's ids for SM%s %s" % (
                        name, bad[0][1], GPUS[s["device"]][1], s["dtype"])
        if not why and s["consumer"] == "sglang" and s["tp"] > 1 and s["backend"] != "triton":
            why = sglang_diverged(s, [jobs[k]["table"] for k in range(a, b)])
        truth = "hits" if not why else "no (%s)" % why
        want = 6 if c.unknown else 0 if not why else 1
        lines = [l for l in out.splitlines() if l.startswith(("  no ", "  cannot tell "))]
        said = lines[0].split(None, 1)[1].strip() if lines else ""
        said = said[len("tell"):].strip() if said.startswith("tell") else said
        ok = rc == want and (not c.says or c.says in out) and i not in setup_failed
        if c.unknown and not why:
            truth = "hits, which tunetab cannot see"
        elif c.unknown:
            truth = "no (%s), which tunetab cannot see" % why
        agree += ok
        truth_hits += not why
        print("%02d %s\n   oracle: %s\n   doctor: exit %d%s%s" % (
            i, c.name, truth, rc, ": " if said else "", said[:150]))
        if i in setup_failed:
            print("   " + setup_failed[i])
        if not ok:
            print("   DISAGREE: doctor should exit %d%s" % (want, " naming '%s'" % c.says if c.says else ""))
            print("   " + "\n   ".join((out + err).splitlines()[:40]))
    print("%d cases (the oracle: %d hit, %d do not): doctor agrees with the oracle on %d" % (
        len(L), truth_hits, len(L) - truth_hits, agree))
    return 0 if agree == len(L) else 1


if __name__ == "__main__":
    sys.exit(main())
