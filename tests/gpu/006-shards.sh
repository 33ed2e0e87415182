# 006-shards (GPU): two launcher-style processes (OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK as
# `mpirun -np 2` sets them) each measure half of one deployment on their own GPU, and
# `tunetab merge` puts them together. The merged table has exactly the single run's keys, it
# validates, and every tactic that differs from a single-GPU run's is one of the candidates that
# run declared tied (its provenance lists the ties). With one GPU both shards use it, one after
# the other: two processes timing on one GPU at once time each other's kernels too, far beyond
# the noise the ties allow for (docs/fleet.md "Provenance file").
set -eu
T=$TUNETAB
n=$($T detect --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["gpus"]))')
A="generate --device auto --model deepseek-v3 --dtype fp8 --ep 8 --profile --backend proxy -q"
env -u CUDA_VISIBLE_DEVICES $T $A -o single
for r in 0 1; do
    l=$r; [ "$n" -gt 1 ] || l=0
    env -u CUDA_VISIBLE_DEVICES OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=$l \
        $T $A -o fleet 2>shard-$r.log &
    [ "$n" -gt 1 ] || wait
done
wait
cat shard-0.log shard-1.log
$T merge fleet/merged fleet/shard-0-of-2 fleet/shard-1-of-2
$T validate -q fleet/merged
python3 - single fleet/merged fleet/shard-0-of-2 fleet/shard-1-of-2 <<'PYEOF'
import json, os, sys
def load(d, prefix):
    f = [x for x in os.listdir(d) if x.startswith(prefix) and x.endswith(".json")][0]
    return json.load(open(os.path.join(d, f)))
single = {k: v[1] for k, v in load(sys.argv[1], "flashinfer_autotune_").items() if not k.startswith("_")}
merged = {k: v[1] for k, v in load(sys.argv[2], "flashinfer_autotune_").items() if not k.startswith("_")}
ties = load(sys.argv[1], "tunetab_provenance_")["entries"]
assert set(single) == set(merged), "merged keys differ from the single run's"
diff = [k for k in single if single[k] != merged[k]]
undeclared = [k for k in diff if merged[k] not in ties[k].get("ties", [])]
print("entries %d, same %d, differ %d (declared ties %d, undeclared %d)" % (
    len(single), len(single) - len(diff), len(diff), len(diff) - len(undeclared), len(undeclared)))
for k in undeclared:
    print("  undeclared:", k[:70], "single", single[k], ties[k], "merged", merged[k])
sys.exit(1 if undeclared else 0)
PYEOF
