# 005-devices-all (GPU): `generate --profile --devices all` runs one worker per GPU of GPU 0's
# model on one queue: every such GPU measures entries, and the table validates. On a machine
# with one GPU it checks that the single worker did all the work.
set -eu
T=$TUNETAB
n=$($T detect --json | python3 -c 'import json,sys; g=json.load(sys.stdin)["gpus"]; print(sum(x["name"] == g[0]["name"] for x in g))')
echo "GPUs of GPU 0's model: $n"
start=$(date +%s.%N)
$T generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile --backend proxy --devices all -v -o all 2>all.log || { cat all.log; exit 1; }
end=$(date +%s.%N)
grep -E 'profiled|from one queue' all.log || true
for k in $(seq 0 $((n - 1))); do
    c=$(grep -c "^tunetab: GPU $k GEMM" all.log || true)
    echo "GPU $k measured $c entries"
    [ "$c" -gt 0 ] || { echo "GPU $k did no work"; exit 1; }
done
if [ "$n" -gt 1 ]; then grep -q "$n GPUs of this model measured from one queue" all.log; fi
$T validate all/*.py all/*.json
python3 -c "print('wall time with $n GPU(s): %.2f s' % ($end - $start))"
