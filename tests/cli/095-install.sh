# 095-install: `tunetab install --for sglang`: the cache for every rank (TP 2 x PP 2), all the
# same bytes, where SGLang's rule puts them (make test-consumers checks the rule against
# SGLang's own code); a merge into an existing rank file keeps its other entries and
# _metadata, a conflicting tactic keeps theirs unless --replace; --dry-run writes nothing;
# errors: a broken existing file (file:line:col), an unknown consumer, a missing model path,
# a cache with no FlashInfer version.
. "$ROOT/tests/lib.sh"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --format json -o gen -q
C=gen/flashinfer_autotune_NVIDIA_H200.json
I="install --for sglang --from $C --model-path Qwen/Qwen3-30B-A3B --hf-config-class Qwen3MoeConfig --cache-dir root"
tunetab $I --tp 2 --pp 2 2>err.txt | sed "s|$PWD/||"
sed "s|$PWD/||g" err.txt
files=$(find root -name 'rank_*.json' | sort)
echo "$files" | wc -l
n=$(for f in $files; do md5sum < "$f"; done | sort -u | wc -l); echo "distinct contents: $n"
f=$(echo "$files" | head -1)
python3 - "$f" "$C" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
print("rank file == generated cache:", a == b)
PY
# someone's earlier tuning: another tactic for one key, a key we do not have, its own metadata
python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = next(k for k in d if not k.startswith("_"))
d[k] = [d[k][0], 9999]
d["('some::other_op', 'Runner', ((1,),), ())"] = ["Runner", 3]
d["_metadata"]["cuda_version"] = "13.0"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
tunetab $I --tp 2 --pp 2 2>&1 >/dev/null | sed "s|$PWD/||g" | sed 's/conflict: (.*): ours/conflict: KEY: ours/'
python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("kept: other op", "('some::other_op', 'Runner', ((1,),), ())" in d, "| metadata cuda", d["_metadata"]["cuda_version"],
      "| 9999 kept", any(v[1] == 9999 for k, v in d.items() if not k.startswith("_")))
PY
n=$(for f in $(find root -name 'rank_*.json'); do md5sum < "$f"; done | sort -u | wc -l); echo "distinct contents after the merge: $n"
tunetab $I --tp 2 --pp 2 --replace 2>&1 >/dev/null | grep -c 'replaced (--replace)'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("9999 after --replace:", any(v[1] == 9999 for k, v in d.items() if not k.startswith("_")))' "$f"
# --dry-run: paths, nothing written
tunetab $I --tp 4 --dry-run 2>/dev/null | sed "s|$PWD/||" | tail -1
find root -name 'rank_tp3*' | wc -l
# errors
echo '{"a": [1,' > broken.json
mkdir -p "$(dirname "$f")"; cp broken.json "$f"
run tunetab $I --tp 2 --pp 2
run tunetab install --for vllm2 --from $C
run tunetab install --for sglang --from $C --tp 2
printf '{"_metadata": {"flashinfer_version": "*"}}\n' > star.json
run tunetab install --for sglang --from star.json --model-path m --hf-config-class X
# doctor --for sglang (install --check): the chain the server follows, on a fresh root
D="doctor --for sglang --from $C --model-path Qwen/Qwen3-30B-A3B --hf-config-class Qwen3MoeConfig --cache-dir fresh --tp 2"

rc=0; tunetab $D > chk.txt 2>/dev/null || rc=$?; tail -3 chk.txt; echo "exit $rc"
tunetab install --for sglang --from $C --model-path Qwen/Qwen3-30B-A3B --hf-config-class Qwen3MoeConfig --cache-dir fresh --tp 2 >/dev/null 2>&1
rc=0; tunetab $D > chk.txt 2>/dev/null || rc=$?; sed "s|$PWD/||" chk.txt; echo "exit $rc"
rm "$(find fresh -name 'rank_tp1*')"
rc=0; tunetab $D > chk.txt 2>/dev/null || rc=$?; grep -e 'rank files' -e verdict chk.txt; echo "exit $rc"
rc=0; tunetab $D --moe-runner-backend triton > chk.txt 2>/dev/null || rc=$?; grep 'tunes at start' chk.txt; echo "exit $rc"
