#!/bin/sh
# run-tests.sh BUILD_DIR [gpu|all] [SAN_BUILD_DIR]: every test of `make test` (or
# `make test-gpu`), one line per failure and a closing "N passed, N failed, N skipped".
# With SAN_BUILD_DIR the broken-input corpora run a second time under ASan+UBSan and must
# give the same bytes (a sanitizer report would differ).
#   unit tests          BUILD_DIR/unit_tests
#   data check          every YAML file under configs/ and schemas/ (tunetab check-data)
#   broken data         tests/data/yaml/*.yaml against their *.expected golden files
#   broken tables       tests/data/tables/<case>/ (table + args) against <case>/expected
#   CLI scripts         tests/cli/NNN-*.sh against NNN-*.expected
#   FlashInfer inputs   tests/flashinfer/inputs.sh (every dtype against FlashInfer's Python layer)
#   ops at start        tests/ops_cases.sh (every op's keys against FlashInfer's own tuner)
#   GPU scripts         tests/gpu/NNN-*.sh (skipped, and said so, without a GPU)
# UPDATE=1 rewrites the golden files instead of comparing.
set -u
BUILD=$1
MODE=${2:-all}
SAN=${3:-}
ROOT=$(pwd)
TUNETAB=$ROOT/$BUILD/tunetab
export ROOT TUNETAB LC_ALL=C
TT_TMP=$(mktemp -d)
export TT_TMP
trap 'rm -rf "$TT_TMP"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); [ -n "${VERBOSE:-}" ] && echo "ok   $1"; return 0; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# Golden comparison: $1 name, $2 expected file, $3 actual file.
golden() {
    if [ -n "${UPDATE:-}" ]; then
        cp "$3" "$2"
        ok "$1"
    elif [ -f "$2" ] && cmp -s "$2" "$3"; then
        ok "$1"
    else
        bad "$1"
        if [ -f "$2" ]; then diff -u "$2" "$3" | head -40; else echo "  (no golden file $2)"; fi
    fi
}

have_gpu=0
if "$TUNETAB" detect >/dev/null 2>&1; then have_gpu=1; fi

