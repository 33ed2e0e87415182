# requires: fixtures
# 096-into-flashinfer: generate -o into an installed FlashInfer's tuning_configs folder (a fake
# site-packages holding FlashInfer's shipped B200 module, ../shared/fixtures): refused without
# --into-flashinfer, nothing touched; with it, only the module is written, the shipped file is
# kept once as .tunetab-backup (a second run keeps the original there), no JSON cache nor
# provenance file lands in the package.
. "$ROOT/tests/lib.sh"
F=$ROOT/../shared/fixtures/flashinfer
TC=sp/flashinfer/tuning_configs
mkdir -p $TC
: > sp/flashinfer/__init__.py
cp $F/v0_1_trtllm_fused_moe_NVIDIA_B200.py $TC/
G="generate --device b200 --model deepseek-v3 --dtype nvfp4 --tp 8 --flashinfer 0.7.4"
run tunetab $G -o $TC
ls $TC
cmp -s $F/v0_1_trtllm_fused_moe_NVIDIA_B200.py $TC/v0_1_trtllm_fused_moe_NVIDIA_B200.py && echo "shipped module untouched"
tunetab $G -o $TC --into-flashinfer 2>&1 | grep -e 'kept' -e 'note: no JSON' -e 'wrote' | sed "s|$PWD/||g"
ls $TC
cmp -s $F/v0_1_trtllm_fused_moe_NVIDIA_B200.py $TC/v0_1_trtllm_fused_moe_NVIDIA_B200.py.tunetab-backup && echo "backup = the shipped module"
tunetab $G --tp 4 -o $TC --into-flashinfer -q
cmp -s $F/v0_1_trtllm_fused_moe_NVIDIA_B200.py $TC/v0_1_trtllm_fused_moe_NVIDIA_B200.py.tunetab-backup && echo "second run: the backup still holds the shipped module"
tunetab validate -q $TC/v0_1_trtllm_fused_moe_NVIDIA_B200.py && echo "new module valid"
# a folder merely named tuning_configs (no FlashInfer package around it) is an ordinary folder
mkdir -p plain/tuning_configs
tunetab $G -o plain/tuning_configs -q && ls plain/tuning_configs | wc -l
