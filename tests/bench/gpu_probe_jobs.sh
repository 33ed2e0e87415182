#!/bin/sh
# per-job timing of single-GPU runs, for the shard cost model
T=${TUNETAB:-build/gpu/tunetab}
export TUNETAB_PROF_TIMING=1
A="generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile -v"
$T $A -o p1 2>$OUT/default.log
$T $A --top 8 -o p2 2>$OUT/top8.log
$T $A --top all -o p3 2>$OUT/all.log
$T generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -v -o p4 2>$OUT/qwen.log
TUNETAB_DUMP_RANKING=1 $T generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 -q -o p5 2>$OUT/rank.log
cd $OUT && tar czf logs.tgz *.log && rm *.log
