# 060-fuzz-regressions: every fuzz target's seeds (tests/fuzz/<target>/seeds) and every input
# a fuzzer found a bug with (tests/data/fuzz/<target>, docs/reliability.md "Fuzzing") replay
# through the same harness without a crash, hang or abort. The replay binaries are built by
# `make fuzz-replay` next to tunetab ($(BUILD)/fuzz_replay_<target>); this script compiles
# nothing. A failing target prints its exit status and the end of its stderr.
. "$ROOT/tests/lib.sh"
BIN_DIR=$(dirname "$TUNETAB")
for t in table_py table_json key yaml logscan lua journal fileset wire markdown launch; do
  bin="$BIN_DIR/fuzz_replay_$t"
  if [ ! -x "$bin" ]; then
    echo "$t: no replay binary ${bin#"$ROOT/"} (make fuzz-replay)"
    continue
  fi
  : >"$TT_TMP/inputs"
  for f in "$ROOT/tests/fuzz/$t/seeds/"* "$ROOT/tests/data/fuzz/$t/"*; do
    [ -f "$f" ] && printf '%s\n' "$f" >>"$TT_TMP/inputs"
  done
  n=$(wc -l <"$TT_TMP/inputs" | tr -d ' ')
  # all inputs in one run; after a failure, one run per input to name the ones that fail
  failed=0
  set +e
  tr '\n' '\0' <"$TT_TMP/inputs" | xargs -0 timeout 300 "$bin" >/dev/null 2>"$TT_TMP/replay.err"
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    while IFS= read -r f; do
      set +e
      timeout 60 "$bin" "$f" >/dev/null 2>"$TT_TMP/replay.err"
      rc=$?
      set -e
      if [ "$rc" -ne 0 ]; then
        failed=$((failed + 1))
        echo "$t: FAILED on ${f#"$ROOT/"} (exit $rc)"
        tail -n 20 "$TT_TMP/replay.err"
      fi
    done <"$TT_TMP/inputs"
    [ "$failed" -eq 0 ] && failed=1 && echo "$t: FAILED when run over all inputs (exit $rc)"
  fi
  if [ "$failed" -eq 0 ]; then
    echo "$t: $n inputs, ok"
  else
    echo "$t: $n inputs, $failed failed"
  fi
done
