# requires: fixtures
# 011-validate-fixtures: FlashInfer's own shipped tables (../shared/fixtures, not copied here).
# The B200 table passes for 0.4.0, fails with one "can never be loaded" error for 0.6.18;
# the v0_2_8 name fails for every release with the prefix error.
. "$ROOT/tests/lib.sh"
F=$ROOT/../shared/fixtures/flashinfer
cp "$F/v0_1_trtllm_fused_moe_NVIDIA_B200.py" "$F/v0_2_8_trtllm_fused_moe_NVIDIA_B200.py" .
run tunetab validate v0_1_trtllm_fused_moe_NVIDIA_B200.py --flashinfer 0.4.0
run tunetab validate v0_1_trtllm_fused_moe_NVIDIA_B200.py --flashinfer 0.6.18
run tunetab validate v0_2_8_trtllm_fused_moe_NVIDIA_B200.py --flashinfer all --quiet
run tunetab validate v0_1_trtllm_fused_moe_NVIDIA_B200.py --flashinfer all --quiet
run tunetab validate v0_1_trtllm_fused_moe_NVIDIA_B200.py --flashinfer 0.6.10 --format github
run tunetab convert v0_1_trtllm_fused_moe_NVIDIA_B200.py -o written.py
cmp v0_1_trtllm_fused_moe_NVIDIA_B200.py written.py && echo "module writer: identical bytes"
run tunetab convert v0_2_8_trtllm_fused_moe_NVIDIA_B200.py -o from-pprint.py
run tunetab diff v0_1_trtllm_fused_moe_NVIDIA_B200.py from-pprint.py --flashinfer 0.4.0
run tunetab explain v0_1_trtllm_fused_moe_NVIDIA_B200.py --flashinfer 0.4.0
