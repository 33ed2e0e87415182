# 080-shard: generate --shard I/N and the launcher's rank and count (docs/fleet.md "Shards"),
# on the worker's fake GPU backend (deterministic synthetic timings): the shards of a run are
# disjoint, cover it, and merge into exactly the single run's bytes, whichever way the rank
# reached the process (--shard, Open MPI, Slurm step, Slurm array, PMI); launcher variables
# that contradict each other are refused; the Slurm batch step is one process, not a shard.
. "$ROOT/tests/lib.sh"
export TUNETAB_FAKE_GPU=1 TUNETAB_FAKE_GPUS=2
G="tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -q"
PY=v0_1_trtllm_fused_moe_NVIDIA_H200.py
JS=flashinfer_autotune_NVIDIA_H200.json
PV=tunetab_provenance_NVIDIA_H200.json
$G -o single
total=$(grep -c "^    \"('trtllm" single/$PY)
echo "single run: $total entries"
for i in 0 1 2; do $G --shard $i/3 -o three; done
ls three
for i in 0 1 2; do ls three/shard-$i-of-3 | tr '\n' ' '; echo; done
sum=0
for i in 0 1 2; do
    n=$(grep -c "^    \"('trtllm" three/shard-$i-of-3/$PY)
    echo "shard $i/3: $n entries"
    sum=$((sum + n))
done
echo "sum of the shards: $sum"
cat three/shard-*/$PY | grep "^    \"('trtllm" | sort | uniq -d | wc -l | sed 's/^/keys in two shards: /'
python3 - three/shard-1-of-3/$PV <<'PYEOF'
import json, sys
p = json.load(open(sys.argv[1]))
r = p["runs"][0]
print("provenance:", p["device"], p["flashinfer_version"], "shard", r["shard"], "profiled", r["profiled"])
srcs = sorted({e["source"] for e in p["entries"].values()})
print("sources:", srcs, "every measured entry has an interval and its tactic among its ties:",
      all(e["lo_us"] <= e["time_us"] <= e["hi_us"] and int(e["tactic"]) in e["ties"]
          for e in p["entries"].values() if e["source"] != "predicted"))
PYEOF
tunetab validate -q three/shard-*/$PY three/shard-*/$JS >v.out && echo "every shard's tables validate on their own"
# a shard alone leaves the other shards' buckets to the fallback, and validate says so
grep -c 'those token counts fall back to tactic -1 \[coverage\]' v.out
tunetab merge -q three/merged three/shard-2-of-3 three/shard-0-of-3 three/shard-1-of-3
cmp single/$PY three/merged/$PY && cmp single/$JS three/merged/$JS && echo "three shards merged: the single run's bytes"
# the same split from the launcher's variables, two processes at once, one GPU each
for r in 0 1; do
    OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=$r \
        tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -o ompi -v \
        2>ompi-$r.err &
done
wait
grep -h -e '^tunetab: shard' -e '^tunetab: GPU [0-9] (' ompi-0.err ompi-1.err
grep -h '^tunetab: GPU [0-9] GEMM' ompi-0.err | cut -c1-14 | sort | uniq -c
grep -h '^tunetab: GPU [0-9] GEMM' ompi-1.err | cut -c1-14 | sort | uniq -c
tunetab merge -q ompi/merged ompi/shard-0-of-2 ompi/shard-1-of-2
cmp single/$PY ompi/merged/$PY && echo "Open MPI-style ranks: the single run's bytes"
# Slurm: a step of 2 tasks; an array of 2 tasks with ids 10 and 20; PMI
SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_NTASKS=2 $G -o slurm
SLURM_STEP_ID=0 SLURM_PROCID=0 SLURM_NTASKS=2 $G -o slurm
SLURM_ARRAY_TASK_ID=20 SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_STEP=10 $G -o array
SLURM_ARRAY_TASK_ID=10 SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_STEP=10 $G -o array
PMI_RANK=0 PMI_SIZE=2 $G -o pmi
PMI_RANK=1 PMI_SIZE=2 $G -o pmi
ls slurm array pmi
tunetab merge -q slurm/merged slurm/shard-1-of-2 slurm/shard-0-of-2
tunetab merge -q array/merged array/shard-0-of-2 array/shard-1-of-2
tunetab merge -q pmi/merged pmi/shard-0-of-2 pmi/shard-1-of-2
cmp single/$PY slurm/merged/$PY && cmp single/$PY array/merged/$PY && cmp single/$PY pmi/merged/$PY \
    && echo "Slurm step, Slurm array, PMI: the single run's bytes"
python3 -c "import json,sys; print('array shard source:', json.load(open(sys.argv[1]))['runs'][0]['shard'])" \
    array/shard-1-of-2/$PV
# the batch step (no SLURM_STEP_ID): one process, the whole table
SLURM_PROCID=0 SLURM_NTASKS=4 $G -o batch
ls batch | grep -c '^shard-' || true
cmp single/$PY batch/$PY && echo "batch step: not a shard"
# --shard wins over the launcher; --shard 0/1 turns it off
OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 $G --shard 0/1 -o off
cmp single/$PY off/$PY && echo "--shard 0/1: the whole table"
# heuristic-only runs shard too, when asked
tunetab generate --device "NVIDIA H200" --model qwen3-30b-a3b --dtype bf16 -q --shard 1/2 -o heur
ls heur/shard-1-of-2 | tr '\n' ' '; echo
# refused
run tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -q --shard 2/2
run tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -q --shard x
OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=2 run tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -q
SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=2 run tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -q
OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=3 run tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -q
# validate reads the provenance file beside a table: the version it was made for, and whether
# the table still says what was measured (a hand edit after generate is caught)
tunetab generate --device "NVIDIA H200" --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.6.12 -q -o prov
tunetab validate prov/$PY | head -1
python3 - prov/$JS <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
k = sorted(x for x in j if not x.startswith("_"))[3]
j[k][1] = 0 if j[k][1] != 0 else 1
open(sys.argv[1], "w").write(json.dumps(j, indent=2))
PYEOF
run tunetab validate -q prov
