# lib.sh: helpers sourced by the numbered CLI test scripts (tests/cli, tests/gpu).
# run CMD...: prints "$ CMD", its stdout, its stderr after "--- stderr" when any, and
# "[exit N]". Absolute paths of the checkout print as <root>.
set -eu
export LC_ALL=C
# without --flashinfer, tunetab targets the FlashInfer installed here: the expected outputs
# assume none (tests/cli/094 unsets this)
export TUNETAB_TEST_IGNORE_INSTALLED=1
# model fits in the user's folder (generate --model-fit auto, devices) must not change outputs
export XDG_CONFIG_HOME="${TT_TMP:-/tmp}/xdg-config"
tunetab() { "$TUNETAB" "$@"; }
run() {
    printf '$ %s\n' "$*" | sed "s|$ROOT|<root>|g"
    set +e
    "$@" >"$TT_TMP/out" 2>"$TT_TMP/err"
    rc=$?
    set -e
    sed "s|$ROOT|<root>|g" "$TT_TMP/out"
    if [ -s "$TT_TMP/err" ]; then
        echo "--- stderr"
        sed "s|$ROOT|<root>|g" "$TT_TMP/err"
    fi
    echo "[exit $rc]"
}
