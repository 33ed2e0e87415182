# 002-profile (GPU): calibrate, then measured tables for Qwen3-30B-A3B bf16 TP 1 and
# DeepSeek-V3 fp8 EP 8 on this GPU; every written file passes tunetab validate.
set -eu
T=$TUNETAB
$T calibrate -o cal.yaml
cat cal.yaml
$T generate --device auto --model qwen3-30b-a3b --dtype bf16 --tp 1 --profile -o qwen 2>qwen.log || { cat qwen.log; exit 1; }
grep -E 'profiled|wrote' qwen.log
$T validate qwen/*.py qwen/*.json
$T generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile -o dsv3 2>dsv3.log || { cat dsv3.log; exit 1; }
grep -E 'profiled|wrote' dsv3.log
$T validate dsv3/*.py dsv3/*.json
$T generate --device auto --model qwen3-30b-a3b --dtype bf16 --calibration cal.yaml -o calq -q
$T validate -q calq/*.py calq/*.json && echo "calibrated heuristic-only table validates"
