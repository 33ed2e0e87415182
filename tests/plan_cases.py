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
  - the other ops it tunes at start (fp4_gemm, the TensorRT-LLM-gen NVFP4 MoE; a case's
    other_ops): their keys and requested profiling policies from FlashInfer 0.7.4's own runner
    classes, TuningConfigs and _get_cache_key (tests/flashinfer/ops_keys.py --emit), for the
    calls of `tunetab generate --for` with the MoE's per-GPU sizes replaced by the ones the
    consumer's own released code pads them to (tests/consumers/nvfp4_moe_sizes.py), looked up
    in each rank file by FlashInfer's search_cache in tune mode with the op's own policy; a
    case whose keys no one here knows (profiled_ops) is judged by whether the files hold any
    entry of the op at all;
  - whether every tactic it would use is one FlashInfer's runner has on that GPU: the id ranges
    of cutlass-moe-tactics.md §3.0.1 (FlashInfer's source), written here;
  - whether install made the server slower than without tunetab: an entry of an op it tunes at
    start holding FlashInfer's fallback tactic (-1), unasked (no --write-fallbacks), fails the
    case whatever doctor says (issue #47 item 4).
  - whether the server starts at all: SGLang's own parser (tests/consumers/launch_parse.py:
    argparse with every option the release's parser has, dumped from its wheel) refuses an
    unknown, ambiguous or badly chosen option; the server then reads nothing, and doctor must
    refuse the command too (exit 2);
  - whether it tunes FlashInfer at start (and so reads the cache at all): SGLang's own
    should_run_flashinfer_autotune (tests/consumers/sglang_tunes.py, the wheel's function) for
    the resolved deployment the case states; vLLM: whether its first MoE layer runs FlashInfer's
    CUTLASS MoE, as the case states from vLLM's own selection
    (tests/data/launch/vllm-expected.json);
  - the server's environment: the environment doctor and install run in (the case's env, as
    beside the server) with the launch command's VAR=VALUE words over it, which the path
    functions above read (SGLANG_CACHE_DIR, VLLM_CACHE_ROOT, VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR).
Truth is "hits" when every rank's file is there, loads, hits every lookup with a valid tactic.
doctor must exit 0 exactly then; otherwise 1 (2 where the server refuses the command), or 6
where the case says tunetab cannot see the truth (no FlashInfer to read the environment, vLLM's
hash, no config.json for install's flags). A case may also accept 6 ("cannot tell") for its
answer (or_cannot_tell: the public recipes, whose options tunetab need not model); never 0
where the truth is not "hits", never 2 where the server takes the command. Each recipe case
cites the page its launch command was copied from.

Environment: ROOT, TUNETAB; run in an empty folder. Prints one line per case and a summary;
exit 1 when doctor disagrees with the oracle anywhere (or the harness breaks).
"""
import glob
import json
import os
import shlex
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
        "rtx-pro-6000-server": ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "120"),
        "b200": ("NVIDIA B200", "100"), "rtx-5090": ("NVIDIA GeForce RTX 5090", "120")}
# the variables that name a cache root (the path functions read them)
PATH_VARS = ("SGLANG_CACHE_DIR", "VLLM_CACHE_ROOT", "VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR",
             "XDG_CACHE_HOME")
MODELS = {"Qwen/Qwen3-30B-A3B": ("qwen3-30b-a3b", "Qwen3MoeConfig", None),
          "deepseek-ai/DeepSeek-V3": ("deepseek-v3", "DeepseekV3Config", "fp8"),
          "nvidia/GLM-5.1-NVFP4": ("glm-5", "GlmMoeDsaConfig", "modelopt_fp4"),
          "nvidia/GLM-5-NVFP4": ("glm-5", "GlmMoeDsaConfig", "modelopt_fp4"),
          "zai-org/GLM-5-FP8": ("glm-5", "GlmMoeDsaConfig", "fp8"),
          "zai-org/GLM-5": ("glm-5", "GlmMoeDsaConfig", None),
          "openai/gpt-oss-120b": ("gpt-oss-120b", "GptOssConfig", "mxfp4"),
          "openai/gpt-oss-20b": ("gpt-oss-20b", "GptOssConfig", "mxfp4"),
          "nvidia/Qwen3-30B-A3B-NVFP4": ("qwen3-30b-a3b", "Qwen3MoeConfig", "modelopt_fp4"),
          "nvidia/Llama-4-Scout-17B-16E-Instruct-FP4": ("llama-4-scout", "Llama4Config",
                                                        "modelopt_fp4")}

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
              skip=[], extra=[], env={}, vfolder=VHASH, input_view=None, max_tokens=8192,
              # a recipe's own words (its launch command as published), else launch() builds them
              words=None,
              # the cache root through the environment (SGLANG_CACHE_DIR / a vLLM variable in
              # the case's env) instead of --cache-dir
              root_env=False,
              # what SGLang's should_run_flashinfer_autotune reads, as SGLang resolves the
              # command: the model config's quantization (None: the checkpoint's, MODELS),
              # the fp4 GEMM backend, --moe-a2a-backend, --disable-flashinfer-autotune,
              # --enable-deterministic-inference, speculative decoding
              mquant=None, fp4_backend="auto", a2a="none", no_autotune=False, deterministic=False,
              spec=False,
              # shared experts SGLang fuses into the routed MoE (one more expert, top-k + 1), as
              # its shared_experts_fusion_disable_reason decides (0.5.23 models/deepseek_v2.py:
              # 3324-3394; models/glm4_moe.py:1285 for GLM-5)
              fused_shared=0, profiled_ops=[],
              # the oracle looks up the CUTLASS MoE's keys (False: the case's truth does not
              # need them, and the oracle has no keys for this model's MoE)
              moe_keys=True,
              # the other ops the server tunes at start whose keys the oracle computes
              # (other_keys: fp4_gemm, the TensorRT-LLM-gen NVFP4 MoE)
              other_ops=False)


def run(args, env=None, cwd=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(args, capture_output=True, text=True, env=e, cwd=cwd or WORK)
    return r.returncode, r.stdout, r.stderr


def plant_hub():
    for m in MODELS:
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
    if s["words"]:
        return list(s["words"])
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


def server_env(c, d):
    """The server's environment as far as the path functions read it: the case's environment
    (install's and doctor's, as beside the server), the launch command's VAR=VALUE words over
    it; a relative folder is the case folder's (the server starts there)."""
    e = dict(c.env)
    e.update(c.server["env"])
    return {k: os.path.join(d, v) if k in PATH_VARS and v else v for k, v in e.items()}


def oracle_paths(s, cdir, env, vfolder=None):
    """The file each rank opens, by the consumer's own rule, in the server's environment env
    (without a cache-root variable there, the root is --cache-dir's, the case's root/). Both
    functions make the folder, as the server does when it starts (vLLM: in the config-hash
    folder vfolder, default the case's)."""
    root = os.path.join(cdir, "root")
    if s["consumer"] == "vllm":  # vLLM 0.34.0's own resolve_rank_flashinfer_autotune_file
        site = os.path.join(ROOT, ".venv-consumers", "vllm-" + s["cversion"])
        venv = {k: v for k, v in env.items() if k in PATH_VARS}
        case = {"env": venv or {"VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR": root}, "tp": s["tp"],
                "pp": s["pp"],
                "dp": s["dp"], "hash": vfolder or s["vfolder"], "home": WORK,
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
                "sm": GPUS[s["device"]][1], "flashinfer": s["fi"],
                "cache_dir": env.get("SGLANG_CACHE_DIR") or root}
        rc, out, err = run([sys.executable, os.path.join(ROOT, "tests/consumers/sglang_path.py"), site,
                            json.dumps(case)])
        if rc:
            raise SystemExit("plan_cases: SGLang's path function failed: " + err)
        paths.append(out.strip())
    return paths


def deployment(s, mtp, mtr, mep, mer):
    d = {"output_dtype": "torch.bfloat16", "top_k": 8 + s["fused_shared"], "tp_size": mtp,
         "tp_rank": mtr,
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
          s["max_tokens"], s["fused_shared"])
    if ck not in _keys:
        out = os.path.join(WORK, "keys-%d" % len(_keys))
        model = s["model_id"]
        if s["fused_shared"]:  # the model's geometry with the fused shared experts routed
            n = s["fused_shared"]
            model = os.path.join(WORK, "%s-fused%d.yaml" % (s["model_id"], n))
            with open(os.path.join(ROOT, "configs/models", s["model_id"] + ".yaml")) as f:
                text = f.read()
            for field, delta in (("routed_experts", n), ("top_k", n)):
                head, rest = text.split("  %s: " % field, 1)
                num, tail = rest.split(" ", 1)
                text = "%s  %s: %d %s" % (head, field, int(num) + delta, tail)
            text = text.replace("id: %s " % s["model_id"],
                                "id: %s-fused%d " % (s["model_id"], n), 1)
            with open(model, "w") as f:
                f.write(text)
        args = [T, "generate", "--device", s["device"], "--model", model, "--dtype", s["dtype"],
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


_other = {}
# the tunetab whose `generate --for` gives the oracle its calls (make test: the one tested; to
# run these cases on an older tunetab, this tree's, as the calls' sizes are replaced below)
OT = os.environ.get("ORACLE_TUNETAB") or T


def snapshot(model):
    return os.path.join(HUB, "models--" + model.replace("/", "--"), "snapshots", SNAP)


def other_keys(s):
    """{op: (the keys the server looks up at start, the policy fields of the op's own
    TuningConfig)} for the ops other than the CUTLASS MoE that it tunes (fp4_gemm, the
    TensorRT-LLM-gen NVFP4 MoE). The keys are FlashInfer 0.7.4's own tuner's
    (tests/flashinfer/ops_keys.py --emit: FlashInfer's runner classes, TuningConfigs and
    _get_cache_key) for the calls `tunetab generate --for` records, with the MoE's per-GPU
    intermediate and hidden sizes replaced by the ones the consumer's own released code pads
    them to (tests/consumers/nvfp4_moe_sizes.py); the linear layers' shapes are tunetab's
    (tests/cli/212 and make test-flashinfer check them against FlashInfer)."""
    ck = json.dumps([s[k] for k in ("consumer", "cversion", "device", "model", "fi", "tp", "ep",
                                    "words", "extra", "backend", "quant")])
    if ck in _other:
        return _other[ck]
    out = os.path.join(WORK, "other-%d" % len(_other))
    config = os.path.join(snapshot(s["model"]), "config.json")
    rc, _, err = run([OT, "generate", "-q", "--for", s["consumer"], "--device", s["device"],
                      "--consumer-version", s["cversion"], "--flashinfer", s["fi"],
                      "--model-config", config, "-o", out, "--"] + launch(s),
                     env={"HF_HUB_CACHE": HUB})
    if rc:
        raise SystemExit("plan_cases: the oracle's generate --for failed: " + err)
    c = json.load(open(config))
    c = c.get("text_config", c)
    mtp = s["tp"] // s["ep"]
    site = os.path.join(ROOT, ".venv-consumers", "%s-%s" % (s["consumer"], s["cversion"]))
    rc, o, err = run([os.path.join(ROOT, ".venv-flashinfer", s["fi"], "bin", "python"),
                      os.path.join(ROOT, "tests/consumers/nvfp4_moe_sizes.py"), s["consumer"], site,
                      json.dumps({"intermediate": c["moe_intermediate_size"] // mtp,
                                  "hidden": c["hidden_size"], "gated": True})])
    if rc:
        raise SystemExit("plan_cases: the consumer's padding (nvfp4_moe_sizes.py) failed: " + err)
    own = json.loads(o)
    prov = glob.glob(os.path.join(out, "tunetab_provenance_*.json"))[0]
    rc, o, err = run([os.path.join(ROOT, ".venv-flashinfer", s["fi"], "bin", "python"),
                      os.path.join(ROOT, "tests/flashinfer/ops_keys.py"), "--emit", "--provenance",
                      prov, "--set", "inter=%d" % own["intermediate"], "--set",
                      "hidden=%d" % own["hidden"], "--set", "hidden_output=%d" % own["hidden"]])
    if rc:
        raise SystemExit("plan_cases: FlashInfer's keys (ops_keys.py --emit) failed: " + err)
    ops = {}
    for e in json.loads(o)["ops"]:
        keys, _ = ops.setdefault(e["op"], (set(), e["config"]))
        keys.update(e["keys"])
    _other[ck] = {op: (sorted(k), cfg) for op, (k, cfg) in ops.items()}
    return _other[ck]


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
    unknown: tunetab cannot see the truth (doctor must exit 6); or_cannot_tell: doctor gives the
    oracle's answer or says it cannot tell (exit 6), as for a published recipe whose options
    tunetab need not model; says (and says_also): words doctor's output must hold (the cause
    it names). An install step may fail only where the server reads no cache (it refuses the
    command or does not tune); a step may be a callable (run in the cases' folder). blind: why the oracle cannot say what the server does either (an input neither it
    nor tunetab models decides it): doctor must say it cannot tell."""
    def __init__(self, name, server, install, doctor=(), mutate=None, unknown=False, says=None,
                 oracle_fi=None, env=None, or_cannot_tell=False, blind=None, says_also=None):
        self.name, self.server, self.install, self.doctor = name, server, install, list(doctor)
        self.mutate, self.unknown, self.says, self.oracle_fi = mutate, unknown, says, oracle_fi
        self.env = env or {}
        self.or_cannot_tell = or_cannot_tell
        self.blind = blind
        self.says_also = says_also


def S(**kw):
    s = dict(SERVER)
    s.update(kw)
    if "model_id" not in kw and s["model"] != SERVER["model"] and s["model"] in MODELS:
        s["model_id"] = MODELS[s["model"]][0]
    if "hf" not in kw and s["model"] in MODELS:
        s["hf"] = MODELS[s["model"]][1]
    return s


def common(s, py=True):
    """install/doctor options for server s: its GPU, FlashInfer, consumer version, cache root."""
    o = ["--device", s["device"], "--consumer-version", s["cversion"]]
    if py:
        o += ["--python", fake_python(s["fi"], GPUS[s["device"]][0])]
    else:
        o += ["--flashinfer", s["fi"]]
    return o + ([] if s["root_env"] else ["--cache-dir", "root"])


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


def gen_for(s, out):
    """tunetab generate for server s's launch command (every op it tunes at start)."""
    return ["generate", "--for", s["consumer"], "--device", s["device"], "--consumer-version",
            s["cversion"], "--flashinfer", s["fi"], "-o", out, "-q", "--"] + launch(s)


def measured_elsewhere(out):
    """A step: the table generate wrote to out as one measured on another machine (FlashInfer's
    own autotuner, say) would come: tactic 0 at every key, no provenance beside it."""
    def step():
        for f in glob.glob(os.path.join(WORK, out, "tunetab_provenance_*.json")):
            os.unlink(f)
        f = table(out)
        d = json.load(open(f))
        for k, v in d.items():
            if not k.startswith("_"):
                v[1] = 0
        json.dump(d, open(f, "w"), indent=2)
    return step


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


def op_policy(op, pol):
    """The profiling policy of every entry of op set to pol."""
    def fn(d):
        for k, v in d.items():
            if k.startswith("('%s'" % op):
                d[k] = v[:2] + [pol]
    return fn


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
    add(Case("every _metadata field \"*\"", s, [inst(s, "--stamp", "wildcard")], doctor=["--no-python"]))
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
              inst(nv, "--from", "b200", "--force", "--stamp", "wildcard")], says="tactic"))
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

    # --- issue #47's "Why": the launch words and the environment. On f6ffc43 (before the closed
    # world) doctor gets 52-55, 57, 60 and 63-68 wrong (exit 0, or 6 where the files are missing)
    # SGLANG_CACHE_DIR as a VAR=VALUE word: SGLang's own path function reads it (the cache root
    # of the server's environment); install and doctor run with SGLANG_CACHE_DIR=root, as the
    # issue's user had it, and no --cache-dir
    envroot = {"SGLANG_CACHE_DIR": "root"}
    w_sg = S(root_env=True, env={"SGLANG_CACHE_DIR": "elsewhere"})
    word = "SGLANG_CACHE_DIR=elsewhere on the command line, "
    add(Case(word + "installed for the environment's root", w_sg, [inst(S(root_env=True))],
             env=envroot, says="nothing was installed"))
    add(Case(word + "install given the same command", w_sg, [inst(w_sg)], env=envroot))
    add(Case(word + "--cache-dir naming the other root", S(env={"SGLANG_CACHE_DIR": "elsewhere"}),
             [inst(s)], says="SGLANG_CACHE_DIR=elsewhere"))
    # vLLM's roots: VLLM_CACHE_ROOT (envs.py:757) under VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR
    # (envs.py:1904; flashinfer_autotune_cache.py:40-53); vLLM started once in each environment;
    # without --cache-file vLLM's config hash is out of sight: cannot tell where the files are
    # there (as case 49)
    vroot = dict(v, root_env=True)
    vcr = {"VLLM_CACHE_ROOT": "root"}
    w_vr = dict(vroot, env={"VLLM_CACHE_ROOT": "elsewhere"})
    word = "vLLM: VLLM_CACHE_ROOT=elsewhere on the command line, "
    add(Case(word + "installed for the environment's", w_vr, [inst(vroot)], env=vcr))
    add(Case(word + "install given the same command", w_vr, [inst(w_vr)], env=vcr, unknown=True))
    w_vd = dict(vroot, env={"VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR": "elsewhere"})
    vdenv = {"VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR": "root"}
    word = "vLLM: VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR=elsewhere on the command line, "
    add(Case(word + "installed for the environment's", w_vd, [inst(vroot)], env=vdenv))
    add(Case(word + "install given the same command", w_vd, [inst(w_vd)], env=vdenv, unknown=True))
    add(Case("vLLM: VLLM_CACHE_ROOT=elsewhere on the command line, VLLM_FLASHINFER_AUTOTUNE_"
             "CACHE_DIR in the environment (which vLLM takes)", w_vr, [inst(w_vr)], env=vdenv,
             unknown=True))
    # options tunetab does not model, or the server does not have (SGLang's own parser refuses
    # --cuda-graph-max-bs too, so exit 2 is right there; --disable-cuda-graph is taken)
    add(Case("--enable-ep-moe: SGLang 0.5.23's parser has no such option",
             S(extra=["--enable-ep-moe"]), [inst(s)]))
    add(Case("--cuda-graph-max-bs 8: an abbreviation SGLang's parser finds ambiguous",
             S(extra=["--cuda-graph-max-bs", "8"]), [inst(s)]))
    add(Case("--disable-cuda-graph (SGLang 0.5.23 tunes its prefill chunk: no effect on the keys)",
             S(extra=["--disable-cuda-graph"]), [inst(s)]))
    add(Case("--mem-fraction-static 0.85, an option tunetab does not model",
             S(extra=["--mem-fraction-static", "0.85"]), [inst(s)], unknown=True))
    add(Case("--mem-frac 0.85: argparse's abbreviation of it", S(extra=["--mem-frac", "0.85"]),
             [inst(s)], unknown=True))
    add(Case("CUDA_LAUNCH_BLOCKING=1 on the command line: a variable tunetab does not model",
             S(env={"CUDA_LAUNCH_BLOCKING": "1"}), [inst(s)], unknown=True))
    add(Case("SGLANG_ENABLE_JIT_DEEPGEMM=0 in doctor's environment: SGLang reads it", s, [inst(s)],
             env={"SGLANG_ENABLE_JIT_DEEPGEMM": "0"}, unknown=True))
    earlier = ["--cache-file", "root/%s/autotune_configs_dp0_rank0.json" % VHASH]
    add(Case("vLLM: --kv-cache-dtype fp8 (another config hash), --cache-file the earlier start's",
             v_kv, [inst(v)], doctor=earlier, unknown=True))
    add(Case("vLLM: --enforce-eager (another config hash), --cache-file the earlier start's",
             dict(v, extra=["--enforce-eager"], vfolder=VHASH2), [inst(v)], doctor=earlier,
             unknown=True))
    add(Case("--enable-deterministic-inference: SGLang does not tune",
             S(extra=["--enable-deterministic-inference"], deterministic=True), [inst(s)],
             says="does not tune"))
    add(Case("--disable-flashinfer-autotune: SGLang does not tune",
             S(extra=["--disable-flashinfer-autotune"], no_autotune=True), [inst(s)],
             says="does not tune"))

    # a rank file that does not parse (issue #47, "A corrupt rank file is a dead end"):
    # FlashInfer's own loader on it, and SGLang's digest of the group, judge; doctor must not
    # say hits
    def truncate():
        f = files("rank_tp1*")[0]
        text = open(f).read()
        open(f, "w").write(text[:len(text) // 2])
    add(Case("one rank file truncated: a verdict and a fix, not a dead end", s, [inst(s)],
             mutate=truncate, says="rank_tp1_pp0_dp0.json", says_also="verdict: no"))

    # --- launch commands copied from public SGLang/vLLM docs, recipes and model cards, each
    # installed with tunetab for that command and then checked (doctor may say it cannot tell
    # where a recipe's options are ones tunetab does not model). Only the model is adapted to
    # one whose config.json the tests have (said where); the server states its deployment as
    # the consumer resolves the command: SGLang's MoE runner backend stays 'auto' on SM90
    # without --quantization and becomes flashinfer_cutlass for modelopt_fp4 on SM120
    # (sglang 0.5.23 arg_groups/overrides.py:1449-1525; tests/data/launch/sglang-expected.json,
    # SGLang's own resolution); vLLM's first MoE layer's backend as vLLM 0.33.0's own selection
    # gives it for that model, dtype, GPU and parallelism (tests/data/launch/vllm-expected.json:
    # Qwen3 bf16 TRITON on SM90 and FLASHINFER_CUTLASS on SM120, block FP8 FLASHINFER_CUTLASS
    # with EP and TRITON without on SM90, gpt-oss MXFP4 TRITON on SM90)
    def sgl(command, **kw):
        kw.setdefault("backend", "auto")
        return S(words=shlex.split(command), **kw)

    def vl(base, command, **kw):
        return dict(base, words=shlex.split(command), **kw)

    def rec(name, server, **kw):
        add(Case("recipe: " + name, server, [inst(server)], or_cannot_tell=True, **kw))

    dsv3 = dict(model="deepseek-ai/DeepSeek-V3", tp=8)
    # https://github.com/sgl-project/sglang/blob/main/benchmark/deepseek_v3/README.md
    # "Using pip" (8 x H200), "Using Docker (Recommended)" (the command the container runs) and
    # "Serving with two H20*8 nodes" (node 1; "two H100 nodes, the usage is similar")
    rec("SGLang benchmark/deepseek_v3/README.md, pip (8 x H200)", sgl(
        "python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8"
        " --trust-remote-code", **dsv3))
    rec("SGLang benchmark/deepseek_v3/README.md, Docker", sgl(
        "python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code"
        " --port 30000", **dsv3))
    rec("SGLang benchmark/deepseek_v3/README.md, two nodes, node 1 (H100)", sgl(
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16"
        " --dist-init-addr 10.0.0.1:5000 --nnodes 2 --node-rank 0 --trust-remote-code",
        model="deepseek-ai/DeepSeek-V3", tp=16, device="h100-sxm"))
    # https://github.com/sgl-project/sglang/blob/main/docs/basic_usage/deepseek_v3.md
    # (docs.sglang.io basic_usage/deepseek_v3): "Multi-token Prediction" and "Function calling
    # for DeepSeek Models"; DeepSeek-V3-0324 -> DeepSeek-V3
    rec("SGLang docs deepseek_v3.md, MTP (DeepSeek-V3-0324 -> DeepSeek-V3)", sgl(
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3"
        " --speculative-algorithm EAGLE --trust-remote-code --tp 8", spec=True, **dsv3))
    rec("SGLang docs deepseek_v3.md, function calling (DeepSeek-V3-0324 -> DeepSeek-V3)", sgl(
        "python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --port 30000"
        " --host 0.0.0.0 --mem-fraction-static 0.9 --tool-call-parser deepseekv3"
        " --chat-template ./examples/chat_template/tool_chat_template_deepseekv3.jinja", **dsv3))
    # https://huggingface.co/deepseek-ai/DeepSeek-V3.2-Exp/commit/
    # fd33dda13987c4ec2bd43d7d4318046a4f220ca9 (the model card's SGLang launch command);
    # DeepSeek-V3.2-Exp -> DeepSeek-V3
    rec("DeepSeek-V3.2-Exp model card, SGLang DP attention (-> DeepSeek-V3)", sgl(
        "python -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --dp 8"
        " --enable-dp-attention", attn_dp=8, **dsv3))
    # https://github.com/sgl-project/sglang/blob/main/docs/advanced_features/expert_parallelism.md
    # "Launch with DeepEP and DeepGEMM for DeepSeek-V3"
    rec("SGLang docs expert_parallelism.md, DeepEP and DeepGEMM", sgl(
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --moe-a2a-backend"
        " deepep --moe-runner-backend deep_gemm --tp 8 --ep 8", backend="deep_gemm", a2a="deepep",
        ep=8, **dsv3))
    # https://github.com/sgl-project/sgl-cookbook/blob/main/docs/Qwen/Qwen3.md (the SGLang
    # cookbook, docs.sglang.io cookbook Qwen3) 4.2.1, 4.2.3 and 5.1.1; Qwen3-235B-A22B ->
    # Qwen3-30B-A3B. SGLang 0.5.23 has no tool call parser 'qwen3': its parser refuses 4.2.3
    q = dict(model="Qwen/Qwen3-30B-A3B", tp=8)
    rec("SGLang cookbook Qwen3, reasoning parser (Qwen3-235B-A22B -> Qwen3-30B-A3B)", sgl(
        "python -m sglang.launch_server --model Qwen/Qwen3-30B-A3B --reasoning-parser qwen3 --tp 8"
        " --host 0.0.0.0 --port 8000", **q))
    rec("SGLang cookbook Qwen3, tool calling (-> Qwen3-30B-A3B)", sgl(
        "python -m sglang.launch_server --model Qwen/Qwen3-30B-A3B --reasoning-parser qwen3"
        " --tool-call-parser qwen3 --tp 8 --host 0.0.0.0 --port 8000", **q))
    rec("SGLang cookbook Qwen3, benchmark deployment (-> Qwen3-30B-A3B)", sgl(
        "python -m sglang.launch_server --model Qwen/Qwen3-30B-A3B --tp 8", **q))
    # https://github.com/sgl-project/sglang/blob/main/docs/basic_usage/qwen3.md, EAGLE (its
    # --speculative-algo is argparse's abbreviation of --speculative-algorithm);
    # Qwen3-Next-80B-A3B-Instruct -> Qwen3-30B-A3B
    rec("SGLang docs qwen3.md, Qwen3-Next EAGLE (-> Qwen3-30B-A3B)", sgl(
        "python3 -m sglang.launch_server --model Qwen/Qwen3-30B-A3B --tp 4 --speculative-num-steps"
        " 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --speculative-algo NEXTN",
        model="Qwen/Qwen3-30B-A3B", tp=4, spec=True))
    # https://qwen.readthedocs.io/zh-cn/stable/_sources/deployment/sglang.md.txt (Qwen's docs,
    # SGLang: tensor parallelism on 4 GPUs); Qwen3-8B -> Qwen3-30B-A3B
    rec("Qwen docs deployment/sglang, TP 4 (Qwen3-8B -> Qwen3-30B-A3B)", sgl(
        "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tensor-parallel-size 4",
        model="Qwen/Qwen3-30B-A3B", tp=4))
    # https://github.com/sgl-project/sglang/blob/main/docs/advanced_features/quantization.md
    # "Offline Quantization" (Meta-Llama-3.1-8B-Instruct-AWQ-INT4 -> Qwen3-30B-A3B)
    rec("SGLang docs quantization.md, offline quantized model (-> Qwen3-30B-A3B)", sgl(
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --port 30000"
        " --host 0.0.0.0", model="Qwen/Qwen3-30B-A3B", tp=1))
    # same page, ModelOpt "FP4 Models" (Llama-3.3-70B-Instruct-NVFP4 -> GLM-5-NVFP4), on an
    # RTX PRO 6000 (SM120): SGLang picks flashinfer_cutlass for modelopt_fp4 there and tunes;
    # GLM-5-NVFP4 keeps its shared expert in NVFP4 (its hf_quant_config excludes none, unlike
    # GLM-5.1-NVFP4's), so SGLang fuses it into the MoE: 257 experts, top-9
    rec("SGLang docs quantization.md, ModelOpt FP4 (-> GLM-5-NVFP4, RTX PRO 6000)", sgl(
        "python3 -m sglang.launch_server --model-path nvidia/GLM-5-NVFP4 --quantization"
        " modelopt_fp4 --port 30000", model="nvidia/GLM-5-NVFP4", tp=1, quant="modelopt_fp4",
        dtype="nvfp4", input_view="bf16", device="rtx-pro-6000-server",
        backend="flashinfer_cutlass", fused_shared=1,
        # and fp4_gemm with the CUTLASS runner for its NVFP4 linears (flashinfer_autotune.py)
        profiled_ops=["fp4_gemm"]))
    # https://github.com/sgl-project/sgl-cookbook/blob/main/docs/autoregressive/GLM/GLM-5.md
    # (docs.sglang.io cookbook GLM-5) section 4, "FP8 on H200, all features enabled"
    rec("SGLang cookbook GLM-5, FP8 on H200", sgl(
        "python -m sglang.launch_server --model zai-org/GLM-5-FP8 --tp 8 --tool-call-parser glm47"
        " --reasoning-parser glm45 --speculative-algorithm EAGLE --speculative-num-steps 3"
        " --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --mem-fraction-static 0.85"
        " --host 0.0.0.0 --port 30000", model="zai-org/GLM-5-FP8", tp=8, spec=True))
    # https://github.com/sgl-project/sglang/blob/main/docs/basic_usage/gpt_oss.md, the demo
    # tool server (H200)
    rec("SGLang docs gpt_oss.md, demo tool server", sgl(
        "python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --tool-server demo"
        " --tp 2", model="openai/gpt-oss-120b", tp=2))
    # https://github.com/voipmonitor/rtx6kpro/blob/master/models/glm5.md "Recommended: Docker
    # run with MTP + b12x" (8 x RTX PRO 6000): its -e variables as VAR=VALUE words and the
    # command the container runs; festr2/GLM-5-NVFP4-MTP -> nvidia/GLM-5-NVFP4. SGLang 0.5.23's
    # parser refuses it (--cuda-graph-max-bs is ambiguous there; b12x is no MoE runner backend)
    rec("rtx6kpro glm5.md, Docker run with MTP + b12x (-> GLM-5-NVFP4)", sgl(
        "python3 -m sglang.launch_server --model-path nvidia/GLM-5-NVFP4 --served-model-name"
        " glm-5 --reasoning-parser glm45 --tool-call-parser glm47 --tensor-parallel-size 8"
        " --quantization modelopt_fp4 --kv-cache-dtype bf16 --trust-remote-code"
        " --cuda-graph-max-bs 32 --max-running-requests 64 --mem-fraction-static 0.85"
        " --chunked-prefill-size 16384 --host 0.0.0.0 --port 5000 --disable-custom-all-reduce"
        " --enable-flashinfer-allreduce-fusion --enable-metrics --sleep-on-idle"
        " --attention-backend flashinfer --fp4-gemm-backend b12x --moe-runner-backend b12x"
        " --model-loader-extra-config '{\"enable_multithread_load\": true, \"num_threads\": 16}'"
        " --speculative-algorithm NEXTN --speculative-num-steps 4 --speculative-num-draft-tokens"
        " 6 --speculative-eagle-topk 1", model="nvidia/GLM-5-NVFP4", tp=8, quant="modelopt_fp4",
        dtype="nvfp4", input_view="bf16", device="rtx-pro-6000-server", env=dict(
            w.split("=", 1) for w in shlex.split(
                "SGLANG_ENABLE_SPEC_V2=True SGLANG_ENABLE_JIT_DEEPGEMM=0 SGLANG_ENABLE_DEEP_GEMM=0"
                " NCCL_GRAPH_FILE=/etc/nccl_graph_opt.xml NCCL_IB_DISABLE=1 NCCL_P2P_LEVEL=SYS"
                " NCCL_ALLOC_P2P_NET_LL_BUFFERS=1 NCCL_MIN_NCHANNELS=8 OMP_NUM_THREADS=8"
                " SAFETENSORS_FAST_GPU=1"))))

    # vLLM (0.34.0): where vLLM tunes, doctor is given the file its first start logged
    # (--cache-file), as docs/consumers.md tells the user
    logged = ["--cache-file", "root/%s/autotune_configs_dp0_rank0.json" % VHASH]
    # https://github.com/vllm-project/recipes/blob/main/DeepSeek/DeepSeek-V3.md "Running
    # DeepSeek-R1 with FP8 on 8xH200" (the recipe: the same applies to DeepSeek-V3);
    # DeepSeek-R1-0528 -> DeepSeek-V3
    rec("vLLM recipes DeepSeek-V3.md, FP8 on 8 x H200 (DeepSeek-R1-0528 -> DeepSeek-V3)", vl(
        v, "vllm serve deepseek-ai/DeepSeek-V3 --trust-remote-code --tensor-parallel-size 8"
        " --enable_expert_parallel"), doctor=logged)
    # https://github.com/vllm-project/recipes/blob/main/GLM/GLM5.md: the Docker command's vllm
    # serve, and "Serving FP8 Model on 8xH200" (MTP); block FP8 without EP: Triton's MoE
    glm = dict(v, model="zai-org/GLM-5-FP8", model_id="glm-5", hf="GlmMoeDsaConfig", ep=1,
               backend="triton")
    rec("vLLM recipes GLM5.md, Docker (8 x H200)", vl(
        glm, "vllm serve zai-org/GLM-5-FP8 --tensor-parallel-size 8 --tool-call-parser glm47"
        " --reasoning-parser glm45 --enable-auto-tool-choice --served-model-name glm-5-fp8"))
    rec("vLLM recipes GLM5.md, FP8 with MTP on 8 x H200", vl(
        glm, "vllm serve zai-org/GLM-5-FP8 --tensor-parallel-size 8 --speculative-config.method"
        " mtp --speculative-config.num_speculative_tokens 3 --tool-call-parser glm47"
        " --reasoning-parser glm45 --enable-auto-tool-choice --served-model-name glm-5-fp8"))
    # https://github.com/vllm-project/vllm/blob/main/docs/serving/expert_parallel_deployment.md
    # "Single Node Deployment" (comments dropped); DeepSeek-V3-0324 -> DeepSeek-V3. Its
    # VLLM_ALL2ALL_BACKEND=pplx and VLLM_USE_DEEP_GEMM=1 choose vLLM's MoE kernels, which
    # vllm-expected.json has no case of: the oracle cannot say what runs
    pplx = vl(v, "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 1"
              " --data-parallel-size 8 --enable-expert-parallel", tp=1, dp=8,
              env={"VLLM_ALL2ALL_BACKEND": "pplx", "VLLM_USE_DEEP_GEMM": "1"})
    add(Case("recipe: vLLM docs expert_parallel_deployment.md, single node pplx (-> DeepSeek-V3)",
             pplx, [inst(pplx)],
             blind="VLLM_ALL2ALL_BACKEND=pplx and VLLM_USE_DEEP_GEMM=1 pick vLLM's MoE kernels"))
    # same page, EPLB, as JSON and as dotted fields ("Prefer individual arguments instead of
    # JSON?"); Qwen3 bf16 on one H200: Triton's MoE
    qv = dict(v, model="Qwen/Qwen3-30B-A3B", model_id="qwen3-30b-a3b", hf="Qwen3MoeConfig",
              dtype="bf16", tp=1, ep=1, backend="triton")
    rec("vLLM docs expert_parallel_deployment.md, EPLB config as JSON", vl(
        qv, "vllm serve Qwen/Qwen3-30B-A3B --enable-eplb --eplb-config '{\"window_size\":1000,"
        "\"step_interval\":3000,\"num_redundant_experts\":2,\"log_balancedness\":true}'"))
    rec("vLLM docs expert_parallel_deployment.md, EPLB config as dotted arguments", vl(
        qv, "vllm serve Qwen/Qwen3-30B-A3B --enable-eplb --eplb-config.window_size 1000"
        " --eplb-config.step_interval 3000 --eplb-config.num_redundant_experts 2"
        " --eplb-config.log_balancedness true"))
    # https://github.com/vllm-project/recipes/blob/main/OpenAI/GPT-OSS.md: the quick start's
    # TP 2 command (on an H200), and the evaluation deployment on 8 x H100
    gv = dict(v, model="openai/gpt-oss-120b", model_id="gpt-oss-120b", hf="GptOssConfig",
              dtype="bf16", ep=1, backend="triton")
    rec("vLLM recipes GPT-OSS.md, TP 2", vl(
        gv, "vllm serve openai/gpt-oss-120b --tensor-parallel-size 2", tp=2))
    rec("vLLM recipes GPT-OSS.md, evaluation deployment on 8 x H100", vl(
        gv, "vllm serve openai/gpt-oss-120b --tensor_parallel_size 8 --max-model-len 131072"
        " --max-num-batched-tokens 10240 --max-num-seqs 128 --gpu-memory-utilization 0.85"
        " --no-enable-prefix-caching", tp=8, device="h100-sxm"))
    # https://github.com/vllm-project/vllm/blob/main/docs/serving/parallelism_scaling.md
    # (docs.vllm.ai serving/parallelism_scaling): TP 4, and TP 4 with PP 2; facebook/opt-13b
    # and gpt2 -> Qwen3-30B-A3B, on RTX PRO 6000s (SM120: FlashInfer's CUTLASS MoE)
    qb = dict(qv, device="rtx-pro-6000-server", backend="flashinfer_cutlass", tp=4)
    rec("vLLM docs parallelism_scaling.md, TP 4 (opt-13b -> Qwen3-30B-A3B, RTX PRO 6000)", vl(
        qb, "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 4"), doctor=logged)
    rec("vLLM docs parallelism_scaling.md, TP 4 PP 2 (gpt2 -> Qwen3-30B-A3B, RTX PRO 6000)", vl(
        qb, "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 4 --pipeline-parallel-size 2",
        pp=2), doctor=logged)

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

    # --- issue #47's "Why", the ops other than the CUTLASS MoE (each seen to fail on f6ffc43).
    # SGLang 0.5.23 with an NVFP4 checkpoint on a B200 tunes fp4_gemm (the CuTe-DSL runner) and
    # the TensorRT-LLM-gen MoE at start (flashinfer_autotune.py), in tune mode; their keys and
    # requested policies are FlashInfer's own (other_keys), the MoE's per-GPU intermediate size
    # SGLang's own padding of 768 / 8 = 96 (128)
    b2 = S(model="nvidia/Qwen3-30B-A3B-NVFP4", device="b200", tp=8, quant="modelopt_fp4",
           dtype="nvfp4", backend="flashinfer_trtllm", other_ops=True, moe_keys=False)
    add(Case("B200 NVFP4, install's defaults: no untuned fallback written, the server tunes "
             "fp4_gemm and the TensorRT-LLM-gen MoE at start as without tunetab", b2, [inst(b2)],
             says="nothing was installed"))
    add(Case("B200 NVFP4, install --write-fallbacks: FlashInfer's fallback at every key (the user's "
             "choice; doctor counts them)", b2, [inst(b2, "--write-fallbacks")], says="fallback"))
    elsewhere = [gen_for(b2, "b2-elsewhere"), measured_elsewhere("b2-elsewhere"),
                 inst(b2, "--from", "b2-elsewhere")]
    add(Case("B200 NVFP4, a table measured elsewhere given with --from: the MoE's keys at the "
             "intermediate size SGLang pads 768 / 8 = 96 to", b2, elsewhere))
    add(Case("B200 NVFP4, fp4_gemm's entries measured under a hot-L2 CUDA graph (it requests "
             "cold): SGLang profiles them again", b2, elsewhere,
             mutate=edit(op_policy("fp4_gemm", HOT_GRAPH)), says="profiles them again"))
    # a layout tunetab does not know: NVFP4 Llama 4 Scout on an RTX 5090 at TP 2, whose linears
    # SGLang tunes as fp4_gemm (the CUTLASS runner on SM120); tunetab writes none of their keys,
    # so every one is profiled at start (the oracle's profiled_ops rule)
    l4 = S(model="nvidia/Llama-4-Scout-17B-16E-Instruct-FP4", device="rtx-5090", tp=2,
           quant="modelopt_fp4", dtype="nvfp4", input_view="bf16", backend="flashinfer_cutlass",
           moe_keys=False, profiled_ops=["fp4_gemm"])
    add(Case("NVFP4 Llama 4 Scout on an RTX 5090: its linears (fp4_gemm) laid out as tunetab does "
             "not know", l4, [inst(l4)], or_cannot_tell=True))
    # SGLang 0.5.22 takes --disable-cuda-graph and tunes at its eager runner's batch size, which
    # neither tunetab nor this oracle models: cannot tell, never a usage error
    add(Case("SGLang 0.5.22 --disable-cuda-graph: tuned at its eager runner's batch size",
             S(cversion="0.5.22", max_tokens=512, extra=["--disable-cuda-graph"]), [inst(old)],
             blind="SGLang 0.5.22 tunes at its eager runner's batch size"))
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


def refusals(L):
    """Per case, None where the server's parser takes its launch command, else argparse's message
    (SGLang: tests/consumers/launch_parse.py; vLLM's FlexibleArgumentParser is not rebuilt here:
    its commands are taken as accepted, and doctor refusing one disagrees)."""
    idx = [i for i, c in enumerate(L) if c.server["consumer"] == "sglang" and not
           (c.install and c.install[-1][:2] == ["install", "--for"] and "--" not in c.install[-1])]
    bf = os.path.join(WORK, "launch-jobs.jsonl")
    with open(bf, "w") as f:
        for i in idx:
            s = L[i].server
            words = env_words(s) + launch(s)
            f.write(json.dumps({"version": s["cversion"], "words": words}) + "\n")
    rc, out, err = run([sys.executable, os.path.join(ROOT, "tests/consumers/launch_parse.py"), bf])
    lines = out.splitlines()
    if rc or len(lines) != len(idx):
        raise SystemExit("plan_cases: SGLang's parser (launch_parse.py) failed: " + err)
    res = [None] * len(L)
    for i, line in zip(idx, lines):
        res[i] = json.loads(line)["refused"]
    return res


def tunes(s):
    """(whether the server tunes FlashInfer at start, and so reads the cache; why not), by its
    own rule: SGLang's should_run_flashinfer_autotune for the resolved deployment s states;
    vLLM: its first MoE layer's backend, as s states it from vLLM's own selection."""
    if s["consumer"] == "vllm":
        if s["backend"] != "flashinfer_cutlass":
            return False, ("vLLM runs %s's MoE, not FlashInfer's CUTLASS MoE: it tunes nothing"
                           % s["backend"])
        return True, ""
    q = s["mquant"] or s["quant"] or MODELS.get(s["model"], (None, None, None))[2]
    case = {"moe_runner_backend": s["backend"], "moe_a2a_backend": s["a2a"], "quantization": q,
            "fp4_gemm_backend": s["fp4_backend"], "disable_flashinfer_autotune": s["no_autotune"],
            "deterministic": s["deterministic"], "speculative": s["spec"],
            "sm": GPUS[s["device"]][1]}
    site = os.path.join(ROOT, ".venv-consumers", "sglang-" + s["cversion"])
    rc, out, err = run([sys.executable, os.path.join(ROOT, "tests/consumers/sglang_tunes.py"), site,
                        json.dumps(case)])
    if rc or out.strip() not in ("True", "False"):
        raise SystemExit("plan_cases: SGLang's should_run_flashinfer_autotune failed: " + err)
    if out.strip() == "False":
        return False, ("SGLang %s's should_run_flashinfer_autotune is False (MoE runner backend "
                       "%s): it reads no cache" % (s["cversion"], s["backend"]))
    if s["backend"] not in ("flashinfer_cutlass", "flashinfer_trtllm"):
        raise SystemExit("plan_cases: no oracle for the keys of MoE runner backend %s"
                         % s["backend"])
    return True, ""


def main():
    plant_hub()
    base_env = {"HF_HUB_CACHE": HUB, "TUNETAB_TEST_IGNORE_INSTALLED": "1"}
    for k in ("SGLANG_CACHE_DIR", "SGLANG_FLASHINFER_MOE_FUSED_FINALIZE") + PATH_VARS:
        os.environ.pop(k, None)
    L = cases()
    top = WORK
    refused = refusals(L)
    jobs, per_case = [], []
    setup_failed = {}
    for i, c in enumerate(L):
        d = os.path.join(WORK, "c%02d" % i)
        os.makedirs(d)
        s = c.server
        senv = server_env(c, d)
        tuned, why_not = (False, "") if refused[i] or c.blind else tunes(s)
        if s["consumer"] == "vllm":
            # vLLM's first start made its config-hash folder (cases use it or not), in the root of
            # the environment it started in: the launch command's, and without its words
            oracle_paths(s, d, senv, VHASH)
            oracle_paths(s, d, server_env(Case("", dict(s, env={}), [], env=c.env), d), VHASH)
        for step in c.install:
            if callable(step):
                step()
                continue
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
            if rc and step[0] == "install" and (refused[i] or not tuned):
                continue  # install refuses where the server reads no cache: not a failure
            if rc:  # counted as a disagreement below (an older tunetab may refuse a step)
                first_line = (e.strip().splitlines() or [""])[0][:200]
                setup_failed[i] = "setup failed: %s: %s" % (" ".join(step[:3]), first_line)
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
        first = len(jobs)
        if tuned and not c.blind:
            paths = oracle_paths(s, d, senv)
            gpu = GPUS[s["device"]][0]
            if s["other_ops"]:  # the other ops' lookups, by stand-in runners of their names
                other = other_keys(s)
                okeys = [k for op in sorted(other) for k in other[op][0]]
                for path in paths:
                    jobs.append({"table": path, "device": gpu, "keys": okeys,
                                 "metadata": env_meta(s["fi"], gpu), "fi": fi, "case": i,
                                 "tune_mode": s["consumer"] == "sglang", "other": True,
                                 "tuning_configs": {op: cfg for op, (_, cfg) in other.items()}})
            keys = server_keys(s) if s["moe_keys"] and s["backend"] == "flashinfer_cutlass" else None
            if not keys and not s["other_ops"]:  # the files alone (loaded, no lookup)
                for path in paths:
                    jobs.append({"table": path, "device": gpu, "keys": [], "fi": fi, "case": i,
                                 "metadata": env_meta(s["fi"], gpu)})
            for (t, p, dd, w, mtp, mtr, mep, mer), path in zip(moe_ranks(s), paths if keys else []):
                jobs.append({"table": path, "device": gpu, "keys": keys,
                             "deployment": deployment(s, mtp, mtr, mep, mer),
                             "metadata": env_meta(s["fi"], gpu), "fi": fi, "case": i,
                             # SGLang looks its entries up inside autotune(True) (0.5.23
                             # flashinfer_autotune.py:330-362): tune mode, where FlashInfer
                             # compares each entry's profiling policy; vLLM, when every rank's
                             # file loads, runs no tuning pass (kernel_warmup.py:514-532,
                             # 623-624 in 0.34.0) and serves them as they are
                             "tune_mode": s["consumer"] == "sglang"})
        per_case.append((c, rc, out.replace(d + "/", ""), err.replace(d + "/", ""), first,
                         len(jobs), why_not))
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
    agree = truth_hits = told = 0
    for i, (c, rc, out, err, a, b, why_not) in enumerate(per_case):
        s = c.server
        why = why_not
        if refused[i]:
            why = "the server refuses the command: SGLang %s's parser: %s" % (
                s["cversion"], refused[i][:110])
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
                bad = [(x["key"], x["value"][1]) for x in r["results"]
                       if not jobs[k].get("other") and not valid_tactic(s, x["key"], x["value"][1])]
                if bad:
                    why = "%s: tactic %s is not among FlashInfer's ids for SM%s %s" % (
                        name, bad[0][1], GPUS[s["device"]][1], s["dtype"])
        # the other ops the server tunes at start (profiled_ops, a fact of the case): the
        # oracle knows no keys of them, but a file without a single entry of the op leaves every
        # one of its shapes to be profiled at start (tunetab writes them only measured: #47 item 4)
        for op in s["profiled_ops"]:
            for k in range(a, b):
                t = jobs[k]["table"]
                try:
                    held = any(key.startswith("('%s'" % op) for key in json.load(open(t)))
                except (OSError, ValueError):
                    held = True  # judged above (missing, or FlashInfer raised)
                if not why and not held:
                    why = "%s holds no %s entry: the server profiles it at start" % (
                        os.path.basename(t), op)
        if not why and s["consumer"] == "sglang" and s["tp"] > 1:
            why = sglang_diverged(s, list(dict.fromkeys(jobs[k]["table"] for k in range(a, b))))
        # never a table that makes the server slower than without tunetab (#47 item 4): an
        # entry of an op it tunes at start holding FlashInfer's fallback tactic (-1), which the
        # server then runs unprofiled, only where the user asked (install --write-fallbacks)
        harm = ""
        asked = any(not callable(st) and "--write-fallbacks" in st for st in c.install)
        for k in range(a, b):
            if jobs[k].get("other") and not asked:
                fb = [x["key"] for x in results[k]["results"] if x.get("hit") and x["value"][1] == -1]
                if fb:
                    harm = ("install wrote FlashInfer's fallback tactic (-1) for %d lookups (the "
                            "first: %s) unasked: the server runs it there unprofiled, no longer "
                            "tuning them" % (len(fb), fb[0][:90]))
                    break
        truth = "hits" if not why else "no (%s)" % why
        want = 6 if c.unknown or c.blind else 2 if refused[i] else 0 if not why else 1
        lines = [l for l in out.splitlines() if l.startswith(("  no ", "  cannot tell "))]
        said = lines[0].split(None, 1)[1].strip() if lines else ""
        said = said[len("tell"):].strip() if said.startswith("tell") else said
        if not said:  # an error instead of a verdict: its message
            errs = [l for l in err.splitlines() if l.startswith("tunetab: error: ")]
            said = errs[-1][len("tunetab: error: "):] if errs else ""
        tell = c.or_cannot_tell and rc == 6 and not refused[i]
        ok = (tell or rc == want and all(w in out + err for w in (c.says, c.says_also) if w)) and \
            i not in setup_failed and not harm
        if c.blind:
            truth = "cannot tell either: %s" % c.blind
        elif c.unknown and not why:
            truth = "hits, which tunetab cannot see"
        elif c.unknown:
            truth = "no (%s), which tunetab cannot see" % why
        agree += ok
        told += tell and ok
        truth_hits += not why and not c.blind
        print("%02d %s\n   oracle: %s\n   doctor: exit %d%s%s" % (
            i, c.name, truth, rc, ": " if said else "", said[:150]))
        if i in setup_failed:
            print("   " + setup_failed[i])
        if harm:
            print("   " + harm)
        if not ok:
            print("   DISAGREE: doctor should exit %d%s%s" % (
                want, " naming '%s'" % "', '".join(w for w in (c.says, c.says_also) if w)
                if c.says else "",
                " or 6" if c.or_cannot_tell else ""))
            print("   " + "\n   ".join((out + err).splitlines()[:40]))
    blind = sum(1 for c in L if c.blind)
    print("%d cases (the oracle: %d hit, %d do not, %d it cannot tell either; %d refused by the "
          "server): doctor agrees with the oracle on %d (%d of them by saying it cannot tell, "
          "where a case allows it)" % (len(L), truth_hits, len(L) - truth_hits - blind, blind,
                                       sum(1 for r in refused if r), agree, told))
    return 0 if agree == len(L) else 1


if __name__ == "__main__":
    sys.exit(main())
