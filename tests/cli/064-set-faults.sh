# 064-set-faults: generate and merge write their files (module, JSON cache, provenance file) as
# one set under a rollback journal in the folder, as install does (tests/cli/187; util.h
# file_set_undo, flashinfer/tableset.h). tests/data/faults/shim.c, preloaded, kills tunetab
# (SIGKILL) just before each rename(), link() and unlink() of a run that replaces one set by
# another: every point at which what the folder holds changes. After each kill the folder holds
# the old set or the new set, each whole, or a mix beside the journal; then validate warns and
# merge refuses the folder as an input. The next run restores the old set first (and says so),
# then writes the new one. Where a kill left the journal, that next run is killed too at every
# point of its recovery, and the run after it still ends with the new set. Hidden files a kill
# can leave for good are counted: the staged temp files of a kill before the journal exists
# (no journal names them), the backups of a kill after the commit point.
. "$ROOT/tests/lib.sh"
fault_shim
PY=v0_1_trtllm_fused_moe_NVIDIA_H200.py
JS=flashinfer_autotune_NVIDIA_H200.json
PV=tunetab_provenance_NVIDIA_H200.json
norm() { sed 's/tmp[A-Za-z0-9]\{6\}/tmpXXXXXX/g'; }
# state DIR OLD NEW: which set DIR holds (against the folders OLD and NEW), then what else
state() {
    o=0 n=0
    for f in $PY $JS $PV; do
        if cmp -s "$1/$f" "$2/$f"; then o=$((o + 1)); fi
        if cmp -s "$1/$f" "$3/$f"; then n=$((n + 1)); fi
    done
    if [ $o = 3 ]; then s="the old set"; elif [ $n = 3 ]; then s="the new set"; else s="a mix ($n of 3 new)"; fi
    others=$(ls -A "$1" | grep -v -x -e $PY -e $JS -e $PV | norm |
        sed -e 's/^\.tunetab-.*\.journal$/journal/' -e 's/.*\.journal\.tmpXXXXXX$/journal temp/' \
            -e 's/.*\.tmpXXXXXX\.bak$/backup/' -e 's/.*\.tmpXXXXXX$/temp/' |
        sort | uniq -c | awk '{ n = $1; $1 = ""; printf "%s%d%s", (NR > 1 ? ", " : ""), n, $0 }')
    echo "$s${others:+ + $others}"
}
# faults WHO OLD NEW ARGS: the folder t starts as OLD; tunetab ARGS (a WHO writing into t)
# makes it NEW. Killed at each of its operations, then run again (and that killed at each
# operation of its recovery, where the kill left the journal).
faults() {
    who=$1 old=$2 new=$3
    shift 3
    rm -rf t && cp -a "$old" t
    rm -f ops.txt && fault FAULT_OP_TRACE="$PWD/ops.txt" "$@" 2>/dev/null
    nops=$(wc -l < ops.txt)
    echo "$who replacing the old set: $(state t "$old" "$new"); its $nops operations:"
    norm < ops.txt | sed 's/^/  /'
    k=0
    while [ $k -lt "$nops" ]; do
        k=$((k + 1))
        rm -rf t && cp -a "$old" t
        rc=0; fault FAULT_OP_KILL_AT=$k "$@" >/dev/null 2>&1 || rc=$?
        echo "kill at $k (exit $rc): $(state t "$old" "$new")"
        if [ ! -f t/.tunetab-$who.journal ]; then
            tunetab "$@" 2>&1 | grep -e restored -e error || true
            echo "  the next run: $(state t "$old" "$new")"
            continue
        fi
        rm -rf killed && cp -a t killed
        rm -f rec.txt && fault FAULT_OP_TRACE="$PWD/rec.txt" "$@" 2>&1 | grep -e restored -e error | sed 's/^/  /'
        echo "  the next run: $(state t "$old" "$new")"
        # its recovery: the operations before its own journal is linked in
        nrec=$(grep -n " link .*\.journal\.tmp" rec.txt | head -1 | cut -d: -f1)
        nrec=$((nrec - 1)) j=0 bad=0
        while [ $j -lt $nrec ]; do
            j=$((j + 1))
            rm -rf t && cp -a killed t
            fault FAULT_OP_KILL_AT=$j "$@" >/dev/null 2>&1 || true
            case $(state t "$old" "$new") in
            "a mix"*) [ -f t/.tunetab-$who.journal ] || { bad=$((bad + 1)); echo "  recovery killed at $j: a mix without the journal"; } ;;
            esac
            tunetab "$@" >/dev/null 2>&1
            after=$(state t "$old" "$new")
            case $after in
            "the new set"*) ;;
            *) bad=$((bad + 1)); echo "  recovery killed at $j, then run again: $after" ;;
            esac
        done
        echo "  its recovery ($nrec operations) killed at each: $bad times a mix without the journal or no new set after the run that followed"
    done
}

G="generate --device h200 --dtype bf16 -q"
tunetab $G --model qwen3-30b-a3b -o old
tunetab $G --model mixtral-8x7b -o new
echo "== generate"
faults generate old new $G --model mixtral-8x7b -o t

echo "== readers of a folder a kill left mixed"
rm -rf t && cp -a old t
fault FAULT_OP_KILL_AT=7 $G --model mixtral-8x7b -o t || echo "killed (exit $?)"
state t old new
run tunetab validate -q t
run tunetab merge out t
[ -e out ] && echo "out: written" || echo "out: nothing written"
run tunetab $G --model mixtral-8x7b -o t
state t old new

echo "== merge"
tunetab merge mold old -q
tunetab merge mnew old new -q
faults merge mold mnew merge t old new

echo "== generate into a folder a merge was killed in"
rm -rf t && cp -a mold t
fault FAULT_OP_KILL_AT=7 merge t old new -q || echo "killed (exit $?)"
state t mold mnew
run tunetab $G --model mixtral-8x7b -o t
state t old new
