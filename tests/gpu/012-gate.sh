# 012-gate: the correctness gate on FlashInfer's real kernels (issue #29). Qwen3-30B-A3B bf16 and
# DeepSeek-V3 fp8 EP 8 (buckets up to 16) through the gate: every chosen tactic's output agrees
# with FlashInfer's default tactics, which agree with a torch MoE in fp32. Then the tactic
# chosen for GEMM1 at 1 token is made to compute garbage (TUNETAB_TEST_WRONG_TACTIC perturbs
# its output in the gate): the gate names it and another tactic wins that entry.
set -eu
T=$TUNETAB
. "$ROOT/tests/gpu/fi-h200.sh"
G="generate --device auto --profile --backend flashinfer --max-tokens 16"
first() { # TABLE: the tactic of GEMM1 at 1 token
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([v[1] for k, v in d.items() if "gemm1" in k and "((1, " in k][0])' "$1"
}
$T $G --model qwen3-30b-a3b --dtype bf16 -o bf16 2>bf16.log || { cat bf16.log; exit 1; }
grep 'correctness gate' bf16.log
grep -q 'correctness gate: [0-9]* tactics checked in [0-9.]* s ([0-9]*% of profiling), 0 computed a wrong' bf16.log
$T $G --model deepseek-v3 --dtype fp8 --ep 8 -o fp8 2>fp8.log || { cat fp8.log; exit 1; }
grep 'correctness gate' fp8.log
grep -q ', 0 computed a wrong' fp8.log
bad=$(first bf16/flashinfer_autotune_NVIDIA_H200.json)
TUNETAB_TEST_WRONG_TACTIC=$bad $T $G --model qwen3-30b-a3b --dtype bf16 -o wrong 2>wrong.log || { cat wrong.log; exit 1; }
grep 'correctness gate' wrong.log
grep -q "tactic $bad at GEMM1 1 tokens" wrong.log
now=$(first wrong/flashinfer_autotune_NVIDIA_H200.json)
echo "GEMM1 at 1 token: tactic $bad made wrong, $now chosen instead"
[ "$now" != "$bad" ]
grep -q "^M 1 1 $bad 2 .*wrong_output" wrong/*.journal && echo "journal: tactic $bad failed, wrong output"
$T validate -q wrong/*.json
