# 075-merge-flashinfer-tables: FlashInfer's own shipped tables, which have no provenance: the
# v0_1 and the older v0_2_8 B200 modules hold the same 58 keys and 8 different tactics, so
# merging them settles 8 conflicts by rule 3 (the lower tactic). The same tables as JSON
# autotune caches (what FlashInfer's save_configs writes, _metadata for 0.6.12) merge the
# same way; their device comes from the file names and _metadata.gpu.
# requires: fixtures
. "$ROOT/tests/lib.sh"
FX=$ROOT/../shared/fixtures/flashinfer
cp "$FX/v0_1_trtllm_fused_moe_NVIDIA_B200.py" "$FX/v0_2_8_trtllm_fused_moe_NVIDIA_B200.py" .
run tunetab merge merged.py v0_2_8_trtllm_fused_moe_NVIDIA_B200.py v0_1_trtllm_fused_moe_NVIDIA_B200.py --flashinfer 0.4.0
python3 - <<'PY'
import ast
load = lambda p: ast.literal_eval(open(p).read().split("=", 1)[1])
a, b, m = load("v0_1_trtllm_fused_moe_NVIDIA_B200.py"), load("v0_2_8_trtllm_fused_moe_NVIDIA_B200.py"), load("merged.py")
print("keys: union", sorted(m) == sorted(set(a) | set(b)), len(m))
print("each key keeps the lower tactic:", all(m[k][1] == min(a[k][1], b[k][1]) for k in m))
print("differing keys:", sum(a[k] != b[k] for k in a))
PY
cmp merged.py v0_1_trtllm_fused_moe_NVIDIA_B200.py >/dev/null 2>&1 || echo "merged.py differs from v0_1 (8 tactics lowered)"
mkdir check && cp merged.py check/v0_1_trtllm_fused_moe_NVIDIA_B200.py
run tunetab validate check/v0_1_trtllm_fused_moe_NVIDIA_B200.py --flashinfer 0.4.0
# as JSON caches of FlashInfer 0.6.12 (3-tuple keys), json.dump(indent=2) without provenance
python3 - <<'PY'
import ast, json
for src, dst, cuda in (("v0_1_trtllm_fused_moe_NVIDIA_B200.py", "one.json", "12.8"),
                       ("v0_2_8_trtllm_fused_moe_NVIDIA_B200.py", "two.json", "12.9")):
    t = ast.literal_eval(open(src).read().split("=", 1)[1])
    doc = {"_metadata": {"flashinfer_version": "0.6.12", "cuda_version": cuda, "cublas_version": "12.8.4",
                         "cudnn_version": "91002", "cudnn_frontend_version": "1.12.0", "gpu": "NVIDIA B200"}}
    for k in sorted(t):
        doc[k] = ["MoERunner", t[k][1]]
    json.dump(doc, open(dst, "w"), indent=2)
PY
run tunetab merge -q cache one.json two.json
ls cache
python3 - <<'PY'
import ast, json
m = json.load(open("cache/flashinfer_autotune_NVIDIA_B200.json"))
py = ast.literal_eval(open("merged.py").read().split("=", 1)[1])
print("_metadata:", m["_metadata"])
print("same tactics as merged.py:", all(m[k] == ["MoERunner", v[1]] for k, v in py.items()), len(py))
p = json.load(open("cache/tunetab_provenance_NVIDIA_B200.json"))
print("provenance: runs", p["runs"], "entries", p["entries"], "files", p["files"])
PY
run tunetab merge one-module.py one.json
cmp one-module.py v0_1_trtllm_fused_moe_NVIDIA_B200.py && echo "one.json as a module: the bytes of FlashInfer's own v0_1 file"
