# 170-learn: `tunetab learn` (issue #17) on journals of FlashInfer's own kernels recorded on
# the lent H200 (tests/data/learn: Qwen3-30B-A3B bf16, DeepSeek-V3 fp8 EP 8, Mixtral-8x7B bf16
# TP 2; docs/benchmarks.md "learn"): the fit lowers the regret on what it was fitted to, the
# same journals give the same bytes, a held-out deployment is judged, generate uses the fit,
# and bad inputs are refused with the file and line.
. "$ROOT/tests/lib.sh"
D="$ROOT/tests/data/learn"
J="$D/qwen3-bf16.journal $D/dsv3-fp8-ep8.journal $D/mixtral-bf16-tp2.journal"
run tunetab learn $J --sweeps 2 -o fit.yaml
tunetab learn $J --sweeps 2 -o again.yaml 2>/dev/null
cmp fit.yaml again.yaml && echo "same journals, same bytes"
sed '/^  measured:/,$d' fit.yaml
# the measured neighbours: every measured candidate of every entry, where it ran (l, f, k, b)
# and r = log(median / the entry's fastest median), against the journals read by python3
python3 - fit.yaml $J <<'PYEOF'
import math, sys, yaml
fit = yaml.safe_load(open(sys.argv[1]))["model_fit"]
got = {}
for g in fit["measured"]:
    for p in g["points"]:
        got.setdefault((g["stage"], p["l"], p["f"], p["k"], p["b"]), []).append(round(p["r"], 5))
want = {}
for path in sys.argv[2:]:
    lines = open(path).read().splitlines()
    ident = dict(w.split("=", 1) for w in lines[0].split()[3:] if "=" in w)
    med = {}
    for line in lines:
        f = line.split()
        if f and f[0] == "M" and f[4] == "0" and float(f[5]) > 0:
            med[(int(f[1]), int(f[2]), int(f[3]))] = float(f[5])  # the last median wins
    best = {}
    for (st, tok, i), us in med.items():
        best[(st, tok)] = min(best.get((st, tok), us), us)
    for (st, tok, i), us in med.items():
        want.setdefault((st, tok, path), []).append(round(math.log(us / best[(st, tok)]), 5))
n = sum(len(v) for v in got.values())
print("neighbour groups:", len(fit["measured"]), "points:", n,
      "journal medians:", sum(len(v) for v in want.values()))
print("every entry's slowdowns as the journals give them:",
      sorted(sorted(v) for v in got.values()) == sorted(sorted(v) for v in want.values()))
PYEOF
tunetab learn $J --sweeps 2 --holdout mixtral --json -o heldfit.yaml > held.json
# what learn judged on the held-out deployment is what generate writes with that fit
tunetab generate --device h200 --model mixtral-8x7b --dtype bf16 --tp 2 --flashinfer 0.7.4 -q \
    -o heldgen --model-fit heldfit.yaml
python3 - held.json heldgen/v0_1_trtllm_fused_moe_NVIDIA_H200.py <<'PYEOF'
import ast, json, sys
picks = json.load(open(sys.argv[1]))["held"]["picks"]
table = ast.literal_eval(open(sys.argv[2]).read().split("=", 1)[1])
got = {}
for k, v in table.items():
    op = k.split("'")[1]
    tokens = int(k.split("((")[1].split(",")[0])
    got[(1 if op.endswith("gemm1") else 2, tokens)] = v[1]
same = sum(got.get((p["stage"], p["tokens"])) == p["top"][0] for p in picks)
print("held-out picks that generate --model-fit also writes: %d of %d" % (same, len(picks)))
PYEOF
python3 - held.json <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
t, h = r["train"], r["held"]
print("trained on", r["trained_on"], "held out", r["held_out"])
# the search only takes moves that lower the loss: never worse than the defaults it starts from
print("fit set: fitted <= defaults:", t["fit"]["geomean_regret"] <= t["default"]["geomean_regret"])
print("held out entries:", h["fit"]["entries"], "default", h["default"]["entries"])
print("params:", [p["name"] for p in r["params"]])
PYEOF
# generate with the fit: another table, still valid; the provenance names the fit
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 -q -o plain
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 -q -o fitted \
    --model-fit fit.yaml
