#!/usr/bin/env bash
# run.sh: `tunetab install --for sglang|vllm|flashinfer` against the consumers' own code.
# Downloads the SGLang, vLLM and FlashInfer wheels named below from PyPI (no dependencies;
# SGLang ~10 MB each, vLLM 336 MB, FlashInfer 101 MB; only the few source files read are kept,
# in $CONSUMERS_DIR, default .venv-consumers/) and, per release and case, compares every
# path tunetab would write with what the consumer's own function returns (sglang_path.py,
# vllm_path.py run those functions' source with the server state stubbed), and looks every
# key up in the managed store tunetab wrote with FlashInfer's own ManagedAutotuneCache
# (fi_store.py). `make test-consumers`; needs network the first time. Prints "N passed, N
# failed".
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
        # with attention DP a rank's dp index is its attention-DP group (SGLang 0.5.23
        # managers/data_parallel_controller.py:718-724: tp_rank // (tp / attn_dp))
        for ((d0 = 0; d0 < dp; d0++)); do for ((p = 0; p < pp; p++)); do for ((r = 0; r < tp; r++)); do
            d=$d0; [ "$adp" -gt 1 ] && d=$((r / (tp / adp)))
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
deepseek-ai/DeepSeek-V3|bfloat16|fp8|flashinfer_trtllm|8|1|1|2|8|DeepseekV3Config|
/models/mixtral 8x7b (local)|float16|None|flashinfer_cutlass|2|2|1|1|1|MixtralConfig|b_op,a_op
CASES
done

