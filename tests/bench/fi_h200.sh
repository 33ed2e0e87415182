#!/bin/bash
# fi_h200.sh PHASE OUTDIR: issue #14's benchmarks on an H200 with FlashInfer 0.7.4 from
# ../shared/flashinfer-h200 (carried as .gpu/flashinfer-h200). Results go to docs/benchmarks.md.
#   oracle  every tactic of every bucket on the real kernels, long repeats (fi_bench.py oracle)
#   runs    (a) FlashInfer's own autotuner; (b) tunetab --backend flashinfer twice (d), and
#           the proxy backend and calibration (e); check-load; (f) the whole layer
#   routing per-routing-sample times of a few entries (fi_bench.py routing)
#   oracles D...  the oracle of the deployments named (ORACLE_ARGS adds arguments)
#   regimes a few entries' contenders timed as the oracle and as the worker time them
#           (fi_bench.py regimes)
#   withfit FITDIR  one profiled run of each deployment with FITDIR/fit-D.yaml (held-out fits)
#   startup issue #18 on one GPU: where a worker's start-up goes (fi_startup.py, PROBE_REPEATS
#           times; 0 skips it), then per deployment of SHARDS (REPEATS times, numbered from
#           FIRST): the whole table in one process, its two
#           shards one after the other (--shard I/2), tunetab merge; every process's wall time
#           and TUNETAB_PROF_TIMING lines
#   fleet   issue #18's Done-when, on the 2 x H200 machine: fleet_bench.py with the flashinfer
#           backend, five repeats of DeepSeek-V3 fp8 EP 8 and Qwen3-30B-A3B bf16, each the
#           single run, two launcher-style shard processes + merge, and --devices all
#   seq     issue #40: tunetab's race and --method sequential beside FlashInfer's autotune,
#           against the oracle (SEQ_DEPLOYS, ORACLE_ARGS, TT_ARGS)
#   finalize issue #28: the runner SGLang builds by default (use_fused_finalize off): its
#           oracle, FlashInfer's autotune and tunetab --fused-finalize off, and their regret
#   host    issue #30: FlashInfer's autotune and tunetab (with and without CUDA graphs) side by
#           side, and where tunetab's host time goes (HOST_DEPLOYS, FITDIR, AUTOTUNE, PLAIN, RUNS)
#   learn   issue #17's further deployments (LEARN): per deployment the oracle, then one tunetab
#           run with the flashinfer backend (its journal) and check-load
# Deployments: Qwen3-30B-A3B bf16 TP 1, DeepSeek-V3 fp8 EP 8, Mixtral-8x7B bf16 TP 2; LEARN:
# GLM-4.5-Air bf16 EP 2, Qwen3-235B-A22B fp8 EP 4, Mixtral-8x22B fp8 TP 4.
set -u
phase=$1 O=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=${TUNETAB:-$ROOT/build/release/tunetab}
B="python3 $ROOT/tests/bench/fi_bench.py"
# the JSON cache generate names after this GPU (flashinfer_autotune_NVIDIA_H200.json on an H200)
J=$($T detect --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["gpus"][0]["json_cache"])') || exit 1
mkdir -p "$O"
bash "$ROOT/.gpu/flashinfer-h200/install.sh" /tmp/site >/dev/null || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
declare -A ARGS=([qwen3-bf16]="--model qwen3-30b-a3b --dtype bf16"
                 [dsv3-fp8-ep8]="--model deepseek-v3 --dtype fp8 --ep 8"
                 [mixtral-bf16-tp2]="--model mixtral-8x7b --dtype bf16 --tp 2"
                 [glm45air-bf16-ep2]="--model glm-4-5-air --dtype bf16 --ep 2"
                 [qwen3-235b-fp8-ep4]="--model qwen3-235b-a22b --dtype fp8 --ep 4"
                 [mixtral22b-fp8-tp4]="--model mixtral-8x22b --dtype fp8 --tp 4"
                 [minimax-m2-fp8-ep8]="--model minimax-m2 --dtype fp8 --ep 8"
                 [glm45-bf16-ep4]="--model glm-4-5 --dtype bf16 --ep 4"
                 [scout-bf16-tp4]="--model llama-4-scout --dtype bf16 --tp 4"
                 [qwen3-235b-bf16-ep8]="--model qwen3-235b-a22b --dtype bf16 --ep 8"
                 [kimi-k2-fp8-ep8]="--model kimi-k2 --dtype fp8 --ep 8"
                 [scout-bf16-tp8]="--model llama-4-scout --dtype bf16 --tp 8")
