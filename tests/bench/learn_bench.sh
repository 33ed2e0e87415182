#!/bin/bash
# learn_bench.sh OUT [nine]: issue #17's leave-one-deployment-out evaluation, without a GPU.
# For each of the six H200 deployments that have a journal of FlashInfer's kernels and a
# real-kernel oracle (every tactic of every bucket timed; docs/bench/2026-12-01-h200-flashinfer
# and -h200-learn), fit the heuristic on the other five journals (tunetab learn --holdout),
# write the heuristic-only table with the defaults and with the fit, and score both against
# the oracle (fi_bench.py regret). With `nine`, also the three fresh deployments
# (docs/bench/2026-12-01-h200-fresh oracles, -h200-learn2/fresh-default journals): nine folds
# of eight. Then the fit on all of them (OUT/fit-all.yaml; with JOURNALS=cycle and nine, what
# ships as configs/fits/NVIDIA_H200.yaml). Results: docs/benchmarks.md "Heuristics that learn".
set -eu
O=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=${TUNETAB:-$ROOT/build/release/tunetab}
A=$ROOT/docs/bench/2026-12-01-h200-flashinfer
L=$ROOT/docs/bench/2026-12-01-h200-learn
F=$ROOT/docs/bench/2026-12-01-h200-fresh
L2=$ROOT/docs/bench/2026-12-01-h200-learn2
C=$ROOT/docs/bench/2026-12-01-h200-cycle
# ORACLES=DIR judges against DIR/oracle_D.json (e.g. $C: whole routing cycles) instead of the
# first oracles; JOURNALS=cycle trains on the runs of $C (races of whole routing cycles),
# JOURNALS=oracle on the oracles themselves (every tactic of every entry, as journals; the
# held-out deployment's never: learn --holdout leaves its journal out)
ORACLES=${ORACLES:-} JOURNALS=${JOURNALS:-first}
mkdir -p "$O"
declare -A ARGS=([qwen3-bf16]="--model qwen3-30b-a3b --dtype bf16"
                 [dsv3-fp8-ep8]="--model deepseek-v3 --dtype fp8 --ep 8"
                 [mixtral-bf16-tp2]="--model mixtral-8x7b --dtype bf16 --tp 2"
                 [glm45air-bf16-ep2]="--model glm-4-5-air --dtype bf16 --ep 2"
                 [qwen3-235b-fp8-ep4]="--model qwen3-235b-a22b --dtype fp8 --ep 4"
                 [mixtral22b-fp8-tp4]="--model mixtral-8x22b --dtype fp8 --tp 4"
                 [minimax-m2-fp8-ep8]="--model minimax-m2 --dtype fp8 --ep 8"
                 [glm45-bf16-ep4]="--model glm-4-5 --dtype bf16 --ep 4"
                 [scout-bf16-tp4]="--model llama-4-scout --dtype bf16 --tp 4")
declare -A LABEL=([qwen3-bf16]="Qwen3-30B-A3B" [dsv3-fp8-ep8]="DeepSeek-V3"
                  [mixtral-bf16-tp2]="Mixtral-8x7B" [glm45air-bf16-ep2]="GLM-4.5-Air"
                  [qwen3-235b-fp8-ep4]="Qwen3-235B-A22B" [mixtral22b-fp8-tp4]="Mixtral-8x22B"
                  [minimax-m2-fp8-ep8]="MiniMax-M2" [glm45-bf16-ep4]="GLM-4.5 bf16"
                  [scout-bf16-tp4]="Llama-4-Scout")
