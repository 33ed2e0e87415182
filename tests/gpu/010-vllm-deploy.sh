# 010-vllm-deploy (GPU): issue #15's vLLM check on FlashInfer 0.7.4's real kernels
# (../shared/flashinfer-h200, carried as .gpu/flashinfer-h200). One GPU: vLLM 0.33.0 tunes in
# FlashInfer's managed store (autotune_v2(mode="tune", cache_root=...), kernel_warmup.py:478-492);
# `tunetab install --for vllm` writes it, named by this environment's metadata as FlashInfer's
# own _collect_metadata reports it, and one cutlass_fused_moe call under autotune_v2 then
# profiles nothing and uses the file's tactic for every bucket (fi_bench.py sglang-start
# --managed-root). Several GPUs: the rank files in the folder vLLM logged (--cache-file),
# loaded as vLLM loads them (load_configs, then autotune(True)). An empty store profiles.
set -eu
T=$TUNETAB
. "$ROOT/tests/gpu/fi-h200.sh"
B="python3 $ROOT/tests/bench/fi_bench.py"
# the JSON cache generate names after this GPU (flashinfer_autotune_NVIDIA_H200.json on an H200)
J=$($T detect --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["gpus"][0]["json_cache"])')
$T generate --device auto --model qwen3-30b-a3b --dtype bf16 --format json -o gen -q
C=gen/$J
$T install --for vllm --from $C --cache-dir "$PWD/store" 2>install.log | wc -l
sed "s|$PWD/||g" install.log
$T doctor --for vllm --from $C --cache-dir "$PWD/store" | sed "s|$PWD/||g"
$B sglang-start qwen3-bf16 $C --fused-finalize 1 --managed-root "$PWD/store" --json vllm-store.json
H=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
$T install --for vllm --from $C --tp 2 --cache-file "$PWD/v/$H/autotune_configs_dp0_rank0.json" 2>/dev/null | sed "s|$PWD/||"
$T doctor --for vllm --from $C --tp 2 --cache-file "$PWD/v/$H/autotune_configs_dp0_rank0.json" | grep -e metadata -e verdict
$B sglang-start qwen3-bf16 "$PWD/v/$H/autotune_configs_dp0_rank0.json" --fused-finalize 1 --json vllm-rank0.json
# an empty store: FlashInfer's usual start (profiles every bucket)
rc=0; $B sglang-start qwen3-bf16 $C --fused-finalize 1 --managed-root "$PWD/empty" --json vllm-empty.json || rc=$?
[ "$rc" -ne 0 ] && echo "empty store: FlashInfer profiled, as expected"
mkdir -p "${OUT:-/tmp}/gpu-010" && cp vllm-*.json install.log "${OUT:-/tmp}/gpu-010/" 2>/dev/null || true
