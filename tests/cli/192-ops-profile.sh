# 192-ops-profile: `generate --for ... --profile --backend flashinfer` measures every key of the
# server's other ops through the worker (OPPROF; issue #39), here on the FlashInfer stub claiming
# a Blackwell GPU (its fake times: tests/data/fi-stub/kernels.py). On the RTX PRO 6000 (SM120)
# fp4_gemm's CUTLASS tactics are timed in the heuristic's order (rank_op, lib/gemm_cost.lua),
# --top 6 of them beside the fallback; on the B200 the CuTe-DSL runner and the TensorRT-LLM-gen
# MoE time the runner's own list (cands=0). The table holds each winner with the op's profiling
# policy, the provenance says measured. A winner the correctness gate finds wrong is not chosen;
# a GPU that cannot run the op is an error, and nothing is written.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX
M="--model-config $ROOT/tests/data/hf/nvidia/GLM-5-NVFP4/config.json --consumer-version 0.5.23 --flashinfer 0.7.4"
SGL="python -m sglang.launch_server --model-path nvidia/GLM-5-NVFP4 --tp 8 --quantization modelopt_fp4 --cuda-graph-max-bs-decode 16"
show() { # the table's entries (key's op and M, value) and the provenance's sources
    python3 - "$1" <<'PY'
import glob, json, sys, collections
t = json.load(open(glob.glob(sys.argv[1] + "/flashinfer_autotune_*.json")[0]))
for k, v in t.items():
    if not k.startswith("_"):
        print(k.split(",")[0][2:-1], k.split("((")[1].split(",")[0], json.dumps(v))
p = json.load(open(glob.glob(sys.argv[1] + "/tunetab_provenance_*.json")[0]))
print("provenance:", dict(collections.Counter(e["source"] for e in p["entries"].values())),
      [(o["op"], o["covered"]) for o in p["ops"]])
PY
}
echo "== SM120, the CUTLASS MoE left to Triton: fp4_gemm alone, --top 6"
TUNETAB_STUB_GPU=rtx-pro-6000-server tunetab generate --for sglang --device rtx-pro-6000-server $M --profile --backend flashinfer --python python3 --top 6 -o sm120 -- $SGL --moe-runner-backend triton 2>&1 | grep -e 'keys measured' -e error || true
show sm120
echo "== B200: the runners' own lists"
TUNETAB_STUB_GPU=b200 tunetab generate --for sglang --device b200 $M --profile --backend flashinfer --python python3 -o b200 -- $SGL 2>&1 | grep -e 'keys measured' -e error || true
show b200 | sort | uniq -c | sort -k2 | head -8
echo "== the gate: the stub's fastest (tactic 3 at 16 tokens and below) computes garbage"
TUNETAB_TEST_WRONG_TACTIC=3 TUNETAB_STUB_GPU=rtx-pro-6000-server tunetab generate --for sglang --device rtx-pro-6000-server $M --profile --backend flashinfer --python python3 -o wrong -v -- $SGL --moe-runner-backend triton 2>&1 | grep -e 'fp4_gemm 16 tokens' -e 'keys measured' || true
echo "== a GPU that cannot run the op"
TUNETAB_STUB_CANNOT_RUN=1 TUNETAB_STUB_GPU=rtx-pro-6000-server run tunetab generate --for sglang --device rtx-pro-6000-server $M --profile --backend flashinfer --python python3 -q -o none -- $SGL --moe-runner-backend triton
ls none 2>/dev/null || echo "nothing written"
echo "== merge keeps the ops' entries with their policy (the shards of a fleet)"
tunetab merge merged sm120 --format json -q 2>&1 || true
python3 - sm120 merged <<'PY'
import glob, json, sys
a, b = (json.load(open(glob.glob(d + "/flashinfer_autotune_*.json")[0])) for d in sys.argv[1:])
strip = lambda t: {k: v for k, v in t.items() if not k.startswith("_")}
print("merged entries equal the input's, policies included:", strip(a) == strip(b))
PY
tunetab validate -q merged/flashinfer_autotune_*.json && echo "merged: validates"
