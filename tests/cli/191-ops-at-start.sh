# 191-ops-at-start: every op a server tunes at start (issue #39), from the launch command:
# GLM-5 NVFP4 at TP 8 on the RTX PRO 6000 (SM120: the CUTLASS MoE with the fused shared expert,
# fp4_gemm with the CUTLASS runner) and on the B200 (SM100: fp4_gemm with the CuTe-DSL runner,
# the TensorRT-LLM-gen MoE), SGLang 0.5.23 and vLLM 0.34.0. generate says what it wrote per op;
# install writes every op's keys into every rank file and doctor lists each op with what the
# cache holds of it; doctor says "no" for a cache without the fp4_gemm keys (the server would
# profile them at start) and names the op. When an op is not tuned, why: the checkpoint leaves
# no linear in NVFP4 (GLM-5.1), the op is skipped, autotune is off, FlashInfer too old for the
# key layout tunetab knows.
. "$ROOT/tests/lib.sh"
H=$ROOT/tests/data/hf/nvidia
G5="--model-config $H/GLM-5-NVFP4/config.json"
SGL="python -m sglang.launch_server --model-path nvidia/GLM-5-NVFP4 --tp 8 --quantization modelopt_fp4"
VL="vllm serve nvidia/GLM-5-NVFP4 -tp 8"
F="--flashinfer 0.7.4"
ops() { grep -e '^tunetab: it ' -e '^tunetab: the server does not' -e 'keys with the fallback' -e 'not covered' -e '^tunetab: note: the shared' | sed "s|$ROOT|<root>|g" || true; }
for dev in rtx-pro-6000-server b200; do
    echo "== SGLang 0.5.23 on $dev: generate"
    tunetab generate --for sglang --device $dev --consumer-version 0.5.23 $F $G5 -o "sgl-$dev" -- $SGL 2>&1 | ops
    ls "sgl-$dev"
    echo "== vLLM 0.34.0 on $dev: generate"
    tunetab generate --for vllm --device $dev --consumer-version 0.34.0 $F $G5 -o "vllm-$dev" -- $VL 2>&1 | ops
done
python3 - sgl-b200/tunetab_provenance_NVIDIA_B200.json <<'PY'
import json, sys
for o in json.load(open(sys.argv[1]))["ops"]:
    print(f"provenance: {o['op']} {o['runner']}: {o['covered']}, {o['keys']} keys, {len(o['calls'])} calls:",
          "; ".join(c.get("layer", "") for c in o["calls"]))
PY
doc() { # doctor's op lines and verdict
    rc=0; SGLANG_CACHE_DIR=$PWD/cache tunetab doctor --for sglang --device "$1" --consumer-version 0.5.23 $F $G5 -- $SGL >out.txt 2>/dev/null || rc=$?
    grep -e '^  op ' -e '^  no ' -e '^  lookups' -e '^verdict' out.txt | sed "s|$PWD/||g"
    echo "doctor exit $rc"
}
for dev in rtx-pro-6000-server b200; do
    echo "== SGLang on $dev: nothing installed, install, doctor"
    doc $dev
    rc=0; SGLANG_CACHE_DIR=$PWD/cache tunetab install --for sglang --device $dev --consumer-version 0.5.23 $F $G5 -- $SGL >/dev/null 2>&1 || rc=$?
    echo "install exit $rc"
    doc $dev
done
echo "== a cache without the fp4_gemm keys (the CUTLASS MoE's alone): the server profiles fp4_gemm at start"
f=$(ls cache/flashinfer/autotune/0.7.4/sm120/*/rank_tp0_pp0_dp0.json)
for r in cache/flashinfer/autotune/0.7.4/sm120/*/rank_*.json; do
    python3 - "$r" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump({k: v for k, v in d.items() if not k.startswith("('fp4_gemm'")}, open(sys.argv[1], "w"), indent=2)
PY
done
doc rtx-pro-6000-server
echo "== the ops not tuned, and why"
i=0
n() { i=$((i + 1)); tunetab generate -o "x$i" "$@" 2>&1 | ops; }
n --for sglang --device rtx-pro-6000-server --consumer-version 0.5.23 $F --model-config "$H/GLM-5.1-NVFP4/config.json" -- python -m sglang.launch_server --model-path nvidia/GLM-5.1-NVFP4 --tp 8 --quantization modelopt_fp4
n --for sglang --device b200 --consumer-version 0.5.23 $F $G5 -- $SGL --flashinfer-autotune-skip-ops fp4_gemm
n --for sglang --device b200 --consumer-version 0.5.23 $F $G5 -- $SGL --fp4-gemm-backend flashinfer_trtllm
n --for sglang --device b200 --consumer-version 0.5.23 --flashinfer 0.6.18 $G5 -- $SGL
run tunetab generate --for sglang --device b200 --consumer-version 0.5.23 $F $G5 -o off -- $SGL --disable-flashinfer-autotune
n --for vllm --device rtx-pro-6000-server --consumer-version 0.34.0 $F $G5 -- VLLM_FLASHINFER_AUTOTUNE_SKIP_OPS=fp4_gemm $VL
