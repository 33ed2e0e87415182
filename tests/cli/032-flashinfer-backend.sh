# 032-flashinfer-backend: the flashinfer backend's protocol on a CPU. The real Python worker
# (scripts/tunetab-fi-worker.py) runs with a stub of FlashInfer's runner in place of the GPU
# (tests/data/fi-stub/kernels.py): a complete run whose tables validate and whose version is
# the one FlashInfer reports; --flashinfer contradicting it; auto and flashinfer when the Python
# has no usable FlashInfer; slow tactics left out of later screens; a tactic FlashInfer rejects, a crash and a hang recorded failed
# while the run finishes; SIGKILL midway and a resume; the Python found through $VIRTUAL_ENV
# and --python.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX
G="tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile"
$G --backend flashinfer -o fi 2>&1 | grep -e 'flashinfer:' -e 'entries measured' | sed -e 's/in [0-9.]* s/in N s/' -e 's|python [^ ]* (from|python P (from|'
tunetab validate -q fi/*.py fi/*.json && echo "flashinfer backend: tables valid"
python3 -c 'import json,sys; print("metadata flashinfer_version", json.load(open(sys.argv[1]))["_metadata"]["flashinfer_version"])' fi/flashinfer_autotune_NVIDIA_H200.json
grep -c '^M ' fi/*.journal
# the screen leaves out what was over 2x the best a bucket below (the stub's every 4th
# tactic), but never the fallback (gemm1's tactic 0, slow too): timed at all 21 buckets
echo "gemm1 tactic 0 (fallback) timed at $(awk '$1=="M" && $2==1 && $4==0' fi/*.journal | wc -l) buckets, tactic 4 at $(awk '$1=="M" && $2==1 && $4==4' fi/*.journal | wc -l)"
# the version FlashInfer reports is the target; a contradiction is an error (exit 2)
TUNETAB_STUB_VERSION=0.6.18 $G --backend flashinfer -o v0618 -q && \
    python3 -c 'import json,sys; print("0.6.18 stub:", json.load(open(sys.argv[1]))["_metadata"]["flashinfer_version"])' v0618/flashinfer_autotune_NVIDIA_H200.json
rc=0; $G --backend flashinfer --flashinfer 0.6.18 -o contra -q 2>&1 | sed "s|kernels ([^)]*)|kernels (python P)|" || rc=$?
$G --backend flashinfer --flashinfer 0.6.18 -o contra -q >/dev/null 2>&1 || echo "exit $?"
[ ! -e contra/v0_1_trtllm_fused_moe_NVIDIA_H200.py ] && echo "contradiction: nothing written"
# no usable FlashInfer: flashinfer is an error (exit 4), auto falls back and says why
rc=0; TUNETAB_STUB_UNUSABLE="no module named flashinfer" $G --backend flashinfer -o none -q 2>&1 | sed 's/(python [^)]*)/(python P)/' || rc=$?
TUNETAB_STUB_UNUSABLE="no module named flashinfer" $G --backend flashinfer -o none -q >/dev/null 2>&1 || echo "exit $?"
TUNETAB_FAKE_GPU=1 TUNETAB_STUB_UNUSABLE="no module named flashinfer" $G --backend auto -o auto 2>&1 | grep 'backend' | sed -e 's/(python [^)]*)/(python P)/' -e 's/in [0-9.]* s/in N s/'
TUNETAB_FAKE_GPU=1 $G -o fakedefault 2>&1 | grep -c 'backend fake:' || true
# failures: FlashInfer rejects a tactic, one crashes the worker, one hangs it
TUNETAB_TEST_BAD_TACTIC=19 TUNETAB_TEST_FAULT=36 TUNETAB_TEST_HANG=21 $G --backend flashinfer --timeout 1 --max-tokens 16 -o faults 2>&1 | grep -o '[0-9]* candidates failed'
grep -o 'Invalid_gemm1_profile_id' faults/*.journal | sort | uniq -c | sed 's/^ *//'
grep -c 'crashed_the_GPU_worker' faults/*.journal || true
grep -c 'hung:_killed_by_the_watchdog' faults/*.journal || true
tunetab validate -q faults/*.py faults/*.json && echo "faulty run: output complete and valid"
# SIGKILL midway, then a resume
TUNETAB_STUB_DELAY_MS=20 "$TUNETAB" ${G#tunetab } --backend flashinfer -o killed -q &
pid=$!
while kill -0 $pid 2>/dev/null; do # until 60 measurements are journaled
    n=$(cat killed/*.journal 2>/dev/null | grep -c '^M ' || true)
    [ "${n:-0}" -ge 60 ] && break
    sleep 0.05
done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
partial=$(grep -c '^M ' killed/*.journal)
[ "$partial" -ge 60 ] && [ "$partial" -lt 1000 ] && echo "killed midway: a partial journal"
$G --backend flashinfer -o killed 2>&1 | grep -o '[0-9]* resumed from the journal' | sed 's/^[0-9]*/N/'
tunetab validate -q killed/*.py killed/*.json && echo "resumed run: tables valid"
# where the Python comes from: $VIRTUAL_ENV, then --python
mkdir -p venv/bin
printf '#!/bin/sh\ntouch "%s/venv/used"\nexec python3 "$@"\n' "$PWD" >venv/bin/python3
chmod +x venv/bin/python3
VIRTUAL_ENV=$PWD/venv $G --backend flashinfer -o venvrun -q && [ -e venv/used ] && echo "python from \$VIRTUAL_ENV used"
rm -f venv/used
$G --backend flashinfer --python "$PWD/venv/bin/python3" -o pyrun -q && [ -e venv/used ] && echo "--python used"
rc=0; $G --backend flashinfer --python /nonexistent/python3 -o nopy -q 2>&1 || rc=$?; echo "exit $rc"
rc=0; tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --backend proxy -o x 2>&1 || rc=$?; echo "exit $rc"
# auto without FlashInfer, fp8, the proxy backend: the heuristic's table, said so (the proxy's
# fp8 tables measured worse than the heuristic alone on FlashInfer's kernels); bf16 keeps it
TUNETAB_STUB_UNUSABLE="no module named flashinfer" tunetab generate --device h200 --model deepseek-v3 --dtype fp8 --ep 8 --profile -o heur 2>&1 | grep 'backend' | sed 's/(python [^)]*)/(python P)/'
tunetab validate -q heur/*.py heur/*.json && echo "auto, fp8, no FlashInfer: a heuristic table, valid"
python3 -c 'import json,sys; print("profiled:", json.load(open(sys.argv[1]))["runs"][0]["profiled"])' heur/tunetab_provenance_NVIDIA_H200.json
