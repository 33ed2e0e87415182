#!/usr/bin/env bash
# inputs.sh: every dtype's keys, as tunetab generates them, built by the flashinfer worker's own
# code into FlashInfer's MoERunner and tensors and checked by FlashInfer 0.7.4's Python layer
# with a recorder in place of its compiled module (fi_inputs.py). Needs the 0.7.4 venv of
# setup.sh (skipped, and said so, without it) and TUNETAB. Exit 1 when FlashInfer would refuse
# a runner or tensor the worker builds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
VENVS=${FI_VENV_DIR:-$root/.venv-flashinfer}
PY=$VENVS/0.7.4/bin/python
[ -x "$PY" ] || { echo "skip inputs: no $VENVS/0.7.4 (tests/flashinfer/setup.sh 0.7.4)"; exit 0; }
T=${TUNETAB:?TUNETAB=path/to/tunetab}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
keys() { # NAME DEVICE MODEL DTYPE [ARGS...]: NAME.keys, the table's keys
    local name=$1 dev=$2 model=$3 dt=$4
    shift 4
    "$T" generate --device "$dev" --model "$model" --dtype "$dt" --flashinfer 0.7.4 --max-tokens 16 \
        --format json -q -o "$work/$name" "$@" || return 1
    python3 -c 'import json,sys; print("".join(k + "\n" for k in json.load(open(sys.argv[1])) if k[0] == "("), end="")' \
        "$work/$name/"*.json >"$work/$name.keys"
}
rc=0
keys sm90-bf16 h200 qwen3-30b-a3b bf16 && keys sm90-fp8 h200 qwen3-235b-a22b fp8 --ep 4 &&
    keys sm90-fp8_block h200 deepseek-v3 fp8_block --ep 8 && keys sm90-w4a16_mxfp4 h200 gpt-oss-20b w4a16_mxfp4 &&
    keys sm90-w4a8 h200 qwen3-30b-a3b w4a8 && keys sm90-w4a8_mxfp4 h200 gpt-oss-20b w4a8_mxfp4 &&
    keys sm90-off h200 qwen3-30b-a3b bf16 --fused-finalize off || rc=1
keys sm100-nvfp4 b200 qwen3-30b-a3b nvfp4 && keys sm100-nvfp4-bf16in b200 qwen3-30b-a3b nvfp4 --input-view bf16 &&
    keys sm100-fp8 b200 qwen3-30b-a3b fp8 && keys sm100-mxfp8 b200 qwen3-30b-a3b mxfp8 &&
    keys sm100-fp8_mxfp4 b200 gpt-oss-20b fp8_mxfp4 || rc=1
keys sm120-nvfp4 rtx-pro-6000-server qwen3-30b-a3b nvfp4 --tp 2 &&
    keys sm120-fp8_mxfp4 rtx-pro-6000-server gpt-oss-20b fp8_mxfp4 || rc=1
[ $rc = 0 ] || { echo "inputs: tunetab generate failed"; exit 1; }
S=$root/schemas/flashinfer/v0_7_2.yaml
"$PY" "$here/fi_inputs.py" --schema "$S" --sm 90 "$work"/sm90-*.keys || rc=1
"$PY" "$here/fi_inputs.py" --schema "$S" --sm 100 "$work"/sm100-*.keys || rc=1
"$PY" "$here/fi_inputs.py" --schema "$S" --sm 120 "$work"/sm120-*.keys || rc=1
exit $rc
