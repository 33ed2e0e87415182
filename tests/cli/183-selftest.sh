# 183-selftest: `tunetab doctor --backend flashinfer`, the measurement backend's self-test
# (issue #29): every dtype of configs/dtypes.yaml, two entries at 1 token, through the worker
# and the correctness gate, one worker each. Here on the FlashInfer stub (which has tactic lists
# for bf16, fp16 and fp8 only, so the SM90 4-bit dtypes fail as a FlashInfer without those
# runners would): then with fp8's runner aborting (a build without its kernels) and a bf16
# tactic that computes garbage. Exit 1 when a dtype failed or computed a wrong answer.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX
run tunetab doctor --backend flashinfer
export TUNETAB_STUB_NO_KERNELS=fp8 TUNETAB_TEST_WRONG_TACTIC=6
tunetab doctor --backend flashinfer 2>/dev/null | grep -E '^  (fp8|bf16) ' || true
unset TUNETAB_STUB_NO_KERNELS TUNETAB_TEST_WRONG_TACTIC
run tunetab doctor --backend proxy
run tunetab doctor --backend flashinfer --dtype bf16
