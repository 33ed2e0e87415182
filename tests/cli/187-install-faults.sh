# 187-install-faults: `tunetab install` is all or nothing across the 8 rank files of an SGLang
# TP 8 deployment. Faults come from tests/data/faults/shim.c, preloaded (LD_PRELOAD) into
# tunetab: rename(), link() and write() that fail or kill on cue. Over an install of one table,
# the same table with one tactic changed is installed with --replace: the 6th rename fails
# (EPERM); rank file 6 is immutable (a real `chattr +i` where this filesystem and user allow it,
# else the shim's EPERM on its hard link: the output is the same); the disk fills while the
# files are staged, and while the journal is written (ENOSPC). Each time the folder is byte for
# byte as before and holds nothing else. SIGKILL just before the 6th rename leaves 5 files
# replaced and the journal: --check, doctor --for and --dry-run report the journal and write
# nothing; the next install restores the folder, byte for byte, and says so. Killed again, and
# its recovery killed too (SIGKILL at the recovery's 2nd rename), the next install still
# restores it, then installs: 8 equal rank files with the new tactic and nothing else.
. "$ROOT/tests/lib.sh"
fault_shim
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 8 --fused-finalize off \
    --flashinfer 0.7.4 --format json -o gen -q
# the new table: the first entry's tactic changed, so --replace replaces it in every rank file
python3 - <<'PY'
import json
d = json.load(open("gen/flashinfer_autotune_NVIDIA_H200.json"))
k = next(k for k in d if not k.startswith("_"))
d[k] = [d[k][0], d[k][1] + 1] + d[k][2:]
json.dump(d, open("new.json", "w"), indent=2)
PY
I="install --for sglang --model-path Qwen/Qwen3-30B-A3B --hf-config-class Qwen3MoeConfig --tp 8 --flashinfer 0.7.4 --sm 90"
NEW="$I --from new.json --replace"
N="$NEW --cache-dir root"
DIR=root/flashinfer/autotune/0.7.4/sm90/a6e7641f934228ca
RUN_SED='s/conflict: (.*): ours/conflict: KEY: ours/'
sums() { find root -type f | sort | xargs sha256sum; }
# the folder: against the state before the faults, the changed key's tactic per rank, and what
# else is there (temp and backup names with their random part as XXXXXX)
state() {
    if sums | cmp -s - before.sum; then echo "folder: as before, byte for byte"; else echo "folder: changed"; fi
    python3 - "$DIR" <<'PY'
import json, sys
k = next(k for k in json.load(open("new.json")) if not k.startswith("_"))
print("tactic of the changed key, ranks 0-7:",
      *(json.load(open(f"{sys.argv[1]}/rank_tp{r}_pp0_dp0.json"))[k][1] for r in range(8)))
PY
    others=$(ls -A "$DIR" | grep -v -x 'rank_tp[0-7]_pp0_dp0.json' | sed 's/tmp[A-Za-z0-9]\{6\}/tmpXXXXXX/' | tr '\n' ' ' | sed 's/ $//')
    echo "files: $(ls "$DIR" | grep -c -x 'rank_tp[0-7]_pp0_dp0.json') rank files${others:+ and }${others:-, nothing else}"
}
tunetab $I --from gen/flashinfer_autotune_NVIDIA_H200.json --cache-dir root >/dev/null 2>&1
sums > before.sum
cp -a root before.d
# each case starts from that folder, whatever the one before it left
reset() { rm -rf root && cp -a before.d root; }
state
# what staging writes (8 rank files of the new content): the journal's bytes come after it
tunetab $NEW --cache-dir scratch >/dev/null 2>&1
staged=$(( 8 * $(wc -c < scratch/flashinfer/autotune/0.7.4/sm90/a6e7641f934228ca/rank_tp0_pp0_dp0.json) ))

reset
echo "== the 6th rename fails"
run fault FAULT_RENAME_FAIL_AT=6 $N
state
reset
echo "== rank file 6 is immutable"
# immutable6 ARGS: tunetab ARGS with rank_tp5 immutable: chattr +i, else the shim's EPERM
immutable6() {
    if chattr +i "$DIR/rank_tp5_pp0_dp0.json" 2>/dev/null; then
        "$TUNETAB" "$@"
        rc=$?
        chattr -i "$DIR/rank_tp5_pp0_dp0.json"
        return $rc
    fi
    fault FAULT_LINK_FAIL_ON=rank_tp5 "$@"
}
run immutable6 $N
state
reset
echo "== the disk fills while the files are staged"
run fault FAULT_ENOSPC_AFTER=30000 $N
state
reset
echo "== the disk fills while the journal is written"
RUN_SED="$RUN_SED;s/=$staged /=STAGED /" run fault FAULT_ENOSPC_AFTER=$staged $N
state

reset
echo "== SIGKILL just before the 6th rename"
run fault FAULT_RENAME_KILL_AT=6 $N
state
echo "the journal:"
if [ -f "$DIR/.tunetab-install.journal" ]; then
    sed 's/tmp[A-Za-z0-9]\{6\}/tmpXXXXXX/g' "$DIR/.tunetab-install.journal"
else
    echo "(none)"
fi
run tunetab $N --check
# doctor --for takes the deployment's options, none that writes (no --replace)
D=${N#install --for sglang}
tunetab doctor --for sglang ${D%% --replace*}${D#* --replace} >doctor.txt 2>&1 && rc=0 || rc=$?
echo "doctor --for (exit $rc):"
grep -e 'rank files ' -e warning -e verdict doctor.txt
run tunetab $N --dry-run
state
echo "== the next install restores the folder (then the disk is full: it stops there)"
run fault FAULT_ENOSPC_AFTER=0 $N
state

reset
echo "== SIGKILL before the 6th rename, then during the recovery (its 2nd rename)"
fault FAULT_RENAME_KILL_AT=6 $N >/dev/null 2>&1 || echo "killed (exit $?)"
run fault FAULT_RENAME_KILL_AT=2 $N
state
echo "== the next install restores it and installs"
run tunetab $N
state
n=$(for r in 0 1 2 3 4 5 6 7; do cat "$DIR/rank_tp${r}_pp0_dp0.json" | sha256sum; done | sort -u | wc -l)
echo "distinct rank file contents: $n"
cmp -s "$DIR/rank_tp0_pp0_dp0.json" scratch/flashinfer/autotune/0.7.4/sm90/a6e7641f934228ca/rank_tp0_pp0_dp0.json &&
    echo "rank files == a fresh install of the new table"
