# 188-small-defects: small defects, one section each.
. "$ROOT/tests/lib.sh"
hf_cache hub Qwen/Qwen3-30B-A3B
export HF_HUB_CACHE=$PWD/hub
mkdir -p vroot/0000000000000000000000000000000000000000000000000000000000000000 # vLLM's config-hash folder
launch() { # CMD...: the launch command's words after '--', its error or what tunetab made of it, the exit code
    printf '$ %s\n' "$*" | sed -e "s|$PWD/||g" -e 's| --dry-run .* -- | ... -- |'
    rc=0; "$@" >out.txt 2>err.txt || rc=$?
    grep -e 'error' -e '^tunetab: server:' -e 'tunes token buckets' err.txt | sed "s|$PWD/||g"
    echo "[exit $rc]"
}

echo "== 1. launch commands: an integer option's value as the server's argparse reads it (a usage error, exit 2)"
S="--dry-run --device h200 --flashinfer 0.7.2 --consumer-version 0.5.23 --cache-dir $PWD/root"
Q="python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B"
R="--moe-runner-backend flashinfer_cutlass"
launch tunetab generate --for sglang --device h200 --flashinfer 0.7.2 -o gen -- $Q --tp eight $R
for o in "--tp eight" "--tp=eight" "--tensor-parallel-size 8.0" "--tp 0x8" "--tp 8 --pp-size two" \
         "--tp 8 --dp-size 2x" "--tp 8 --ep 1e3" "--tp 8 --moe-dp-size x" "--tp 8 --attn-dp-size x" \
         "--tp 8 --chunked-prefill-size x" "--tp 8 --max-running-requests 0x10" \
         "--tp 8 --chunked-prefill-size -1 --max-prefill-tokens 8x" \
         "--tp 8 --chunked-prefill-size -1 --max-prefill-tokens 1.5Ki" "--tp 0" "--tp 8 --ep 0" \
         "--tp 8 --moe-dp-size 0"; do
    launch tunetab install --for sglang $S -- $Q $o $R
done
launch tunetab install --for sglang $S --consumer-version 0.5.22 -- $Q --tp 8 --cuda-graph-max-bs-decode 1e2 $R
echo "-- accepted as SGLang accepts them (max-prefill-tokens is SGLang's human_readable_int)"
for o in "--tp +8" "--tp 8 --chunked-prefill-size -1 --max-prefill-tokens 2.5k" \
         "--tp 8 --chunked-prefill-size -1 --max-prefill-tokens 4Ki"; do
    launch tunetab install --for sglang $S -- $Q $o $R
done
V="--dry-run --device rtx-pro-6000-server --flashinfer 0.7.2 --consumer-version 0.33.0 --cache-dir $PWD/vroot"
for o in "-tp eight" "-tp 2.0" "-tp 1e1" "-tp=eight" "-tp 2 -pp x" "-tp 2 -dp x" "-tp 2 -pcp x" \
         "-tp 2 --max-num-batched-tokens 8x" "-tp 2 --max-num-batched-tokens 1.5K" "-tp 0" \
         "-tp 2 --max-num-batched-tokens 0"; do
    launch tunetab install --for vllm $V -- vllm serve Qwen/Qwen3-30B-A3B $o
done
echo "-- accepted as vLLM accepts them (-tp=2 is argparse's -x=VALUE; max-num-batched-tokens is vLLM's human_readable_int)"
for o in "-tp=2" "-tp 2 --max-num-batched-tokens 8k" "-tp 2 --max-num-batched-tokens 8K" \
         "-tp 2 --max-num-batched-tokens 1.005k"; do
    launch tunetab install --for vllm $V -- vllm serve Qwen/Qwen3-30B-A3B $o
done

echo "== 2. explain and diff list token buckets as numbers (a JSON cache's keys are sorted as text: 1, 1024, 128)"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --max-tokens 1024 --flashinfer 0.7.4 --format json -q -o j
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --max-tokens 2048 --flashinfer 0.7.4 --format json -q -o k \
    --heuristic "$ROOT/scripts/examples/waves_only.lua"
