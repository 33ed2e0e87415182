# 212-nvfp4-moe-padding: issue #47 item 6. SGLang and vLLM pad the per-GPU intermediate size of
# an NVFP4 MoE for FlashInfer's TensorRT-LLM-gen kernel (a gated MoE to a multiple of 64), and
# the kernel's cache key carries the padded size, so the keys tunetab writes must carry it too.
# Qwen3-30B-A3B NVFP4 (768 / TP 8 = 96, padded to 128) and GLM-4.5-Air NVFP4 (1408 / TP 8 = 176,
# padded to 192) on a B200, SGLang 0.5.23 and vLLM 0.34.0: the sizes each consumer's own released
# code computes (tests/consumers/nvfp4_moe_sizes.py runs its padding functions from the wheel's
# source, the files make deps-test fetches) against the intermediate and hidden sizes in the keys
# of `tunetab generate --for`; then FlashInfer 0.7.4's own tuner rebuilds the keys from those
# calls (tests/flashinfer/ops_keys.sh), which must equal tunetab's. The models' config.json are
# written here: the two models' MoE geometry (configs/models), NVFP4 by a ModelOpt
# hf_quant_config.json beside it. vLLM pads the hidden size too (to 256): for a model whose hidden
# size it pads, tunetab says it cannot tell that op's keys and writes none.
. "$ROOT/tests/lib.sh"
CONS=${CONSUMERS_DIR:-$ROOT/.venv-consumers}
PY=${FI_VENV_DIR:-$ROOT/.venv-flashinfer}/0.7.4/bin/python
mkdir qwen3 glm
cp "$ROOT/tests/data/hf/Qwen/Qwen3-30B-A3B/config.json" qwen3/
cat >glm/config.json <<'EOF'
{"architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe", "hidden_size": 4096,
 "intermediate_size": 10944, "moe_intermediate_size": 1408, "n_routed_experts": 128,
 "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 1,
 "num_hidden_layers": 46, "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128,
 "hidden_act": "silu", "torch_dtype": "bfloat16", "vocab_size": 151552}
EOF
for d in qwen3 glm; do
    echo '{"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4", "group_size": 16, "exclude_modules": ["lm_head"]}}' >$d/hf_quant_config.json
done
# case NAME DIR CONSUMER VERSION LAUNCH...
case_() {
    name=$1 dir=$2 for=$3 ver=$4
    shift 4
    rc=0
    tunetab generate -q --for "$for" --device b200 --consumer-version "$ver" --flashinfer 0.7.4 \
        --model-config "$dir/config.json" -o "$name" -- "$@" >/dev/null 2>"$name.err" || rc=$?
    if [ "$rc" != 0 ]; then
        echo "$name: generate exit $rc"; sed "s|$ROOT|<root>|g" "$name.err"; return
    fi
    site=$CONS/$for-$ver
    python3 - "$name" "$dir/config.json" "$for" "$site" "$PY" "$ROOT" <<'PY'
import glob, json, subprocess, sys, ast
name, config, consumer, site, py, root = sys.argv[1:]
c = json.load(open(config))
table = json.load(open(glob.glob(name + "/flashinfer_autotune_*.json")[0]))
keys = [k for k in table if k.startswith("('flashinfer::trtllm_fp4_block_scale_moe'")]
# the key's extras: (..., hidden_size, hidden_size_output, intermediate_size, ...), the fields
# of configs/ops/trtllm_fp4_block_scale_moe.yaml
ex = {(e[8], e[9], e[10]) for e in (ast.literal_eval(k)[3] for k in keys)}
tp = 8
unpadded = c["moe_intermediate_size"] // tp
r = subprocess.run([py, root + "/tests/consumers/nvfp4_moe_sizes.py", consumer, site,
                    json.dumps({"intermediate": unpadded, "hidden": c["hidden_size"], "gated": True})],
                   capture_output=True, text=True)
if r.returncode:
    sys.exit("nvfp4_moe_sizes failed: " + r.stderr[-2000:])
own = json.loads(r.stdout)
want = (own["hidden"], own["hidden"], own["intermediate"])
print("%s: per GPU %d; the consumer's own code: intermediate %d, hidden %d; tunetab's %d keys: %s: %s"
      % (name, unpadded, own["intermediate"], own["hidden"], len(keys),
         ", ".join("hidden %d/%d, intermediate %d" % e for e in sorted(ex)),
         "agree" if ex == {want} else "DIFFER"))
PY
    # FlashInfer's own tuner, from the calls tunetab recorded (the padded size among them)
    FI_VENV_DIR=${FI_VENV_DIR:-$ROOT/.venv-flashinfer} "$ROOT/tests/flashinfer/ops_keys.sh" \
        "$(ls "$name"/flashinfer_autotune_*.json)" "$(ls "$name"/tunetab_provenance_*.json)" \
        >"$name.fi" 2>/dev/null || true
    grep '^flashinfer::trtllm_fp4_block_scale_moe' "$name.fi" || echo "$name: ops_keys printed no trtllm line"
}
SGL="python -m sglang.launch_server --tp 8 --quantization modelopt_fp4 --model-path"
case_ sglang-qwen3 qwen3 sglang 0.5.23 $SGL nvidia/Qwen3-30B-A3B-NVFP4
case_ sglang-glm glm sglang 0.5.23 $SGL nvidia/GLM-4.5-Air-NVFP4
case_ vllm-qwen3 qwen3 vllm 0.34.0 vllm serve nvidia/Qwen3-30B-A3B-NVFP4 -tp 8
case_ vllm-glm glm vllm 0.34.0 vllm serve nvidia/GLM-4.5-Air-NVFP4 -tp 8
echo "== a hidden size vLLM pads (2880, not a multiple of 256: Qwen3-30B-A3B's config with it)"
mkdir h2880
python3 - <<'PY'
import json
c = json.load(open("qwen3/config.json"))
c["hidden_size"] = 2880
json.dump(c, open("h2880/config.json", "w"))
PY
cp qwen3/hf_quant_config.json h2880/
echo "vLLM's own code: $("$PY" "$ROOT/tests/consumers/nvfp4_moe_sizes.py" vllm "$CONS/vllm-0.34.0" \
    '{"intermediate": 96, "hidden": 2880, "gated": true}')"
tunetab generate --for vllm --device b200 --consumer-version 0.34.0 --flashinfer 0.7.4 \
    --model-config h2880/config.json -o h2880-out -- vllm serve nvidia/Qwen3-30B-A3B-NVFP4 -tp 8 2>&1 |
    grep -e 'trtllm_fp4_block_scale_moe' -e 'error' | sed "s|$ROOT|<root>|g"