cmp -s plain/v0_1_trtllm_fused_moe_NVIDIA_H200.py fitted/v0_1_trtllm_fused_moe_NVIDIA_H200.py \
    || echo "the fit changes the table"
grep -o '"model_fit": "[^"]*"' fitted/tunetab_provenance_NVIDIA_H200.json
run tunetab validate -q fitted
# bad inputs
echo "not a journal" > notes.txt
run tunetab learn notes.txt
sed '1s/ keys=- / keys=my-keys.txt /' "$D/qwen3-bf16.journal" > keys.journal
run tunetab learn keys.journal
sed '1s/device=NVIDIA H200/device=NVIDIA H100 80GB HBM3/' "$D/dsv3-fp8-ep8.journal" > h100.journal
run tunetab learn "$D/qwen3-bf16.journal" h100.journal
run tunetab learn $J --holdout nothing-like-this
run tunetab learn "$D/qwen3-bf16.journal" --holdout qwen3
run tunetab learn --sweeps 0 "$D/qwen3-bf16.journal"
sed 's/name: launch_us/name: launch_ms/' fit.yaml > unknown.yaml
run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 -q -o x \
    --model-fit unknown.yaml
for v in .nan 0.5; do
    printf 'model_fit:\n  heuristic: default\n  device: NVIDIA H200\n  sm: 90\n  method: m\n  trained_on: []\n  params:\n    - {name: overlap, value: %s}\n    - {name: overlap, value: 1}\n' $v > bad.yaml
    run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 -q \
        -o x --model-fit bad.yaml
done
# a fit's measurements: stage, the numbers, one group per stage and configuration
M='  params: []\n  measured:\n    - config: "128x16x128B cluster 1x1x1 1SM sm90"\n      stage: %s\n      points:\n        - {l: 1, f: 4096, k: 7168, b: 16, r: %s}\n'
for c in "3 0.1" "1 -0.5" "1 .inf"; do
    printf "model_fit:\n  heuristic: default\n  device: NVIDIA H200\n  sm: 90\n  method: m\n  trained_on: []\n$M" $c > bad.yaml
    run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 -q \
        -o x --model-fit bad.yaml
done
printf "model_fit:\n  heuristic: default\n  device: NVIDIA H200\n  sm: 90\n  method: m\n  trained_on: []\n$M" 1 0.1 > bad.yaml
sed -n '/^    - config/,$p' bad.yaml >> bad.yaml
run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 -q \
    -o x --model-fit bad.yaml
test ! -e x && echo "nothing written for a bad fit"
# --model-fit auto: this GPU's fit from the user's folder, else the shipped configs/fits, else
# a fit of a GPU with the same SM; none for another architecture. devices says which.
G="--model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4"
for dev in "NVIDIA H200" "NVIDIA H100 80GB HBM3" "NVIDIA B200"; do
    tunetab generate --device "$dev" $G -o "auto-$dev" --model-fit auto 2>&1 | grep 'tunetab: model:' |
        sed "s|$ROOT|<root>|g"
done
mkdir -p "$XDG_CONFIG_HOME/tunetab/fits"
cp fit.yaml "$XDG_CONFIG_HOME/tunetab/fits/NVIDIA_H200.yaml"
tunetab generate --device "NVIDIA H200" $G -o user --model-fit auto 2>&1 | grep 'tunetab: model:' |
    sed "s|$XDG_CONFIG_HOME|<config>|g"
tunetab devices --json > devices.json
python3 - devices.json "$XDG_CONFIG_HOME" <<'PYEOF'
import json, sys
for d in json.load(open(sys.argv[1])):
    if d["id"] in ("h200", "h100-sxm", "b200"):
        fit = d["model"]["fit"]
        where = None if fit is None else fit.replace(sys.argv[2], "<config>")
        print(d["id"], d["model"]["kind"], where)
PYEOF
