#!/bin/bash
# learn_sm100.sh OUT: issue #17's SM100 evaluation, without a GPU: FlashInfer's shipped B200
# cutlass MoE table (v0_1, FlashInfer 0.4.0, DeepSeek-V3 NVFP4) as ranking data for
# `tunetab learn`, cross-fold. Fold A = the table's TP 8 keys (256 experts per rank, E256),
# fold B = its 32-expert keys (E32, the reference's "EP8-style", tuned with 32 routed experts): fit on one fold, report agreement on the
# other (learn --holdout), beside the defaults' agreement on the same keys. Also on the older
# v0_2_8 table, which is NOT independent of v0_1: the same 58 keys, 50 of the tactics equal.
# Every agreement learn reports is checked by generating the tables with the fit and
# comparing them with the fixture in Python (as tests/cli/023 does for the defaults). The
# ranking files are tests/data/rankings/b200-*.yaml; the tables are ../shared fixtures.
# Prints one table; the fit on the whole v0_1 table is OUT/fit-v0_1.yaml (what would ship as
# configs/fits/NVIDIA_B200.yaml: only if the cross-fold agreement is at least the defaults' on
# both folds). Results: docs/benchmarks.md "Heuristics that learn on SM100".
set -eu
O=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=${TUNETAB:-$ROOT/build/release/tunetab}
R=$ROOT/tests/data/rankings
FX=$ROOT/../shared/fixtures/flashinfer
if [ ! -d "$FX" ]; then
    echo "learn_sm100.sh: $FX is absent: FlashInfer's B200 tables are fixtures kept out of this repository" >&2
    exit 1
fi
mkdir -p "$O"
# learn NAME HOLDOUT FILES...: a fit and its JSON report
learn() {
    local name=$1 holdout=$2; shift 2
    $T learn "$@" ${holdout:+--holdout "$holdout"} --json -o "$O/fit-$name.yaml" > "$O/learn-$name.json"
}
learn A-v0_1 v0_1-ep8 "$R/b200-v0_1-tp8.yaml" "$R/b200-v0_1-ep8.yaml"
learn B-v0_1 v0_1-tp8 "$R/b200-v0_1-tp8.yaml" "$R/b200-v0_1-ep8.yaml"
learn A-v0_2_8 v0_2_8 "$R/b200-v0_1-tp8.yaml" "$R/b200-v0_2_8-ep8.yaml"
learn B-v0_2_8 v0_2_8 "$R/b200-v0_1-ep8.yaml" "$R/b200-v0_2_8-tp8.yaml"
learn all-v0_2_8 v0_2_8 "$R/b200-v0_1-tp8.yaml" "$R/b200-v0_1-ep8.yaml" \
    "$R/b200-v0_2_8-tp8.yaml" "$R/b200-v0_2_8-ep8.yaml"
learn v0_1 "" "$R/b200-v0_1-tp8.yaml" "$R/b200-v0_1-ep8.yaml"
# the tables each fit (and the defaults) write, for the independent check
# (the E32 keys' deployment from a model YAML of 32 routed experts, as the ranking files'
# experts: 32 says it: tests/data/rankings/b200-v0_1-ep8.yaml)
G=(--device "NVIDIA B200" --dtype nvfp4 --flashinfer 0.4.0 --max-tokens 16384 -q)
for f in defaults A-v0_1 B-v0_1 v0_1; do
    fit=()
    [ "$f" = defaults ] || fit=(--model-fit "$O/fit-$f.yaml")
    $T generate "${G[@]}" --model deepseek-v3 --tp 8 -o "$O/gen-$f-tp8" ${fit[@]+"${fit[@]}"}
    $T generate "${G[@]}" --model "$ROOT/tests/data/models/deepseek-v3-e32.yaml" -o "$O/gen-$f-ep8" ${fit[@]+"${fit[@]}"}
done
if [ -f "$ROOT/configs/fits/NVIDIA_B200.yaml" ]; then
    cmp -s "$O/fit-v0_1.yaml" "$ROOT/configs/fits/NVIDIA_B200.yaml" &&
        echo "configs/fits/NVIDIA_B200.yaml is this fit on the whole v0_1 table, byte for byte" ||
        echo "configs/fits/NVIDIA_B200.yaml DIFFERS from this fit on the whole v0_1 table"
fi
python3 - "$O" "$FX" <<'PY'
import ast, json, sys
out, fx = sys.argv[1], sys.argv[2]
def load(p): return ast.literal_eval(open(p).read().split("=", 1)[1])
tables = {v: load("%s/%s_trtllm_fused_moe_NVIDIA_B200.py" % (fx, v)) for v in ("v0_1", "v0_2_8")}
fam = lambda k: "E%d" % ast.literal_eval(k)[2][1][0]  # E256: TP 8 keys, E32: EP 8 keys
def agree(fit, table, f):
    ours = {}
    for d in ("tp8", "ep8"):
        ours.update(load("%s/gen-%s-%s/v0_1_trtllm_fused_moe_NVIDIA_B200.py" % (out, fit, d)))
    keys = [k for k in tables[table] if f in ("all", fam(k))]
    return sum(k in ours and ours[k][1] == tables[table][k][1] for k in keys), len(keys)
def held(name):
    h = json.load(open("%s/learn-%s.json" % (out, name)))["held"]
    return (h["default"]["agreement"], h["default"]["ranked"]), (h["fit"]["agreement"], h["fit"]["ranked"])
rows = [  # learn run, fit (for the check), trained on, judged on (table, family)
    ("A-v0_1", "A-v0_1", "v0_1 E256 (TP 8)", "v0_1", "E32"),
    ("B-v0_1", "B-v0_1", "v0_1 E32 (EP 8)", "v0_1", "E256"),
    ("A-v0_2_8", "A-v0_1", "v0_1 E256 (TP 8)", "v0_2_8", "E32"),
    ("B-v0_2_8", "B-v0_1", "v0_1 E32 (EP 8)", "v0_2_8", "E256"),
    ("all-v0_2_8", "v0_1", "v0_1 all", "v0_2_8", "all"),
]
print("%-18s %-14s %9s %9s  %s" % ("fit on", "judged on", "defaults", "fitted", "check (generated tables vs the fixture)"))
ok = True
for run, fit, on, table, f in rows:
    (d, n), (a, m) = held(run)
    cd, cf = agree("defaults", table, f), agree(fit, table, f)
    same = (d, n) == cd and (a, m) == cf
    ok &= same
    print("%-18s %-14s %6d/%-2d %6d/%-2d  %s" % (on, "%s %s" % (table, f), d, n, a, m,
          "same" if same else "DIFFERS: defaults %d/%d, fitted %d/%d" % (cd + cf)))
w = json.load(open("%s/learn-v0_1.json" % out))["train"]
print("fit on the whole v0_1 table (in-sample, not a held-out figure): defaults %d/%d, fitted %d/%d"
      % (w["default"]["agreement"], w["default"]["ranked"], w["fit"]["agreement"], w["fit"]["ranked"]))
p = json.load(open("%s/learn-v0_1.json" % out))["params"]
moved = [x["name"] for x in p if x["fit"] != x["default"]]
print("params the whole-table fit moved from the defaults: %d of %d%s" % (len(moved), len(p),
      (" (" + ", ".join(moved) + ")") if moved else ""))
print("v0_2_8 shares v0_1's 58 keys and 50 of its tactics: its rows are not independent of v0_1")
sys.exit(0 if ok else 1)
PY
