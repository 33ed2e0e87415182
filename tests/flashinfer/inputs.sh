#!/usr/bin/env bash
# inputs.sh: the runners and tensors the flashinfer worker builds, for every dtype, checked by
# FlashInfer's own Python layer at 0.7.4 and at the oldest version a catalog covers for the dtype
# (nvfp4 0.2.9 on SM100 and 0.5.3 on SM120, mxfp8 0.5.3, w4a16_mxfp4 / w4a8 / w4a8_mxfp4 /
# fp8_block 0.6.18), its compiled module replaced by the recorder of recorder.py (the binding's
# rules of that version). Part of `make test` (tests/run-tests.sh); the venvs come from
# tests/flashinfer/setup.sh (make deps-flashinfer). Two ways:
#   profile  `tunetab generate --profile --backend flashinfer` itself, the worker on the CPU
#            (recorder_kernels.py): the C side's plan and PREP lines (key, runner arguments),
#            the worker's parse_job, _key_runner, _inputs, _check_key and prepare, FlashInfer's
#            MoERunner, get_valid_tactics and forward; every preparation logged ok or FAIL.
#   keys     fp8_block, which is not timed (FlashInfer's runner ignores the tactic): every key of
#            the table tunetab writes, built by the worker's code (fi_inputs.py).
# Usage: TUNETAB=path/to/tunetab inputs.sh [-v]. Prints one line per check ("ok"/"FAIL") and
# "inputs: N passed, N failed". Exit 0 all passed, 1 a check failed, 2 a venv is missing.
# inputs.sh --versions: the FlashInfer versions it needs (make deps-flashinfer sets them up).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
VENVS=${FI_VENV_DIR:-$root/.venv-flashinfer}
VERSIONS="0.2.9 0.5.3 0.6.18 0.7.4"
[ "${1:-}" = --versions ] && { echo "$VERSIONS"; exit 0; }
T=${TUNETAB:?TUNETAB=path/to/tunetab}
verbose=${1:-}
for v in $VERSIONS; do
    [ -x "$VENVS/$v/bin/python" ] ||
        { echo "inputs: no FlashInfer $v venv in $VENVS (make deps-flashinfer)"; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; sed 's/^/    /' "$2" | tail -15; }

