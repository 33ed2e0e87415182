# 182-gate: the flashinfer backend's correctness gate (issue #29). Before a tactic can win an
# entry the worker runs FlashInfer's whole MoE with it on the entry's inputs (worker_gate, the
# worker's GATE); one whose output is wrong (the stub: TUNETAB_TEST_WRONG_TACTIC) becomes a
# failed candidate: never chosen, in the journal (so a resumed run does not choose it either),
# the provenance file (its `wrong` ids, kept by a merge), the HTML report and the summary.
# --no-gate turns it off and says so; without the gate the wrong tactic is chosen where it is
# fastest.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX
G="tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --max-tokens 16 --profile --backend flashinfer"
first() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([v[1] for k, v in d.items() if "gemm1" in k and "((1, " in k][0])' "$1/flashinfer_autotune_NVIDIA_H200.json"; }
$G -o plain 2>plain.log
grep 'correctness gate' plain.log | sed 's/in [0-9.]* s ([0-9]*% of profiling)/in S s (P% of profiling)/'
bad=$(first plain)
echo "GEMM1 at 1 token: tactic $bad"
TUNETAB_TEST_WRONG_TACTIC=$bad $G -o wrong --report wrong/report.html 2>wrong.log
grep 'correctness gate' wrong.log | sed 's/in [0-9.]* s ([0-9]*% of profiling)/in S s (P% of profiling)/'
echo "with tactic $bad wrong: $(first wrong) chosen"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["entries"]; print("provenance: wrong", sorted({str(v["wrong"]) for v in e.values() if "wrong" in v}), "in", sum("wrong" in v for v in e.values()), "entry")' wrong/tunetab_provenance_NVIDIA_H200.json
tunetab merge merged wrong -q && grep -c '"wrong"' merged/tunetab_provenance_NVIDIA_H200.json | sed 's/^/after a merge: entries with wrong tactics: /'
grep -c 'wrong output: max abs' wrong/report.html | sed 's/^/HTML report: wrong-output lines: /'
grep -c "^M 1 [0-9]* $bad 2 .*wrong_output" wrong/*.journal | sed 's/^/journal: failed records of the wrong tactic: /'
# resumed from that journal with the gate still finding it wrong: still not chosen
TUNETAB_TEST_WRONG_TACTIC=$bad $G -o wrong 2>/dev/null
echo "resumed: $(first wrong) chosen"
TUNETAB_TEST_WRONG_TACTIC=$bad $G --no-gate -o off 2>off.log
grep 'correctness gate' off.log
echo "gate off: $(first off) chosen"
