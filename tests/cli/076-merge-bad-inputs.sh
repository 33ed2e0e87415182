# 076-merge-bad-inputs: a bad provenance file (beside a table, or given) is an error located
# at file:line:col and nothing is written; so is a provenance that disagrees with its table,
# a table that does not parse, a value merge cannot keep, or a merged table that would not
# pass validate. A repeated key keeps its last value, as Python does. Exit 5 when OUT cannot
# be written.
. "$ROOT/tests/lib.sh"
D=$ROOT/tests/data/merge/bad
PY=v0_1_trtllm_fused_moe_NVIDIA_H200.py
for c in ok syntax unknown-key run-range source time-type tactic-differs names-missing; do
    mkdir "$c"
    cp "$D/$PY" "$c/"
    cp "$D/$c.json" "$c/tunetab_provenance_NVIDIA_H200.json"
    run tunetab merge "out-$c" "$c"
    [ -e "out-$c" ] && echo "out-$c: written" || echo "out-$c: nothing written"
done
# --json: the error, located, in the report
run tunetab merge --json out-json run-range
# the same, with the table given by itself: the provenance beside it is still read
run tunetab merge one.py syntax/$PY
ls one.py 2>&1 || true
# a provenance that names no table here is not read when only the table is given
run tunetab merge -q one.py names-missing/$PY
ls one.py
run tunetab merge out missing-dir
run tunetab merge out ok nothing.py
# a table that does not parse
mkdir broken && printf 'best_configs = {\n    "(1,)": (0, 5\n' > broken/$PY
run tunetab merge out broken --flashinfer 0.6.18
# a repeated key: Python keeps the last value, and so does merge
mkdir dup && python3 - <<'PY'
src = open("ok/v0_1_trtllm_fused_moe_NVIDIA_H200.py").read().splitlines()
first = src[1].replace("(0, 19)", "(0, 99)")
open("dup/v0_1_trtllm_fused_moe_NVIDIA_H200.py", "w").write("\n".join([src[0], first] + src[1:]) + "\n")
PY
run tunetab merge dup.py dup --flashinfer 0.6.18
python3 -c 'import ast; print("kept:", sorted(v[1] for v in ast.literal_eval(open("dup.py").read().split("=", 1)[1]).values()))'
# a JSON value with 0.7.4's selection record: kept with its entry; one with a 4th element that
# is no record, or a 5th element, is refused
mkdir policy extra && python3 - <<'PY'
import json
k = "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))"
meta = {"flashinfer_version": "0.7.4", "cuda_version": "*", "cublas_version": "*", "cudnn_version": "*", "cudnn_frontend_version": "*", "cutlass_dsl_version": "*", "gpu": "NVIDIA H200"}
pol = ["cuda_graph_profile_replays", None, "l2_cache_policy", "hot"]
rec = {"time_ms": 0.005372, "runner_up_ms": 0.005378, "margin": 0.001117, "candidates": 5}
json.dump({"_metadata": meta, k: ["MoERunner", 19, pol, rec]}, open("policy/flashinfer_autotune_NVIDIA_H200.json", "w"), indent=2)
json.dump({"_metadata": meta, k: ["MoERunner", 19, pol, rec, "more"]}, open("extra/flashinfer_autotune_NVIDIA_H200.json", "w"), indent=2)
PY
run tunetab merge policy.json policy
python3 -c 'import json, sys; print("kept:", [v for k, v in json.load(open("policy.json")).items() if not k.startswith("_")])'
run tunetab merge out extra
# the merged table would not pass validate: a tactic outside GEMM1's ids
mkdir range && sed 's/(0, 19)/(0, 999)/' ok/$PY > range/$PY
run tunetab merge out range --flashinfer 0.6.18
ls out 2>&1 || true
# no JSON autotune cache before 0.6.7
python3 "$ROOT/tests/data/merge/mk.py" old6 --version 0.6.6 --format py --no-prov 1:1=19
run tunetab merge old.json old6 --flashinfer 0.6.6
run tunetab merge --format both old old6 --flashinfer 0.6.6
ls old
# OUT cannot be written
run tunetab merge no/such/dir/out.py ok
