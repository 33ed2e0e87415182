# 004-kill-resume (GPU): a profiled run killed with SIGKILL midway leaves no output file and a
# journal of whole measurements; the re-run resumes from it and writes a valid table.
set -eu
T=$TUNETAB
$T generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile -o k -q &
pid=$!
sleep 4
kill -9 $pid
wait $pid 2>/dev/null || true
n=$(grep -c '^M ' k/*.journal || true)
echo "journal after SIGKILL: $n measurements"
[ "$n" -gt 0 ]
ls k/*.py 2>/dev/null && { echo "a table was written before the run finished"; exit 1; }
$T generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile -o k 2>k.log || { cat k.log; exit 1; }
grep profiled k.log
grep -q "[1-9][0-9]* resumed from the journal" k.log
$T validate k/*.py k/*.json
