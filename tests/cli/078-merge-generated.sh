# 078-merge-generated: tables tunetab generate wrote for two models on one device (copied
# without any provenance file: unknown provenance) merge into one table with both models'
# keys, whatever tactics the heuristic chose; the merge validates and is order-independent.
. "$ROOT/tests/lib.sh"
G="tunetab generate --device h200 --dtype bf16 --flashinfer 0.6.18 --max-tokens 64 -q"
$G --model qwen3-30b-a3b -o gen-qwen
$G --model glm-5 --tp 8 -o gen-glm
for m in qwen glm; do
    mkdir "$m"
    cp gen-$m/v0_1_trtllm_fused_moe_NVIDIA_H200.py gen-$m/flashinfer_autotune_NVIDIA_H200.json "$m/"
done
run tunetab merge both qwen glm
ls both
run tunetab validate -q --flashinfer 0.6.18 both/v0_1_trtllm_fused_moe_NVIDIA_H200.py both/flashinfer_autotune_NVIDIA_H200.json
python3 - <<'PY'
import ast, json
load = lambda p: ast.literal_eval(open(p).read().split("=", 1)[1])
q, g, b = (load(d + "/v0_1_trtllm_fused_moe_NVIDIA_H200.py") for d in ("qwen", "glm", "both"))
print("entries:", len(q), "+", len(g), "=", len(b), "; disjoint:", not set(q) & set(g))
print("the merge holds each model's tactics:", b == {**q, **g})
j = json.load(open("both/flashinfer_autotune_NVIDIA_H200.json"))
print("json agrees:", all(j[k] == ["MoERunner", v[1]] for k, v in b.items()), j["_metadata"]["gpu"], j["_metadata"]["flashinfer_version"])
PY
tunetab merge -q other glm qwen
for f in both/*; do cmp "$f" "other/${f#both/}" && echo "other order: ${f#both/} same bytes"; done
