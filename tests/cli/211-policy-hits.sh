# 211-policy-hits: issue #47 item 2, "hits means found and not re-profiled". SGLang looks its
# entries up in FlashInfer's tune mode, which uses an entry only when its profiling policy is the
# one its op requests (configs/ops: fp4_gemm and the TensorRT-LLM-gen MoE cold L2 under a CUDA
# graph); any other is profiled again at start. GLM-5 NVFP4 on a B200 at TP 8, SGLang 0.5.23:
# rank files whose fp4_gemm entries carry a hot-L2 policy (or none, read as hot) are no hits,
# named so, and the fix doctor prints (install --replace) makes them hits; validate on such a file
# warns [op-policy] and fails in CI mode (--strict), as it does on a table with no entries. The
# managed store (vLLM with one rank) is judged by the same rule: an entry file with another
# policy, or none, is profiled again.
. "$ROOT/tests/lib.sh"
H=$ROOT/tests/data/hf/nvidia
SGL="python -m sglang.launch_server --model-path nvidia/GLM-5-NVFP4 --tp 8 --quantization modelopt_fp4"
O="--device b200 --consumer-version 0.5.23 --flashinfer 0.7.4 --model-config $H/GLM-5-NVFP4/config.json"
export SGLANG_CACHE_DIR="$PWD/cache"
RUN_SED="s|$PWD/||g"
# the B200's fp4_gemm and TensorRT-LLM-gen MoE entries are FlashInfer's fallback unless measured:
# install writes them only when asked (--write-fallbacks), which this test needs to have entries
tunetab install --for sglang $O --write-fallbacks -- $SGL >/dev/null 2>&1
# set_policy OP POLICY-JSON|none: that op's entries in every rank file get the policy (none: no
# 3rd element)
set_policy() {
    for r in cache/flashinfer/autotune/0.7.4/sm100/*/rank_*.json; do
        python3 - "$r" "$1" "$2" <<'PY'
import json, sys
path, op, pol = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(path))
for k, v in d.items():
    if k.startswith("('%s'" % op):
        d[k] = v[:2] + ([] if pol == "none" else [json.loads(pol)])
json.dump(d, open(path, "w"), indent=2)
PY
    done
}
doc() {
    rc=0
    tunetab doctor --for sglang $O -- $SGL >out.txt 2>/dev/null || rc=$?
    grep -e '^  lookups' -e '^  op  .*fp4' -e '^  no ' -e '^verdict' -e '^fix' out.txt |
        sed -e "s|$PWD/||g" -e "s|$ROOT|<root>|g"
    echo "doctor exit $rc"
}
echo "== installed by tunetab (the op's policy)"
doc
echo "== fp4_gemm's entries with [\"cuda_graph_profile_replays\", 1, \"l2_cache_policy\", \"hot\"]"
set_policy fp4_gemm '["cuda_graph_profile_replays", 1, "l2_cache_policy", "hot"]'
doc
echo "== the same as --json: per op and per file what is found but profiled again"
tunetab doctor --for sglang --json $O -- $SGL 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("lookups:", d["lookups"])
for o in d["ops"]:
    print("op", o["op"], "covered", o["covered"], "profiled_again", o["profiled_again"])
print("file 0: hits", d["files"][0]["hits"], "profiled_again", d["files"][0]["profiled_again"])
print("verdict:", d["verdict"])'
f=$(ls cache/flashinfer/autotune/0.7.4/sm100/*/rank_tp0_pp0_dp0.json)
echo "== validate on one of them: [op-policy] warnings, exit 0; in CI mode (--strict) exit 1"
rc=0; tunetab validate "$f" >v.txt || rc=$?
echo "op-policy warnings: $(grep -c '\[op-policy\]' v.txt); the first:"
grep -m1 '\[op-policy\]' v.txt | sed -e "s|$PWD/||g"
echo "validate exit $rc"
rc=0; tunetab validate --strict -q "$f" >/dev/null || rc=$?
echo "validate --strict exit $rc"
echo "== the fix doctor prints measures the op (--profile, on a GPU of this kind); this user keeps"
echo "   FlashInfer's fallbacks instead: the same install with --write-fallbacks, where another"
echo "   policy there is a conflict, which the generated table replaces"
sed -n 's/^fix: tunetab .* --profile -- .*/fix: ... --profile -- .../p' out.txt
# the install's output goes to a file first: piped straight into head, it would be killed by
# SIGPIPE once head has its lines, before it wrote anything when it runs slowly (the sanitizer pass)
tunetab $(sed -n 's/^fix: tunetab //p' out.txt | sed 's/ --profile / --write-fallbacks /') >fix.txt 2>&1
grep -e 'conflicts' -e '^tunetab: conflict' fix.txt | head -2
doc
echo "== install --from a table whose fp4_gemm entries carry that policy: refused (--force installs it)"
set_policy fp4_gemm '["cuda_graph_profile_replays", 1, "l2_cache_policy", "hot"]'
cp "$(ls cache/flashinfer/autotune/0.7.4/sm100/*/rank_tp0_pp0_dp0.json)" hot.json
rc=0; tunetab install --for sglang $O --from hot.json -- $SGL >/dev/null 2>err.txt || rc=$?
grep -e 'profiles them again' err.txt
echo "install exit $rc"
echo "== fp4_gemm's entries without a policy: FlashInfer reads them as hot L2 under a CUDA graph"
set_policy fp4_gemm none
doc
echo "== a table with no entries: validate warns; --strict fails"
python3 -c 'import json; json.dump({"_metadata": dict({k: "*" for k in ("cuda_version",
    "cublas_version", "cudnn_version", "cudnn_frontend_version", "cutlass_dsl_version")},
    flashinfer_version="0.7.4", gpu="NVIDIA B200")}, open("flashinfer_autotune_NVIDIA_B200.json", "w"))'

