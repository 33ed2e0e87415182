#!/bin/sh
# run-default.sh: `make run`'s job on its embedded default: the FlashInfer tables for this
# machine's GPU 0 (or, without a GPU, for NVIDIA RTX PRO 6000 Blackwell Server Edition),
# GLM-5, TP 8, the newest known FlashInfer, written to out/ and validated. The dtype is NVFP4,
# or on a GPU without NVFP4 tactics (SM90: H100, H200) the first of fp8, bf16 that has a
# catalog there; the line that says so names it. The keys are the ones SGLang 0.5.23 looks up
# with its defaults: use_fused_finalize off, NVFP4's input passed as bf16 (docs/consumers.md "From the
# launch command" derives them from a server's own command).
set -eu
T=build/tunetab
DEVICE="NVIDIA RTX PRO 6000 Blackwell Server Edition"
MODEL=glm-5
DTYPE=nvfp4
if $T detect >/dev/null 2>&1; then
    DEVICE=auto
    $T detect
    for d in nvfp4 fp8 bf16; do
        if $T catalog --device auto --dtype $d >/dev/null 2>&1; then
            [ $d = "$DTYPE" ] || echo "tunetab: this GPU has no FlashInfer $DTYPE tactics; generating $d instead" >&2
            DTYPE=$d
            break
        fi
    done
else
    echo "tunetab: no GPU here; generating for the default target, $DEVICE" >&2
fi
VIEW=
[ "$DTYPE" = nvfp4 ] && VIEW="--input-view bf16"
echo "tunetab: the keys SGLang looks up with its defaults (--fused-finalize off${VIEW:+, $VIEW})" >&2
# shellcheck disable=SC2086
$T generate --device "$DEVICE" --model "$MODEL" --dtype "$DTYPE" --tp 8 --fused-finalize off $VIEW -o out
$T validate out/*
