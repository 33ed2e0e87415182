# 195-install-json-quiet: `tunetab install --json` prints one JSON document in every form (the
# launch command, --from with install's flags, --dry-run, a write into a cache folder, a refusal,
# FlashInfer's managed store): the files per rank it writes or would write (path, there already,
# written), the entries added / already there / replaced / kept, the conflicts, the refusals
# with their reasons, written or not, the exit status; -q says nothing on success and keeps the
# errors and the refusal's reasons on stderr. The exit status is the text output's in each case.
. "$ROOT/tests/lib.sh"
hf_cache hub Qwen/Qwen3-30B-A3B
export HF_HUB_CACHE=$PWD/hub
RUN_SED="s|$PWD/||g"
fi_python py "NVIDIA H200"
D="--device h200 --python $PWD/py --cache-dir $PWD/root"
L="python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4 --moe-runner-backend flashinfer_cutlass"
summary() { # the document, checked and summed up
    python3 - "$1" "$PWD/" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = lambda s: s.replace(sys.argv[2], "") if isinstance(s, str) else s
print(f"mode {d['mode']}, exit {d['exit']}, table {p(d.get('table'))}, checked {d.get('table_checked')}, "
      f"refused {d.get('refused')}, written {d.get('written')}")
if "server" in d:
    s = d["server"]
    print(f"server: {s['consumer']} {s['version']}, FlashInfer {s['flashinfer_version']}, {s['device']}, "
          f"tunes at start {s['tunes_at_start']}; folder {p(d.get('cache_folder') or d['store']['folder'])}")
for f in d.get("files", [])[:5]:
    print(f"  file {f['index']} {p(f['path']).rsplit('/', 1)[-1]}: there {f['exists']}, to write {f['write']}")
if len(d.get("files", [])) > 5:
    print(f"  ... {len(d['files'])} files")
if "entries" in d:
    print("entries:", d["entries"], "; conflicts:", len(d["conflicts"]),
          {c["kept"] for c in d["conflicts"]} or "")
for x in d.get("refusals", []):
    print("refusal:", p(x))
print("fix:", p(d.get("fix")))
print("errors:", [p(e["message"])[:100] for e in d["errors"]], "notes:", len(d["notes"]))
PY
}
save() { rm -rf start; if [ -d root ]; then cp -r root start; fi; }
reset() { rm -rf root; if [ -d start ]; then cp -r start root; fi; }
inst() { # install ARGS... as text, --json and -q, each from the same cache folder: the exit
    # status of each, the document, what -q says
    save
    rc=0; tunetab install "$@" >text.txt 2>text.err || rc=$?
    reset
    jrc=0; tunetab install --json "$@" >doc.json 2>/dev/null || jrc=$?
    n=$(find root home -name '*.json' 2>/dev/null | wc -l)
    reset
    qrc=0; tunetab install -q "$@" >q.out 2>q.err || qrc=$?
    echo "exit: text $rc, --json $jrc, -q $qrc; after --json $n JSON files in the cache folder"
    python3 -m json.tool doc.json >/dev/null && echo "one JSON document"
    summary doc.json
    echo "-q stdout: $(wc -l <q.out) lines; stderr:"
    sed "s|$PWD/||g" q.err
}
echo "== --dry-run from the launch command: the files it would write, nothing written"
inst --for sglang $D --dry-run -- $L
ls root 2>/dev/null || echo "no cache folder"
echo "== installed from the launch command into a new cache folder"
inst --for sglang $D -- $L
tunetab doctor --for sglang $D -q -- $L
echo "== --from a table with other tactics, install's flags: conflicts kept theirs"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 4 --fused-finalize off --flashinfer 0.7.4 --format json -o t4 -q
python3 - t4/flashinfer_autotune_NVIDIA_H200.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in [k for k in d if not k.startswith("_")][:3]:
    d[k][1] = 0 if d[k][1] != 0 else 1
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
F="--from t4/flashinfer_autotune_NVIDIA_H200.json --model-path Qwen/Qwen3-30B-A3B --hf-config-class Qwen3MoeConfig --tp 4 --python $PWD/py --cache-dir $PWD/root"
inst --for sglang $F --dry-run
echo "== a refusal: a table for use_fused_finalize on; nothing written, the reasons in the document and on stderr"
rm -rf root
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 4 --flashinfer 0.7.4 --format json -o on -q
inst --for sglang $D --from on/flashinfer_autotune_NVIDIA_H200.json -- $L
ls root 2>/dev/null || echo "no cache folder"
echo "== FlashInfer's managed store (one rank), --dry-run"
PY=$ROOT/tests/data/fake-fi-env/python3
export HOME=$PWD/home
inst --for flashinfer --from t4/flashinfer_autotune_NVIDIA_H200.json --python $PY --dry-run
python3 -c 'import json; d = json.load(open("doc.json")); print("manifest:", d["manifest"]["path"].rsplit("/", 2)[-1], "there", d["manifest"]["exists"])'
echo "== usage errors: no document, exit 2"
run tunetab install --for sglang --json
