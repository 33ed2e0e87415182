# 002-profile (GPU): calibrate, then measured tables for Qwen3-30B-A3B bf16 TP 1 and
# DeepSeek-V3 fp8 EP 8 on this GPU; every written file passes tunetab validate. The GPU tests
# 002-007 name the proxy backend (with FlashInfer importable `auto` would time FlashInfer's
# kernels instead; 008 covers those).
set -eu
T=$TUNETAB
$T calibrate -o cal.yaml
cat cal.yaml
$T generate --device auto --model qwen3-30b-a3b --dtype bf16 --tp 1 --profile --backend proxy -o qwen 2>qwen.log || { cat qwen.log; exit 1; }
grep -E 'profiled|wrote' qwen.log
# most entries must be decided by measurement (a better candidate, or the fallback kept)
measured() { sed -n 's/.*: \([0-9]*\) entries measured, \([0-9]*\) kept the fallback.*/\1 \2/p' "$1" | awk '{print $1 + $2}'; }
entries() { sed -n 's/^tunetab: \([0-9]*\) entries (.*/\1/p' "$1"; }
m=$(measured qwen.log); e=$(entries qwen.log)
echo "qwen: $m of $e entries measured"
[ "${m:-0}" -ge $(( ${e:-1} * 9 / 10 )) ] || { echo "too few entries measured"; exit 1; }
$T validate qwen/*.py qwen/*.json
$T generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile --backend proxy -o dsv3 2>dsv3.log || { cat dsv3.log; exit 1; }
grep -E 'profiled|wrote' dsv3.log
m=$(measured dsv3.log); e=$(entries dsv3.log)
echo "dsv3: $m of $e entries measured"
[ "${m:-0}" -ge $(( ${e:-1} * 9 / 10 )) ] || { echo "too few entries measured"; exit 1; }
$T validate dsv3/*.py dsv3/*.json
$T generate --device auto --model qwen3-30b-a3b --dtype bf16 --calibration cal.yaml -o calq -q
$T validate -q calq/*.py calq/*.json && echo "calibrated heuristic-only table validates"
