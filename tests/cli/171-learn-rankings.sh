# requires: fixtures
# 171-learn-rankings: `tunetab learn` with ranking files (issue #17): FlashInfer's shipped B200
# table as ranking data. A small ranking file (GEMM2 keys of both DeepSeek-V3 NVFP4
# deployments: TP 8, and its 32-expert keys, tuned with 32 routed experts: experts: 32, see
# tests/data/rankings/b200-v0_1-ep8.yaml) gives the same bytes twice; learn's agreement is checked against one computed
# in Python from the generated tables and the fixture; --holdout takes a ranking deployment;
# bad ranking files are refused with file:line:col and exit 1.
. "$ROOT/tests/lib.sh"
FX="$ROOT/../shared/fixtures/flashinfer"
cp "$FX/v0_1_trtllm_fused_moe_NVIDIA_B200.py" table.py
cat > small.yaml <<'EOF'
ranking:
  table: table.py
  device: b200
  flashinfer: "0.4.0"
  deployments:
    - {model: deepseek-v3, dtype: nvfp4, tp: 8, max_tokens: 16384}
    - {model: deepseek-v3, dtype: nvfp4, experts: 32, max_tokens: 16384}
  only: ["gemm2"]
EOF
run tunetab check-data small.yaml
run tunetab learn small.yaml --sweeps 1 -o fit.yaml
tunetab learn small.yaml --sweeps 1 -o again.yaml 2>/dev/null
cmp fit.yaml again.yaml && echo "same ranking file, same bytes"
sed -n '/method/,/params/p' fit.yaml
tunetab learn small.yaml --sweeps 1 --json > all.json
run tunetab learn small.yaml --sweeps 1 --holdout "E32"
# the agreement learn reports, computed independently: the tables generate writes with the
# defaults and with the fit, against the fixture's GEMM2 keys (the 32-expert deployment from
# a model YAML of 32 routed experts, not from the ranking file's field)
G="--device b200 --dtype nvfp4 --flashinfer 0.4.0 --max-tokens 16384 -q"
for p in "tp8:--model deepseek-v3 --tp 8" "e32:--model $ROOT/tests/data/models/deepseek-v3-e32.yaml"; do
    tunetab generate $G ${p#*:} -o "d${p%%:*}"
    tunetab generate $G ${p#*:} -o "f${p%%:*}" --model-fit fit.yaml
done
python3 - all.json <<'PY'
import ast, glob, json, sys
def load(p): return ast.literal_eval(open(p).read().split("=", 1)[1])
fixture = {k: v for k, v in load("table.py").items() if "gemm2" in k}
r = json.load(open(sys.argv[1]))["train"]
for which, pre in (("default", "d"), ("fit", "f")):
    ours = {}
    for p in sorted(glob.glob(pre + "*/v0_1_trtllm_fused_moe_NVIDIA_B200.py")):
        ours.update(load(p))
    hit = sum(k in ours and ours[k][1] == v[1] for k, v in fixture.items())
    got = (r[which]["agreement"], r[which]["ranked"])
    print("%-7s learn %d/%d, python %d/%d: %s" % (which, got[0], got[1], hit, len(fixture),
          "same" if got == (hit, len(fixture)) else "DIFFERENT"))
PY
# bad ranking files: each refused, located, exit 1
bad() { # NAME: the YAML on stdin
    cat > "$1.yaml"
    run tunetab learn "$1.yaml" --sweeps 1
}
sed 's/^  only:/  onyl:/' small.yaml | bad unknown-key
sed 's/table: table.py/table: no-such-table.py/' small.yaml | bad missing-table
sed 's/tp: 8,/tp: eight,/' small.yaml | bad tp-not-a-number
sed 's/dtype: nvfp4, experts/dtype: nvfp5, experts/' small.yaml | bad unknown-dtype
sed '0,/max_tokens: 16384}/s//max_tokens: [16384]}/' small.yaml | bad max-tokens-a-list
sed 's/experts: 32,/experts: 32, ep: 0,/' small.yaml | bad ep-zero
sed 's/experts: 32,/experts: 0,/' small.yaml | bad experts-zero
sed 's/model: deepseek-v3, dtype: nvfp4, experts/model: deepseek-v4, dtype: nvfp4, experts/' small.yaml | bad unknown-model
sed 's/"0.4.0"/"0.7.4"/' small.yaml | bad keys-of-another-release
run tunetab learn small.yaml "$ROOT/tests/data/learn/qwen3-bf16.journal" --sweeps 1
sed 's/^        5,$/        (5, 1),/' table.py > tuple.py
sed 's/table: table.py/table: tuple.py/' small.yaml | bad tuple-tactic
run tunetab check-data unknown-key.yaml missing-table.yaml
