# 093-sigint: the outputs of a run are one transaction. generate writes the module, the JSON
# cache and the provenance file into a folder that holds an earlier run's (another TP, so
# another set of keys) and is interrupted with SIGINT at 40 moments: every time the folder
# holds one whole set (validate checks the provenance against both tables), never a temp file.
# TUNETAB_TEST_STAGE_DELAY_MS holds each staged file 30 ms, so most signals land while files
# are staged.
. "$ROOT/tests/lib.sh"
G="generate --device h200 --model qwen3-30b-a3b --dtype bf16 -q -o out --model-fit datasheet"
tunetab $G --tp 1
bad=0
said=0
i=0
while [ $i -lt 40 ]; do
    : >err.txt # a signal may come before the job has opened it
    TUNETAB_TEST_STAGE_DELAY_MS=30 "$TUNETAB" $G --tp $((i % 2 + 1)) 2>err.txt &
    pid=$!
    sleep "0.$((i % 2))$((i * 7 % 10))"
    kill -INT $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    if ls -A out | grep -q 'tmp'; then
        echo "run $i: temp files left: $(ls -A out | tr '\n' ' ')"
        bad=$((bad + 1))
    fi
    if ! tunetab validate -q out/* >val.txt 2>&1; then
        echo "run $i: not one whole set:"
        cat val.txt
        bad=$((bad + 1))
    fi
    # the message, when the signal came while the outputs were staged
    grep -q '^tunetab: interrupted; nothing written$' err.txt && said=$((said + 1))
    grep -v '^tunetab: interrupted; nothing written$' err.txt || true
    i=$((i + 1))
done
echo "40 interrupted runs: $bad left a broken folder"
[ "$said" -ge 10 ] && echo "10 or more were interrupted while staging and said so"
ls out
