# 030-profile-fake-backend: profiling logic on a CPU, with the worker's fake backend
# (TUNETAB_FAKE_GPU=1: synthetic timings): a complete run; a re-run resumes everything from the
# journal; a crashing candidate and a hanging one (watchdog) are reported failed while the run
# finishes and validates; a run killed with SIGKILL midway resumes and writes the same bytes.
. "$ROOT/tests/lib.sh"
export TUNETAB_FAKE_GPU=1
G="tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile"
$G -o full -q && echo "full run: $(grep -c '^M ' full/*.journal) measurements journaled"
$G -o full 2>&1 | grep -o 'profiled in [0-9.]* s' | sed 's/[0-9.]* s/N s/'
$G -o full 2>&1 | grep -o '[0-9]* timings, [0-9]* resumed from the journal'
TUNETAB_TEST_FAULT=18 TUNETAB_TEST_HANG=23 $G -o faults --timeout 2 2>&1 | grep -o '[0-9]* candidates failed'
grep -c "crashed_the_GPU_worker" faults/*.journal || true
grep -c "hung:_killed_by_the_watchdog" faults/*.journal || true
tunetab validate -q faults/*.py faults/*.json && echo "faulty run: output complete and valid"
# (the binary itself in the background, not the shell function: $! must be tunetab's pid)
TUNETAB_FAKE_DELAY_MS=40 "$TUNETAB" ${G#tunetab } -o killed -q &
pid=$!
sleep 1
kill -9 $pid
wait $pid 2>/dev/null || true
partial=$(grep -c '^M ' killed/*.journal)
[ "$partial" -gt 0 ] && [ "$partial" -lt 210 ] && echo "killed midway: a partial journal"
ls killed | grep -c '\.py$' || true
$G -o killed 2>&1 | grep -o '[0-9]* resumed from the journal' | sed 's/^[0-9]*/N/'
cmp killed/v0_1_trtllm_fused_moe_NVIDIA_H200.py full/v0_1_trtllm_fused_moe_NVIDIA_H200.py && echo "resumed run: same bytes as the uninterrupted one"
# --devices all: three fake GPUs on one queue give the same bytes as one; a GPU of another
# model is left out by name
TUNETAB_FAKE_GPUS=3 $G --devices all -o three 2>&1 | grep -o '[0-9] GPUs of this model measured from one queue'
cmp three/v0_1_trtllm_fused_moe_NVIDIA_H200.py full/v0_1_trtllm_fused_moe_NVIDIA_H200.py && echo "three GPUs: same bytes as one"
TUNETAB_FAKE_GPUS=3 TUNETAB_FAKE_MIXED=1 $G --devices all -o mixed -v 2>&1 | grep -e 'left out' -e 'from one queue'
TUNETAB_FAKE_GPUS=3 TUNETAB_FAKE_MIXED=1 $G --devices all -o mixed -v 2>&1 | grep -c '^tunetab: GPU 2 GEMM' || true
rc=0; $G --devices 0,9 -o nine -q 2>&1 || rc=$?; echo "exit $rc"
