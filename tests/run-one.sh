#!/bin/sh
# run-one.sh BUILD_DIR TEST...: the CLI scripts named (tests/cli/NNN-*.sh, or just NNN) against
# their golden output, as tests/run-tests.sh runs each, for a quick loop while developing
# (make test runs them all). One line per test, then "N passed, N failed".
set -u
BUILD=$1
shift
ROOT=$(pwd)
TUNETAB=$ROOT/$BUILD/tunetab
export ROOT TUNETAB LC_ALL=C
pass=0 fail=0
for arg in "$@"; do
    for t in $arg tests/cli/$arg-*.sh; do
        [ -f "$t" ] || continue
        work=$(mktemp -d)
        mkdir "$work/.tt"
        (cd "$work" && TT_TMP="$work/.tt" sh "$ROOT/$t") >"$work/actual" 2>&1 ||
            echo "[test script stopped: exit $?]" >>"$work/actual"
        if [ -n "${UPDATE:-}" ]; then cp "$work/actual" "${t%.sh}.expected"; fi
        if cmp -s "${t%.sh}.expected" "$work/actual"; then
            pass=$((pass + 1)); echo "ok   $t"
        else
            fail=$((fail + 1)); echo "FAIL $t"; diff -u "${t%.sh}.expected" "$work/actual" | head -40
        fi
        rm -rf "$work"
    done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