# --- vLLM (and FlashInfer's managed store, which one-rank vLLM uses) ---
fetch() { # fetch WHEEL_SPEC DEST FILE...: those files of the wheel, once
    local spec=$1 dest=$2; shift 2
    [ -f "$dest/$1" ] && return 0
    python3 -m pip download -q --no-deps --only-binary :all: "$spec" -d "$dir/wheels" >/dev/null
    mkdir -p "$dest"
    python3 - "$dir/wheels" "$spec" "$dest" "$@" <<'PY'
import glob, sys, zipfile
name, ver = sys.argv[2].split("==")
whl = glob.glob(f"{sys.argv[1]}/{name.replace('-', '_')}-{ver}-*.whl")[0]
z = zipfile.ZipFile(whl)
for f in sys.argv[4:]:
    z.extract(f, sys.argv[3])
PY
    rm -f "$dir"/wheels/"${spec%%==*}"*.whl "$dir"/wheels/"$(echo "${spec%%==*}" | tr - _)"*.whl
}
fsite=$dir/flashinfer-0.7.4
fetch flashinfer-python==0.7.4 "$fsite" flashinfer/autotune_cache.py flashinfer/jit/env.py
for vv in 0.33.0 0.34.0; do
vsite=$dir/vllm-$vv
fetch vllm==$vv "$vsite" vllm/model_executor/warmup/flashinfer_autotune_cache.py vllm/envs.py
# a Python whose FlashInfer reports this environment (what scripts/tunetab-fi-env.py prints)
fake=$scratch/fake-python
mkdir -p "$fake"
cat > "$fake/env.json" <<'JSON'
{"version": "0.7.4", "metadata": {"flashinfer_version": "0.7.4", "cuda_version": "13.0", "cublas_version": "13.1.0", "cudnn_version": "91500", "cudnn_frontend_version": "1.15.0", "cutlass_dsl_version": "cpython-312;cpython-312-x86_64-linux-gnu;torch==2.11.0:0f", "gpu": "NVIDIA H200"}, "workspace_dir": "/ws/.cache/flashinfer/0.7.4/90a"}
JSON
printf '#!/bin/sh\ncat "%s/env.json"\n' "$fake" > "$fake/python3"
chmod +x "$fake/python3"
manifest=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["metadata"]))' "$fake/env.json")
hash=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
unset VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR VLLM_CACHE_ROOT XDG_CACHE_HOME FLASHINFER_AUTOTUNE_CACHE_DIR FLASHINFER_WORKSPACE_BASE
# environment (VAR=value,...) | tp | pp | dp
while IFS='|' read -r envs tp pp dp; do
    [ -n "$tp" ] || continue
    home=$scratch/home
    envj=$(python3 -c 'import json,sys; print(json.dumps(dict(kv.split("=", 1) for kv in sys.argv[1].split(",") if kv)))' "$envs")
    theirs=$(python3 "$here/vllm_path.py" "$vsite" "$fsite" "{\"env\": $envj, \"tp\": $tp, \"pp\": $pp, \"dp\": $dp, \"hash\": \"$hash\", \"workspace\": \"/ws/.cache/flashinfer/0.7.4/90a\", \"home\": \"$home\"}")
    # a first vLLM start made the config-hash folder (vLLM's own path, so a wrong root fails)
    [ $((tp * pp * dp)) -gt 1 ] && mkdir -p "$(dirname "$(echo "$theirs" | head -1)")"
    args=(--for vllm --consumer-version "$vv" --from "$cache" --python "$fake/python3" --tp "$tp" --pp "$pp" --dp "$dp" --dry-run)
    ours=$(env HOME="$home" $(echo "$envs" | tr , ' ') "$T" install "${args[@]}" 2>/dev/null || true)
    if [ $((tp * pp * dp)) -eq 1 ]; then  # the store's root: the entries are <root>/v2/<env>/entries/*
        ours=$(echo "$ours" | head -1 | sed 's|/v2/[0-9a-f]*/entries/.*||')
    fi
    if [ -n "$ours" ] && [ "$ours" = "$theirs" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL vllm $vv [$envs] tp$tp pp$pp dp$dp: tunetab:"; echo "$ours"; echo "vLLM:"; echo "$theirs"
    fi
done <<CASES
|2|1|1
|4|2|1
VLLM_CACHE_ROOT=~/vc|2|1|2
VLLM_CACHE_ROOT=/abs/vc|8|1|1
XDG_CACHE_HOME=$scratch/xdg|2|2|1
VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR=~/fi-cache,VLLM_CACHE_ROOT=/ignored|4|1|1
|1|1|1
FLASHINFER_WORKSPACE_BASE=$scratch/wsb|1|1|1
FLASHINFER_AUTOTUNE_CACHE_DIR=$scratch/fac|1|1|1
VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR=~/vfac,FLASHINFER_AUTOTUNE_CACHE_DIR=/ignored|1|1|1
CASES
done
# the store tunetab wrote, read by FlashInfer's own ManagedAutotuneCache
"$T" install --for vllm --from "$cache" --python "$fake/python3" --cache-dir "$scratch/store" >/dev/null 2>&1
if python3 "$here/fi_store.py" "$fsite" "$scratch/store" "$manifest" "$cache"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL FlashInfer 0.7.4's ManagedAutotuneCache misses keys of tunetab's store"
fi
# --- SGLang launch commands through SGLang's own code (opt-in: a 6 GB venv of SGLang 0.5.23,
# torch and their dependencies from PyPI, tests/consumers/sglang-venv.sh): every case of
# tests/data/launch/sglang-cases.txt for 0.5.22 and 0.5.23, their fields written afresh and
# compared with tunetab's (tests/launch_check.py) and with the committed sglang-expected.json
if [ -n "${SGLANG_ORACLE:-}" ]; then
    venv=${SGLANG_ORACLE_VENV:-$dir/sglang-oracle}
    [ -x "$venv/bin/python" ] || sh "$here/sglang-venv.sh" "$venv"
    sg22=$dir/sglang-0.5.22-full
    if [ ! -d "$sg22/sglang" ]; then
        python3 -m pip download -q --no-deps --only-binary :all: "sglang==0.5.22" -d "$dir/wheels" >/dev/null
        mkdir -p "$sg22" && python3 -c 'import glob, sys, zipfile; zipfile.ZipFile(glob.glob(sys.argv[1] + "/sglang-0.5.22-*.whl")[0]).extractall(sys.argv[2])' "$dir/wheels" "$sg22"
    fi
    out=$scratch/launch && mkdir -p "$out"
    n=0
    grep -v '^#' "$root/tests/data/launch/sglang-cases.txt" | while IFS='|' read -r sm mem model cmd; do
        n=$((n + 1))
        for v in 0.5.22 0.5.23; do
            fi=0.7.2 pp=
            [ $v = 0.5.22 ] && fi=0.7.1 pp=$sg22
            # shellcheck disable=SC2086
            PYTHONPATH=$pp PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" "$here/sglang_launch.py" --sm "$sm" \
                --num-gpus 8 --gpu-mem-gib "$mem" --config-dir "$root/tests/data/hf/$model" \
                --flashinfer-version $fi --cache-dir "$HOME/.cache/sglang-oracle" --all-ranks --json \
                -- $cmd >"$out/$n-$v.json" 2>"$out/$n-$v.err" || echo "FAIL SGLang $v oracle case $n: $(tail -1 "$out/$n-$v.err")"
        done
    done
    python3 "$root/tests/launch_check.py" "$T" "$root/tests/data/launch/sglang-cases.txt" "$scratch/expected.json" --write "$out"
    if python3 "$root/tests/launch_check.py" "$T" "$root/tests/data/launch/sglang-cases.txt" "$scratch/expected.json" &&
       cmp -s "$scratch/expected.json" "$root/tests/data/launch/sglang-expected.json"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL SGLang's own code disagrees with tunetab or with tests/data/launch/sglang-expected.json"
    fi
fi
# --- vLLM launch commands through vLLM's own code (opt-in: a venv of vLLM 0.33.0, torch and their
# dependencies from PyPI, tests/consumers/vllm-venv.sh)
if [ -n "${VLLM_ORACLE:-}" ]; then
    venv=${VLLM_ORACLE_VENV:-$dir/vllm-oracle}
    [ -x "$venv/bin/python" ] || sh "$here/vllm-venv.sh" "$venv"
    out=$scratch/vlaunch && mkdir -p "$out"
    n=0
    grep -v '^#' "$root/tests/data/launch/vllm-cases.txt" | while IFS='|' read -r sm mem model cmd; do
        n=$((n + 1))
        name=$(python3 -c 'import sys
want = {("90","139"): "NVIDIA H200", ("120","95"): "NVIDIA RTX PRO 6000 Blackwell Server Edition", ("100","179"): "NVIDIA B200"}
print(want[(sys.argv[1], sys.argv[2])])' "$sm" "$mem")
        # shellcheck disable=SC2086
        "$venv/bin/python" "$here/vllm_launch.py" --sm "$sm" --gpu-mem-gib "$mem" --gpu-name "$name" \
            --config-dir "$root/tests/data/hf/$model" --json -- $cmd >"$out/$n.json" 2>"$out/$n.err" ||
            echo "FAIL vLLM oracle case $n: $(tail -1 "$out/$n.err")"
    done
    python3 "$root/tests/launch_check.py" "$T" "$root/tests/data/launch/vllm-cases.txt" "$scratch/vexpected.json" --write "$out"
    if python3 "$root/tests/launch_check.py" "$T" "$root/tests/data/launch/vllm-cases.txt" "$scratch/vexpected.json" &&
       cmp -s "$scratch/vexpected.json" "$root/tests/data/launch/vllm-expected.json"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL vLLM's own code disagrees with tunetab or with tests/data/launch/vllm-expected.json"
    fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
