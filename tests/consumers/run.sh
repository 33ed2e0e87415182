#!/usr/bin/env bash
# run.sh: `tunetab install --for sglang` against SGLang's own path rule. Downloads the SGLang
# wheels named below from PyPI (no dependencies, ~10 MB each; kept in $CONSUMERS_DIR, default
# .venv-consumers/) and, per release and case, compares every rank's file path tunetab would
# write with what SGLang's flashinfer_autotune_cache_path returns (sglang_path.py runs that
# function's own source with the server state stubbed). `make test-consumers`; needs network
# the first time. Prints "N passed, N failed".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
T=${TUNETAB:-$root/build/tunetab}
dir=${CONSUMERS_DIR:-$root/.venv-consumers}
mkdir -p "$dir"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$T" generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 --format json -o "$scratch/gen" -q
cache=$scratch/gen/flashinfer_autotune_NVIDIA_H200.json
pass=0 fail=0
for v in 0.5.22 0.5.23; do
    site=$dir/sglang-$v
    if [ ! -f "$site/sglang/srt/model_executor/runner/flashinfer_autotune.py" ]; then
        python3 -m pip download -q --no-deps --only-binary :all: "sglang==$v" -d "$dir/wheels" >/dev/null
        mkdir -p "$site"
        python3 - "$dir/wheels" "$v" "$site" <<'PY'
import glob, sys, zipfile
whl = glob.glob(f"{sys.argv[1]}/sglang-{sys.argv[2]}-*.whl")[0]
zipfile.ZipFile(whl).extract("sglang/srt/model_executor/runner/flashinfer_autotune.py", sys.argv[3])
PY
    fi
    # model path, torch dtype, quantization, backend, tp, pp, dp ranks, attn dp, ep, config class, skip ops
    while IFS='|' read -r mp dt q be tp pp dp adp ep hf skip; do
        [ -n "$mp" ] || continue
        args=(--for sglang --consumer-version "$v" --from "$cache" --model-path "$mp" --torch-dtype "$dt"
              --moe-runner-backend "$be" --tp "$tp" --pp "$pp" --dp "$dp" --attn-dp "$adp" --ep "$ep"
              --hf-config-class "$hf" --skip-ops "$skip" --cache-dir "$scratch/root" --dry-run)
        [ "$q" = None ] || args+=(--quantization "$q")
        mapfile -t ours < <("$T" install "${args[@]}" 2>/dev/null)
        i=0
        for ((d = 0; d < dp; d++)); do for ((p = 0; p < pp; p++)); do for ((r = 0; r < tp; r++)); do
            qj=null; [ "$q" = None ] || qj="\"$q\""
            sk=$(python3 -c 'import json,sys; print(json.dumps([s for s in sys.argv[1].split(",") if s]))' "$skip")
            theirs=$(python3 "$here/sglang_path.py" "$site" "{\"model_path\": \"$mp\", \"dtype\": \"$dt\", \"quantization\": $qj, \"moe_runner_backend\": \"$be\", \"tp\": $tp, \"pp\": $pp, \"attn_dp\": $adp, \"ep\": $ep, \"hf_config_class\": \"$hf\", \"skip_ops\": $sk, \"tp_rank\": $r, \"pp_rank\": $p, \"dp_rank\": $d, \"sm\": \"90\", \"flashinfer\": \"0.7.4\", \"cache_dir\": \"$scratch/root\"}")
            if [ "${ours[$i]:-}" = "$theirs" ]; then
                pass=$((pass + 1))
            else
                fail=$((fail + 1))
                echo "FAIL sglang $v $mp tp$tp pp$pp dp$dp rank $r/$p/$d: tunetab ${ours[$i]:-none}, SGLang $theirs"
            fi
            i=$((i + 1))
        done; done; done
    done <<'CASES'
Qwen/Qwen3-30B-A3B|bfloat16|None|flashinfer_cutlass|1|1|1|1|1|Qwen3MoeConfig|
Qwen/Qwen3-30B-A3B|bfloat16|None|flashinfer_cutlass|4|1|1|1|4|Qwen3MoeConfig|
deepseek-ai/DeepSeek-V3|bfloat16|fp8|flashinfer_trtllm|8|1|2|2|8|DeepseekV3Config|
/models/mixtral 8x7b (local)|float16|None|flashinfer_cutlass|2|2|1|1|1|MixtralConfig|b_op,a_op
CASES
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
