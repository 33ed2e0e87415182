# 004-kill-resume (GPU): a profiled run killed with SIGKILL midway leaves no output file and a
# journal of whole measurements; the re-run resumes from it and writes a valid table.
set -eu
T=$TUNETAB
$T generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile -o k -q &
pid=$!
# kill as soon as the journal holds a few measurements (the run itself takes minutes)
i=0
while [ $i -lt 600 ]; do
    [ "$(cat k/*.journal 2>/dev/null | grep -c '^M ' || true)" -ge 5 ] && break
    kill -0 $pid 2>/dev/null || { echo "the run ended before it could be killed"; exit 1; }
    sleep 0.1
    i=$((i + 1))
done
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
