# requires: nogpu
# 196-run-default-next: `make run` (scripts/run-default.sh) ends with the one next step: the
# last line of its output, stdout and stderr as a terminal shows them, is a command that runs
# here as printed. Without a GPU: the table it just wrote installed where SGLang reads it, for
# the GLM-5.1 NVFP4 server on the default target; what this machine lacks for it (a FlashInfer
# to ask, the model's config.json in the Hugging Face cache) is given in the command. It runs
# with --dry-run and for real (exit 0), and doctor --for then says every lookup hits.
. "$ROOT/tests/lib.sh"
mkdir hub
export HF_HUB_CACHE=$PWD/hub SGLANG_CACHE_DIR=$PWD/sglang
rc=0; sh "$ROOT/scripts/run-default.sh" >all.txt 2>&1 || rc=$?
echo "run-default exit $rc"
tail -n 2 all.txt | sed -e "s|$TUNETAB|<tunetab>|g" -e "s|$ROOT|<root>|g"
last=$(tail -n 1 all.txt)
dry=$(printf '%s\n' "$last" | sed 's/ -- / --dry-run -- /')
rc=0; sh -c "$dry" >/dev/null 2>err.txt || rc=$?
echo "with --dry-run: exit $rc"
ls sglang 2>/dev/null || echo "nothing written"
rc=0; sh -c "$last" >out.txt 2>err.txt || rc=$?
echo "as printed: exit $rc, $(wc -l <out.txt) rank files written"
sed -n 's/^tunetab: \(wrote .*\)/\1/p' err.txt | sed "s|$PWD/||g"
check=$(printf '%s\n' "$last" | sed 's/ install / doctor /')
rc=0; sh -c "$check" >out.txt 2>/dev/null || rc=$?
echo "doctor: $(grep '^verdict' out.txt), exit $rc"