DEPLOYS="qwen3-bf16 dsv3-fp8-ep8 mixtral-bf16-tp2"
LEARN="glm45air-bf16-ep2 qwen3-235b-fp8-ep4 mixtral22b-fp8-tp4"
FRESH="minimax-m2-fp8-ep8 glm45-bf16-ep4 scout-bf16-tp4"
FIT_ARGS=${FIT_ARGS:-} # extra generate arguments of tt_runs (e.g. --model-fit FILE); TT_ARGS: more (withfit sets FIT_ARGS)
step() { echo "== $(date +%T) $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
tt_runs() { # D [N]: N (default 2) tunetab runs with the flashinfer backend, FlashInfer's check of the first
    local D=$1 r
    for r in $(seq 1 "${2:-2}"); do
        step "tunetab flashinfer backend $D run $r"
        ( TIMEFORMAT="process wall %R s"; time TUNETAB_PROF_TIMING=1 $T generate --device auto \
            ${ARGS[$D]} --profile --backend flashinfer $FIT_ARGS ${TT_ARGS:-} -o "$O/tt-$D-$r" ) > "$O/tt-$D-$r.log" 2>&1 \
            || { echo "tunetab $D $r failed"; tail -20 "$O/tt-$D-$r.log"; exit 1; }
        grep -E 'profiled|process wall|answered|plan built|profiling done|fi-worker timing' "$O/tt-$D-$r.log"
    done
    [ "${CHECK_LOAD:-1}" = 1 ] || return 0
    step "check-load $D"
    timeout 120 $B check-load $D "$O/tt-$D-1/$J" 2>&1 | tail -1
}
layer() { # D FI_CACHE: (f) the whole layer with tunetab's table, FlashInfer's own, and none
    step "layer $1"
    timeout 120 $B layer $1 --out "$O" --cache tunetab="$O/tt-$1-1/$J" \
        --cache flashinfer="$2" > "$O/layer_$1.log" 2>&1 || echo "layer $1: exit $?"
    sed -n '/^us per layer call/,$p' "$O/layer_$1.log"
}
oracle() { # D: every tactic of every bucket on FlashInfer's own kernels
    step "oracle $1"
    timeout 290 $B oracle $1 --out "$O" ${ORACLE_ARGS:-} > "$O/oracle_$1.log" 2>&1 || echo "oracle $1: exit $?"
    tail -3 "$O/oracle_$1.log"
}
case $phase in
tt) # tunetab's tables again, against FlashInfer's caches of an earlier `runs` (PREV folder)
    PREV=${3:-$ROOT/.gpu/prev}
    for D in $DEPLOYS; do tt_runs $D; done
    for D in $DEPLOYS; do layer $D "$PREV/fi_autotune_$D.json"; done ;;
oracle)
    for D in $DEPLOYS; do oracle $D; done ;;
oracles) # the oracle of each deployment named after OUTDIR (ORACLE_ARGS: e.g. --passes 2)
    shift 2
    for D in "$@"; do oracle $D; done ;;
routing) # each tactic on each of FlashInfer's 16 routing samples, for entries tunetab missed
    for spec in mixtral-bf16-tp2=1:8,1:1280,1:4096,2:1024 glm45air-bf16-ep2=1:4,1:16,2:16 \
                dsv3-fp8-ep8=1:8,1:32,2:1; do
        step "routing ${spec%%=*}"
        timeout 200 $B routing ${spec%%=*} ${spec#*=} --out "$O" > "$O/routing_${spec%%=*}.log" 2>&1 \
            || echo "routing ${spec%%=*}: exit $?"
        grep -v '^\[' "$O/routing_${spec%%=*}.log" | tail -5
    done ;;
regimes) # the oracle's measurement against the worker's on entries where they disagreed
    for spec in "mixtral-bf16-tp2 1:1280:32/33/12 1:4096:32/33/29 2:8192:113/73/75" \
                "mixtral22b-fp8-tp4 1:8192:32/10/11/33 1:3072:12/33" "glm45-bf16-ep4 1:4096:34/12/11/10" \
                "glm45air-bf16-ep2 2:8192:114/73" "qwen3-bf16 1:2560:29/10 2:8:99/100" "dsv3-fp8-ep8 1:1:19/21"; do
        step "regimes ${spec%% *}"
        timeout 120 $B regimes $spec --out "$O" > "$O/regimes_${spec%% *}.log" 2>&1 || echo "regimes ${spec%% *}: exit $?"
        grep -v '^\[' "$O/regimes_${spec%% *}.log" | tail -16
    done ;;
learn) # issue #17: the oracle and one tunetab run (journal) of each further deployment
    for D in $LEARN; do
        oracle $D
        ( tt_runs $D 1 ) || echo "learn: tunetab $D failed"
    done ;;
