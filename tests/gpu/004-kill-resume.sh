# 004-kill-resume (GPU): a profiled run killed with SIGKILL at random moments, 8 times over
# (the worker, a separate process, is killed with it or dies with its pipe), leaves no output
# file and a journal of whole measurements that only grows; the final re-run resumes from it
# and writes a valid table.
set -eu
T=$TUNETAB
G="$T generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile --backend proxy -o k -q"
i=0 prev=0
while [ $i -lt 8 ]; do
    i=$((i + 1))
    $G 2>/dev/null &
    pid=$!
    sleep "$(awk -v s=$i 'BEGIN { srand(s * 7919); printf "%.3f", 0.3 + rand() * 1.2 }')"
    kill -9 $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    pkill -9 -f "tunetab __worker" 2>/dev/null || true
    n=$(grep -c '^M ' k/*.journal 2>/dev/null || true)
    whole=$(grep -c '^M [0-9-]* [0-9]* [0-9]* [0-9] [0-9.]* [0-9.]* [0-9.]* [0-9]* [^ ]*$' k/*.journal 2>/dev/null || true)
    echo "kill $i: journal holds ${n:-0} measurements (${whole:-0} whole lines)"
    [ $(( ${n:-0} - ${whole:-0} )) -le 1 ] || { echo "torn lines in the journal"; exit 1; }
    [ "${whole:-0}" -ge "$prev" ] || { echo "the journal shrank"; exit 1; }
    prev=${whole:-0}
    if ls k/*.py >/dev/null 2>&1 && ! $T validate -q k/*.py; then echo "a half-written table"; exit 1; fi
done
[ "$prev" -gt 0 ]
$T generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile --backend proxy -o k 2>k.log || { cat k.log; exit 1; }
grep profiled k.log
grep -q "[1-9][0-9]* resumed from the journal" k.log
$T validate k/*.py k/*.json
