#!/bin/sh
# routing_gpu.sh DEPLOY...: issue #49's measurement on a GPU (FlashInfer 0.7.4 from the carried
# bundle, tests/gpu/fi-h200.sh): per deployment (fi_bench.py's names: qwen3-bf16 is A,
# dsv3-fp8-ep8 is B), tunetab's profiled table with the robust pair choice (--routing robust
# for A at EP 1; the default for B at EP 8), FlashInfer's own autotune(True) table
# (fi_bench.py autotune), and the three tables' layer times (tunetab's, FlashInfer's and the
# per-GEMM choices the run recorded) under balanced and hot-rank routing measured by
# routing_bench.py on the run's own LAYER jobs. Writes under $OUT/DEPLOY/.
set -eu
ROOT=$(pwd)
. "$ROOT/tests/gpu/fi-h200.sh"
TT=$ROOT/build/release/tunetab
for dep in "$@"; do
    O=${OUT:-out}/$dep
    mkdir -p "$O"
    case $dep in qwen3-bf16) args="--model qwen3-30b-a3b --dtype bf16 --routing robust" ;;
                 dsv3-fp8-ep8) args="--model deepseek-v3 --dtype fp8 --ep 8" ;;
                 *) echo "routing_gpu.sh: no tunetab arguments for $dep" >&2; exit 2 ;; esac
    echo "== $dep: tunetab generate $args"
    t0=$(date +%s.%N)
    TUNETAB_LAYER_TRACE=$O/trace.log "$TT" generate --device auto $args --profile --backend flashinfer \
        -o "$O/tt" >"$O/generate.log" 2>&1 || { tail -20 "$O/generate.log"; exit 1; }
    t1=$(date +%s.%N)
    grep -e '^tunetab: profiled' -e '^tunetab: routing' -e '^tunetab: correctness' "$O/generate.log"
    echo "tunetab generate wall: $(python3 -c "print('%.1f' % ($t1 - $t0))") s"
    echo "== $dep: FlashInfer autotune(True)"
    python3 tests/bench/fi_bench.py autotune "$dep" --out "$O" 2>&1 | tail -3
    echo "== $dep: layer times"
    python3 tests/bench/routing_bench.py --trace "$O/trace.log" \
        --provenance "$(ls "$O"/tt/tunetab_provenance_*.json)" \
        --table tunetab="$(ls "$O"/tt/flashinfer_autotune_*.json)" \
        --table flashinfer="$O/fi_autotune_$dep.json" --out "$O/routing.json" 2>"$O/routing_bench.log"
done