fresh) # issue #17: deployments no fit or choice has seen: the oracle, then one tunetab run
    # with FIT_ARGS (the shipped fit), its journal
    for D in $FRESH; do
        oracle $D
        ( tt_runs $D 1 ) || echo "fresh: tunetab $D failed"
    done ;;
freshruns) # issue #17: one tunetab run (journal) of each fresh deployment, with FIT_ARGS
    for D in $FRESH; do ( tt_runs $D 1 ) || echo "freshruns: tunetab $D failed"; done ;;
withfit) # issue #17: a profiled run of each deployment with its held-out fit (FITDIR/fit-D.yaml,
    # tests/bench/learn_bench.sh; a deployment without one is skipped), scored later against
    # the oracles
    for D in $DEPLOYS $LEARN $FRESH; do
        [ -f "$3/fit-$D.yaml" ] || continue
        ( FIT_ARGS="--model-fit $3/fit-$D.yaml"; tt_runs $D 1 ) || echo "withfit: tunetab $D failed"
    done ;;
fleet)
    FLEET_ARGS="--backend flashinfer" FLEET_DEVICES_ALL=1 \
    FLEET_ONLY=deepseek-v3-fp8-ep8,qwen3-30b-a3b-bf16 python3 "$ROOT/tests/bench/fleet_bench.py" \
        "$T" "$O" "${REPEATS:-5}" 2>&1 | tee "$O/fleet.txt" ;;
startup)
    if [ "${PROBE_REPEATS:-3}" != 0 ]; then
        step "start-up steps"
        python3 "$ROOT/tests/bench/fi_startup.py" ${PROBE_REPEATS:-3} 2>&1 | tee "$O/startup.txt"
    fi
    first=${FIRST:-1}
    # PROF_TIMING=0: process walls as users get them (no timing lines, no wait for the
    # worker's exit summary)
    if [ "${PROF_TIMING:-1}" = 1 ]; then export TUNETAB_PROF_TIMING=1; else unset TUNETAB_PROF_TIMING; fi
    for r in $(seq "$first" $((first + ${REPEATS:-2} - 1))); do
        for D in ${SHARDS:-qwen3-bf16 dsv3-fp8-ep8}; do
            order="single 0 1"; [ $((r % 2)) = 0 ] && order="1 0 single"
            for part in $order; do
                d="$O/$D-$r-single" sh=""
                [ "$part" = single ] || { d="$O/$D-$r-shards" sh="--shard $part/2"; }
                step "$D run $r: $part"
                ( TIMEFORMAT="process wall %R s"; time $T generate --device auto \
                    ${ARGS[$D]} --profile --backend flashinfer -q $sh ${TT_ARGS:-} -o "$d" ) \
                    > "$O/$D-$r-$part.log" 2>&1 || { echo "$D $part failed"; tail -5 "$O/$D-$r-$part.log"; }
                grep -E 'tunetab-timing|process wall|fi-worker timing|profiled in' "$O/$D-$r-$part.log"
            done
            ( TIMEFORMAT="merge wall %R s"; time $T merge "$O/$D-$r-merged" "$O/$D-$r-shards"/shard-* ) 2>&1 | tail -1
            python3 "$ROOT/tests/bench/fleet_bench.py" --compare "$O/$D-$r-single" "$O/$D-$r-merged" "$O/$D-$r-shards"/shard-* || true
        done
    done ;;
