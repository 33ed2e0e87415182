# 099-quant-dtypes: the quantised runners of configs/dtypes.yaml (issue #15). Each key carries
# the flag its runner is built with (fp8_block: use_deepseek_fp8_block_scale; w4a16_mxfp4:
# use_w4_group_scaling; w4a8: + use_packed_weights; w4a8_mxfp4: + use_wfp4afp8_humming), the
# bf16 input and uint8/fp8 weights, and hidden/intermediate padded to 128 for SM90 mxfp4. Lists:
# fp8_block 16/16 (ignored by the runner: every entry stores the fallback), the mixed-input
# ones 116/116 all swap_ab, humming 124 before 0.7.1 and 126 from it; tiles that do not fit
# N/K are never chosen (get_valid_tactics_for_shape). No SM100 fp8_block; no SM89 w4a8.
# (make test-flashinfer: FlashInfer's own runner with the flags hits every key, none without.)
. "$ROOT/tests/lib.sh"
summary() {
    python3 - "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
keys = sorted(k for k in t if not k.startswith("_"))
k = keys[0]
print("  key:", k[k.index("(("):k.index(")), (") + 2], k[k.rindex("(torch"):])
for st in ("gemm1", "gemm2"):
    ids = sorted({v[1] for kk, v in t.items() if st in kk})
    print("  %s: %d keys, tactics %s" % (st, sum(st in kk for kk in keys), ids))
PY
}
J=flashinfer_autotune_NVIDIA_H200.json
for c in "deepseek-v3 fp8_block 0.7.4" "gpt-oss-120b w4a16_mxfp4 0.7.4" "qwen3-30b-a3b w4a8 0.6.18" \
         "gpt-oss-120b w4a8_mxfp4 0.7.0" "gpt-oss-120b w4a8_mxfp4 0.7.4"; do
    set -- $c
    echo "$1 $2 FlashInfer $3:"
    tunetab generate --device h200 --model $1 --dtype $2 --flashinfer $3 --format json -q -o "$2-$3"
    summary "$2-$3/$J"
    tunetab validate -q "$2-$3"/* && echo "  valid"
done
for c in "90 fp8_block" "90 w4a16_mxfp4" "90 w4a8" "90 w4a8_mxfp4"; do
    set -- $c
    for v in 0.7.0 0.7.4; do
        tunetab catalog --sm $1 --dtype $2 --flashinfer $v 2>/dev/null | grep -E '^  GEMM[12]:' | sed "s/^/SM$1 $2 $v:/"
    done
done
run tunetab generate --device b200 --model deepseek-v3 --dtype fp8_block --flashinfer 0.7.4 -o x
run tunetab generate --device l40s --model qwen3-30b-a3b --dtype w4a8 --flashinfer 0.7.4 -o x
run tunetab generate --device h200 --model gpt-oss-120b --dtype w4a16_mxfp4 --flashinfer 0.6.17 -o x
