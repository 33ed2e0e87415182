#!/usr/bin/env bash
# ops_cases.sh: issue #39's CPU check. For the four GLM-5 NVFP4 TP 8 deployments (SGLang 0.5.23
# and vLLM 0.34.0, each on an RTX PRO 6000 Blackwell Server and on a B200, FlashInfer 0.7.4),
# and SGLang's RTX PRO 6000 one with FlashInfer 0.6.18 (the oldest venv in which fp4_gemm's
# key layout holds; its keys there are checked by 0.6.18's own tuner),
# `tunetab generate --for` writes its JSON cache, and tests/flashinfer/ops_keys.sh recomputes,
# op by op, the keys FlashInfer 0.7.4's own tuner builds for the same calls (--forward: the
# runner's forward once through the recorded bindings). Then it shows the check fails on one
# wrong dimension: the oracle with a call field off (--mutate), and a table with one key's
# dimension edited. One line per op, no paths or times; last line "ops keys: N checks passed,
# N failed". Exit 0 all passed, 1 a check failed, 2 no FlashInfer 0.7.4 venv or no tunetab.
# Env: TUNETAB (default <root>/build/tunetab), ROOT (default this checkout), FI_VENV_DIR
# (default <root>/.venv-flashinfer; the venv is FI_VENV_DIR/0.7.4, made by make deps-flashinfer).
set -eu
export LC_ALL=C
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
TUNETAB=${TUNETAB:-$ROOT/build/tunetab}
export FI_VENV_DIR=${FI_VENV_DIR:-$ROOT/.venv-flashinfer}
py=$FI_VENV_DIR/0.7.4/bin/python
ops_keys=$ROOT/tests/flashinfer/ops_keys.sh
if [ ! -x "$py" ]; then
    echo "ops_cases: no FlashInfer 0.7.4 venv at $py (make deps-flashinfer, or set FI_VENV_DIR)" >&2
    exit 2
fi
if [ ! -x "$TUNETAB" ]; then
    echo "ops_cases: no tunetab at $TUNETAB (make, or set TUNETAB)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
model=$ROOT/tests/data/hf/nvidia/GLM-5-NVFP4/config.json
passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); }

# gen NAME CONSUMER VERSION DEVICE -- LAUNCH...: the deployment's cache and provenance in
# $tmp/NAME, for FlashInfer $FI_VERSION
gen() {
    local name=$1 for=$2 ver=$3 dev=$4
    shift 5
    "$TUNETAB" generate -q --for "$for" --device "$dev" --consumer-version "$ver" \
        --flashinfer "$FI_VERSION" --model-config "$model" -o "$tmp/$name" -- "$@" \
        >"$tmp/$name.gen.out" 2>&1
}
table() { ls "$tmp/$1"/flashinfer_autotune_*.json; }
prov() { ls "$tmp/$1"/tunetab_provenance_*.json; }

# keys NAME [ops_keys.py options]: ops_keys' stdout in $tmp/out (FlashInfer's log lines, which
# go to stderr, in $tmp/err); its exit status in $rc
keys() {
    local name=$1 t=${TABLE:-}
    shift
    set +e
    "$ops_keys" "${t:-$(table "$name")}" "$(prov "$name")" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
}
harness_error() {
    echo "  ops_keys exit $rc:"
    grep -v '\[INFO\]\|^[0-9-]* [0-9:.,]* - INFO' "$tmp/err" | tail -5 | sed 's/^/    /'
}

deployments="
sglang-rtx|0.7.4|sglang|0.5.23|rtx-pro-6000-server|python -m sglang.launch_server --model-path nvidia/GLM-5-NVFP4 --tp 8 --quantization modelopt_fp4
sglang-b200|0.7.4|sglang|0.5.23|b200|python -m sglang.launch_server --model-path nvidia/GLM-5-NVFP4 --tp 8 --quantization modelopt_fp4
vllm-rtx|0.7.4|vllm|0.34.0|rtx-pro-6000-server|vllm serve nvidia/GLM-5-NVFP4 -tp 8
vllm-b200|0.7.4|vllm|0.34.0|b200|vllm serve nvidia/GLM-5-NVFP4 -tp 8
sglang-rtx-0618|0.6.18|sglang|0.5.23|rtx-pro-6000-server|python -m sglang.launch_server --model-path nvidia/GLM-5-NVFP4 --tp 8 --quantization modelopt_fp4"

