# 020-generate: make run's default target; deterministic bytes; python3 imports the module
# and every key is Python's own str() of its tuple; JSON and module agree; --keys; errors.
. "$ROOT/tests/lib.sh"
run tunetab generate --device "NVIDIA RTX PRO 6000 Blackwell Server Edition" --model glm-5 --dtype nvfp4 --tp 8 -o out
ls out
run tunetab validate out/*
cp -r out first
tunetab generate --device "NVIDIA RTX PRO 6000 Blackwell Server Edition" --model glm-5 --dtype nvfp4 --tp 8 -o out -q
cmp out/v0_1_trtllm_fused_moe_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.py first/v0_1_trtllm_fused_moe_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.py && cmp out/flashinfer_autotune_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json first/flashinfer_autotune_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json && echo "second run: identical bytes"
python3 - <<'PY'
import importlib.util, json
class Torch:
    def __getattr__(self, n):
        class D:
            def __repr__(s): return "torch." + n
        return D()
p = "out/v0_1_trtllm_fused_moe_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.py"
spec = importlib.util.spec_from_file_location("m", p)
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
keys = list(m.best_configs)
same = sum(str(eval(k, {"torch": Torch()})) == k for k in keys)
print("module imports:", len(keys), "entries;", same, "keys equal str() of their tuple")
j = json.load(open("out/flashinfer_autotune_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json"))
print("json metadata:", j["_metadata"])
agree = all(j[k] == ["MoERunner", v[1]] for k, v in m.best_configs.items())
print("json entries:", len([k for k in j if not k.startswith("_")]), "agree with module:", agree)
t = eval(keys[0], {"torch": Torch()})
print("first key shapes:", t[2], "extras:", len(t[3]))
PY
head -3 out/v0_1_trtllm_fused_moe_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.py | cut -c1-60 > keys.txt
python3 -c '
import ast
m = ast.literal_eval(open("out/v0_1_trtllm_fused_moe_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.py").read().split("=",1)[1])
ks = sorted(m)[:3]
open("keys.txt","w").write("# three keys\n" + "\n".join(ks) + "\n")'
run tunetab generate --device rtx-pro-6000-server --keys keys.txt --dtype nvfp4 --format py -o bykeys
python3 -c '
import ast
a = ast.literal_eval(open("bykeys/v0_1_trtllm_fused_moe_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.py").read().split("=",1)[1])
b = ast.literal_eval(open("out/v0_1_trtllm_fused_moe_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.py").read().split("=",1)[1])
print("--keys: same keys:", sorted(a) == sorted(open("keys.txt").read().split("\n")[1:4]), "same tactics:", all(a[k] == b[k] for k in a))'
run tunetab generate --device b200 --model deepseek-v3 --dtype nvfp4 --ep 8 --flashinfer 0.4.0 --max-tokens 16384 -o old
run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --metadata cuda_version=13.0 --format json -o meta -q
python3 -c 'import json; print(json.load(open("meta/flashinfer_autotune_NVIDIA_H200.json"))["_metadata"])'
run tunetab generate --device "NVIDIA H300" --model glm-5 --dtype nvfp4
run tunetab generate --device h200 --model glm-5 --dtype nvfp4
run tunetab generate --device h200 --model llama3 --dtype bf16
run tunetab generate --device h200 --model glm-5 --dtype bf16 --ep 3
run tunetab generate --device h200 --model glm-5 --dtype bf16 --format yaml
run tunetab generate --device h200 --dtype bf16
run tunetab generate --device h200 --model glm-5 --dtype int4
