#!/bin/sh
# interference: one full exhaustive table on GPU 0 alone, on GPU 1 alone, then on both at once
T=${TUNETAB:-build/gpu/tunetab}
export TUNETAB_PROF_TIMING=1
A="generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile -q --top all"
summ() { awk '/tunetab-worker: job/ {split($0,a,"setup "); split(a[2],b," ms"); s+=b[1]; split($0,c,"measure "); split(c[2],d," ms"); m+=d[1]; n++} /device query/ {q=$0} /profiling done/ {p=$2} END {printf "jobs %d: setup %.0f ms, measure %.0f ms, profiling done at %s s; %s\n", n, s, m, p, q}' "$1"; }
CUDA_VISIBLE_DEVICES=0 /usr/bin/time -f "gpu0 alone %e s" $T $A -o a0 2>a0.log; tail -1 a0.log; summ a0.log
CUDA_VISIBLE_DEVICES=1 /usr/bin/time -f "gpu1 alone %e s" $T $A -o a1 2>a1.log; tail -1 a1.log; summ a1.log
CUDA_VISIBLE_DEVICES=0 /usr/bin/time -f "gpu0 together %e s" $T $A -o b0 2>b0.log &
CUDA_VISIBLE_DEVICES=1 /usr/bin/time -f "gpu1 together %e s" $T $A -o b1 2>b1.log &
wait
for f in b0 b1; do tail -1 $f.log; summ $f.log; done
nproc; nvidia-smi --query-gpu=index,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
