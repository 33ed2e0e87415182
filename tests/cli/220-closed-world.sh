# 220-closed-world: issue #47's closed world. Every option of the server's own parser and every
# variable it reads is modelled, shown to have no effect, or makes doctor's verdict "cannot tell"
# (exit 6) naming it; options the server refuses are refused as the server refuses them; the
# launch command's VAR=VALUE words are the server's environment (its cache root comes from them).
# Each case of the issue's "Why" that is about launch words: a VAR= word that moves the cache,
# an option tunetab does not model, an option the server refuses, a variable of doctor's
# environment that turns SGLang's cache off, a layout tunetab does not know.
. "$ROOT/tests/lib.sh"
hf_cache hub Qwen/Qwen3-30B-A3B deepseek-ai/DeepSeek-V3
export HF_HUB_CACHE=$PWD/hub
fi_python py "NVIDIA H200"
export SGLANG_CACHE_DIR=$PWD/root
D="--device h200 --python $PWD/py"
L="python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4 --moe-runner-backend flashinfer_cutlass"
verdict() { # doctor's unknowns and verdict, exit code
    rc=0; "$TUNETAB" doctor --for sglang $D "$@" >out.txt 2>err.txt || rc=$?
    grep -e '^  cannot tell' -e '^verdict' out.txt | sed "s|$PWD/||g" | cut -c1-200
    grep 'error' err.txt | sed "s|$PWD/||g"
    echo "doctor exit $rc"
}
"$TUNETAB" install --for sglang $D -- $L >/dev/null 2>&1
echo "== the command as installed"; verdict -- $L
echo "== options shown to have no effect (HTTP front end, logging)"
verdict -- $L --host 0.0.0.0 --port 30000 --log-level warning --api-key k --served-model-name q
echo "== an option tunetab does not model"; verdict -- $L --mem-fraction-static 0.85
echo "== two, and an abbreviation of one (argparse's allow_abbrev)"
verdict -- $L --mem-fraction 0.85 --context-length 8192
echo "== SGLang's parser refuses these: so does doctor"
verdict -- $L --enable-ep-moe
verdict -- $L --cuda-graph-max-bs 8
verdict -- $L --tool-call-parser qwen3
echo "== a deprecated flag SGLang 0.5.23 still takes (--disable-cuda-graph): modelled"
verdict -- $L --disable-cuda-graph
echo "== SGLang 0.5.22 takes it too but tunes at its eager runner's batch, which tunetab does"
echo "   not know: doctor cannot tell, install writes nothing (exit 6), never a usage error"
"$TUNETAB" install --for sglang $D --consumer-version 0.5.22 -- $L >/dev/null 2>&1; echo "install exit $?"
verdict --consumer-version 0.5.22 -- $L --disable-cuda-graph
rc=0; "$TUNETAB" install --for sglang $D --consumer-version 0.5.22 -- $L --disable-cuda-graph \
    >/dev/null 2>err.txt || rc=$?
grep error err.txt; echo "install exit $rc"
echo "== a VAR=VALUE word that moves the cache: doctor looks there (nothing installed)"
verdict -- SGLANG_CACHE_DIR=$PWD/elsewhere $L
echo "== install reads the word too, then doctor finds the files"
"$TUNETAB" install --for sglang $D -- SGLANG_CACHE_DIR=$PWD/elsewhere $L >/dev/null 2>&1; echo "install exit $?"
ls elsewhere/flashinfer/autotune/0.7.4/sm90/*/ | head -1
verdict -- SGLANG_CACHE_DIR=$PWD/elsewhere $L
echo "== --cache-dir against the word: the server reads the word's folder"
verdict --cache-dir "$PWD/root" -- SGLANG_CACHE_DIR=$PWD/elsewhere $L
echo "== a VAR=VALUE word tunetab does not model, and one it does"
verdict -- env CUDA_LAUNCH_BLOCKING=1 $L
verdict -- SGLANG_FLASHINFER_MOE_FUSED_FINALIZE=1 $L
echo "== doctor's own environment sets a variable SGLang reads (its cache switch)"
SGLANG_FLASHINFER_AUTOTUNE_CACHE=0 verdict -- $L
echo "== an unrelated variable in doctor's environment is not SGLang's"
UNRELATED_SETTING=1 verdict -- $L

echo "== a model layout tunetab does not know: NVFP4 Llama 4 Scout on an RTX 5090 at TP 2 (its"
echo "   linears, which SGLang tunes as fp4_gemm; a config.json of the checkpoint's shapes, made here)"
mkdir l4
cat >l4/config.json <<'EOF'
{"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4", "torch_dtype": "bfloat16",
 "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "intermediate_size": 8192,
  "intermediate_size_mlp": 16384, "num_local_experts": 16, "num_experts_per_tok": 1,
  "hidden_act": "silu", "num_hidden_layers": 48, "num_attention_heads": 40,
  "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 202048}}
EOF
echo '{"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4", "group_size": 16, "exclude_modules": ["lm_head"]}}' >l4/hf_quant_config.json
fi_python py5090 "NVIDIA GeForce RTX 5090"
L4="python -m sglang.launch_server --model-path nvidia/Llama-4-Scout-17B-16E-Instruct-FP4 --tp 2 --quantization modelopt_fp4"
rc=0; "$TUNETAB" install --for sglang --device rtx-5090 --python "$PWD/py5090" --model-config l4/config.json -- $L4 >/dev/null 2>&1 || rc=$?
echo "install exit $rc"
rc=0; "$TUNETAB" doctor --for sglang --device rtx-5090 --python "$PWD/py5090" --model-config l4/config.json -- $L4 >out.txt 2>&1 || rc=$?
grep -e '^  op .*fp4_gemm' -e '^  cannot tell' -e '^verdict' out.txt
echo "doctor exit $rc"

echo "== vLLM: its own parser (underscores, -O, dotted config fields, its front end's options)"
fi_python vpy "NVIDIA H200" 0.5.23 0.34.0
V="--device h200 --python $PWD/vpy --consumer-version 0.34.0 --cache-file $PWD/v/0123/autotune_configs_dp0_rank0.json"
vdoc() {
    rc=0; "$TUNETAB" doctor --for vllm $V -- "$@" >out.txt 2>err.txt || rc=$?
    grep -e '^  cannot tell' -e '^verdict' out.txt | sed "s|$PWD/||g" | cut -c1-200
    grep 'error' err.txt | sed "s|$PWD/||g"
    echo "doctor exit $rc"
}
VL="vllm serve deepseek-ai/DeepSeek-V3 --tensor_parallel_size 8 --enable_expert_parallel"
rc=0; "$TUNETAB" install --for vllm $V -- $VL >/dev/null 2>err.txt || rc=$?; echo "install exit $rc"
grep error err.txt || true
vdoc $VL
vdoc $VL --host 0.0.0.0 --port 8000 --api-key k --disable-uvicorn-access-log
vdoc $VL --gpu-memory-utilization 0.9
vdoc $VL --compilation-config.cudagraph_mode FULL
vdoc $VL --no-such-option 1
vdoc $VL -O0
