# 180-keys-runner: `generate --keys` builds the runner the keys name. use_fused_finalize (a
# scan-log of an SGLang server with its default, finalize off, names False): with it off GEMM2's
# ids mean other configs (cutlass-moe-tactics.md §3); before this test --keys built the
# finalize-on runner and list for such keys, and its table failed validation. top_k, tp_size,
# ep_size and activation_type come from the keys too, and the hidden size from the shapes:
# before, the flashinfer backend got --top-k's default 8, EP 1 and hidden 0 (FlashInfer's
# runner asserted on the H200: mNeedWeights == (expert_weights == nullptr)).
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
cut -d' ' -f3- keys.rec | sort | uniq -c | sed 's/^ *//'
# Mixtral-8x7B at EP 2 (top-2, 4 experts a rank), from its keys alone
tunetab generate --device h200 --model mixtral-8x7b --dtype bf16 --ep 2 --max-tokens 8 -q -o mixtral
python3 -c 'import json; print("".join(k + "\n" for k in json.load(open("mixtral/flashinfer_autotune_NVIDIA_H200.json")) if k[0] == "("), end="")' >mixtral.keys
TUNETAB_STUB_RECORD=$PWD/mixtral.rec tunetab generate --device auto --keys mixtral.keys --dtype bf16 --profile \
    --backend flashinfer -q -o mixtral-measured
cut -d' ' -f3- mixtral.rec | sort | uniq -c | sed 's/^ *//'
run tunetab generate --device h200 --keys mixtral.keys --dtype bf16 --top-k 8 -q -o topk
# an option that contradicts the keys, and keys that mix the two runners: refused, nothing written
run tunetab generate --device h200 --keys off.keys --dtype bf16 --fused-finalize on -q -o on
run tunetab generate --device h200 --keys mixed.keys --dtype bf16 -q -o mixed
ls -d on mixed 2>/dev/null || echo "nothing written"
