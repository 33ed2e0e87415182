#!/bin/bash
# learn_fresh.sh FIT OUT: issue #17's out-of-sample check, without a GPU. Three H200
# deployments whose oracles were measured after every choice of the method was made and that
# no fit was trained on (docs/bench/2026-12-01-h200-fresh: MiniMax-M2 fp8 EP 8, GLM-4.5 bf16
# EP 4, Llama-4-Scout bf16 TP 4; every tactic of every bucket, 3 passes). For each: the
# heuristic-only table with the datasheet defaults and with FIT (the fit on all six training
# deployments, configs/fits/NVIDIA_H200.yaml), scored against the oracle (fi_bench.py regret),
# and a profiled --top 4 run simulated from the oracle: the fastest oracle time among FIT's
# first four ids (TUNETAB_DUMP_RANKING) and whether the oracle's best is among them.
set -eu
FIT=$1 O=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=${TUNETAB:-$ROOT/build/release/tunetab}
F=$ROOT/docs/bench/2026-12-01-h200-fresh
mkdir -p "$O"
declare -A ARGS=([minimax-m2-fp8-ep8]="--model minimax-m2 --dtype fp8 --ep 8"
                 [glm45-bf16-ep4]="--model glm-4-5 --dtype bf16 --ep 4"
                 [scout-bf16-tp4]="--model llama-4-scout --dtype bf16 --tp 4")
for D in minimax-m2-fp8-ep8 glm45-bf16-ep4 scout-bf16-tp4; do
    G="--device h200 ${ARGS[$D]} --flashinfer 0.7.4 --format json -q"
    $T generate $G -o "$O/default-$D"
    TUNETAB_DUMP_RANKING=1 $T generate $G -o "$O/fitted-$D" --model-fit "$FIT" 2> "$O/ranking-$D.txt"
    python3 "$ROOT/tests/bench/fi_bench.py" regret "$F/oracle_$D.json" \
        "$O/default-$D/flashinfer_autotune_NVIDIA_H200.json" "$O/fitted-$D/flashinfer_autotune_NVIDIA_H200.json" \
        --label default --label fitted --json "$O/regret-$D.json" > "$O/regret-$D.log" 2>&1
    python3 "$ROOT/tests/bench/fi_bench.py" heldout "$D" "$O/regret-$D.json" "$F/oracle_$D.json" \
        --ranking "$O/ranking-$D.txt" --kind fresh
done
