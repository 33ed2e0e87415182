# lib.sh: helpers sourced by the numbered CLI test scripts (tests/cli, tests/gpu).
# run CMD...: prints "$ CMD", its stdout, its stderr after "--- stderr" when any, and
# "[exit N]". Absolute paths of the checkout print as <root>; RUN_SED, when set, is a sed
# script applied to all of it as well (a test's own folders).
set -eu
export LC_ALL=C
# without --flashinfer, tunetab targets the FlashInfer installed here: the expected outputs
# assume none (tests/cli/094 unsets this)
export TUNETAB_TEST_IGNORE_INSTALLED=1
# model fits in the user's folder (generate --model-fit auto, devices) must not change outputs
export XDG_CONFIG_HOME="${TT_TMP:-/tmp}/xdg-config"
tunetab() { "$TUNETAB" "$@"; }
run() {
    printf '$ %s\n' "$*" | sed -e "s|$ROOT|<root>|g" -e "${RUN_SED:-}"
    set +e
    "$@" >"$TT_TMP/out" 2>"$TT_TMP/err"
    rc=$?
    set -e
    sed -e "s|$ROOT|<root>|g" -e "${RUN_SED:-}" "$TT_TMP/out"
    if [ -s "$TT_TMP/err" ]; then
        echo "--- stderr"
        sed -e "s|$ROOT|<root>|g" -e "${RUN_SED:-}" "$TT_TMP/err"
    fi
    echo "[exit $rc]"
}
# hf_cache DIR MODEL...: a Hugging Face cache in DIR holding each model's files from
# tests/data/hf (config.json, and hf_quant_config.json where the checkpoint has one), as
# `huggingface-cli download` leaves them: refs/main naming one snapshot.
hf_cache() {
    dir=$1
    shift
    for m in "$@"; do
        r=$dir/models--$(echo "$m" | sed 's|/|--|'); c=0123456789abcdef0123456789abcdef01234567
        mkdir -p "$r/refs" "$r/snapshots/$c"
        printf %s $c >"$r/refs/main"
        cp "$ROOT/tests/data/hf/$m/"*.json "$r/snapshots/$c/"
    done
}
# fi_python FILE GPU [SGLANG VLLM]: a stand-in for the server's Python: it answers tunetab's
# environment probe (scripts/tunetab-fi-env.py's JSON) as FlashInfer 0.7.4 on that GPU with
# those consumer versions installed (default SGLang 0.5.23, vLLM 0.33.0). GPU may name a
# variable ('$SERVER_GPU'), read when the stand-in runs.
fi_python() {
    cat >"$1" <<PY
#!/bin/sh
echo '{"version": "0.7.4", "metadata": {"flashinfer_version": "0.7.4", "cuda_version": "13.0", "cublas_version": "13.1.0", "cudnn_version": "91500", "cudnn_frontend_version": "1.15.0", "cutlass_dsl_version": "unknown", "gpu": "'"$2"'"}, "consumers": {"sglang": "${3:-0.5.23}", "vllm": "${4:-0.33.0}"}, "modules": {"triton_kernels": false}}'
PY
    chmod +x "$1"
}

# fault_shim: builds tests/data/faults/shim.c (rename(), link() and write() that fail or kill on
# cue) into ./shim.so. fault VAR=VALUE... ARGS: then tunetab ARGS with the shim preloaded and
# those faults armed (ASan, in a sanitizer build, wants to be first of the preloaded libraries:
# told not to check). It runs in a subshell of a shell whose stderr is /dev/null, so the
# "Killed" a shell prints when its child dies of SIGKILL (worded differently by each shell)
# stays out of the output; tunetab's stderr reaches ours as fd 3.
fault_shim() { ${CC:-cc} -shared -fPIC -o shim.so "$ROOT/tests/data/faults/shim.c" -ldl; }
fault() {
    armed=""
    while case $1 in FAULT_*=*) true ;; *) false ;; esac; do armed="$armed $1"; shift; done
    sh -c '("$@" 2>&3); exit $?' sh env LD_PRELOAD="$PWD/shim.so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        $armed "$TUNETAB" "$@" 3>&2 2>/dev/null
}
