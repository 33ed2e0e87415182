# 014-ops-selftest: `tunetab doctor --backend flashinfer` on this GPU with FlashInfer 0.7.4's real
# modules tests every other op a server tunes at start (issue #39) besides the CUTLASS MoE's
# dtypes: on an H100 or H200 (SM90) FlashInfer has no module of fp4_gemm (CUTLASS: SM100, SM103,
# SM107, SM110, SM120, SM121; CuTe-DSL: SM100, SM103, SM107) nor of the TensorRT-LLM-gen MoE
# (SM100, SM103, SM107), and the self-test says so per op, with where FlashInfer says it.
set -eu
T=$TUNETAB
. "$ROOT/tests/gpu/fi-h200.sh"
sm=$($T detect --json | python3 -c 'import json, sys; g = json.load(sys.stdin)["gpus"][0]; print(g["sm"])')
rc=0
$T doctor --backend flashinfer >doctor.out 2>doctor.err || rc=$?
grep -E '^  (fp4_gemm|trtllm_fp4_block_scale_moe) ' doctor.out || { cat doctor.out doctor.err; exit 1; }
n=$(grep -cE '^  (fp4_gemm|trtllm_fp4_block_scale_moe) \(.*\) +cannot run on this GPU: cannot run on SM'"$sm"': ' doctor.out || true)
echo "other ops that say 'cannot run on SM$sm': $n of 3 (doctor exit $rc)"
[ "$sm" != 90 ] || [ "$n" = 3 ]
