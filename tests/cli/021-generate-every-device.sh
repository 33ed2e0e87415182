# 021-generate-every-device: every device x model preset x dtype the catalogs support, with
# the default heuristic under an assertion wrapper (tests/data/scripts/check_default.lua: it
# never ranks a non-dispatchable candidate or one whose tile does not fit shared memory);
# every written file must pass tunetab validate.
. "$ROOT/tests/lib.sh"
devices=$(tunetab devices --json | python3 -c 'import json,sys; print(" ".join(d["id"] for d in json.load(sys.stdin)))')
models=$(tunetab models --json | python3 -c 'import json,sys; print(" ".join(m["id"] for m in json.load(sys.stdin)))')
ok=0 nocat=0 bad=0 files=0
for dev in $devices; do
  for dt in nvfp4 fp8 bf16; do
    for m in $models; do
      set +e
      tunetab generate --device "$dev" --model "$m" --dtype "$dt" --ep 1 -o "g/$dev-$dt-$m" -q \
        --heuristic "$ROOT/tests/data/scripts/check_default.lua" 2>err
      rc=$?
      set -e
      if [ $rc -eq 0 ]; then ok=$((ok + 1));
      elif grep -q "no tactic catalog" err; then nocat=$((nocat + 1)); break;
      else bad=$((bad + 1)); echo "FAILED: $dev $dt $m"; cat err; fi
    done
  done
done
files=$(ls g/*/* | wc -l)
set +e
tunetab validate -q g/*/* > validate.out
rc=$?
set -e
grep -c ': error: ' validate.out || true
echo "generated: $ok, no catalog (device x dtype): $nocat, failed: $bad; validate of $files files: exit $rc"
