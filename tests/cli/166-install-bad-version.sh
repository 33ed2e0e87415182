# 166-install-bad-version: install's --consumer-version and --flashinfer must be versions: a
# usage error (exit 2) naming the value, where --consumer-version once aborted (BUG(), exit
# 134) and --flashinfer became a folder name; the same through doctor --for. A cache whose
# _metadata.flashinfer_version is no version is an error of the cache (exit 1).
. "$ROOT/tests/lib.sh"
printf '{"_metadata": {"flashinfer_version": "0.7.4", "gpu": "NVIDIA H200"}}\n' > c.json
I="install --for sglang --from c.json --model-path m --hf-config-class X --cache-dir root --dry-run"
run tunetab $I --consumer-version garbage
run tunetab $I --flashinfer garbage
run tunetab doctor --for sglang --from c.json --consumer-version 0.5.x
printf '{"_metadata": {"flashinfer_version": "junk", "gpu": "NVIDIA H200"}}\n' > junk.json
run tunetab install --for flashinfer --from junk.json --cache-dir root --dry-run
# a version no rule covers is still the rule's error (exit 1); nothing was written
run tunetab $I --consumer-version 0.5.2
[ -e root ] && echo "root written" || echo "nothing written"
