# 232-not-regular-files: issue #48 item 3. A FIFO, a device or a folder where a table, a config or
# a script should be is refused by every command that reads one, without opening it for reading
# (a FIFO would block the read forever: each command runs under `timeout 10`, so a regression
# fails here instead of hanging), and a path error names the component that is wrong (a file
# where a folder should be, a folder that does not exist) — not "an interrupted install".
. "$ROOT/tests/lib.sh"
mkfifo fifo.json fifo.py fifo.lua fifo.yaml
mkdir folder.json
L="python -m sglang.launch_server --model-path $ROOT/tests/data/hf/Qwen/Qwen3-30B-A3B --tp 4 --moe-runner-backend flashinfer_cutlass"
I="--device h200 --flashinfer 0.7.4 --consumer-version 0.5.23"
# the folder's name is SGLang's digest of the launch, which holds the model's path (this clone's)
DIGEST='s|/sm90/[0-9a-f]\{16\}|/sm90/<digest>|g'
t() { # NAME ARGS...: tunetab ARGS: the exit code and the error, paths shortened
    name=$1; shift
    rc=0; timeout 10 "$TUNETAB" "$@" >out.txt 2>err.txt || rc=$?
    printf '%s: exit %s: ' "$name" "$rc"
    { grep -h -e 'error' out.txt err.txt || echo "(no error)"; } | head -2 | sed -e "s|$PWD/||g" -e "s|$ROOT|<root>|g" -e "$DIGEST"
}
t "validate a FIFO" validate fifo.json
t "validate a .py FIFO" validate fifo.py
t "validate a device" validate /dev/zero
t "validate a folder of no tables" validate folder.json
t "validate under a file" validate /etc/hostname/x.json
t "validate under a missing folder" validate nowhere/x.json
t "generate --heuristic a FIFO" generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 4 --heuristic fifo.lua -o o -q
t "generate --model a FIFO" generate --device h200 --model ./fifo.yaml --dtype bf16 --tp 4 -o o -q
t "generate --for --model-config a FIFO" generate --for sglang $I --model-config fifo.json -o o -q -- $L
t "install --from a FIFO" install --for sglang $I --cache-dir c --from fifo.json -- $L
t "merge a FIFO" merge m fifo.json
t "check-data a FIFO" check-data fifo.yaml
SGLANG_CACHE_DIR=/etc/hostname/x t "install into a cache root under a file" install --for sglang $I -- $L
t "generate -o under a file" generate --device h200 --model qwen3-30b-a3b --dtype bf16 --tp 4 -o /etc/hostname/o -q
echo "== a FIFO where a rank file should be: doctor and install say so, never open it"
tunetab install --for sglang $I --cache-dir c -- $L >/dev/null 2>&1
f=$(ls c/flashinfer/autotune/0.7.4/sm90/*/rank_tp1_pp0_dp0.json)
rm "$f" && mkfifo "$f"
rc=0; timeout 10 "$TUNETAB" doctor --for sglang $I --cache-dir c -- $L >out.txt 2>&1 || rc=$?
grep -e '^  no ' -e '^verdict' out.txt | sed -e "s|$PWD/||g" -e "$DIGEST" | cut -c1-220
echo "doctor exit $rc"
t "install repairs it" install --for sglang $I --cache-dir c -- $L
[ -f "$f" ] && [ ! -p "$f" ] && echo "the rank file is a regular file again"
rc=0; timeout 10 "$TUNETAB" doctor --for sglang $I --cache-dir c -- $L >out.txt 2>&1 || rc=$?
grep '^verdict' out.txt; echo "doctor exit $rc"
