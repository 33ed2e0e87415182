#!/bin/sh
# report_check_selftest.sh [OUTDIR]: checks tests/report_check.py itself. Its PNG decoder must
# round-trip every filter type, and on the pages of tests/data/report/ it must give the expected
# result: good.html passes every check; each bad-*.html fails, and fails exactly the check(s)
# meant to catch it. One line per case; the checker's own output follows a case that is not as
# expected (or every case with VERBOSE=1). Screenshots go to OUTDIR (default: a temp folder,
# removed). Exit 0 when all is as expected, 1 otherwise, 77 (and no case run) without Chromium.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CHECK="$ROOT/tests/report_check.py"
PAGES="$ROOT/tests/data/report"
if [ $# -gt 0 ]; then
    OUTDIR=$1
    mkdir -p "$OUTDIR"
    TMP=$(mktemp -d)
else
    TMP=$(mktemp -d)
    OUTDIR=$TMP
fi
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0

if python3 "$CHECK" --selftest-png >"$TMP/png.out" 2>&1; then
    pass=$((pass + 1)); cat "$TMP/png.out"
else
    fail=$((fail + 1)); sed 's/^ok  /FAIL/' "$TMP/png.out"
fi

# page | expected exit | expected failing checks (sorted, comma-separated; empty: none)
while IFS='|' read -r page want_rc want_fail; do
    [ -z "$page" ] && continue
    out="$TMP/${page%.html}.out"
    start=$(date +%s)
    python3 "$CHECK" "$PAGES/$page" "$OUTDIR/${page%.html}.png" >"$out" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    if [ "$rc" -eq 77 ]; then
        cat "$out"
        echo "SKIP report_check self-test: no Chromium"
        exit 77
    fi
    got_fail=$(sed -n 's/^FAIL \([^:]*\):.*/\1/p' "$out" | LC_ALL=C sort | paste -sd, -)
    what="exit $rc, failed: ${got_fail:-none}"
    if [ "$rc" = "$want_rc" ] && [ "$got_fail" = "$want_fail" ]; then
        pass=$((pass + 1))
        echo "ok   $page: $what (as expected; ${secs} s)"
        [ -n "${VERBOSE:-}" ] && sed 's/^/       | /' "$out"
    else
        fail=$((fail + 1))
        echo "FAIL $page: $what; expected exit $want_rc, failed: ${want_fail:-none}"
        sed 's/^/       | /' "$out"
    fi
done <<'CASES'
good.html|0|
bad-console.html|1|console
bad-empty-chart.html|1|chart 1 marks
bad-missing-asset.html|1|resources
bad-blank.html|1|charts,not-blank
CASES

echo "report_check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
