# requires: nogpu
# 004-detect-nogpu: without a GPU (or without CUDA in the build) detect exits 4 with a
# clear message, never a crash or a bare CUDA error number.
. "$ROOT/tests/lib.sh"
set +e
tunetab detect >out 2>err
echo "exit $?"
set -e
echo "stdout bytes: $(wc -c <out)"
grep -c -E '^tunetab: error: (no CUDA GPU found: .*\(no NVIDIA driver is loaded on this machine\)|this build of tunetab has no CUDA support .*)$' err
