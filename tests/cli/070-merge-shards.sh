# 070-merge-shards: the two shards of one profiled run (each a folder as generate --shard
# writes it) merged into a folder: every entry once, the union of their runs, each entry's
# provenance; the outputs validate. A provenance file given alone brings its tables; OUT.py
# and OUT.json write one file with the same bytes; a missing shard is an error (nothing
# written) unless --partial; a second copy of a shard merges like identical entries.
. "$ROOT/tests/lib.sh"
MK="python3 $ROOT/tests/data/merge/mk.py"
PY=v0_1_trtllm_fused_moe_NVIDIA_H200.py
JS=flashinfer_autotune_NVIDIA_H200.json
PR=tunetab_provenance_NVIDIA_H200.json
$MK s0 --shard 0/2 1:1=19:m:10.5 1:4=36:m:12.5 2:1=-1:f:8 2:4=100:m:9.25
$MK s1 --shard 1/2 1:2=36:m:11 1:8=36:m:14 2:2=100:m:8.5 2:8=100:p:9
run tunetab merge out s0 s1
ls out
cat out/$PY
cat out/$PR
run tunetab validate --flashinfer 0.6.18 out/$PY out/$JS
python3 - <<'PY'
import json, hashlib
out = json.load(open("out/flashinfer_autotune_NVIDIA_H200.json"))
union = {}
for d in ("s0", "s1"):
    union.update({k: v for k, v in json.load(open(d + "/flashinfer_autotune_NVIDIA_H200.json")).items() if not k.startswith("_")})
entries = {k: v for k, v in out.items() if not k.startswith("_")}
print("json entries are the union of the shards:", entries == union, len(entries))
print("json key order:", list(out)[0], "... sorted:", list(entries) == sorted(entries), "...", list(out)[-1])
gen = out.pop("_generation")
print("_generation is the sha256 of the rest:", gen == hashlib.sha256(json.dumps(out, sort_keys=True, separators=(",", ":")).encode()).hexdigest())
print("_metadata:", out["_metadata"])
PY
# a provenance file given by itself brings the tables it names beside it
run tunetab merge viaprov s0/$PR s1/$PR -q
for f in $PY $JS $PR; do cmp out/$f viaprov/$f && echo "viaprov/$f: same bytes"; done
# one file: the folder's bytes (the provenance beside each input is still read)
run tunetab merge one.py s0/$PY s1/$PY
cmp one.py out/$PY && echo "one.py: same bytes as out/$PY"
run tunetab merge one.json s0/$JS s1/$JS
cmp one.json out/$JS && echo "one.json: same bytes as out/$JS"
# a second copy of a shard: identical entries, one run
cp -r s1 s1copy
run tunetab merge twice s0 s1 s1copy
for f in $PY $JS $PR; do cmp out/$f twice/$f && echo "twice/$f: same bytes"; done
# a missing shard
run tunetab merge missing s0
ls missing 2>&1 || true
run tunetab merge --partial partial s0
python3 -c 'import json; p = json.load(open("partial/tunetab_provenance_NVIDIA_H200.json")); print("partial:", len(p["entries"]), "entries,", [r["shard"] for r in p["runs"]])'
# merging the partial merge with the other shard completes the run: the same bytes
run tunetab merge -q completed partial s1
for f in $PY $JS $PR; do cmp out/$f completed/$f && echo "completed/$f: same bytes"; done
