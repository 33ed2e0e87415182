# 236-routing: issue #49, each bucket's (GEMM1, GEMM2) tactic pair chosen with FlashInfer's whole
# MoE layer as the judge (the flashinfer worker's LAYER, here the stub's made-up layer: a GEMM1
# tactic among the fastest at its bucket slows down where the hot rank's experts get many rows)
# for the least worst-case regret over balanced routing and a hot rank (Zipf 0.5, 1.2) — the
# default where EP > 1 — or a histogram (--routing FILE); --routing balanced keeps the per-GEMM
# choices, which the robust run's provenance records as "per_gemm" for every bucket.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX
G="generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile --backend flashinfer --model-fit datasheet"
T=flashinfer_autotune_NVIDIA_H200.json
P=tunetab_provenance_NVIDIA_H200.json
routing_lines() { grep -e '^tunetab: routing' "$1" | sed -e 's/timed in [0-9.]* s/timed in S s/' -e 's/[0-9][0-9]*\.[0-9]*%/N%/g'; }
echo "== EP 8: robust by default"
tunetab $G --ep 8 -o robust >robust.out 2>&1; echo "exit $?"
routing_lines robust.out
echo "== --routing balanced: the per-GEMM choices, as the robust run recorded them"
tunetab $G --ep 8 --routing balanced -o balanced >balanced.out 2>&1; echo "exit $?"
echo "routing lines: $(grep -c '^tunetab: routing' balanced.out || true)"
python3 - robust/$P balanced/$T robust/$T <<'PY'
import json, sys
prov, bal, rob = (json.load(open(p)) for p in sys.argv[1:])
same = differ = 0
for key, e in prov["entries"].items():
    layer = e["layer"]
    stage = 0 if "gemm1" in key else 1
    assert bal[key][1] == layer["per_gemm"][stage], key
    assert rob[key][1] == layer["chosen"][stage], key
    assert [p for p in layer["pairs"] if p[:2] == layer["chosen"]], key
    differ += layer["chosen"] != layer["per_gemm"]
    same += layer["chosen"] == layer["per_gemm"]
    assert layer["loads"] == ["balanced", "hot-0.5", "hot-1.2"]
print(f"every entry: balanced table = per_gemm, robust table = chosen; {differ} entries paired differently, {same} the same")
PY
echo "== explain shows the pairs"
tunetab explain robust/$T | sed -n '/^routing:/,$p' | sed -e "s|$PWD/||" -e 's/[0-9][0-9]*\.[0-9][0-9]/N/g' | head -4
tunetab explain robust/$T | grep 'geomean over the buckets' | sed 's/[-+][0-9.]*%/N%/g'
tunetab explain --json robust/$T | python3 -c 'import json,sys; r=json.load(sys.stdin)["routing"]; print(len(r["buckets"]), "buckets,", r["loads"], sorted(r["cost_over_per_gemm"]))'
echo "== EP 1: balanced unless asked"
tunetab $G -o ep1 >ep1.out 2>&1; echo "exit $? routing lines: $(grep -c '^tunetab: routing' ep1.out || true)"
tunetab $G --routing robust -o ep1r >ep1r.out 2>&1; echo "exit $?"; routing_lines ep1r.out | head -1
echo "== a histogram replaces the hot loads"
{ echo "# expert picks"; i=0; while [ $i -lt 128 ]; do echo "$i $(( (i * 37) % 11 ))"; i=$((i + 1)); done; } >hist.txt
tunetab $G --ep 8 --routing hist.txt -o hist >hist.out 2>&1; echo "exit $?"
routing_lines hist.out | head -1
echo "== a pair that fails is no choice; a layer that cannot be timed keeps the per-GEMM choices"
TUNETAB_STUB_LAYER_FAIL=$(python3 -c 'import json; l=json.load(open("robust/'$P'"))["entries"]; e=next(iter(l.values()))["layer"]; print("%d,%d" % tuple(e["chosen"]))') \
    tunetab $G --ep 8 -o fail >fail.out 2>&1; echo "exit $?"
python3 - fail/$P <<'PY'
import json, sys
for e in json.load(open(sys.argv[1]))["entries"].values():
    failed = [p[:2] for p in e["layer"]["pairs"] if None in p[2]]
    if failed:
        assert e["layer"]["chosen"] not in failed
        print("failed pairs:", failed, "never chosen")
        break
PY
TUNETAB_STUB_NO_LAYER="this FlashInfer's cutlass_fused_moe takes no profile_ids" tunetab $G --ep 8 -o none >none.out 2>&1; echo "exit $?"
grep 'no pair could be timed' none.out
cmp none/$T balanced/$T && echo "the same table as --routing balanced"
echo "== errors"
t() { rc=0; tunetab "$@" >err.out 2>&1 || rc=$?; grep error err.out | head -1 | sed "s|$PWD/||g"; echo "exit $rc"; }
printf '0 5\n1 x\n' >bad1.txt; t $G --ep 8 --routing bad1.txt -o e1
printf '0 5\n200 1\n' >bad2.txt; t $G --ep 8 --routing bad2.txt -o e2
printf '0 5\n0 1\n' >bad3.txt; t $G --ep 8 --routing bad3.txt -o e3
printf '0 5 6\n' >bad4.txt; t $G --ep 8 --routing bad4.txt -o e4
printf '0 5\n1 5\n' >bad5.txt; t $G --ep 8 --routing bad5.txt -o e5
t $G --ep 8 --routing nowhere.txt -o e6
for d in e1 e2 e3 e4 e5 e6; do [ -e $d/$T ] && echo "$d: a table was written"; done
TUNETAB_FAKE_GPU=1 t generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile --backend proxy --routing robust -o e7
