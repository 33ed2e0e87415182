# 179-doctor-launch: `tunetab doctor --for sglang -- LAUNCH` compares what is installed with every
# key that server looks up, exits 1 naming the cause (each case of issue #28's list), and prints
# one command that fixes it; the fix runs as printed and doctor then exits 0. install refuses a
# table whose keys the server will not look up (--force installs it), with install's flags too
# (they are read as the launch command they describe); merged installs validate.
. "$ROOT/tests/lib.sh"
hf_cache hub Qwen/Qwen3-30B-A3B deepseek-ai/DeepSeek-V3
export HF_HUB_CACHE=$PWD/hub
# the server's Python: FlashInfer's view of it as scripts/tunetab-fi-env.py prints it
for v in 0.7.4 0.7.2; do
    cat >"py$v" <<PY
#!/bin/sh
echo '{"version": "$v", "metadata": {"flashinfer_version": "$v", "cuda_version": "13.0", "cublas_version": "13.1.0", "cudnn_version": "91500", "cudnn_frontend_version": "1.15.0", "cutlass_dsl_version": "unknown", "gpu": "NVIDIA H200"}, "consumers": {"sglang": "0.5.23", "vllm": "0.33.0"}, "modules": {"triton_kernels": false}}'
PY
    chmod +x "py$v"
done
D="--device h200 --python $PWD/py0.7.4 --cache-dir $PWD/root"
L="python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4 --moe-runner-backend flashinfer_cutlass"
doc() { # doctor's verdict lines, its fix line run as printed, doctor again
    rc=0; tunetab doctor --for sglang $D "$@" -- $L >out.txt 2>err.txt || rc=$?
    grep -e '^  lookups' -e '^  no ' -e '^  cannot tell' -e '^  metadata' -e '^verdict' out.txt | sed "s|$PWD/||g"
    echo "doctor exit $rc"
    fix=$(sed -n 's/^fix: //p' out.txt)
    [ -n "$fix" ] || return 0
    echo "fix: $fix" | sed "s|$PWD/||g"
    rc=0; eval "$fix" >/dev/null 2>&1 || rc=$?
    echo "fix exit $rc"
    rc=0; tunetab doctor --for sglang $D "$@" -- $L >out.txt 2>&1 || rc=$?
    echo "after the fix: $(grep '^verdict' out.txt), exit $rc"
}
tunetab() { "$TUNETAB" "$@"; } # the fix lines name tunetab
run2() { run "$@" | sed -e "s|$PWD/||g"; }
echo "== nothing installed"; doc
rm -rf root
echo "== a default (finalize on) table installed for SGLang, server with its default env"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 4 --flashinfer 0.7.2 --format json -o on -q
tunetab install --for sglang --from on/flashinfer_autotune_NVIDIA_H200.json --model-path Qwen/Qwen3-30B-A3B \
    --hf-config-class Qwen3MoeConfig --tp 4 --python "$PWD/py0.7.4" --flashinfer 0.7.4 --cache-dir "$PWD/root" --force >/dev/null 2>&1
rc=0; tunetab doctor --for sglang $D -- SGLANG_FLASHINFER_MOE_FUSED_FINALIZE=1 $L >out.txt 2>&1 || rc=$?
echo "the same server with SGLANG_FLASHINFER_MOE_FUSED_FINALIZE=1: $(grep '^verdict' out.txt), exit $rc"
doc
rm -rf root
echo "== a TP 8 table installed for a TP 4 server"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 8 --fused-finalize off --flashinfer 0.7.4 --format json -o t8 -q
tunetab install --for sglang --from t8/flashinfer_autotune_NVIDIA_H200.json --model-path Qwen/Qwen3-30B-A3B \
    --hf-config-class Qwen3MoeConfig --tp 4 --python "$PWD/py0.7.4" --cache-dir "$PWD/root" --force >/dev/null 2>&1
doc
rm -rf root
echo "== installed for another deployment (TP 8's folder)"
tunetab install --for sglang $D -- python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 8 --moe-runner-backend flashinfer_cutlass >/dev/null 2>&1
doc
rm -rf root
echo "== installed under FlashInfer 0.7.4's folder, the server imports 0.7.2"
tunetab install --for sglang $D -- $L >/dev/null 2>&1
D="--device h200 --python $PWD/py0.7.2 --cache-dir $PWD/root"
doc
echo "== a 0.7.4 table in the 0.7.2 folder (FlashInfer's own metadata check)"
rm -rf root/flashinfer/autotune/0.7.2
mkdir -p root/flashinfer/autotune/0.7.2 && cp -r root/flashinfer/autotune/0.7.4/sm90 root/flashinfer/autotune/0.7.2/
doc
echo "== install refuses what the server will not look up"
run2 tunetab install --for sglang $D --from on/flashinfer_autotune_NVIDIA_H200.json -- $L
tunetab install --for sglang $D --from on/flashinfer_autotune_NVIDIA_H200.json --force -- $L >/dev/null 2>&1 && echo "--force: installed, exit 0"
echo "== merged installs validate; a hand edit is a warning naming tunetab convert"
tunetab install --for sglang $D -- python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4 --moe-runner-backend flashinfer_cutlass --chunked-prefill-size 512 >/dev/null 2>&1
tunetab validate -q root/flashinfer/autotune/0.7.2/sm90/*/*.json && echo "every rank file valid after three installs into one folder"
f=$(ls root/flashinfer/autotune/0.7.2/sm90/*/rank_tp0_pp0_dp0.json)
sed -i '0,/"MoERunner",/s//"MoERunner", /' "$f" && python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = [k for k in d if not k.startswith("_")][0]
d[k][1] = 0
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
tunetab validate "$f" 2>&1 | grep -o 'warning: .*' | sed "s|$PWD/||g"
echo "== vLLM on 8 H200s: DeepSeek-V3's FP8 checkpoint is block-scaled"
mkdir -p vroot/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
tunetab generate --device h200 --model deepseek-v3 --dtype fp8 --ep 8 --flashinfer 0.7.2 --format json -o fp8 -q
run2 tunetab install --for vllm --device h200 --python "$PWD/py0.7.2" --cache-dir "$PWD/vroot" --from fp8/flashinfer_autotune_NVIDIA_H200.json -- vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --enable-expert-parallel
echo "== the fix for it installs the fp8_block table in the folder the first vLLM start made"
# (into a file first: piped into head, a slow install could be killed by SIGPIPE before it wrote)
rc=0; tunetab install --for vllm --device h200 --python "$PWD/py0.7.2" --cache-dir "$PWD/vroot" -- vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --enable-expert-parallel >inst.txt 2>/dev/null || rc=$?
sed "s|$PWD/||" inst.txt | head -2
rc=0; tunetab doctor --for vllm --device h200 --python "$PWD/py0.7.2" --cache-dir "$PWD/vroot" -- vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --enable-expert-parallel >out.txt 2>&1 || rc=$?
echo "vLLM doctor: $(grep '^  lookups' out.txt) / $(grep '^verdict' out.txt), exit $rc"
