#!/bin/sh
# run-default.sh: `make run`'s job on its embedded default: the FlashInfer tables for this
# machine's GPU 0 (or, without a GPU, for NVIDIA RTX PRO 6000 Blackwell Server Edition),
# GLM-5, NVFP4, TP 8, the newest known FlashInfer, written to out/ and validated.
set -eu
T=build/tunetab
DEVICE="NVIDIA RTX PRO 6000 Blackwell Server Edition"
MODEL=glm-5
DTYPE=nvfp4
if $T detect >/dev/null 2>&1; then
    DEVICE=auto
    $T detect
else
    echo "tunetab: no GPU here; generating for the default target, $DEVICE" >&2
fi
$T generate --device "$DEVICE" --model "$MODEL" --dtype "$DTYPE" --tp 8 -o out
$T validate out/*
