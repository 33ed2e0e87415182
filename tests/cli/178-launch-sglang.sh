# 178-launch-sglang: SGLang launch commands (tests/data/launch/sglang-cases.txt: TP, EP, attention
# DP, DP replicas, PP, dtype, skip ops, prefill chunk, GPU memory class; Qwen3-30B-A3B bf16,
# GLM-5.1 / GLM-5 NVFP4 (quantization_config and the old hf_quant_config.json), DeepSeek-V3 FP8
# block, gpt-oss MXFP4; SM90, SM100, SM120) read by `tunetab install --for sglang -- LAUNCH` for
# SGLang 0.5.22 and 0.5.23, against what SGLang's own parser, resolution, ModelConfig and
# flashinfer_autotune_cache_path made of the same commands (tests/data/launch/sglang-expected.json,
# from tests/consumers/sglang_launch.py; `SGLANG_ORACLE=1 make test-consumers` runs it again):
# quantization and MoE backend as hashed, torch dtype, TP/PP/DP/attention DP/MoE EP, the MoE
# runner's TP, config class, every rank's cache file and the largest token bucket the CUTLASS MoE
# tunes. (Breaking the attention-DP rule in configs/consumers/sglang.lua fails 6 fields: checked.)
. "$ROOT/tests/lib.sh"
python3 "$ROOT/tests/launch_check.py" "$TUNETAB" "$ROOT/tests/data/launch/sglang-cases.txt" \
    "$ROOT/tests/data/launch/sglang-expected.json"
# vLLM 0.33.0 (tests/data/launch/vllm-cases.txt: TP, EP, DP with EP, the batch default; Qwen3
# bf16 on SM90 and SM120, DeepSeek-V3 FP8 block with and without EP, GLM-5.1 NVFP4 on SM120 and
# SM100, gpt-oss MXFP4 on SM90) against vLLM's own parser, create_engine_config, first MoE
# layer's backend selection and rank file names (tests/data/launch/vllm-expected.json, from
# tests/consumers/vllm_launch.py; `VLLM_ORACLE=1 make test-consumers` runs it again). (Breaking
# the expert-parallel rule in configs/consumers/vllm.lua fails 3 fields: checked.)
python3 "$ROOT/tests/launch_check.py" "$TUNETAB" "$ROOT/tests/data/launch/vllm-cases.txt" \
    "$ROOT/tests/data/launch/vllm-expected.json"
