#!/bin/sh
# run-default.sh: `make run`'s job on its embedded default: the FlashInfer tables for this
# machine's GPU 0 (or, without a GPU, for NVIDIA RTX PRO 6000 Blackwell Server Edition),
# GLM-5, TP 8, the newest known FlashInfer, written to out/ and validated. The dtype is NVFP4,
# or on a GPU without NVFP4 tactics (SM90: H100, H200) the first of fp8, bf16 that has a
# catalog there; the line that says so names it. The keys are the ones SGLang 0.5.23 looks up
# with its defaults: use_fused_finalize off, NVFP4's input passed as bf16 (docs/consumers.md "From the
# launch command" derives them from a server's own command).
# The last line of its output is the one next step, a command to paste here: with a GPU, the
# measured table installed for the SGLang server of that dtype (`install --profile -- LAUNCH`);
# without one, the table just written installed for that server on the default target.
# TUNETAB: the tunetab to run (default build/tunetab, as `make run` builds it).
set -eu
T=${TUNETAB:-build/tunetab}
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

# The next step. The server: GLM-5.1's NVFP4 checkpoint (README "From the launch command":
# install accepts this table for it); on SM90, where no GLM-5 checkpoint SGLang serves runs
# FlashInfer's CUTLASS MoE in fp8 (the FP8 one is block-scaled: Triton), the unquantized one
# with the flashinfer_cutlass backend, bf16.
if [ "$DTYPE" = nvfp4 ]; then
    MP=nvidia/GLM-5.1-NVFP4
    SERVER="python -m sglang.launch_server --model-path $MP --tp 8 --quantization modelopt_fp4"
else
    MP=zai-org/GLM-5
    SERVER="python -m sglang.launch_server --model-path $MP --tp 8 --moe-runner-backend flashinfer_cutlass"
fi
# shellcheck disable=SC2012
JSON=$(ls -t out/flashinfer_autotune_*.json | head -n 1) # the one generate just wrote
if [ "$DEVICE" = auto ]; then
    HOW="--profile"
    SAY="next: measure the table on this GPU and install it where SGLang reads it:"
else
    HOW="--from $JSON --device '$DEVICE'"
    SAY="next: install this table where SGLang reads it, for that server on the $DEVICE:"
fi
# What install cannot find here and this checkout has: the FlashInfer version (the table's,
# where no Python imports FlashInfer) and the model's config.json (the Hub's own copy in
# tests/data/hf, where the Hugging Face cache has none). The first that --dry-run accepts.
FV=$(sed -n 's/.*"flashinfer_version": *"\([^"]*\)".*/\1/p' "$JSON" | head -n 1)
CFG=tests/data/hf/$MP/config.json
[ -f "$CFG" ] || CFG=$(cd "$(dirname "$0")/.." && pwd)/$CFG
[ -f "$CFG" ] || CFG=
try() { # EXTRA: the next step with these options, if --dry-run accepts it
    eval "$T install --for sglang $HOW $1 --dry-run -- $SERVER" >/dev/null 2>&1 &&
        NEXT="$T install --for sglang $HOW${1:+ $1} -- $SERVER"
}
NEXT=
try "" || try "--flashinfer $FV" || { [ -n "$CFG" ] && { try "--model-config $CFG" ||
    try "--flashinfer $FV --model-config $CFG"; }; } || true
if [ -z "$NEXT" ]; then
    NEXT="$T install --for sglang $HOW -- $SERVER"
    WHY=$(eval "$T install --for sglang $HOW --dry-run -- $SERVER" 2>&1 |
          sed -n 's/^tunetab: error: //p' | head -n 1)
    SAY="next (it does not run here yet: ${WHY:-see its errors}):"
fi
echo "$SAY"
echo "$NEXT"
