# 098-fused-finalize: --fused-finalize off builds keys and tactics for a runner with
# use_fused_finalize off (SGLang 0.5.23's default): the key's last extras element is False
# and GEMM2 draws from GEMM1's list (ids G1 .. 2 G1 - 1: on SM90 bf16 45-89, no FINALIZE
# copies; cutlass-moe-tactics.md §3); the default stays on. install says which server
# environment each needs; doctor --for too; validate checks GEMM2 ids against the list the
# key's flag implies. (make test-flashinfer: FlashInfer's own runner with
# use_fused_finalize=False hits every key of the off table, none of the default's.)
. "$ROOT/tests/lib.sh"
G="generate --device h200 --model qwen3-30b-a3b --dtype bf16 --format json -q"
tunetab $G -o on
tunetab $G --fused-finalize off -o off
J=flashinfer_autotune_NVIDIA_H200.json
for d in on off; do
    python3 - "$d/$J" "$d" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
keys = [k for k in t if not k.startswith("_")]
last = sorted({k.rsplit(", ", 1)[1] for k in keys})
g2 = [v[1] for k, v in t.items() if "gemm2" in k]
print("%s: key ends %s; GEMM2 tactics in %d..%d" % (sys.argv[2], last, min(g2), max(g2)))
PY
    tunetab validate -q $d/* && echo "$d: valid"
done
for d in on off; do
    tunetab install --for sglang --from $d/$J --model-path m --hf-config-class C --cache-dir root-$d 2>&1 >/dev/null | tail -1 | sed 's/^.*--moe-runner-backend flashinfer_cutlass; //'
    tunetab doctor --for sglang --from $d/$J --model-path m --hf-config-class C --cache-dir root-$d 2>/dev/null | grep 'server environment'
done
# validate reads the key's flag: GEMM2 id 100 exists with FINALIZE (45-125), not without (45-89)
python3 - off/$J <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("_generation", None)
k = [x for x in d if "gemm2" in x][0]
d[k] = [d[k][0], 100]
json.dump(d, open("bad.json", "w"), indent=2)
PY
tunetab validate --device h200 --flashinfer 0.7.4 bad.json 2>&1 | grep -o 'tactic 100 is outside GEMM2.s ids 45-89[^[]*' || echo "not caught"
run tunetab $G --fused-finalize maybe -o x
