# 231-hostile-heuristics: issue #48 item 2. Every heuristic in tests/data/hostile (one attack
# each, named on its first line) asks the sandbox for C work that grows with its input, or
# loops, recurses, floods or swallows errors: each ends with exit 3 and writes no file, at the
# default limits (the work is charged to the instruction budget or capped, and the CPU-time
# backstop ends what no charge counts: scripts/README.md, "What C work costs"). make bench
# times them (docs/benchmarks.md, "Hostile heuristics"); no timing here. Which of the count and
# the CPU-time backstop ends a script first depends on the machine: " in CPU time (T s)" is cut,
# and so is the line and column of a budget error (the backstop stops a script wherever it runs:
# the sanitizer pass saw line 2 of table-concat-sep, where the count stops it at line 5); "L:C"
# keeps that it had one.
. "$ROOT/tests/lib.sh"
for f in "$ROOT"/tests/data/hostile/*.lua; do
  name=$(basename "$f" .lua)
  set +e
  timeout 20 "$TUNETAB" generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 4 \
    --heuristic "$f" -o "out-$name" -q >"$TT_TMP/out" 2>"$TT_TMP/err"
  rc=$?
  set -e
  files=$(find "out-$name" -type f 2>/dev/null | sort | tr '\n' ' ')
  echo "$name: exit $rc, outputs: ${files:-none}"
  [ -s "$TT_TMP/out" ] && echo "  stdout: $(wc -c <"$TT_TMP/out") bytes"
  grep -m1 'tunetab: error:' "$TT_TMP/err" |
    sed -e "s|$ROOT|<root>|g" -e 's/ in CPU time ([0-9.]* s)//' \
        -e '/exceeded its instruction budget/s/\.lua:[0-9][0-9]*:[0-9][0-9]*:/.lua:L:C:/' | cut -c1-200 | sed 's/^/  /'
done
