# 234-small-inputs: issue #48 item 5, the smaller hostile inputs. A heuristic's error message
# with a NUL (and a terminal escape) is shown whole, escaped; a JSON table whose tactic is a
# float (["MoERunner", 1.0]) is told so, not "must be [runner, tactic]"; a hand-made Hugging
# Face cache whose refs/main is not a commit says what it holds; --metadata has one meaning
# (generate's and convert's KEY=VALUE): install and doctor stamp with --stamp, and an old
# --metadata there says so.
. "$ROOT/tests/lib.sh"
echo "== a heuristic error message holding a NUL and a terminal escape"
printf 'error("a\\0b\\27[31mred")\n' >e.lua
rc=0; tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 4 --heuristic e.lua -o o -q 2>err.txt || rc=$?
cat err.txt; echo "exit $rc"
echo "== a float tactic"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 4 --format json -o g -q
python3 - <<'PY'
import glob, re
t = open(glob.glob("g/flashinfer_autotune_*.json")[0]).read()
open("f.json", "w").write(re.sub(r'("MoERunner",\s*)(\d+)', r'\g<1>\2.0', t, count=1))
PY
rc=0; tunetab validate f.json >out.txt 2>&1 || rc=$?
grep 'error' out.txt; echo "exit $rc"
echo "== refs/main that is not a commit"
mkdir -p hub/models--Qwen--Qwen3-30B-A3B/refs
echo main-branch >hub/models--Qwen--Qwen3-30B-A3B/refs/main
rc=0; HF_HUB_CACHE=$PWD/hub tunetab generate --for sglang --device h200 --flashinfer 0.7.4 -o o -q -- \
    python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4 2>err.txt || rc=$?
sed "s|$PWD/||g" err.txt; echo "exit $rc"
echo "== --metadata: generate's KEY=VALUE; install's and doctor's stamp is --stamp"
rc=0; tunetab install --for sglang --from f.json --metadata wildcard --model-path m --tp 1 2>err.txt || rc=$?
head -1 err.txt; echo "exit $rc"
rc=0; tunetab doctor --for sglang --metadata=env -- python -m sglang.launch_server --model-path m 2>err.txt || rc=$?
head -1 err.txt; echo "exit $rc"
echo "== a server Python that never answers: stopped after TUNETAB_PYTHON_TIMEOUT, and said so"
printf '#!/bin/sh\nsleep 300\n' >slowpy
chmod +x slowpy
rc=0; TUNETAB_PYTHON_TIMEOUT=1 timeout 60 "$TUNETAB" doctor --for sglang --device h200 --python ./slowpy \
    --consumer-version 0.5.23 --cache-dir c -- python -m sglang.launch_server \
    --model-path "$ROOT/tests/data/hf/Qwen/Qwen3-30B-A3B" --tp 4 2>err.txt >/dev/null || rc=$?
grep error err.txt; echo "exit $rc"
