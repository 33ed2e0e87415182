#!/usr/bin/env bash
# selection.sh: FlashInfer 0.7.4's selection record (issue #49): the JSON caches `tunetab
# generate --profile` writes on the fake GPU backend (TUNETAB_FAKE_GPU=1, synthetic timings)
# and on the flashinfer backend's worker (FlashInfer's runner on the CPU), each the same bytes
# as FlashInfer 0.7.4's own save_configs writes for the times tunetab journalled (selection.py:
# its _profiling_policy and _selection_record, then save_configs). Older versions' entries stay
# [runner, tactic]. Skipped without the 0.7.4 venv.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
T=${TUNETAB:-$root/build/tunetab}
py=${FI_VENV_DIR:-$root/.venv-flashinfer}/0.7.4/bin/python
if [ ! -x "$py" ]; then
    echo "skip selection: no venv (tests/flashinfer/setup.sh 0.7.4)"
    exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export TUNETAB_FAKE_GPU=1
G=(generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile -q)
pass=0 fail=0
check() { # NAME DIR: the table against FlashInfer's save of the journal's times
    if "$py" "$here/selection.py" --table "$2"/flashinfer_autotune_*.json --journal "$2"/*.journal \
        >"$out/$1.txt" 2>"$out/$1.err"; then
        pass=$((pass + 1)); echo "ok   selection $1: $(head -1 "$out/$1.txt")"
    else
        fail=$((fail + 1)); echo "FAIL selection $1:"; cat "$out/$1.txt"; tail -5 "$out/$1.err"
    fi
}
# the heuristic's top 4 and the fallback; every dispatchable candidate
"$T" "${G[@]}" --flashinfer 0.7.4 -o "$out/top4"
check top4 "$out/top4"
"$T" "${G[@]}" --flashinfer 0.7.4 --top all -o "$out/all"
check all "$out/all"
# a candidate that crashes the worker (failed: inf to FlashInfer; id 33 is timed, and chosen
# elsewhere, at 9 buckets of GEMM1), and a budget that leaves entries predicted ([runner,
# tactic]: no policy, no record)
TUNETAB_TEST_FAULT=33 "$T" "${G[@]}" --flashinfer 0.7.4 -o "$out/fault"
check fault "$out/fault"
TUNETAB_FAKE_DELAY_MS=100 "$T" "${G[@]}" --flashinfer 0.7.4 --budget 1 -o "$out/budget"
check budget "$out/budget"
if grep -q '^M [0-9]* [0-9]* 33 2 ' "$out/fault"/*.journal &&
    grep -q '^D [0-9]* [0-9]* [0-9]* 0 [0-9]* 1$' "$out/budget"/*.journal; then
    pass=$((pass + 1)); echo "ok   selection fault, budget: a failed candidate, predicted entries"
else
    fail=$((fail + 1)); echo "FAIL selection fault, budget: no failed candidate or no predicted entry"
fi
# the flashinfer backend: the real worker on the CPU with FlashInfer 0.7.4's runner and the
# recorder's synthetic timings (inputs.sh): a screen (candidates screened out keep their one
# sample), candidates FlashInfer's runner does not list (unsupported: no time), and entries
# whose measured fallback is kept
TUNETAB_FI_KERNELS=$here/recorder_kernels.py TUNETAB_RECORDER_DEVICE="NVIDIA H200:9.0" \
    TUNETAB_RECORDER_LOG=$out/recorder.log "$T" generate --device h200 --model qwen3-30b-a3b \
    --dtype bf16 --flashinfer 0.7.4 --profile --backend flashinfer --python "$py" --max-tokens 16 \
    --no-gate -q -o "$out/fi"
check flashinfer-backend "$out/fi"
# the check sees a time changed by 0.001 us (1e-6 ms) in the journal
"$py" - "$out/top4" <<'PY'
import glob, sys
j = glob.glob(sys.argv[1] + "/*.journal")[0]
lines = open(j).read().splitlines(True)
d = next(l.split() for l in lines if l.startswith("D ") and l.split()[4] == "1")
for i, l in enumerate(lines):
    w = l.split()
    if w[0] == "M" and w[1:4] == [d[1], d[2], d[3]]:
        w[5] = "%.4f" % (float(w[5]) + 0.001)
        lines[i] = " ".join(w) + "\n"
open(j, "w").writelines(lines)
PY
if "$py" "$here/selection.py" --table "$out/top4"/flashinfer_autotune_*.json \
    --journal "$out/top4"/*.journal >"$out/mut.txt" 2>/dev/null; then
    fail=$((fail + 1)); echo "FAIL selection mutated: a changed time went unseen"
else
    pass=$((pass + 1)); echo "ok   selection mutated: $(grep -m1 '^differs' "$out/mut.txt")"
fi
# 0.7.2 (the same schema range) saves no record: measured entries stay [runner, tactic]
"$T" "${G[@]}" --flashinfer 0.7.2 -o "$out/v072"
if python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))
sys.exit(any(len(v) != 2 for k, v in t.items() if not k.startswith("_")))' "$out/v072"/flashinfer_autotune_*.json; then
    pass=$((pass + 1)); echo "ok   selection 0.7.2: [runner, tactic] only"
else
    fail=$((fail + 1)); echo "FAIL selection 0.7.2: an entry with more than [runner, tactic]"
fi
echo "selection: $pass passed, $fail failed"
[ "$fail" = 0 ]
