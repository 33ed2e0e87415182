# 194-doctor-for-json: `tunetab doctor --for sglang ... -- LAUNCH --json` prints one JSON document
# with what the text report says (the server, every rank file: path, present, metadata, lookups
# and hits; each op; the findings; the verdict hits / no / cannot tell; the fix), from the same
# check, with the same exit status: nothing installed (no), a TP 8 table for a TP 4 server (no:
# the keys differ), installed (hits), no config.json for install's flags (cannot tell).
# `install --check --json` is the same document. -q leaves only the findings, the verdict and
# the fix (plain doctor: the verdict and what fixes it), with the same exit status.
. "$ROOT/tests/lib.sh"
hf_cache hub Qwen/Qwen3-30B-A3B
export HF_HUB_CACHE=$PWD/hub
RUN_SED="s|$PWD/||g"
fi_python py "NVIDIA H200"
D="--device h200 --python $PWD/py --cache-dir $PWD/root"
L="python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4 --moe-runner-backend flashinfer_cutlass"
# the document, checked and summed up: its verdict, files, lookups, ops, findings and fix
summary() {
    python3 - "$1" "$PWD/" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = lambda s: s.replace(sys.argv[2], "") if isinstance(s, str) else s
s = d["server"]
print(f"mode {d['mode']}, exit {d['exit']}, verdict {d['verdict']!r}: {d['verdict_text']}")
print(f"server: {s['consumer']} {s['version']}, FlashInfer {s['flashinfer_version']}, {s['device']} "
      f"(SM{s['sm']}), tunes at start {s['tunes_at_start']}, MoE {s['moe'] and s['moe']['dtype']}")
print(f"cache folder {p(d.get('cache_folder'))}: {d['files_present']} of {len(d['files'])} files present, "
      f"lookups {d['lookups']}")
for f in d["files"]:
    print(f"  file {f['index']} {p(f['path']).rsplit('/', 1)[-1]}: exists {f['exists']}, metadata "
          f"{f['metadata']}, {f['hits']} of {f['lookups']} lookups hit, {f['invalid']} invalid")
for o in d["ops"]:
    print(f"  op {o['op']} ({o['runner']}): tuned {o['tuned_at_start']}, {o['covered']} of {o['keys']} keys")
for x in d["findings"]:
    print("  no:", p(x))
for x in d["cannot_tell"]:
    print("  cannot tell:", p(x["what"]), "— give", x["give"])
print("fix:", p(d["fix"]))
print("errors:", [p(e["message"]) for e in d["errors"]])
PY
}
doc() { # doctor --for ARGS... as text and as JSON: the same exit status and findings
    rc=0; tunetab doctor --for sglang "$@" >text.txt 2>/dev/null || rc=$?
    jrc=0; tunetab doctor --for sglang --json "$@" >doc.json 2>/dev/null || jrc=$?
    echo "text exit $rc, --json exit $jrc"
    python3 -m json.tool doc.json >/dev/null && echo "one JSON document"
    summary doc.json
    # each "no" and "cannot tell" line of the text is in the document
    python3 - <<'PY'
import json
d = json.load(open("doc.json"))
lines = open("text.txt").read().splitlines()
no = [l[len("  no                  "):] for l in lines if l.startswith("  no ")]
print("text findings in the document:", no == d["findings"],
      "; verdict line:", ("verdict: " + d["verdict_text"]) in lines)
PY
}
echo "== nothing installed"
doc $D -- $L
echo "== a TP 8 table installed for the TP 4 server"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 8 --fused-finalize off --flashinfer 0.7.4 --format json -o t8 -q
tunetab install --for sglang --from t8/flashinfer_autotune_NVIDIA_H200.json --model-path Qwen/Qwen3-30B-A3B \
    --hf-config-class Qwen3MoeConfig --tp 4 --python "$PWD/py" --cache-dir "$PWD/root" --force >/dev/null 2>&1
doc $D -- $L
echo "== -q: the findings, the verdict and the fix"
run tunetab doctor --for sglang $D -q -- $L
echo "== installed from the launch command"
rm -rf root
tunetab install --for sglang $D -q -- $L
doc $D -- $L
run tunetab doctor --for sglang $D -q -- $L
echo "== install --check --json is the same document"
tunetab install --for sglang --check $D --json -- $L >check.json 2>/dev/null
cmp -s doc.json check.json && echo "same bytes as doctor --for --json"
echo "== install's flags, no config.json for them, the table installed: cannot tell (exit 6)"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 4 --fused-finalize off --flashinfer 0.7.4 --format json -o t4 -q
F="--from t4/flashinfer_autotune_NVIDIA_H200.json --model-path org/Unknown --hf-config-class Qwen3MoeConfig --tp 4 --python $PWD/py --cache-dir $PWD/root"
tunetab install --for sglang $F -q 2>/dev/null
doc $F
echo "== the fix of a 'no' from install's flags is the command without --json"
rm -rf root
tunetab doctor --for sglang --json $F >doc.json 2>/dev/null || true
python3 -c 'import json; print(json.load(open("doc.json"))["fix"])' | sed "s|$PWD/||g"
echo "== an error before the plan: still one document, with the error and the exit status"
jrc=0; tunetab doctor --for sglang --json --device h200 --python "$PWD/py" -- python -m sglang.launch_server --model-path org/Missing --tp 4 >err.json 2>/dev/null || jrc=$?
python3 -c 'import json; d = json.load(open("err.json")); print("exit", d["exit"], "; errors:", [e["message"] for e in d["errors"]], "; a verdict:", "verdict" in d)' | sed "s|$PWD/||g"
echo "doctor exit $jrc"
echo "== plain doctor -q: the verdict and the commands that fix it"
run tunetab doctor --flashinfer 0.7.4 --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 4 -q
run tunetab doctor --backend flashinfer -q
