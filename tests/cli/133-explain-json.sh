# 133-explain-json: `explain --json` and `diff --json` print what their text says as one JSON
# document: the target, every entry decoded (status ok, fallback, out-of-range, not-moe,
# unreadable-value; the tactic's config as catalog --json gives it), the coverage per shape
# family; diff: both targets, the entries removed, changed (was/now) and added, the counts,
# and exit 1 when the tables differ, as the text does. The never-loaded note goes to "notes".
. "$ROOT/tests/lib.sh"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --max-tokens 2 --flashinfer 0.7.4 --format py -q -o a
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --max-tokens 4 --flashinfer 0.7.4 --format py -q -o b
M=v0_1_trtllm_fused_moe_NVIDIA_H200.py
# b: gemm1 T=1 removed, gemm1 T=2 the fallback, gemm2 T=2 out of range (T=4 is added)
python3 - b/$M <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
blocks = re.findall(r'    "[^\n]*": \(\n        0,\n        -?\d+,\n    \),\n', s)
def key(stage, t):
    return next(b for b in blocks if "gemm%d'" % stage in b and "((%d, 2048)" % t in b)
s = s.replace(key(1, 1), "")
s = s.replace(key(1, 2), re.sub(r"\d+,\n    \)", "-1,\n    )", key(1, 2)))
s = s.replace(key(2, 2), re.sub(r"\d+,\n    \)", "9999,\n    )", key(2, 2)))
open(p, "w").write(s)
PY
# c: a key of another op, and a value that holds no tactic
mkdir c
sed -e 's/^best_configs = {$/best_configs = {\n    "('"'"'other::op'"'"', '"'"'Runner'"'"', ((1, 8),))": (0, 3),/' \
    -e '0,/^        [0-9][0-9]*,$/s//        "x",/' a/$M >c/$M
run tunetab explain c/$M --json
run tunetab diff a/$M b/$M
run tunetab diff a/$M b/$M --json
run tunetab diff a/$M a/$M --json
tunetab explain a/$M --flashinfer 0.6.6 --json >old.json
python3 -c 'import json, sys; d = json.load(open("old.json")); print(d["flashinfer_version"], d["version_from"], d["notes"], len(d["entries"]))'
