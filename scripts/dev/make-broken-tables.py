#!/usr/bin/env python3
"""Writes tests/data/tables/<case>/: one table each (written here from scratch, never copied
from upstream) and an `args` file with the validate options. The expected diagnostics
(`expected`) are golden files reviewed by hand; `UPDATE=1 make test` rewrites them."""
import hashlib, json, os, shutil, sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "tables")
B200 = "v0_1_trtllm_fused_moe_NVIDIA_B200.py"
H200 = "v0_1_trtllm_fused_moe_NVIDIA_H200.py"
RTX = "v0_1_trtllm_fused_moe_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.py"

def k3(stage, t, e=32, i=2048, hidden=7168, pack=16, in_k=None):
    in_k = hidden // 2 if in_k is None else in_k
    return str((f"trtllm::fused_moe::gemm{stage}", "MoERunner",
                ((t, in_k), (e, 2 * i, hidden // pack), (0,), (e, hidden, i // pack), (0,))))

class Dt(str):
    def __repr__(self): return str(self)

EXTRAS_BF16 = (Dt("torch.bfloat16"), Dt("torch.bfloat16"), Dt("torch.bfloat16"), 8, 1, 0, 1, 0, 1, 0,
               False, False, False, False, False, False, True, 3, False, True)

def k4(stage, t, extras=EXTRAS_BF16, e=128, i=768, hidden=2048):
    return str((f"trtllm::fused_moe::gemm{stage}", "MoERunner",
                ((t, hidden), (e, 2 * i, hidden), (0,), (e, hidden, i), (0,)), extras))

def module(entries):
    lines = ["best_configs = {"]
    for k, v in entries:
        lines.append(f"    {json.dumps(k)}: {v},")
    lines.append("}")
    return "\n".join(lines) + "\n"

POW2 = [1, 2, 4, 8]
HYB = [1, 2, 4, 8]

def full(stage_tactics, keyf, buckets):
    return [(keyf(s, t), f"(0, {tac})") for s, tac in stage_tactics for t in buckets]

GOOD_B200 = full([(1, 5), (2, 5)], k3, POW2)              # 0.4.0, tactics 5 valid
GOOD_H200 = full([(1, 18), (2, 45 + 36)], k4, [1, 2, 4, 8])  # 0.6.18 bf16 SM90, max 8 tokens

cases = {}
def case(name, fname, text, args):
    cases[name] = (fname, text, args)

case("py-syntax-unclosed", B200, module(GOOD_B200)[:-3], "--flashinfer 0.4.0")
case("py-syntax-float", B200, module(GOOD_B200[:1]).replace("(0, 5)", "(0, 5.5)"), "--flashinfer 0.4.0")
case("py-syntax-call", B200, "import os\nbest_configs = dict()\n", "--flashinfer 0.4.0")
case("py-no-best-configs", B200, module(GOOD_B200).replace("best_configs", "configs"), "--flashinfer 0.4.0")
case("py-best-configs-list", B200, "best_configs = [1, 2]\n", "--flashinfer 0.4.0")
case("py-key-int", B200, "best_configs = {\n    7: (0, 5),\n" + module(GOOD_B200)[16:], "--flashinfer 0.4.0")
case("py-duplicate-key", B200, module(GOOD_B200 + [(GOOD_B200[0][0], "(0, 1)")]), "--flashinfer 0.4.0")
case("py-key-syntax", B200, module(GOOD_B200 + [("('trtllm::fused_moe::gemm1', 'MoERunner'", "(0, 5)")]), "--flashinfer 0.4.0")
case("py-key-canonical", B200, module([(GOOD_B200[0][0].replace(", 3584)", ",3584)"), "(0, 5)")] + GOOD_B200[1:]), "--flashinfer 0.4.0")
case("py-key-form-mixed", H200, module(GOOD_H200 + [(k3(1, 16, e=128, i=768, hidden=2048, pack=1, in_k=2048), "(0, 18)")]), "--flashinfer 0.6.18")
case("py-never-loaded-3tuple", B200, module(GOOD_B200), "--flashinfer 0.6.18")
case("py-extras-arity", H200, module(GOOD_H200 + [(k4(1, 16, EXTRAS_BF16[:19]), "(0, 18)")]), "--flashinfer 0.6.18")
case("py-extras-type", H200, module(GOOD_H200 + [(k4(1, 16, EXTRAS_BF16[:3] + ("8",) + EXTRAS_BF16[4:]), "(0, 18)")]), "--flashinfer 0.6.18")
case("py-extras-nonempty", H200, module(full([(1, 18), (2, 45 + 36)], lambda s, t: k4(s, t), [1, 2])), "--flashinfer 0.6.13")
case("py-unknown-op", B200, module(GOOD_B200 + [(k3(1, 16).replace("gemm1", "gemm3"), "(0, 5)")]), "--flashinfer 0.4.0")
case("py-unknown-runner", B200, module(GOOD_B200 + [(k3(1, 16).replace("MoERunner", "MoeRunner"), "(0, 5)")]), "--flashinfer 0.4.0")
case("py-profile-arity", B200, module(GOOD_B200 + [("('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 3584), (32, 4096, 448), (32, 7168, 128), (0,)))", "(0, 5)")]), "--flashinfer 0.4.0")
case("py-shape-experts", B200, module(GOOD_B200 + [(k3(1, 16).replace("(32, 7168, 128)", "(256, 7168, 128)"), "(0, 5)")]), "--flashinfer 0.4.0")
case("py-shape-packing", B200, module(GOOD_B200 + [(k3(1, 16).replace("(32, 7168, 128)", "(32, 7168, 100)"), "(0, 5)")]), "--flashinfer 0.4.0")
case("py-token-bucket", B200, module(GOOD_B200 + [(k3(1, 3), "(0, 5)"), (k3(2, 3), "(0, 5)")]), "--flashinfer 0.4.0")
case("py-token-bucket-hybrid", H200, module(GOOD_H200 + [(k4(1, 300), "(0, 18)"), (k4(1, 512), "(0, 18)")]), "--flashinfer 0.6.18")
case("py-value-shape", B200, module([(GOOD_B200[0][0], "5"), (GOOD_B200[1][0], "(0,)")] + GOOD_B200[2:]), "--flashinfer 0.4.0")
case("py-runner-id", B200, module([(GOOD_B200[0][0], "(1, 5)")] + GOOD_B200[1:]), "--flashinfer 0.4.0")
case("py-runner-id-ignored", H200, module([(GOOD_H200[0][0], "(2, 18)")] + GOOD_H200[1:]), "--flashinfer 0.6.18")
case("py-tactic-range", H200, module([(GOOD_H200[0][0], "(0, 99)")] + GOOD_H200[1:]), "--flashinfer 0.6.18")
case("py-tactic-gemm2-local", H200, module(GOOD_H200[:4] + [(GOOD_H200[4][0], "(0, 36)")] + GOOD_H200[5:]), "--flashinfer 0.6.18")
case("py-tactic-relative", H200, module(full([(1, 18), (2, 36)], lambda s, t: k4(s, t, ()), [1, 2])), "--flashinfer 0.6.13 --dtype bf16 --strict")
case("py-tactic-not-dispatchable", RTX, module(full([(1, 4), (2, 20 + 34)], lambda s, t: k3(s, t), [1, 2]).copy()), "--flashinfer 0.6.11 --dtype nvfp4")
case("py-tactic-minus-one", B200, module([(GOOD_B200[0][0], "(0, -1)")] + GOOD_B200[1:]), "--flashinfer 0.4.0")
case("py-file-name-prefix", "v0_2_8_trtllm_fused_moe_NVIDIA_B200.py", module(GOOD_B200), "--flashinfer 0.4.0")
case("py-file-name-version-prefix", B200, module(GOOD_B200), "--flashinfer 0.2.10")
case("py-file-name-dot", "v0_1_trtllm_fused_moe_NVIDIA_H200_1.5.py", module(GOOD_H200), "--flashinfer 0.6.18 --device h200")
case("py-file-name-space", "v0_1_trtllm_fused_moe_NVIDIA H200.py", module(GOOD_H200), "--flashinfer 0.6.18")
case("py-file-name-not-bundled", "tuning.py", module(GOOD_H200), "--flashinfer 0.6.18 --device h200")
case("py-unknown-device", "v0_1_trtllm_fused_moe_NVIDIA_H300.py", module(GOOD_H200), "--flashinfer 0.6.18")
case("py-device-mismatch", H200, module(GOOD_H200), "--flashinfer 0.6.18 --device b200")
case("py-coverage-gap", B200, module([x for x in GOOD_B200 if "((4, 3584)" not in x[0]] + [(k3(1, 16, e=256, i=256), "(0, 5)")]), "--flashinfer 0.4.0")
case("py-no-catalog", H200, module(GOOD_B200), "--flashinfer 0.4.0")

def meta(**kw):
    m = {"flashinfer_version": "*", "cuda_version": "*", "cublas_version": "*", "cudnn_version": "*",
         "cudnn_frontend_version": "*", "gpu": "*"}
    m.update(kw)
    return {k: v for k, v in m.items() if v is not None}

def cache(entries, md, gen=False, extra=None):
    doc = {"_metadata": md}
    if extra:
        doc.update(extra)
    for k, v in sorted(entries.items()):
        doc[k] = v
    if gen:
        compact = json.dumps(doc, sort_keys=True, separators=(",", ":"))
        doc["_generation"] = hashlib.sha256(compact.encode()).hexdigest()
    return json.dumps(doc, indent=2)

JGOOD = {k: ["MoERunner", int(v[4:-1])] for k, v in GOOD_H200}
J = "autotune_cache.json"
case("json-syntax", J, cache(JGOOD, meta())[:-40], "--flashinfer 0.6.18 --device h200")
case("json-top-level-list", J, "[1, 2, 3]", "--flashinfer 0.6.18 --device h200")
case("json-value-int", J, cache({**JGOOD, k4(1, 16): 5}, meta()), "--flashinfer 0.6.18 --device h200")
case("json-value-runner-int", J, cache({**JGOOD, k4(1, 16): [0, 18]}, meta()), "--flashinfer 0.6.18 --device h200")
case("json-records-list", J, cache(JGOOD, meta(), extra={"_records": [1]}), "--flashinfer 0.6.18 --device h200")
case("json-records-old-version", J, cache(JGOOD, meta(), extra={"_records": {}}), "--flashinfer 0.6.16 --device h200")
case("json-underscore-key", J, cache({**JGOOD, "_comment": ["MoERunner", 1]}, meta()), "--flashinfer 0.6.18 --device h200")
case("json-metadata-number", J, cache(JGOOD, meta(cudnn_version=91900)), "--flashinfer 0.6.18 --device h200")
case("json-metadata-missing", J, cache(JGOOD, meta(cudnn_frontend_version=None)), "--flashinfer 0.6.18 --device h200")
case("json-metadata-not-object", J, cache(JGOOD, "env"), "--flashinfer 0.6.18 --device h200")
case("json-version-mismatch", J, cache(JGOOD, meta(flashinfer_version="0.6.17")), "--flashinfer 0.6.18 --device h200")
case("json-generation-wrong", J, cache(JGOOD, meta(), gen=True).replace('"_generation": "', '"_generation": "00'), "--flashinfer 0.6.18 --device h200")
case("json-gpu-mismatch", J, cache(JGOOD, meta(gpu="NVIDIA B200")), "--flashinfer 0.6.18 --device h200")
case("json-unsupported-version", J, cache(JGOOD, meta()), "--flashinfer 0.6.6 --device h200")
case("json-duplicate-key", J, cache(JGOOD, meta()).replace('{\n  "_metadata"', '{\n  "' + k4(1, 1).replace("'", "'") + '": ["MoERunner", 1],\n  "_metadata"', 1), "--flashinfer 0.6.18 --device h200")
case("json-runner-mismatch", J, cache({**JGOOD, k4(1, 16): ["CutlassRunner", 18]}, meta()), "--flashinfer 0.6.18 --device h200")
case("json-version-from-metadata", J, cache(JGOOD, meta(flashinfer_version="0.6.13", gpu="NVIDIA H200")), "")
POLICY = ["cuda_graph_profile_replays", None, "l2_cache_policy", "hot"]
J7 = {k: ["MoERunner", int(v[4:-1])] for k, v in
      full([(1, 18), (2, 45 + 36)], lambda s, t: k4(s, t, EXTRAS_BF16[:5] + EXTRAS_BF16[6:7] + EXTRAS_BF16[8:9] + EXTRAS_BF16[10:]), [1, 2, 4, 8])}
def meta7(**kw):
    m = meta(**kw)
    m["cutlass_dsl_version"] = "*"
    return m
case("json-policy-not-list", J, cache({k: v + [None] for k, v in J7.items()}, meta7()), "--flashinfer 0.7.4 --device h200")
case("ok-json-0.7.4-policy-selection", J, cache({k: v + [POLICY, {"time_ms": 0.01, "runner_up_ms": None, "margin": None, "candidates": 5}] for k, v in J7.items()}, meta7()), "--flashinfer 0.7.4 --device h200")
case("json-0.7-six-fields", J, cache(J7, meta()), "--flashinfer 0.7.4 --device h200")
case("ok-json-generation", J, cache(JGOOD, meta(), gen=True), "--flashinfer 0.6.18 --device h200")
case("ok-py-h200-bf16", H200, module(GOOD_H200), "--flashinfer 0.6.18")
case("ok-py-b200-0.4.0", B200, module(GOOD_B200), "--flashinfer 0.4.0")

if os.path.isdir(ROOT):
    for d in os.listdir(ROOT):
        if d not in cases:
            shutil.rmtree(os.path.join(ROOT, d))
for name, (fname, text, args) in cases.items():
    d = os.path.join(ROOT, name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f not in ("expected",):
            os.remove(os.path.join(d, f))
    with open(os.path.join(d, fname), "w") as f:
        f.write(text)
    with open(os.path.join(d, "args"), "w") as f:
        f.write(args + "\n")
print(len(cases), "cases")