J=j/flashinfer_autotune_NVIDIA_H200.json K=k/flashinfer_autotune_NVIDIA_H200.json
echo "explain (file line, stage, tokens):"
rows() { awk '{ printf "%s%s", NR % 12 == 1 ? "" : " ", $0 } NR % 12 == 0 { print "" } END { if (NR % 12) print "" }'; }
tunetab explain $J | sed -n 's/^ *\([0-9]*\)  \(gemm[12]\) T=\([0-9]*\) .*/\1:\2:\3/p' | rows
echo "diff (change, stage, tokens):"
rc=0; tunetab diff $J $K >out.txt || rc=$?
sed -n 's/^\([-+~]\) \(gemm[12]\) T=\([0-9]*\) .*/\1\2:\3/p' out.txt | rows
tail -1 out.txt; echo "[exit $rc]"
echo "diff --json, changed and added:"
tunetab diff $J $K --json >out.json || true
python3 -c 'import json; d = json.load(open("out.json")); print([(c["now"]["stage"], c["now"]["tokens"]) for c in d["changed"]][:12]); print([(c["stage"], c["tokens"]) for c in d["added"]])'

echo "== 3. a finalize-off table's GEMM2 tactics come from GEMM1's list (no FINALIZE copies); explain and diff say so"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 8 --max-tokens 2 --flashinfer 0.7.4 --format json -q -o ffon
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 8 --max-tokens 2 --flashinfer 0.7.4 --format json -q -o ffoff \
    --fused-finalize off
for t in ffon ffoff; do
    echo "$t:"
    tunetab explain $t/flashinfer_autotune_NVIDIA_H200.json | sed -n 's/^ *[0-9]*  \(gemm[12] T=[0-9]*\) .* -> /  \1 -> /p'
done
echo "diff ffon ffoff:"
tunetab diff ffon/flashinfer_autotune_NVIDIA_H200.json ffoff/flashinfer_autotune_NVIDIA_H200.json |
    sed -n -e 's/^\([-+~]\) \(gemm[12] T=[0-9]*\) .* -> /\1 \2 -> /p' -e 's/^    was /    was /p'
tunetab explain ffoff/flashinfer_autotune_NVIDIA_H200.json --json >off.json
python3 -c 'import json; d = json.load(open("off.json")); print([(e["stage"], e["tactic"], e["config"].get("finalize")) for e in d["entries"]])'

echo "== 4. a heuristic that returns an empty list: the entries keep the fallback, and generate says so (a warning, exit 0)"
run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --max-tokens 8 --flashinfer 0.7.4 -q -o empty \
    --heuristic "$ROOT/tests/data/scripts/empty_rank.lua"
tunetab explain empty/v0_1_trtllm_fused_moe_NVIDIA_H200.py | sed -n 's/^ *[0-9]*  \(gemm[12] T=[0-9]*\) .* -> \(tactic [0-9-]*\) = \([^ ]*\) .*/  \1 -> \2 = \3/p'
echo "-- the fallback chosen on purpose: no warning"
run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --max-tokens 8 --flashinfer 0.7.4 -q -o fb \
    --heuristic "$ROOT/scripts/examples/fallback_only.lua"

echo "== 5. install --dry-run with a launch command: the files it would write, no temporary table named (it was deleted on exit)"
rc=0; tunetab install --for sglang --dry-run --device h200 --flashinfer 0.7.4 --cache-dir "$PWD/root" -- \
    python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 2 --moe-runner-backend flashinfer_cutlass \
    >out.txt 2>err.txt || rc=$?
sed "s|$PWD/||g" out.txt; grep -e 'dry-run' -e 'tunetab-install' err.txt || true; echo "[exit $rc]"
ls -d /tmp/tunetab-install.* 2>/dev/null | while read -r d; do if [ "$d" -nt out.txt ]; then echo "left behind: $d"; fi; done
[ ! -d root ] && echo "nothing written"
