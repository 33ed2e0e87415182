#!/bin/sh
# run-default.sh: `make run`'s job on its embedded default. Checks the data, shows the GPU
# (when there is one) and what FlashInfer would look up on the default target device.
set -eu
T=build/tunetab
DEFAULT_DEVICE="NVIDIA RTX PRO 6000 Blackwell Server Edition"
$T check-data
set +e
$T detect
rc=$?
set -e
if [ "$rc" -eq 4 ]; then
    echo "(no GPU here: showing the default target, $DEFAULT_DEVICE)"
elif [ "$rc" -ne 0 ]; then
    exit "$rc"
fi
$T catalog --device "$DEFAULT_DEVICE" --dtype nvfp4 --stage 1
