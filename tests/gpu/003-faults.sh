# 003-faults (GPU): a candidate that writes out of bounds (illegal address) and one that never
# ends (watchdog) each kill only the worker: the run finishes, both are reported failed in the
# journal, and the output is complete and valid.
set -eu
T=$TUNETAB
TUNETAB_TEST_FAULT=0 TUNETAB_TEST_HANG=45 $T generate --device auto --model qwen3-30b-a3b \
  --dtype bf16 --profile --backend proxy --max-tokens 4 --timeout 5 -o f 2>f.log || { cat f.log; exit 1; }
grep profiled f.log
crashed=$(grep -c crashed_the_GPU_worker f/*.journal || true)
hung=$(grep -c 'hung:_killed_by_the_watchdog' f/*.journal || true)
echo "crashed: $crashed, hung: $hung"
[ "$crashed" -gt 0 ] || { echo "the faulting candidate was not reported"; exit 1; }
[ "$hung" -gt 0 ] || { echo "the hanging candidate was not reported"; exit 1; }
$T validate f/*.py f/*.json
