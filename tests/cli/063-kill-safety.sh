# 063-kill-safety: SIGKILL at many random points never leaves a half-written table. A heuristic
# generate is killed 40 times at random moments over an existing output of another deployment
# (same file names): each time the files are either the old ones byte for byte or complete new
# ones that validate. Then a profiled run (fake GPU backend, slowed down) is killed 12 times at
# random moments and rerun each time: the journal only grows by whole lines, and the final
# table is the uninterrupted run's, byte for byte.
. "$ROOT/tests/lib.sh"
PY=v0_1_trtllm_fused_moe_NVIDIA_H200.py
JS=flashinfer_autotune_NVIDIA_H200.json
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 -o old -q
tunetab generate --device h200 --model mixtral-8x7b --dtype bf16 -o new -q
cmp -s old/$PY new/$PY && { echo "the two deployments must differ"; exit 1; }
# how long one run takes here: the kills are spread over 1.5 times that
t0=$(date +%s%N)
tunetab generate --device h200 --model mixtral-8x7b --dtype bf16 -o timing -q
run_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
old=0 new=0 bad=0
i=0
while [ $i -lt 40 ]; do
    i=$((i + 1))
    rm -rf t && cp -r old t
    "$TUNETAB" generate --device h200 --model mixtral-8x7b --dtype bf16 -o t -q 2>/dev/null &  # a kill during the sanitizer's exit scan makes it print
    pid=$!
    sleep "$(awk -v s=$i -v ms=$run_ms 'BEGIN { srand(s * 7919); printf "%.4f", rand() * 1.5 * ms / 1000 }')"
    kill -9 $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    for f in $PY $JS; do
        if cmp -s t/$f old/$f; then old=$((old + 1))
        elif cmp -s t/$f new/$f && tunetab validate -q t/$f >/dev/null 2>&1; then new=$((new + 1))
        else bad=$((bad + 1)); echo "kill $i: $f is neither the old file nor the complete new one"; fi
    done
done
echo "heuristic: 40 kills, 80 files checked, $bad neither old nor complete new"
[ -n "${KILL_VERBOSE:-}" ] && echo "  (old $old, new $new)"
[ $((old + new)) -eq 80 ] && echo "heuristic: every file was the old one or the complete new one"

export TUNETAB_FAKE_GPU=1 TUNETAB_FAKE_DELAY_MS=15
G="$TUNETAB generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile"
TUNETAB_FAKE_DELAY_MS=0 $G -o ref -q
i=0 torn=0 prev=0
while [ $i -lt 12 ]; do
    i=$((i + 1))
    $G -o k -q 2>/dev/null &
    pid=$!
    sleep "0.$(awk -v s=$i 'BEGIN { srand(s * 104729); printf "%02d", 5 + int(rand() * 30) }')"
    kill -9 $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    j=k/v0_1_trtllm_fused_moe_NVIDIA_H200.journal
    if [ -f $j ]; then
        # every line but possibly a torn last one is a whole record
        whole=$(grep -c '^M [0-9-]* [0-9]* [0-9]* [0-9] [0-9.]* [0-9.]* [0-9.]* [0-9]* [^ ]*$' $j || true)
        lines=$(grep -c '^M ' $j || true)
        [ $((lines - whole)) -le 1 ] || torn=$((torn + 1))
        [ "$whole" -ge "$prev" ] || torn=$((torn + 1))
        prev=$whole
    fi
    if [ -f k/$PY ] && ! tunetab validate -q k/$PY >/dev/null 2>&1; then
        echo "kill $i: a module that does not validate"; torn=$((torn + 1))
    fi
done
echo "profiled: 12 kills, $torn journals or tables damaged"
TUNETAB_FAKE_DELAY_MS=0 $G -o k 2>&1 | grep -o '[0-9]* resumed from the journal' | sed 's/^[0-9]*/N/'
cmp k/$PY ref/$PY && echo "profiled: resumed after 12 kills, same bytes as the uninterrupted run"