H200="NVIDIA H200:9.0" B200="NVIDIA B200:10.0"
RTX="NVIDIA RTX PRO 6000 Blackwell Server Edition:12.0"
# profile VERSION DEVICE "NAME:CC" MODEL DTYPE [ARGS...]
profile() {
    local v=$1 dev=$2 gpu=$3 model=$4 dt=$5
    shift 5
    local what="profile $v $dev $model $dt${*:+ $*}" log=$work/log t0=$(date +%s)
    rm -f "$log"
    TUNETAB_FI_KERNELS=$here/recorder_kernels.py TUNETAB_RECORDER_DEVICE=$gpu TUNETAB_RECORDER_LOG=$log \
        "$T" generate --device "$dev" --model "$model" --dtype "$dt" --flashinfer "$v" --profile \
        --backend flashinfer --python "$VENVS/$v/bin/python" --max-tokens 16 --no-gate -q \
        -o "$work/out" "$@" >"$work/gen" 2>&1
    local rc=$?
    cat "$log" >>"$work/gen" 2>/dev/null
    if [ $rc = 0 ] && grep -q '^ok ' "$log" 2>/dev/null && ! grep -q '^FAIL ' "$log"; then
        ok "$what ($(( $(date +%s) - t0 )) s): $(grep -c '^ok ' "$log") preparations, $(sed -n 's/^ok   [^:]*: \([^,]*\) runner.*/\1/p' "$log" | sort -u | tr '\n' ';' | sed 's/;$//')"
        [ -n "$verbose" ] && sed 's/^/    /' "$log"
    else
        bad "$what (generate exit $rc)" "$work/gen"
    fi
    rm -rf "$work/out"
}
profile 0.2.9 b200 "$B200" qwen3-30b-a3b nvfp4
profile 0.5.3 b200 "$B200" qwen3-30b-a3b nvfp4
profile 0.5.3 b200 "$B200" qwen3-30b-a3b nvfp4 --input-view bf16
profile 0.5.3 b200 "$B200" qwen3-30b-a3b mxfp8
profile 0.5.3 rtx-pro-6000-server "$RTX" qwen3-30b-a3b nvfp4 --tp 2
profile 0.5.3 h200 "$H200" qwen3-30b-a3b fp8 --ep 4
profile 0.6.18 h200 "$H200" gpt-oss-20b w4a16_mxfp4
profile 0.6.18 h200 "$H200" qwen3-30b-a3b w4a8
profile 0.6.18 h200 "$H200" gpt-oss-20b w4a8_mxfp4
profile 0.6.18 h200 "$H200" qwen3-30b-a3b bf16 --fused-finalize off
profile 0.7.4 h200 "$H200" qwen3-30b-a3b bf16 --fused-finalize off
profile 0.7.4 h200 "$H200" qwen3-235b-a22b fp8 --ep 4
profile 0.7.4 h200 "$H200" gpt-oss-20b w4a16_mxfp4
profile 0.7.4 h200 "$H200" qwen3-30b-a3b w4a8
profile 0.7.4 h200 "$H200" gpt-oss-20b w4a8_mxfp4
profile 0.7.4 b200 "$B200" qwen3-30b-a3b nvfp4
profile 0.7.4 b200 "$B200" qwen3-30b-a3b nvfp4 --input-view bf16
profile 0.7.4 b200 "$B200" qwen3-30b-a3b mxfp8
profile 0.7.4 b200 "$B200" gpt-oss-20b fp8_mxfp4
profile 0.7.4 rtx-pro-6000-server "$RTX" qwen3-30b-a3b nvfp4 --tp 2
profile 0.7.4 rtx-pro-6000-server "$RTX" gpt-oss-20b fp8_mxfp4

# keys NAME VERSION DEVICE MODEL DTYPE [ARGS...]: NAME.keys, the keys of the table tunetab writes
keys() {
    local name=$1 v=$2 dev=$3 model=$4 dt=$5
    shift 5
    "$T" generate --device "$dev" --model "$model" --dtype "$dt" --flashinfer "$v" --max-tokens 16 \
        --format json -q -o "$work/$name" "$@" >"$work/gen" 2>&1 || return 1
    python3 -c 'import json,sys; print("".join(k + "\n" for k in json.load(open(sys.argv[1])) if k[0] == "("), end="")' \
        "$work/$name/"*.json >"$work/$name.keys"
}
# check VERSION SCHEMA SM NAME...: fi_inputs.py on those keys
check() {
    local v=$1 schema=$2 sm=$3
    shift 3
    local files=
    for n in "$@"; do files="$files $work/$n.keys"; done
    # shellcheck disable=SC2086
    if "$VENVS/$v/bin/python" "$here/fi_inputs.py" --schema "$root/schemas/flashinfer/$schema.yaml" \
        --sm "$sm" $files >"$work/fi" 2>&1; then
        ok "keys $v SM$sm ($*): $(tail -1 "$work/fi")"
        [ -n "$verbose" ] && sed '$d; s/^/    /' "$work/fi"
    else
        bad "keys $v SM$sm ($*)" "$work/fi"
    fi
}
# fp8_block is not timed (its runner ignores the tactic): its keys, as the worker would build them
if keys b-fp8_block 0.7.4 h200 qwen3-30b-a3b fp8_block --ep 4 &&
    keys o-fp8_block 0.6.18 h200 qwen3-30b-a3b fp8_block --ep 4; then
    check 0.7.4 v0_7_2 90 b-fp8_block
    check 0.6.18 v0_6_18 90 o-fp8_block
else
    bad "keys: tunetab generate failed" "$work/gen"
fi
echo "inputs: $pass passed, $fail failed"
[ $fail = 0 ]
