# 213-flashinfer-disagrees: issue #47, a usability item. install with --flashinfer naming another
# version than the FlashInfer the server's Python imports: install stamps that Python's _metadata
# (flashinfer_version 0.7.4), which FlashInfer 0.7.2 would ignore, so it refuses; the message says
# which version came from where (--flashinfer 0.7.2, the Python's 0.7.4), not the two swapped,
# and what to give. A table whose own _metadata names another version (--stamp from) keeps
# its message, which names the table.
. "$ROOT/tests/lib.sh"
fi_python py "NVIDIA B200"
H=$ROOT/tests/data/hf/nvidia
SGL="python -m sglang.launch_server --model-path nvidia/GLM-5-NVFP4 --tp 8 --quantization modelopt_fp4"
export SGLANG_CACHE_DIR="$PWD/cache"
RUN_SED="s|$PWD/||g"
echo "== the launch command, --flashinfer 0.7.2, the server's Python imports 0.7.4"
run tunetab install -q --for sglang --device b200 --python ./py --flashinfer 0.7.2 \
    --model-config "$H/GLM-5-NVFP4/config.json" -- $SGL
echo "== install's flags and a table, the same disagreement"
tunetab generate -q --device b200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 --format json -o t
run tunetab install -q --for sglang --from t/flashinfer_autotune_NVIDIA_B200.json --python ./py \
    --flashinfer 0.7.2 --model-path Qwen/Qwen3-30B-A3B --tp 1
echo "== the table's own _metadata (--stamp from) for another version"
run tunetab install -q --for sglang --from t/flashinfer_autotune_NVIDIA_B200.json --python ./py \
    --flashinfer 0.7.2 --stamp from --model-path Qwen/Qwen3-30B-A3B --tp 1
echo "== as the hint says: without --flashinfer, the Python's version (--write-fallbacks: the"
echo "   B200's ops are FlashInfer's fallbacks unless measured, and this install should write)"
run tunetab install -q --for sglang --device b200 --python ./py --write-fallbacks \
    --model-config "$H/GLM-5-NVFP4/config.json" -- $SGL
ls cache/flashinfer/autotune/