seq) # issue #40's first step: per deployment of SEQ_DEPLOYS, the oracle (ORACLE_ARGS, e.g.
    # --passes 2), FlashInfer's own autotune, tunetab's default race and --method sequential
    # (TT_ARGS), their profiling time and regret against the oracle
    for D in ${SEQ_DEPLOYS:-qwen3-bf16 dsv3-fp8-ep8}; do
        oracle $D
        step "FlashInfer autotune $D"
        timeout 150 $B autotune $D --out "$O" > "$O/autotune_$D.log" 2>&1 || echo "autotune $D: exit $?"
        tail -2 "$O/autotune_$D.log"
        for m in tunetab sequential; do
            step "tunetab --method $m $D"
            ( TIMEFORMAT="process wall %R s"; time $T generate --device auto ${ARGS[$D]} --profile \
                --backend flashinfer --method $m -q ${TT_ARGS:-} -o "$O/tt-$D-$m" ) > "$O/tt-$D-$m.log" 2>&1 \
                || { echo "tunetab $D $m failed"; tail -5 "$O/tt-$D-$m.log"; }
            grep -E 'profiled in|process wall' "$O/tt-$D-$m.log"
            awk '$1 == "M" { s += $9 } END { print "samples " s }' "$O/tt-$D-$m"/*.journal
        done
        step "regret $D"
        $B regret "$O/oracle_$D.json" "$O/tt-$D-tunetab/$J" "$O/tt-$D-sequential/$J" \
            "$O/fi_autotune_$D.json" --label tunetab sequential flashinfer \
            --json "$O/regret_$D.json" 2>&1 | tail -8
    done ;;
finalize) # issue #28: the runner SGLang builds by default (use_fused_finalize off), for
    # FINALIZE_DEPLOYS (default qwen3-bf16 dsv3-fp8-ep8): the oracle of that runner (every tactic,
    # ORACLE_ARGS), FlashInfer's own autotune with it, tunetab --fused-finalize off twice, regret
    for D in ${FINALIZE_DEPLOYS:-qwen3-bf16 dsv3-fp8-ep8}; do
        ORACLE_ARGS="--fused-finalize 0 ${ORACLE_ARGS:-}" oracle $D
        TT_ARGS="--fused-finalize off" CHECK_LOAD=0 tt_runs $D
        step "FlashInfer autotune $D (use_fused_finalize off)"
        timeout 150 $B autotune $D --out "$O" --fused-finalize 0 > "$O/autotune_$D.log" 2>&1 || echo "autotune $D: exit $?"
        tail -2 "$O/autotune_$D.log"
        step "regret $D"
        $B regret "$O/oracle_$D.json" "$O/tt-$D-1/$J" \
            "$O/tt-$D-2/$J" "$O/fi_autotune_$D.json" \
            --label tunetab-1 tunetab-2 flashinfer --json "$O/regret_$D.json" 2>&1 | tail -8
    done ;;
host) # issue #30: per deployment of HOST_DEPLOYS, FlashInfer's own autotune(True) (AUTOTUNE=0
    # skips it), then tunetab twice as users run it and once with TUNETAB_FI_GRAPHS=1 (PLAIN=0
    # skips it), every run with TUNETAB_PROF_TIMING (where the host time goes); a deployment's
    # fit, where FITDIR/fit-D.yaml exists, is the held-out one (FITDIR: learn_bench.sh's output)
    for D in ${HOST_DEPLOYS:-qwen3-235b-fp8-ep4 dsv3-fp8-ep8 qwen3-bf16 minimax-m2-fp8-ep8 scout-bf16-tp4}; do
        if [ "${AUTOTUNE:-1}" = 1 ]; then
            step "FlashInfer autotune $D"
            timeout 150 $B autotune $D --out "$O" > "$O/autotune_$D.log" 2>&1 || echo "autotune $D: exit $?"
            tail -2 "$O/autotune_$D.log"
        fi
        fit=""
        [ -n "${FITDIR:-}" ] && [ -f "$FITDIR/fit-$D.yaml" ] && fit="--model-fit $FITDIR/fit-$D.yaml"
        ( FIT_ARGS="$fit"; CHECK_LOAD=0 tt_runs $D "${RUNS:-2}" )
        if [ "${PLAIN:-1}" = 1 ]; then
            step "tunetab $D with CUDA graphs"
            ( TIMEFORMAT="process wall %R s"; time TUNETAB_FI_GRAPHS=1 TUNETAB_PROF_TIMING=1 $T generate \
                --device auto ${ARGS[$D]} --profile --backend flashinfer $fit -o "$O/tt-$D-graphs" ) \
                > "$O/tt-$D-graphs.log" 2>&1 || { echo "tunetab $D graphs failed"; tail -20 "$O/tt-$D-graphs.log"; }
            grep -E 'profiled|process wall|profiling done|fi-worker timing' "$O/tt-$D-graphs.log"
        fi
    done ;;
runs)
    for D in $DEPLOYS; do
        tt_runs $D
        step "tunetab proxy backend $D"
        $T generate --device auto ${ARGS[$D]} --profile --backend proxy -o "$O/proxy-$D" > "$O/proxy-$D.log" 2>&1 || echo "proxy $D failed"
        grep profiled "$O/proxy-$D.log"
        step "FlashInfer autotune $D"
        timeout 150 $B autotune $D --out "$O" > "$O/autotune_$D.log" 2>&1 || echo "autotune $D: exit $?"
        tail -4 "$O/autotune_$D.log"
    done
    step "calibrate"
    $T calibrate -o "$O/cal.yaml" > "$O/cal.log" 2>&1 || echo "calibrate failed"
    for D in $DEPLOYS; do layer $D "$O/fi_autotune_$D.json"; done ;;
esac
step done