DEPLOYS="qwen3-bf16 dsv3-fp8-ep8 mixtral-bf16-tp2 glm45air-bf16-ep2 qwen3-235b-fp8-ep4 mixtral22b-fp8-tp4"
[ "${2:-}" = nine ] && DEPLOYS="$DEPLOYS minimax-m2-fp8-ep8 glm45-bf16-ep4 scout-bf16-tp4"
# FOLDS="d1 d2" scores only those held-out folds, all at once (each still fits on all the others), and skips
# the fit on all: a quick look at the worst folds
FOLDS=${FOLDS:-}
oracle() { local d; for d in $ORACLES "$A" "$L" "$F"; do [ -f "$d/oracle_$1.json" ] && { echo "$d/oracle_$1.json"; return; }; done; }
J=() # one journal per deployment
for D in $DEPLOYS; do
    if [ "$JOURNALS" = oracle ]; then # the oracles themselves (fi_bench.py journal)
        mkdir -p "$O/journals"
        python3 "$ROOT/tests/bench/fi_bench.py" journal "$(oracle "$D")" -o "$O/journals/$D.journal" >/dev/null
        J+=("$O/journals/$D.journal")
    elif [ "$JOURNALS" = cycle ]; then
        for d in "$C/withfit" "$C/fresh-fit"; do
            [ -d "$d/tt-$D-1" ] && J+=("$d/tt-$D-1/v0_1_trtllm_fused_moe_NVIDIA_H200.journal")
        done
    elif [ -d "$A/r2-70186cd/tt-$D-1" ]; then J+=("$A/r2-70186cd/tt-$D-1/v0_1_trtllm_fused_moe_NVIDIA_H200.journal")
    elif [ -d "$L/tt-$D-1" ]; then J+=("$L/tt-$D-1/v0_1_trtllm_fused_moe_NVIDIA_H200.journal")
    else J+=("$L2/fresh-default/tt-$D-1/v0_1_trtllm_fused_moe_NVIDIA_H200.journal"); fi
done
table() { # D OUTDIR [--model-fit FIT]
    local D=$1 out=$2; shift 2
    $T generate --device "NVIDIA H200" ${ARGS[$D]} --flashinfer 0.7.4 --format json -q -o "$out" "$@"
}
fold() { # D: fit without D, D's tables and its held-out line
    local D=$1
    $T learn "${J[@]}" --holdout "${LABEL[$D]}" -o "$O/fit-$D.yaml" --json > "$O/learn-$D.json" 2> "$O/learn-$D.log"
    table "$D" "$O/default-$D" --model-fit datasheet  # the datasheet model: the shipped fit saw D
    table "$D" "$O/fitted-$D" --model-fit "$O/fit-$D.yaml"
    python3 "$ROOT/tests/bench/fi_bench.py" regret "$(oracle "$D")" \
        "$O/default-$D/flashinfer_autotune_NVIDIA_H200.json" "$O/fitted-$D/flashinfer_autotune_NVIDIA_H200.json" \
        --label default --label fitted --json "$O/regret-$D.json" > "$O/regret-$D.log" 2>&1
    # the held-out regret of the heuristic-only tables, and of a profiled --top 4 run that
    # times the fit's first four ids as the oracle times them (every candidate timed, 3
    # passes): a simulation of the run, not a run
    python3 "$ROOT/tests/bench/fi_bench.py" heldout "$D" "$O/regret-$D.json" "$(oracle "$D")" \
        --picks "$O/learn-$D.json"
}
# the fit on all of them, shipped as data
fit_all() { $T learn "${J[@]}" -o "$O/fit-all.yaml" 2> "$O/learn-all.log"; }
# PARALLEL=N runs N processes at a time, the fit on all beside the folds (the lines still
# print in order)
P=${PARALLEL:-1}
if [ -n "$FOLDS" ]; then
    for D in $FOLDS; do fold "$D" > "$O/heldout-$D.txt" & done
    wait
    for D in $FOLDS; do cat "$O/heldout-$D.txt"; done
    exit 0
fi
if [ "$P" -le 1 ]; then
    for D in $DEPLOYS; do fold "$D"; done
    fit_all
else
    fit_all &
    n=1
    for D in $DEPLOYS; do
        fold "$D" > "$O/heldout-$D.txt" &
        n=$((n + 1)); [ $((n % P)) -eq 0 ] && wait
    done
    wait
    for D in $DEPLOYS; do cat "$O/heldout-$D.txt"; done
fi
cat "$O/learn-all.log"
