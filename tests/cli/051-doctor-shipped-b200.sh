# requires: fixtures
# 051-doctor-shipped-b200: FlashInfer's own shipped B200 module (../shared/fixtures) installed in
# a fake site-packages, judged by doctor for DeepSeek-V3 nvfp4 TP 8 on a B200: in 0.6.12 it
# covers the power-of-two buckets and 1024/2048/4096 only, so 14 of the 42 buckets that version
# tunes fall back to tactic -1; in 0.6.13 none of its 3-tuple keys can hit.
. "$ROOT/tests/lib.sh"
F=$ROOT/../shared/fixtures/flashinfer
for v in 0.6.12 0.6.13; do
    SP=sp-$v
    mkdir -p $SP/flashinfer/tuning_configs
    printf '__version__ = "%s"\n' $v > $SP/flashinfer/_build_meta.py
    cp $F/v0_1_trtllm_fused_moe_NVIDIA_B200.py $SP/flashinfer/tuning_configs/
    echo "== FlashInfer $v"
    rc=0
    FLASHINFER_AUTOTUNER_LOAD_FROM_FILE=1 tunetab doctor --flashinfer-dir $SP --device b200 \
        --model deepseek-v3 --dtype nvfp4 --tp 8 > out.txt 2>&1 || rc=$?
    grep -e '^  present' -e '^deployment' -e '^  GEMM' -e '^  falls back' -e '^verdict' out.txt
    echo "exit $rc"
done
