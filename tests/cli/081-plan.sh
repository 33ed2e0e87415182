# 081-plan: generate --plan (docs/fleet.md "Plans"): processes on two device types share one
# plan through claim files; two processes of one device at once take different items; the last
# to finish merges the device's items into its folder, and the merge is the union of the
# items; a re-run has nothing left to do and rewrites the same bytes; a stale claim of a dead
# process is taken over, a live one is left alone; the whole tree validates in one command;
# bad plans are refused with file:line:col.
. "$ROOT/tests/lib.sh"
P="$ROOT/tests/data/plans/fleet.yaml"
tunetab generate --plan "$P" --device "NVIDIA H200" 2>h1.err &
tunetab generate --plan "$P" --device "NVIDIA H200" 2>h2.err &
wait
cat h1.err h2.err | grep -c '^tunetab: plan item' | sed 's/^/H200 items run by the two processes: /'
cat h1.err h2.err | grep '^tunetab: plan item' | sort | uniq -d | wc -l | sed 's/^/items run twice: /'
find fleet -name .claim | wc -l | sed 's/^/claims left: /'
find fleet | sort
python3 - fleet/NVIDIA_H200 <<'PYEOF'
import ast, glob, json, os, sys
d = sys.argv[1]
def keys(path):
    return ast.literal_eval(open(path).read().split("=", 1)[1])
merged = keys(os.path.join(d, "v0_1_trtllm_fused_moe_NVIDIA_H200.py"))
union = {}
for f in sorted(glob.glob(os.path.join(d, "items", "*", "v0_1_*.py"))):
    union.update(keys(f))
print("merged entries:", len(merged), "= union of the items:", merged == union)
p = json.load(open(os.path.join(d, "tunetab_provenance_NVIDIA_H200.json")))
print("runs in the merged provenance:", sorted((r["model"], r["tp"], r["ep"]) for r in p["runs"]))
PYEOF
cp fleet/NVIDIA_H200/v0_1_trtllm_fused_moe_NVIDIA_H200.py before.py
run tunetab generate --plan "$P" --device "NVIDIA H200"
cmp before.py fleet/NVIDIA_H200/v0_1_trtllm_fused_moe_NVIDIA_H200.py && echo "re-run: same bytes"
# B200: one item is claimed by a process that no longer exists on this host (taken over), and
# then one by a live process elsewhere (left alone: no merge yet)
mkdir -p fleet/NVIDIA_B200/items/01-deepseek-v3-fp8-tp1-ep8
sleep 0 & dead=$!; wait $dead
echo "$(hostname) $dead" > fleet/NVIDIA_B200/items/01-deepseek-v3-fp8-tp1-ep8/.claim
mkdir -p fleet/NVIDIA_B200/items/02-qwen3-30b-a3b-bf16-tp2-ep1
echo "elsewhere.example 1" > fleet/NVIDIA_B200/items/02-qwen3-30b-a3b-bf16-tp2-ep1/.claim
run tunetab generate --plan "$P" --device "NVIDIA B200"
ls fleet/NVIDIA_B200
rm fleet/NVIDIA_B200/items/02-qwen3-30b-a3b-bf16-tp2-ep1/.claim
run tunetab generate --plan "$P" --device "NVIDIA B200" -q
ls fleet/NVIDIA_B200
rc=0; tunetab validate -q fleet >v.out 2>&1 || rc=$?
echo "validate fleet: exit $rc, $(grep -c ' error: ' v.out || true) errors, $(grep -c ' warning: ' v.out || true) warnings"
# (notes: a table of two dtypes cannot tell bf16 from fp8 tactics by the key alone)
grep ' note: ' v.out | grep -v -c 'cannot tell bf16 from fp8' || true
tunetab validate fleet | grep -c ': ok:' | sed 's/^/tables checked: /'
tunetab validate fleet/NVIDIA_B200/v0_1_trtllm_fused_moe_NVIDIA_B200.py | head -1
# a device the plan does not list: nothing to do
run tunetab generate --plan "$P" --device "NVIDIA H100 80GB HBM3"
# with the fake GPU backend: the process's GPU decides its items, and they are profiled
TUNETAB_FAKE_GPU=1 run tunetab generate --plan "$P" --profile -o prof -q
ls prof prof/NVIDIA_H200
python3 -c "import json,sys; print('profiled:', {r['profiled'] for r in json.load(open(sys.argv[1]))['runs']})" \
    prof/NVIDIA_H200/tunetab_provenance_NVIDIA_H200.json
# refused
run tunetab generate --plan "$ROOT/tests/data/plans/bad-device.yaml" --device "NVIDIA H200"
run tunetab generate --plan "$ROOT/tests/data/plans/bad-key.yaml" --device "NVIDIA H200"
run tunetab generate --plan "$ROOT/tests/data/plans/twice.yaml" --device "NVIDIA H200"
run tunetab generate --plan "$P" --device "NVIDIA H200" --model deepseek-v3
