# 120-install-vllm-flashinfer: `tunetab install --for vllm|flashinfer` and _metadata from the
# environment (a stand-in Python, tests/data/fake-fi-env, reports what FlashInfer's own
# _collect_metadata would; make test-consumers checks the paths against vLLM's and
# FlashInfer's own code and reads the store with FlashInfer's ManagedAutotuneCache).
# One rank: FlashInfer's managed store, named by the environment's exact metadata; several:
# the rank files in the config-hash folder a first vLLM start made (found, or named by the
# path vLLM logs); plain FlashInfer: the file your code names. Errors: no folder yet, keys for
# another FlashInfer version than the one installed, --stamp env without FlashInfer.
. "$ROOT/tests/lib.sh"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --format json -o gen -q
C=gen/flashinfer_autotune_NVIDIA_H200.json
PY=$ROOT/tests/data/fake-fi-env/python3
# one rank: the managed store
tunetab install --for vllm --from $C --python $PY --cache-dir store 2>err.txt | wc -l
sed "s|$PWD/||g" err.txt
python3 - store <<'PY'
import glob, hashlib, json, os, sys
d = glob.glob(f"{sys.argv[1]}/v2/*")[0]
m = json.load(open(f"{d}/manifest.json"))
canon = json.dumps(m, sort_keys=True, separators=(",", ":"))
print("folder is sha256(manifest)[:16]:", os.path.basename(d) == hashlib.sha256(canon.encode()).hexdigest()[:16])
ok = 0
for f in glob.glob(f"{d}/entries/*.json"):
    e = json.load(open(f))
    ok += os.path.basename(f) == hashlib.sha256(e["key"].encode()).hexdigest()[:24] + ".json" \
        and e["profiling_policy"] == ["cuda_graph_profile_replays", None, "l2_cache_policy", "hot"]
print("entries named by sha256(key)[:24], with the op's policy:", ok)
PY
# again: nothing new; an entry someone tuned differently is kept unless --replace
f=$(ls store/v2/*/entries/*.json | head -1)
python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); e["tactic"]=7777; json.dump(e, open(sys.argv[1],"w"))' "$f"
tunetab install --for vllm --from $C --python $PY --cache-dir store 2>&1 >/dev/null | sed 's/conflict: (.*): ours/conflict: KEY: ours/' | grep -v '^tunetab: vLLM'
rc=0; tunetab doctor --for vllm --from $C --python $PY --cache-dir store > chk.txt || rc=$?; sed "s|$PWD/||g; s|$ROOT|<root>|g" chk.txt; echo "exit $rc"
tunetab install --for vllm --from $C --python $PY --cache-dir store --replace 2>&1 >/dev/null | grep -c 'replaced (--replace)'
rc=0; tunetab doctor --for vllm --from $C --python $PY --cache-dir store > chk.txt || rc=$?; grep verdict chk.txt; echo "exit $rc"
# several ranks: the folder vLLM's first start made
run tunetab install --for vllm --from $C --python $PY --cache-dir vroot --tp 2
H=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
mkdir -p vroot/$H
tunetab install --for vllm --from $C --python $PY --cache-dir vroot --tp 2 --pp 2 2>/dev/null | sed "s|$PWD/||"
n=$(for f in vroot/$H/*.json; do md5sum < "$f"; done | sort -u | wc -l); echo "distinct contents: $n"
python3 -c 'import json,sys; print("_metadata from the environment:", json.load(open(sys.argv[1]))["_metadata"]["cuda_version"])' vroot/$H/autotune_configs_dp0_rank3.json
mkdir -p vroot/fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
run tunetab install --for vllm --from $C --python $PY --cache-dir vroot --tp 2
# the path vLLM logged names the folder
tunetab install --for vllm --from $C --python $PY --tp 2 --dp 2 \
    --cache-file "$PWD/logged/$H/autotune_configs_dp0_rank0.json" 2>/dev/null | sed "s|$PWD/||"
# plain FlashInfer: the file your code passes to autotune(cache=...), merged
python3 -c 'import json; json.dump({"_metadata": {"gpu": "unknown"}, "(\x27other::op\x27, \x27R\x27, ((1,),), ())": ["R", 1]}, open("mine.json", "w"))'
tunetab install --for flashinfer --from $C --python $PY --cache-file ./mine.json 2>&1 >/dev/null | sed "s|$PWD/||g" | grep -v 'rule:'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d) - 1, "entries; gpu", d["_metadata"]["gpu"])' mine.json
HOME=$PWD/home tunetab install --for flashinfer --from $C --python $PY --dry-run 2>err2.txt | head -1 | sed "s|$PWD/||; s|entries/.*|entries/...|"
grep -v "rule:" err2.txt | sed "s|$PWD/||g"
# errors: keys for 0.7.4, the environment imports 0.7.2.post1; --stamp env with no FlashInfer
sed 's/"version": "0.7.4"/"version": "0.7.2.post1"/' "$ROOT/tests/data/fake-fi-env/env.json" > old.json
FAKE_FI_ENV=$PWD/old.json run tunetab install --for flashinfer --from $C --python $PY --cache-file ./x.json
run tunetab install --for sglang --from $C --model-path m --hf-config-class X --stamp env --cache-dir s
run tunetab install --for vllm --from $C --cache-dir s
run tunetab install --for vllm --from $C --stamp maybe
