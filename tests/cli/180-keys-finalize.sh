# 180-keys-finalize: `generate --keys` takes the runner's use_fused_finalize from the keys (a
# scan-log of an SGLang server with its default, finalize off, names False): with it off GEMM2's
# ids mean other configs (cutlass-moe-tactics.md §3). Before this test, --keys built the
# finalize-on runner and list for such keys, and wrote on-list ids under off keys.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --fused-finalize off --max-tokens 64 -q -o model
python3 - <<'PY'
import json
t = json.load(open("model/flashinfer_autotune_NVIDIA_H200.json"))
keys = [k for k in t if k.startswith("(")]
open("off.keys", "w").write("".join(k + "\n" for k in keys))
open("mixed.keys", "w").write(keys[0].replace("False))", "True))") + "\n" + keys[1] + "\n")
PY
# the heuristic's table from the keys alone is the model's, tactic for tactic
tunetab generate --device h200 --keys off.keys --dtype bf16 -q -o keys
python3 - <<'PY'
import json
a = json.load(open("model/flashinfer_autotune_NVIDIA_H200.json"))
b = json.load(open("keys/flashinfer_autotune_NVIDIA_H200.json"))
ks = [k for k in a if k.startswith("(")]
same = sum(a[k] == b.get(k) for k in ks)
print("keys with use_fused_finalize False: %d of %d entries as --model --fused-finalize off" % (same, len(ks)))
PY
# measured: the worker builds the off runner
TUNETAB_STUB_RECORD=$PWD/keys.rec tunetab generate --device auto --keys off.keys --dtype bf16 --profile \
    --backend flashinfer -q -o measured
sed 's/^dtype [a-z0-9]* stage \([12]\) finalize \([01]\).*/stage \1 finalize \2/' keys.rec | sort | uniq -c | sed 's/^ *//'
# an option that contradicts the keys, and keys that mix the two runners: refused, nothing written
run tunetab generate --device h200 --keys off.keys --dtype bf16 --fused-finalize on -q -o on
run tunetab generate --device h200 --keys mixed.keys --dtype bf16 -q -o mixed
ls -d on mixed 2>/dev/null || echo "nothing written"
