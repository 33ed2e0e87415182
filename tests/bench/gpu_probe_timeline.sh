#!/bin/sh
# gpu_probe_timeline.sh (GPU machine; TUNETAB=binary): where a profiled process's wall time goes,
# for one default single run and two launcher-style shards (docs/benchmarks.md, fleet)
T=${TUNETAB:-build/gpu/tunetab}
export TUNETAB_PROF_TIMING=1
A="generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile -q"
summ() { awk '/tunetab-worker: job/ {split($0,a,"setup "); split(a[2],b," ms"); s+=b[1]; split($0,c,"measure "); split(c[2],d," ms"); m+=d[1]; n++} /tunetab-timing|device query/ {print} END {printf "jobs %d: setup %.0f ms, measure %.0f ms\n", n, s, m}' "$1"; }
/usr/bin/time -f "detect wall %e s" $T detect >/dev/null
for i in 1 2; do
  /usr/bin/time -f "single wall %e s" $T $A -o s$i 2>s$i.log; summ s$i.log; tail -1 s$i.log
done
for r in 0 1; do OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=$r /usr/bin/time -f "shard $r wall %e s" $T $A -o f 2>f$r.log & done; wait
for r in 0 1; do echo "== shard $r"; summ f$r.log; tail -1 f$r.log; done
