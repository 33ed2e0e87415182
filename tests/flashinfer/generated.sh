#!/usr/bin/env bash
# generated.sh: tables `tunetab generate` writes, looked up by FlashInfer's own code with the
# keys its REAL MoERunner builds (fi_oracle.py --deployment): every generated key must hit, in
# every version whose venv exists. Prints the run.sh summary.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
T=${TUNETAB:-$root/build/tunetab}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
dep='{"x_dtype": "torch.uint8", "weight_dtype": "torch.int64", "output_dtype": "torch.bfloat16", "top_k": 8, "tp_size": 8, "tp_rank": 0, "ep_size": 1, "ep_rank": 0, "cluster_size": 1, "cluster_rank": 0, "enable_alltoall": false, "use_deepseek_fp8_block_scale": false, "use_w4_group_scaling": false, "use_mxfp8_act_scaling": false, "use_wfp4afp8_humming": false, "min_latency_mode": false, "enable_pdl": true, "activation_type": 3, "use_packed_weights": false, "use_fused_finalize": true}'
cases=$out/cases.txt
: >"$cases"
for v in 0.5.2 0.6.7 0.6.12 0.6.13 0.6.17 0.6.18 0.7.4; do
    "$T" generate --device "NVIDIA B200" --model deepseek-v3 --dtype nvfp4 --tp 8 --flashinfer "$v" \
        -o "$out/$v" -q
    # the tables FlashInfer reads; not tunetab's provenance file, which is tunetab's own
    for f in "$out/$v"/*.py "$out/$v"/flashinfer_autotune_*.json; do
        [ -e "$f" ] || continue
        echo "$v|NVIDIA B200|$f|hit-all|--deployment '$dep'" >>"$cases"
    done
done
# --tp-rank all (issue #15): 0.6.18 keys the TP rank; FlashInfer's runner for rank 2 of TP 4
# hits every key of the all-ranks table (rank 0's alone hits none: 0/42, measured 2026-12-01)
dep2=${dep/\"tp_size\": 8, \"tp_rank\": 0/\"tp_size\": 4, \"tp_rank\": 2}
"$T" generate --device "NVIDIA B200" --model deepseek-v3 --dtype nvfp4 --tp 4 --tp-rank all \
    --flashinfer 0.6.18 -o "$out/ranks" -q
for f in "$out/ranks"/*.py "$out/ranks"/flashinfer_autotune_*.json; do
    echo "0.6.18|NVIDIA B200|$f|hit-all|--deployment '$dep2'" >>"$cases"
done
# --fused-finalize off (issue #15, SGLang's default): FlashInfer's runner built with
# use_fused_finalize=False hits every key of the off table
"$T" generate --device h200 --model qwen3-30b-a3b --dtype bf16 --fused-finalize off --flashinfer 0.7.4 \
    -o "$out/ffoff" -q
dep3='{"x_dtype": "torch.bfloat16", "weight_dtype": "torch.bfloat16", "output_dtype": "torch.bfloat16", "top_k": 8, "tp_size": 1, "tp_rank": 0, "ep_size": 1, "ep_rank": 0, "cluster_size": 1, "cluster_rank": 0, "enable_alltoall": false, "use_deepseek_fp8_block_scale": false, "use_w4_group_scaling": false, "use_mxfp8_act_scaling": false, "use_wfp4afp8_humming": false, "min_latency_mode": false, "enable_pdl": true, "activation_type": 3, "use_packed_weights": false, "use_fused_finalize": false}'
for f in "$out/ffoff"/*.py "$out/ffoff"/flashinfer_autotune_*.json; do
    echo "0.7.4|NVIDIA H200|$f|hit-all|--deployment '$dep3'" >>"$cases"
done
# The quantised runners (issue #15, configs/dtypes.yaml): FlashInfer's runner built with the
# flags the serving stack passes hits every key; the same runner without the flag hits none.
# The negatives run without tunetab validate, which judges a table, not a deployment.
neg=$out/negative.txt
: >"$neg"
base='"output_dtype": "torch.bfloat16", "tp_size": 1, "tp_rank": 0, "ep_size": 1, "ep_rank": 0, "cluster_size": 1, "cluster_rank": 0, "enable_alltoall": false, "use_mxfp8_act_scaling": false, "min_latency_mode": false, "enable_pdl": true, "use_fused_finalize": true'
# name|model|dtype|x_dtype|weight_dtype|top_k|activation_type|flags set True
while IFS='|' read -r name model dt x w k act flags; do
    for v in 0.6.18 0.7.4; do
        "$T" generate --device h200 --model "$model" --dtype "$dt" --flashinfer "$v" -o "$out/$name-$v" -q
        on="{\"x_dtype\": \"$x\", \"weight_dtype\": \"$w\", \"top_k\": $k, \"activation_type\": $act, $base"
        off=$on
        for f in use_deepseek_fp8_block_scale use_w4_group_scaling use_wfp4afp8_humming use_packed_weights; do
            case " $flags " in *" $f "*) on="$on, \"$f\": true";; *) on="$on, \"$f\": false";; esac
            off="$off, \"$f\": false"
        done
        for f in "$out/$name-$v"/*.py "$out/$name-$v"/flashinfer_autotune_*.json; do
            echo "$v|NVIDIA H200|$f|hit-all|--deployment '$on}'" >>"$cases"
            echo "$v|NVIDIA H200|$f|hit-none|--deployment '$off}'" >>"$neg"
        done
    done
done <<'DT'
fp8block|deepseek-v3|fp8_block|torch.bfloat16|torch.float8_e4m3fn|8|3|use_deepseek_fp8_block_scale
w4a16|gpt-oss-120b|w4a16_mxfp4|torch.bfloat16|torch.uint8|4|5|use_w4_group_scaling
w4a8|qwen3-30b-a3b|w4a8|torch.bfloat16|torch.uint8|8|3|use_w4_group_scaling use_packed_weights
humming|gpt-oss-120b|w4a8_mxfp4|torch.bfloat16|torch.uint8|4|5|use_w4_group_scaling use_wfp4afp8_humming
DT
# Launch commands (issue #28): the table `generate --for CONSUMER -- LAUNCH` writes is hit by
# FlashInfer's runner built with the arguments that server passes (SGLang 0.5.23
# moe_runner/flashinfer_cutlass.py:297-396 and :483-619, vLLM 0.33.0
# experts/flashinfer_cutlass_moe.py:365-389; configs/consumers/*.lua cite the lines), and missed
# by the runner of the other use_fused_finalize (hit-none). FlashInfer 0.7.2 is both servers' pin.
hf=$root/tests/data/hf
lbase='"tp_rank": 0, "ep_rank": 0, "cluster_size": 1, "cluster_rank": 0, "enable_alltoall": false, "use_mxfp8_act_scaling": false, "use_wfp4afp8_humming": false, "min_latency_mode": false, "enable_pdl": true, "use_packed_weights": false, "activation_type": 3'
# name|consumer|device|model dir|runner fields|launch
while IFS='|' read -r name cons device model fields launch; do
    [ -n "$name" ] || continue
    # shellcheck disable=SC2086
    "$T" generate --for "$cons" --device "$device" --flashinfer 0.7.2 --consumer-version         "$([ "$cons" = sglang ] && echo 0.5.23 || echo 0.33.0)" --model-config "$hf/$model/config.json"         -o "$out/launch-$name" -q -- $launch
    for f in "$out/launch-$name"/*.py "$out/launch-$name"/flashinfer_autotune_*.json; do
        echo "0.7.2|$("$T" devices --json | python3 -c 'import json,sys; d=sys.argv[1]; print([x["name"] for x in json.load(sys.stdin) if x["id"] == d][0])' "$device")|$f|hit-all|--deployment '{$fields, $lbase}'" >>"$cases"
        other=$(echo "$fields" | sed 's/"use_fused_finalize": true/X/; s/"use_fused_finalize": false/"use_fused_finalize": true/; s/X/"use_fused_finalize": false/')
        echo "0.7.2|$("$T" devices --json | python3 -c 'import json,sys; d=sys.argv[1]; print([x["name"] for x in json.load(sys.stdin) if x["id"] == d][0])' "$device")|$f|hit-none|--deployment '{$other, $lbase}'" >>"$neg"
    done
done <<'LAUNCH'
sg-qwen3|sglang|h200|Qwen/Qwen3-30B-A3B|"x_dtype": "torch.bfloat16", "weight_dtype": "torch.bfloat16", "output_dtype": "torch.bfloat16", "top_k": 8, "tp_size": 4, "ep_size": 1, "use_deepseek_fp8_block_scale": false, "use_w4_group_scaling": false, "use_fused_finalize": false|python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4 --moe-runner-backend flashinfer_cutlass
sg-glm5-nvfp4|sglang|rtx-pro-6000-server|nvidia/GLM-5.1-NVFP4|"x_dtype": "torch.bfloat16", "weight_dtype": "torch.int64", "output_dtype": "torch.bfloat16", "top_k": 8, "tp_size": 8, "ep_size": 1, "use_deepseek_fp8_block_scale": false, "use_w4_group_scaling": false, "use_fused_finalize": false|python -m sglang.launch_server --model-path nvidia/GLM-5.1-NVFP4 --tp 8 --quantization modelopt_fp4
sg-gptoss|sglang|h200|openai/gpt-oss-120b|"x_dtype": "torch.bfloat16", "weight_dtype": "torch.uint8", "output_dtype": "torch.bfloat16", "top_k": 4, "tp_size": 2, "ep_size": 1, "use_deepseek_fp8_block_scale": false, "use_w4_group_scaling": true, "use_fused_finalize": false|python -m sglang.launch_server --model-path openai/gpt-oss-120b --tp 2 --moe-runner-backend flashinfer_mxfp4
vl-dsv3|vllm|h200|deepseek-ai/DeepSeek-V3|"x_dtype": "torch.bfloat16", "weight_dtype": "torch.float8_e4m3fn", "output_dtype": "torch.bfloat16", "top_k": 8, "tp_size": 1, "ep_size": 8, "use_deepseek_fp8_block_scale": true, "use_w4_group_scaling": false, "use_fused_finalize": true|vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --enable-expert-parallel
vl-glm5-nvfp4|vllm|rtx-pro-6000-server|nvidia/GLM-5.1-NVFP4|"x_dtype": "torch.uint8", "weight_dtype": "torch.int64", "output_dtype": "torch.bfloat16", "top_k": 8, "tp_size": 4, "ep_size": 1, "use_deepseek_fp8_block_scale": false, "use_w4_group_scaling": false, "use_fused_finalize": true|vllm serve nvidia/GLM-5.1-NVFP4 -tp 4 --max-num-batched-tokens 8192
LAUNCH
rc=0
TUNETAB= bash "$here/run.sh" "$neg" || rc=1
bash "$here/run.sh" "$cases" || rc=1
exit $rc