while IFS='|' read -r name FI_VERSION for ver dev launch; do
    [ -n "$name" ] || continue
    export FI_VERSION
    echo "== $for $ver on $dev, FlashInfer $FI_VERSION: $launch"
    # shellcheck disable=SC2086  # the launch command's words
    if ! gen "$name" "$for" "$ver" "$dev" -- $launch; then
        echo "  tunetab generate failed:"
        sed 's/^/    /' "$tmp/$name.gen.out"
        fail
        continue
    fi
    keys "$name" --forward
    cat "$tmp/out"
    if [ "$rc" -gt 1 ]; then
        harness_error
        fail
        continue
    fi
    p=$(grep -c ': equal\|^  forward ok$' "$tmp/out" || true)
    f=$(grep -c ': differ\|^  forward: \|^  entry not ' "$tmp/out" || true)
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "  ops_keys exit $rc without a differing line"
        fail
    fi
done <<EOF
$deployments
EOF

# must_differ LABEL OP... : the last keys run exits 1 and says "differ" for each OP (and only
# those), or the check's failure to fail is a failure
must_differ() {
    local label=$1 op bad=0
    shift
    if [ "$rc" -ne 1 ]; then
        bad=1
    fi
    for op in "$@"; do
        grep -q "^$op: .*: differ" "$tmp/out" || bad=1
    done
    if [ "$(grep -c ': differ' "$tmp/out" || true)" -ne $# ]; then
        bad=1
    fi
    if [ "$bad" -eq 0 ]; then
        echo "$label: differ (as it must)"
        pass
    else
        echo "$label: NOT detected (ops_keys exit $rc)"
        sed 's/^/  /' "$tmp/out" | grep -v '^  *only \|^  *forward'
        [ "$rc" -le 1 ] || harness_error
        fail
    fi
}

export FI_VERSION=0.7.4
echo "== one wrong dimension"
if [ -d "$tmp/sglang-rtx" ]; then
    keys sglang-rtx --mutate n=32
    must_differ "mutated n+32 (sglang rtx-pro-6000-server)" "fp4_gemm CutlassFp4GemmRunner"
    keys sglang-rtx --mutate hidden=16
    must_differ "mutated hidden+16 (sglang rtx-pro-6000-server)" \
        "trtllm::fused_moe::gemm1 MoERunner" "trtllm::fused_moe::gemm2 MoERunner"
    # the first fp4_gemm key with b's N (profile[1], (K/2, N)) 32 larger: one number edited
    "$py" - "$(table sglang-rtx)" "$tmp/edited.json" <<'PY'
import ast, json, sys
t = json.load(open(sys.argv[1]))
k = next(k for k in t if k.startswith("('fp4_gemm',"))
op, runner, prof, extras = ast.literal_eval(k)
b = prof[1]
prof = (prof[0], (b[0], b[1] + 32)) + prof[2:]
new = str((op, runner, prof, extras))
assert new != k and new.replace(str(b[1] + 32), str(b[1]), 1) == k, (k, new)
t = {(new if key == k else key): v for key, v in t.items()}
json.dump(t, open(sys.argv[2], "w"), indent=1)
PY
    TABLE=$tmp/edited.json keys sglang-rtx
    must_differ "table with the first fp4_gemm key's N+32 (sglang rtx-pro-6000-server)" \
        "fp4_gemm CutlassFp4GemmRunner"
else
    echo "no sglang rtx-pro-6000-server table: the mutations not run"
    fail
fi
if [ -d "$tmp/sglang-b200" ]; then
    keys sglang-b200 --mutate hidden=16
    must_differ "mutated hidden+16 (sglang b200)" "flashinfer::trtllm_fp4_block_scale_moe MoERunner"
fi

echo "ops keys: $passed checks passed, $failed failed"
[ "$failed" -eq 0 ]
