# 092-backend: the measurement backend named in the journal (its identity and a "# backend"
# line), the provenance, generate's summary and the report (a facts row, and a banner that says
# what was timed). A journal without a backend line is a proxy's; a journal of another backend
# is set aside, not resumed; merge notes inputs measured by different backends (a
# heuristic-only run measured nothing). The fake backend stands in for a GPU here.
. "$ROOT/tests/lib.sh"
export TUNETAB_FAKE_GPU=1
G="tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --max-tokens 16 --profile"
J=v0_1_trtllm_fused_moe_NVIDIA_H200.journal
$G -o f --report f.html 2>&1 | grep '^tunetab: profiled' | sed 's/in [0-9.]* s/in N s/'
head -n 1 f/$J | grep -o 'profile=1 backend=fake shard=0/1$'
grep '^# backend' f/$J
python3 -c 'import json; print("provenance:", [r.get("backend") for r in json.load(open("f/tunetab_provenance_NVIDIA_H200.json"))["runs"]])'
banner() {
    echo "== $1"
    grep -o '<strong>Measured.</strong> [^.]*' "$1"
    grep -o '<th scope="row">measurement backend</th><td>[^<]*' "$1" | sed 's/.*<td>/backend row: /'
}
banner f.html
# the journal recorded on the H200 has no backend line: the proxy's
cp -r "$ROOT/tests/data/report/h200-small" small
tunetab report small/$J -o small.html -q
banner small.html
# one naming FlashInfer's own kernels
sed 's/^# backend fake$/# backend flashinfer 0.7.4 (torch 2.11.0+cu130)/' f/$J > fi.journal
tunetab report fi.journal -o fi.html -q
banner fi.html
# a journal of another backend is set aside and everything measured again
cp -r f g
sed -i '1s/backend=fake/backend=flashinfer/' g/$J
$G -o g 2>&1 | grep -o '[0-9]* timings, [0-9]* resumed from the journal'
head -n 1 g/$J.old | grep -o 'backend=flashinfer shard=0/1$'
# merge: a note for the proxy and the fake run, none for a heuristic-only run and the fake one
run tunetab merge m small f
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --max-tokens 16 -o h -q
tunetab merge m2 h f 2>&1 | grep -c 'different backends' || true
