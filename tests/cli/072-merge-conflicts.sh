# 072-merge-conflicts: one key with different tactics in different inputs is a conflict,
# settled by docs/fleet.md's rules in order: 1 measured (or fallback) beats predicted beats no
# provenance; 2 the lower time (a known time beats none); 3 the lower tactic. Each rule once
# or more, a three-way conflict, and the same tactic twice (no conflict: the better provenance
# is kept). --fail-on-conflict exits 1 and writes nothing; --quiet says nothing; --json.
. "$ROOT/tests/lib.sh"
MK="python3 $ROOT/tests/data/merge/mk.py"
$MK meas  --run 00000000000000e1 1:1=19:m:10 1:2=36:m:12.5 1:4=36:m:14 1:16=18:m:9 1:32=19:m:10 2:8=100:m:9
$MK meas2 --run 00000000000000e2 1:2=20:m:11 1:4=21:m:14 1:16=-1:f:8.75 2:8=100:m:9.5
$MK pred  --run 00000000000000f1 1:1=36:p:5 1:8=36:p:30 1:32=20:p:1 2:1=99:p:7.5 2:2=99:p
$MK pred2 --run 00000000000000f2 2:1=100:p:6 2:2=100:p:9
$MK fi  --no-prov --format json 1:8=19 1:32=21 2:4=101
$MK fi2 --no-prov --format py 2:4=99
run tunetab merge out meas meas2 pred pred2 fi fi2
python3 - <<'PY'
import ast, json
table = ast.literal_eval(open("out/v0_1_trtllm_fused_moe_NVIDIA_H200.py").read().split("=", 1)[1])
prov = json.load(open("out/tunetab_provenance_NVIDIA_H200.json"))
runs = [r["id"] for r in prov["runs"]]
tokens = lambda k: int(k.split("((")[1].split(",")[0])
stage = lambda k: k.split("gemm")[1][0]
for k in sorted(table, key=lambda k: (stage(k), tokens(k))):
    p = prov["entries"].get(k)
    how = "no provenance" if p is None else "%s %s us, run %s" % (p["source"], p["time_us"], runs[p["run"]])
    print("gemm%s %2d tokens: tactic %3d  (%s)" % (stage(k), tokens(k), table[k][1], how))
j = json.load(open("out/flashinfer_autotune_NVIDIA_H200.json"))
print("json agrees with the module:", all(j[k] == ["MoERunner", v[1]] for k, v in table.items()))
PY
run tunetab merge --fail-on-conflict strict meas meas2
ls strict 2>&1 || true
run tunetab merge --quiet quiet meas meas2
ls quiet
run tunetab merge --json -q report.json meas2 meas
