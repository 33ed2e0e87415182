#!/bin/sh
# opprof_stub.sh: the flashinfer worker's OPPROF request (scripts/tunetab-fi-worker.py) on the CPU
# with the FlashInfer stub (tests/data/fi-stub/kernels.py: op_time, Ops), each reply against the
# one the stub's rule predicts, win and detail decoded from hex. Needs python3 alone; closes with
# "N passed, N failed". Not part of `make test` (a CLI golden test is the C side's to write).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export TUNETAB_FI_KERNELS="$root/tests/data/fi-stub/kernels.py" LC_ALL=C
unset TUNETAB_TEST_WRONG_TACTIC TUNETAB_STUB_CANNOT_RUN
pass=0 fail=0

hx() { printf %s "$1" | od -An -tx1 -v | tr -d ' \n'; }
# the worker's answer to one request, its hex fields decoded (detail dropped: its words may change)
ask() {
    printf '%s\n' "$1" | python3 "$root/scripts/tunetab-fi-worker.py" 0 | python3 -c '
import sys
for line in sys.stdin:
    words = []
    for w in line.split():
        name, eq, v = w.partition("=")
        if name == "win":
            w = "win=" + bytes.fromhex(v).decode()
        if name == "detail":
            continue
        words.append(w)
    print(" ".join(words))'
}
check() {  # $1 what, $2 request, $3 the answer expected
    got=$(ask "$2")
    if [ "$got" = "$3" ]; then
        pass=$((pass + 1)); echo "ok   $1"
    else
        fail=$((fail + 1)); echo "FAIL $1"; echo "  want: $3"; echo "  got:  $got"
    fi
}

G="op=fp4_gemm runner=CutlassFp4GemmRunner consumer=sglang tune=at_m m=512 tune_max=8192 n=3072 k=6144 out=bfloat16"
M="op=flashinfer::trtllm_fp4_block_scale_moe runner=MoERunner consumer=vllm tune=buckets m=8192 tune_max=8192 hidden=6144 hidden_output=6144 inter=256 experts=256 local_experts=32 local_expert_offset=0 top_k=8 shared=0 routing=logits finalize=1 act_dtype=e2m1 weight_dtype=e2m1 activation=3 layout=0 shuffled=1 packed=0 per_token=0"

# base = 5 + bucket/64; tactic t: base * (1 + 0.1 |t - w|), w = 3 up to bucket 64, 5 above;
# the fallback -1: base * 1.45
check "candidates 0 1 2 at 16: 2 wins (w = 3 not asked)" \
    "OPPROF v=3 $G bucket=16 reps=10 gate=1 cands=3 cols=id -- 0 1 2" \
    "OPPROF v=3 timed=4 win=2 win_us=5.7750 fallback_us=7.6125 verdict=ok"
check "cands=0 at 16: the runner's range(8), 3 wins" \
    "OPPROF v=3 $G bucket=16 reps=10 gate=1 cands=0 cols=id --" \
    "OPPROF v=3 timed=9 win=3 win_us=5.2500 fallback_us=7.6125 verdict=ok"
check "cands=0 at 512: 5 wins" \
    "OPPROF v=3 $G bucket=512 reps=10 gate=1 cands=0 cols=id --" \
    "OPPROF v=3 timed=9 win=5 win_us=13.0000 fallback_us=18.8500 verdict=ok"
export TUNETAB_TEST_WRONG_TACTIC=3
check "3 wrong at 16: the next that passes (2, the tie with 4 to the lower id)" \
    "OPPROF v=3 $G bucket=16 reps=10 gate=1 cands=0 cols=id --" \
    "OPPROF v=3 timed=9 win=2 win_us=5.7750 fallback_us=7.6125 verdict=wrong"
check "3 wrong, gate=0: not checked" \
    "OPPROF v=3 $G bucket=16 reps=10 gate=0 cands=0 cols=id --" \
    "OPPROF v=3 timed=9 win=3 win_us=5.2500 fallback_us=7.6125 verdict=off"
unset TUNETAB_TEST_WRONG_TACTIC
check "only 0 at 512: the fallback is faster" \
    "OPPROF v=3 $G bucket=512 reps=10 gate=1 cands=1 cols=id -- 0" \
    "OPPROF v=3 timed=2 win=-1 win_us=18.8500 fallback_us=18.8500 verdict=ok"
check "9 not valid, 1048576 raises: 7 wins" \
    "OPPROF v=3 $G bucket=64 reps=1 gate=1 cands=3 cols=id -- 1048576 9 7" \
    "OPPROF v=3 timed=2 win=7 win_us=8.4000 fallback_us=8.7000 verdict=ok"
check "the MoE's tactics as ID,HEX: the winner's text as given" \
    "OPPROF v=3 $M bucket=64 reps=10 gate=1 cands=2 cols=id,tactic -- 0,$(hx '[8, 3]') 1,$(hx '[16,0]')" \
    "OPPROF v=3 timed=3 win=[8, 3] win_us=6.6000 fallback_us=8.7000 verdict=ok"
export TUNETAB_STUB_CANNOT_RUN=1
check "a GPU the op cannot run on" \
    "OPPROF v=3 $M bucket=64 reps=10 gate=1 cands=0 cols=id --" \
    "ERR v=3 -- cannot run on SM90: flashinfer::trtllm_fp4_block_scale_moe's modules are built for SM100, SM103, SM120, SM121 (the stub, TUNETAB_STUB_CANNOT_RUN)"
unset TUNETAB_STUB_CANNOT_RUN
check "cands= and the words after '--' disagree" \
    "OPPROF v=3 $G bucket=16 reps=10 gate=1 cands=1 cols=id --" \
    "ERR v=3 -- OPPROF: cands=1 but 0 items after '--'"
check "a missing field" \
    "OPPROF v=3 $G reps=10 gate=1 cands=0 cols=id --" \
    "ERR v=3 -- OPPROF without 'bucket'"
check "another protocol version" \
    "OPPROF v=4 $G bucket=16 reps=10 gate=1 cands=0 cols=id --" \
    "ERR v=3 -- tunetab speaks protocol 4, this worker 3 (its OPPROF line)"
check "names and columns the worker does not know" \
    "OPPROF v=3 later=1 $G bucket=16 reps=10 gate=1 cands=2 cols=later,id -- x,0 y,1" \
    "OPPROF v=3 timed=3 win=1 win_us=6.3000 fallback_us=7.6125 verdict=ok"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
