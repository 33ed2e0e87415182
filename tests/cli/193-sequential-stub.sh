# 193-sequential-stub: `generate --profile --method sequential` (issue #40's stopping rule, not the
# default yet) on the FlashInfer stub: the same entries and candidates as tunetab's race, each
# race ended by the paired test (tests/unit/test_measure.c has its cases: a clear race ends after
# 3 rounds, an indifferent tie is dropped, a noisy one runs on), so it takes fewer samples; the
# journal says the method.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX
for m in tunetab sequential; do
    tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 --profile \
        --backend flashinfer --python python3 --max-tokens 64 --method $m -q -o "$m"
    awk -v m=$m '$1 == "M" { c++; s += $9 } END { print m ": " c " candidate results, " s " samples" }' "$m"/*.journal
    sed -n 's/.* method=\([0-9]\) .*/journal method=\1/p' "$m"/*.journal | head -1
done
python3 - <<'PY'
n = {}
for m in ("tunetab", "sequential"):
    import glob
    s = 0
    for line in open(glob.glob(m + "/*.journal")[0]):
        if line.startswith("M "):
            s += int(line.split()[8])
    n[m] = s
print("sequential takes fewer samples:", n["sequential"] < n["tunetab"])
PY
run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --profile --method seq -o x
