# requires: nogpu
# 004-detect-nogpu: without a GPU (or without CUDA in the build) detect exits 4 with a
# clear message, never a crash or a bare CUDA error number; --json still prints a document.
. "$ROOT/tests/lib.sh"
set +e
tunetab detect >out 2>err
echo "exit $?"
set -e
echo "stdout bytes: $(wc -c <out)"
grep -c -E '^tunetab: error: (no CUDA GPU found: .*\(no NVIDIA driver is loaded on this machine\)|this build of tunetab has no CUDA support .*)$' err
# --json: a JSON document on stdout all the same (no GPUs, the reason), the same exit status
# and stderr line; the versions depend on the build and the driver, so only their types show
set +e
tunetab detect --json >out 2>err
echo "--json: exit $?"
set -e
python3 - out <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
print("keys:", list(d))
print("gpus:", d["gpus"])
print("versions are integers:", all(type(d[k]) is int for k in ("driver_version", "runtime_version")))
print("error is the reason:", bool(re.fullmatch(r"no CUDA GPU found: .*\(no NVIDIA driver is loaded on this machine\)|this build of tunetab has no CUDA support .*", d["error"])))
PY
grep -c -E '^tunetab: error: (no CUDA GPU found: .*\(no NVIDIA driver is loaded on this machine\)|this build of tunetab has no CUDA support .*)$' err