if [ "$MODE" != gpu ]; then
    # unit tests
    if "$BUILD/unit_tests" >"$TT_TMP/unit.out" 2>"$TT_TMP/unit.err"; then :; fi
    line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed' "$TT_TMP/unit.out" || true)
    if [ -z "$line" ]; then
        bad "unit tests (no summary line)"
        cat "$TT_TMP/unit.err"
    else
        p=$(echo "$line" | sed 's/unit: \([0-9]*\) passed.*/\1/')
        f=$(echo "$line" | sed 's/.* \([0-9]*\) failed/\1/')
        pass=$((pass + p))
        fail=$((fail + f))
        [ "$f" -gt 0 ] && cat "$TT_TMP/unit.err"
    fi

    # every YAML data file, strictly
    if "$TUNETAB" check-data >"$TT_TMP/cd.out" 2>&1; then ok "check-data"; else bad "check-data"; cat "$TT_TMP/cd.out"; fi

    corpora() { # $1 binary, $2 label
        BIN=$1
        # broken data files and their exact diagnostics
        for f in tests/data/yaml/*.yaml; do
            [ -e "$f" ] || continue
            {
                set +e
                "$BIN" check-data "$f" 2>&1
                echo "[exit $?]"
                set -e
            } >"$TT_TMP/actual" 2>&1
            golden "$f$2" "${f%.yaml}.expected" "$TT_TMP/actual"
        done
        # broken tuning tables and their exact diagnostics (tunetab validate)
        for dir in tests/data/tables/*/; do
            [ -d "$dir" ] || continue
            f=$(ls "$dir" | grep -v -x -e args -e expected | head -n 1)
            args=$(cat "$dir/args" 2>/dev/null || true)
            (
                cd "$dir" || exit 1
                set +e
                # shellcheck disable=SC2086
                "$BIN" validate $args "$f" 2>&1
                echo "[exit $?]"
            ) >"$TT_TMP/actual" 2>&1
            golden "${dir%/}$2" "${dir}expected" "$TT_TMP/actual"
        done
    }
    corpora "$TUNETAB" ""
    if [ -n "$SAN" ]; then
        if [ -n "${UPDATE:-}" ]; then :; else
            ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 corpora "$ROOT/$SAN/tunetab" " (san)"
        fi
    fi

    # CLI scripts
    for t in tests/cli/[0-9]*.sh; do
        [ -e "$t" ] || continue
        if grep -q '^# requires: nogpu' "$t" && [ "$have_gpu" = 1 ]; then
            skip=$((skip + 1)); echo "skip $t (needs a machine without GPU)"; continue
        fi
        if grep -q '^# requires: fixtures' "$t" && [ ! -d "$ROOT/../shared/fixtures" ]; then
            skip=$((skip + 1)); echo "skip $t (no ../shared/fixtures beside the checkout)"; continue
        fi
        if grep -q '^# requires: zsh' "$t" && ! command -v zsh >/dev/null 2>&1; then
            skip=$((skip + 1)); echo "skip $t (no zsh on this machine; make deps-test installs it)"; continue
        fi
        fi_venv=${FI_VENV_DIR:-$ROOT/.venv-flashinfer}
        if grep -q '^# requires: flashinfer-0.7.4' "$t" && [ ! -x "$fi_venv/0.7.4/bin/python" ]; then
            skip=$((skip + 1))
            echo "skip $t (no FlashInfer 0.7.4 venv at $fi_venv/0.7.4; make deps-flashinfer makes it)"
            continue
        fi
        # each script in a fresh folder, with its own scratch space for lib.sh's run()
        work=$(mktemp -d "$TT_TMP/cli.XXXXXX")
        mkdir "$work/.tt"
        # a script that stops early fails its golden with the reason, not the whole run
        (cd "$work" && TT_TMP="$work/.tt" sh "$ROOT/$t") >"$TT_TMP/actual" 2>&1 ||
            echo "[test script stopped: exit $?]" >>"$TT_TMP/actual"
        golden "$t" "${t%.sh}.expected" "$TT_TMP/actual"
        rm -rf "$work"
    done

    # every dtype's runner and tensors, as the flashinfer worker builds them, against FlashInfer's
    # Python layer at 0.7.4 and the oldest version a catalog covers (venvs: make deps-flashinfer)
    # (the corpora above leave errexit on: every status here is taken, none left to end the run)
    if TUNETAB=$TUNETAB bash tests/flashinfer/inputs.sh >"$TT_TMP/fi.out" 2>&1; then rc=0; else rc=$?; fi
    p=$(grep -c '^ok ' "$TT_TMP/fi.out" || true)
    f=$(grep -c '^FAIL ' "$TT_TMP/fi.out" || true)
    pass=$((pass + p))
    fail=$((fail + f))
    if [ "$f" -gt 0 ]; then
        grep -A15 '^FAIL ' "$TT_TMP/fi.out" | grep -v '^ok ' | sed 's/^FAIL /FAIL tests\/flashinfer\/inputs.sh: /'
    elif [ $rc != 0 ]; then
        bad "tests/flashinfer/inputs.sh (exit $rc)"; tail -5 "$TT_TMP/fi.out"
    fi
    # every op a server tunes at start (issue #39): the key set tunetab writes for four GLM-5
    # NVFP4 deployments against the one FlashInfer's own tuner computes, op by op
    if TUNETAB=$TUNETAB bash tests/ops_cases.sh >"$TT_TMP/ops.out" 2>&1; then rc=0; else rc=$?; fi
    p=$(sed -n 's/^ops keys: \([0-9]*\) checks passed, \([0-9]*\) failed$/\1/p' "$TT_TMP/ops.out")
    f=$(sed -n 's/^ops keys: \([0-9]*\) checks passed, \([0-9]*\) failed$/\2/p' "$TT_TMP/ops.out")
    pass=$((pass + ${p:-0}))
    fail=$((fail + ${f:-0}))
    if [ "${f:-0}" -gt 0 ] || [ $rc != 0 ]; then
        [ "${f:-0}" -gt 0 ] || fail=$((fail + 1))
        echo "FAIL tests/ops_cases.sh (exit $rc):"; sed 's/^/    /' "$TT_TMP/ops.out" | tail -25
    fi
fi

# GPU scripts
for t in tests/gpu/[0-9]*.sh; do
    [ -e "$t" ] || continue
    if [ "$have_gpu" = 0 ]; then
        skip=$((skip + 1))
        echo "skip $t (no GPU on this machine; run 'make test-gpu' where one is)"
        [ "$MODE" = gpu ] && bad "$t: make test-gpu needs a GPU"
        continue
    fi
    work=$(mktemp -d "$TT_TMP/gpu.XXXXXX")
    mkdir "$work/.tt"
    if (cd "$work" && TT_TMP="$work/.tt" sh "$ROOT/$t") >"$TT_TMP/gpu.out" 2>&1; then
        ok "$t"; [ -n "${VERBOSE:-}" ] && cat "$TT_TMP/gpu.out"
    else
        bad "$t"; cat "$TT_TMP/gpu.out"
    fi
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
