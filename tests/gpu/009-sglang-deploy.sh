# 009-sglang-deploy (GPU): issue #15's deployment check on FlashInfer 0.7.4's real kernels
# (../shared/flashinfer-h200, carried as .gpu/flashinfer-h200). tunetab writes Qwen3-30B-A3B
# bf16's JSON cache with `install --for sglang` where SGLang opens it (the path rule is checked
# against SGLang's own code by make test-consumers); then SGLang's start as FlashInfer sees it:
# autotune(True, cache=THAT FILE) around one cutlass_fused_moe call with SGLang's arguments
# (fi_bench.py sglang-start). With SGLANG_FLASHINFER_MOE_FUSED_FINALIZE=1, as install says,
# FlashInfer profiles nothing and every bucket uses the file's tactic; with SGLang's default
# (0) the keys miss and FlashInfer profiles (on a copy); a table generated with
# --fused-finalize off is used with SGLang's default.
set -eu
T=$TUNETAB
. "$ROOT/tests/gpu/fi-h200.sh"
B="python3 $ROOT/tests/bench/fi_bench.py"
# the JSON cache generate names after this GPU (flashinfer_autotune_NVIDIA_H200.json on an H200)
J=$($T detect --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["gpus"][0]["json_cache"])')
$T generate --device auto --model qwen3-30b-a3b --dtype bf16 --format json -o gen -q
path=$($T install --for sglang --from "gen/$J" --model-path Qwen/Qwen3-30B-A3B \
    --hf-config-class Qwen3MoeConfig --cache-dir "$PWD/sg" 2>install.log)
grep 'start the server' install.log | sed "s|$PWD/||"
echo "$path" | sed "s|$PWD/||"
cp "$path" default-finalize.json
$B sglang-start qwen3-bf16 "$path" --fused-finalize 1 --json with-env.json
rc=0; $B sglang-start qwen3-bf16 default-finalize.json --fused-finalize 0 --json default.json || rc=$?
[ "$rc" -ne 0 ] && echo "SGLang's default (use_fused_finalize=False): the table is not used, as install warns"
# a table generated for SGLang's default (--fused-finalize off): no variable needed
$T generate --device auto --model qwen3-30b-a3b --dtype bf16 --fused-finalize off --format json -o gen-off -q
path=$($T install --for sglang --from "gen-off/$J" --model-path Qwen/Qwen3-30B-A3B \
    --hf-config-class Qwen3MoeConfig --cache-dir "$PWD/sg-off" 2>install-off.log)
grep 'start the server' install-off.log | sed "s|$PWD/||"
$B sglang-start qwen3-bf16 "$path" --fused-finalize 0 --json off.json
