# 012-gate: the correctness gate on FlashInfer's real kernels (issue #29). Qwen3-30B-A3B bf16 and
# DeepSeek-V3 fp8 EP 8 (buckets up to 16) through the gate: every chosen tactic's output agrees
# with FlashInfer's default tactics, which agree with a torch MoE in fp32. Then the tactic the
# bf16 table chose for most GEMM1 buckets is made to compute garbage (TUNETAB_TEST_WRONG_TACTIC
# perturbs its output in the gate): the gate names it where it measured fastest and it wins no
# GEMM1 entry. (The table's tactic at one bucket was the earlier choice: a declared tie there
# went the other way in one run on 2026-12-03, so the gate never met it.)
set -eu
T=$TUNETAB
. "$ROOT/tests/gpu/fi-h200.sh"
G="generate --device auto --profile --backend flashinfer --max-tokens 16"
# the JSON cache generate names after this GPU (flashinfer_autotune_NVIDIA_H200.json on an H200)
J=$($T detect --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["gpus"][0]["json_cache"])')
gemm1() { # TABLE: the tactics of its GEMM1 entries, most chosen first, one a line
    python3 -c 'import collections,json,sys; d=json.load(open(sys.argv[1]))
for t, _ in collections.Counter(v[1] for k, v in d.items() if "gemm1" in k).most_common(): print(t)' "$1"
}
$T $G --model qwen3-30b-a3b --dtype bf16 -o bf16 2>bf16.log || { cat bf16.log; exit 1; }
grep 'correctness gate' bf16.log
grep -q 'correctness gate: [0-9]* tactics checked in [0-9.]* s ([0-9]*% of profiling), 0 computed a wrong' bf16.log
$T $G --model deepseek-v3 --dtype fp8 --ep 8 -o fp8 2>fp8.log || { cat fp8.log; exit 1; }
grep 'correctness gate' fp8.log
grep -q ', 0 computed a wrong' fp8.log
bad=$(gemm1 "bf16/$J" | head -1)
TUNETAB_TEST_WRONG_TACTIC=$bad $T $G --model qwen3-30b-a3b --dtype bf16 -o wrong 2>wrong.log || { cat wrong.log; exit 1; }
grep 'correctness gate' wrong.log
grep -o "tactic $bad at GEMM1 [0-9]* tokens" wrong.log | head -3
grep -q "tactic $bad at GEMM1 [0-9]* tokens" wrong.log
now=$(gemm1 "wrong/$J" | tr '\n' ' ')
echo "GEMM1: tactic $bad made wrong; the table's GEMM1 tactics now: $now"
if gemm1 "wrong/$J" | grep -qx "$bad"; then echo "tactic $bad chosen anyway"; exit 1; fi
grep -q "^M 1 [0-9]* $bad 2 .*wrong_output" wrong/*.journal && echo "journal: tactic $bad failed, wrong output"
$T validate -q wrong/*.json