run tunetab validate -q flashinfer_autotune_NVIDIA_B200.json
run tunetab validate --strict -q flashinfer_autotune_NVIDIA_B200.json
echo "== FlashInfer's managed store (vLLM, one rank, Qwen3-30B-A3B NVFP4 on a B200): an entry file"
echo "   with another profiling policy, or none (None never equals the op's), is profiled again"
mkdir q
cp "$ROOT/tests/data/hf/Qwen/Qwen3-30B-A3B/config.json" q/
echo '{"quantization": {"quant_algo": "NVFP4", "group_size": 16, "exclude_modules": ["lm_head"]}}' >q/hf_quant_config.json
fi_python py "NVIDIA B200" 0.5.23 0.34.0
V="vllm serve nvidia/Qwen3-30B-A3B-NVFP4"
S="--python ./py --device b200 --model-config q/config.json --cache-dir store"
tunetab install --for vllm $S --write-fallbacks -- $V >/dev/null 2>&1
store() {
    rc=0; tunetab doctor --for vllm $S -- $V >chk.txt 2>/dev/null || rc=$?
    grep -e '^  lookups' -e '^  no ' -e '^verdict' chk.txt | sed -e "s|$PWD/||g" -e 's|v2/[0-9a-f]*|v2/<env>|g'
    echo "doctor exit $rc"
}
store
# set_entry POLICY-JSON|none: the first two entry files' profiling_policy
set_entry() {
    for f in $(ls store/v2/*/entries/*.json | head -2); do
        python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
if sys.argv[2] == "none": e.pop("profiling_policy", None)
else: e["profiling_policy"] = json.loads(sys.argv[2])
json.dump(e, open(sys.argv[1], "w"))' "$f" "$1"
    done
}
set_entry '["cuda_graph_profile_replays", 1, "l2_cache_policy", "hot"]'
store
set_entry none
store
echo "== the fix: install replaces them (another policy there is a conflict)"
tunetab install --for vllm $S --write-fallbacks -- $V 2>&1 | grep -e 'conflicts' | sed -e "s|$PWD/||g"
store
