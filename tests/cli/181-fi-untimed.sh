# 181-fi-untimed: what the flashinfer backend cannot time, said as such. (1) A FlashInfer build
# without a dtype's kernels aborts the worker while it builds the key's runner (the H200 bundle, built with bf16 and fp8 only, printed
# FI_STUB_CALLED and died for MXFP4 and W4A8). generate says which runner and why, exits 4
# (GPU, docs/exit-codes.md) and writes no table; before, it said only "the GPU worker died
# outside any candidate". (2) fp8_block (DeepSeek fp8 block scale): FlashInfer's runner skips
# profiling and hard-sets one config whatever the tactic (cutlass-moe-tactics.md §1.1), so there
# is nothing to time: one line says so, the table holds the fallback and its provenance says
# not profiled (the catalog's `tactic_ignored`).
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX
export TUNETAB_STUB_NO_KERNELS=bf16
run tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --max-tokens 4 --profile \
    --backend flashinfer -q -o out
ls out  # the journal only (for a resume), no table
unset TUNETAB_STUB_NO_KERNELS
tunetab generate --device auto --model deepseek-v3 --dtype fp8_block --ep 8 --max-tokens 8 --profile \
    --backend flashinfer -o block 2>&1 | grep -e 'note: fp8_block' -e 'differ from'
grep -o '"profiled": [a-z]*' block/tunetab_provenance_NVIDIA_H200.json
# (3) mxfp8 on SM90: FlashInfer lists 36/72 tactics but its SM90 dispatch rejects MXFPX, so no
# table can run there: refused up front (exit 1, nothing written), not a table validate refuses
run tunetab generate --device h200 --model qwen3-30b-a3b --dtype mxfp8 -q -o mx
ls mx 2>/dev/null || echo "nothing written"
