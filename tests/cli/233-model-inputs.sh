# 233-model-inputs: issue #48 item 4. A model's sizes are checked where they enter — a Hugging
# Face config.json, --model FILE, the flags — before any heuristic runs: a size no GPU holds,
# more experts per token than routed experts, a value that is not a positive integer give exit 2
# naming the field (file:line:col where there is one), never an error blamed on the heuristic.
. "$ROOT/tests/lib.sh"
L="python -m sglang.launch_server --model-path x --tp 4 --moe-runner-backend flashinfer_cutlass"
cfg() { # FIELD VALUE (a Python expression): Qwen3-30B-A3B's config.json with it
    python3 - "$1" "$2" <<'PY'
import json, os, sys
c = json.load(open(os.environ["ROOT"] + "/tests/data/hf/Qwen/Qwen3-30B-A3B/config.json"))
c[sys.argv[1]] = eval(sys.argv[2])
json.dump(c, open("config.json", "w"), indent=1)
PY
}
t() { # what the command says and its exit (the heuristic's name must not appear)
    rc=0; "$TUNETAB" "$@" >out.txt 2>err.txt || rc=$?
    grep 'error' err.txt | sed "s|$ROOT|<root>|g"
    grep -q 'heuristics/' err.txt && echo "(a heuristic reached)"
    echo "exit $rc"
}
for fv in "hidden_size 2**62" "moe_intermediate_size 2**40" "hidden_size 200000*2" \
          "moe_intermediate_size -768" "hidden_size 2048.5" "num_experts '128'" \
          "num_experts_per_tok 200" "hidden_size 262144" ; do
    set -- $fv
    echo "== config.json: $1 = $2"
    cfg "$1" "$2"
    t generate --for sglang --device h200 --flashinfer 0.7.4 --model-config config.json -o o -q -- $L
done
echo "== --model FILE: top_k above routed_experts, and a hidden size no GPU holds"
sed -e 's/^  id: qwen3-30b-a3b /  id: m1 /' -e 's/top_k: 8 /top_k: 300 /' "$ROOT/configs/models/qwen3-30b-a3b.yaml" >m1.yaml
t generate --device h200 --model ./m1.yaml --dtype bf16 --tp 4 -o o -q
sed -e 's/^  id: qwen3-30b-a3b /  id: m2 /' -e 's/hidden_size: 2048 /hidden_size: 4000000 /' "$ROOT/configs/models/qwen3-30b-a3b.yaml" >m2.yaml
t generate --device h200 --model ./m2.yaml --dtype bf16 --tp 4 -o o -q
echo "== --top-k 300 with DeepSeek-V3's 256 experts"
t generate --device h200 --model deepseek-v3 --dtype bf16 --tp 8 --top-k 300 -o o -q
echo "== in range: Qwen3-30B-A3B as it is"
cfg hidden_size 2048
t generate --for sglang --device h200 --flashinfer 0.7.4 --model-config config.json -o o -q -- $L
ls o | sort
