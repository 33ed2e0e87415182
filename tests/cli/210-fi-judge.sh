# 210-fi-judge: FlashInfer's own loader as the judge (issue #47, item 3). With the real FlashInfer
# 0.7.4 venv (the one make test-flashinfer uses) as the server's Python, `doctor --for` ends by
# loading every rank file with FlashInfer's AutoTuner.load_configs and looking up each rank's keys
# with its search_cache in tune mode, in that Python (scripts/tunetab-fi-judge.py), and says whose
# verdict it is. Where FlashInfer's answer differs from tunetab's model, doctor names the rank
# file, what each said, and exits 1:
#  - "_metadata": null, a gap in tunetab's model this judge found: tunetab took it as a
#    _metadata that is not an object (every field a soft mismatch: the file ignored) where
#    FlashInfer 0.7.4 pops it and checks nothing when it is None (flashinfer/autotuner/
#    autotuner.py:4878-4885 of the 0.7.4 wheel: `if saved_meta is not None:`); now fixed, the
#    two agree: the file loads and every lookup hits;
#  - a deliberately wrong model (TUNETAB_TEST_META_IGNORE=cuda_version: tunetab's copy of the
#    rule takes any cuda_version stamp as equal): alone (the judge's script refused) it says every
#    lookup hits and exits 0; the loader ignores the files and doctor exits 1.
# Then the script alone on the other installed versions: 0.6.18 judges, 0.5.3 and 0.2.9 (no JSON
# cache loader) answer that they cannot, and doctor with a Python that gives no judge's answer
# says tunetab's model gave the verdict. Skipped without the venv (make deps-flashinfer).
# requires: flashinfer-0.7.4
. "$ROOT/tests/lib.sh"
VENVS=${FI_VENV_DIR:-$ROOT/.venv-flashinfer}
PY=$VENVS/0.7.4/bin/python
hf_cache hub Qwen/Qwen3-30B-A3B
export HF_HUB_CACHE=$PWD/hub
# the venv's paths print as <python 0.7.4> and <flashinfer 0.7.4> (wherever FI_VENV_DIR puts
# it), the environment's own values (this venv's torch, cuDNN, ...) as <env>
RUN_SED="s|[^ ]*/0.7.4/bin/python|<python 0.7.4>|g; s|[^ ]*/0.7.4/lib/python3[^/]*/site-packages/flashinfer|<flashinfer 0.7.4>|g; s|$PWD/||g; s|current=[^,)]*|current=<env>|g"
L="python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 2 --moe-runner-backend flashinfer_cutlass"
O="--device h200 --consumer-version 0.5.23 --cache-dir $PWD/root"
doc() { # doctor --for with the server's Python $1: the lines that say whose verdict, and why
    run tunetab doctor --for sglang $O --python "$1" -- $L >doc.out
    grep -e '^\$' -e '^  metadata' -e '^  lookups' -e '^  judged by' -e '^  no ' -e '^  disagree' \
        -e '^verdict' -e '^\[exit' doc.out
}
# every rank file's JSON edited by a Python expression on d
edit() { for f in root/flashinfer/autotune/0.7.4/sm90/*/rank_*.json; do
    python3 -c "import json, sys; f = sys.argv[1]; d = json.load(open(f)); $1; json.dump(d, open(f, 'w'))" "$f"
done; }
# the server's Python with the judge's script refused: tunetab's model alone
cat >nojudge <<SH
#!/bin/sh
case "\$1" in *tunetab-fi-judge.py) exit 1 ;; esac
exec "$PY" "\$@"
SH
chmod +x nojudge

echo "== installed with FlashInfer 0.7.4's environment: the loader agrees"
tunetab install --for sglang $O --python "$PY" -- $L >/dev/null 2>&1
cp -r root root.orig
doc "$PY"
echo "-- --json"
tunetab doctor --for sglang $O --python "$PY" --json -- $L 2>/dev/null >json.out || true
python3 -c 'import json, sys; d = json.load(sys.stdin); print(json.dumps({k: d[k] for k in ("judged_by", "disagreements", "verdict", "exit")}))' <json.out |
    sed -e "$RUN_SED"
echo "== \"_metadata\": null: FlashInfer's loader and tunetab's model both load the files"
edit 'd["_metadata"] = None'
doc "$PY"
echo "== a wrong model (TUNETAB_TEST_META_IGNORE=cuda_version), cuda_version 12.8 stamped"
rm -rf root && cp -r root.orig root
edit 'd["_metadata"]["cuda_version"] = "12.8"'
export TUNETAB_TEST_META_IGNORE=cuda_version
echo "-- tunetab's model alone (the judge's script refused)"
doc "$PWD/nojudge"
echo "-- FlashInfer's loader"
doc "$PY"
unset TUNETAB_TEST_META_IGNORE
echo "-- the right model: both say the files are ignored"
doc "$PY"
echo "== a Python that gives no judge's answer"
fi_python fake "NVIDIA H200"
doc "$PWD/fake"

echo "== the script alone: FlashInfer 0.6.18, 0.5.3, 0.2.9"
rm -rf root && cp -r root.orig root
# a table without _metadata (loaded with no checks by every version): two keys and a third
# none holds, the rank file's own keys as the plan wrote them
python3 - "$PWD" <<'PY'
import glob, json, sys
f = sorted(glob.glob(sys.argv[1] + "/root/flashinfer/autotune/0.7.4/sm90/*/rank_*.json"))[0]
d = json.load(open(f))
keys = sorted(k for k in d if not k.startswith("_"))[:2]
json.dump({k: d[k] for k in keys}, open("t.json", "w"))
json.dump({"protocol": "tunetab-fi-judge", "v": 1, "flashinfer": "0.6.18", "gpu": "NVIDIA H200",
           "keysets": [keys + ["('no::such_op', 'MoERunner', ((1,),))"]],
           "files": [{"path": "t.json", "keyset": 0}, {"path": "nothing.json", "keyset": 0}]},
          open("req.json", "w"))
PY
for v in 0.6.18 0.5.3 0.2.9; do
    sed "s/\"0.6.18\"/\"$v\"/" req.json >req-$v.json
    "$VENVS/$v/bin/python" "$ROOT/scripts/tunetab-fi-judge.py" req-$v.json 2>/dev/null |
        python3 -c '
import json, sys
a = json.load(sys.stdin)
print(a["flashinfer"], "cannot:", a["cannot"])
for f in a["files"]:
    print("  ", f["path"], f["load"], [(k["hit"], k.get("why")) for k in f["keys"]])'
done
