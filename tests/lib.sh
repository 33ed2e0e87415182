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
