#!/bin/sh
# fetch-sglang.sh VERSION...: the one file of each SGLang release that says where its FlashInfer
# autotune cache is (sglang/srt/model_executor/runner/flashinfer_autotune.py), taken from the
# released wheel on PyPI (no dependencies, ~10 MB each, the wheel deleted after) into
# $CONSUMERS_DIR/sglang-VERSION/ (default .venv-consumers/). make deps-test runs it for the
# releases `make test` checks paths against (tests/plan_cases.py); tests/consumers/run.sh too.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${CONSUMERS_DIR:-$root/.venv-consumers}
f=sglang/srt/model_executor/runner/flashinfer_autotune.py
for v in "$@"; do
    site=$dir/sglang-$v
    [ -f "$site/$f" ] && continue
    echo "tunetab: fetching SGLang $v's $f (PyPI wheel, no dependencies)"
    mkdir -p "$dir/wheels" "$site"
    python3 -m pip download -q --no-deps --only-binary :all: "sglang==$v" -d "$dir/wheels" >/dev/null
    python3 - "$dir/wheels" "$v" "$site" "$f" <<'PY'
import glob, sys, zipfile
whl = glob.glob(f"{sys.argv[1]}/sglang-{sys.argv[2]}-*.whl")[0]
zipfile.ZipFile(whl).extract(sys.argv[4], sys.argv[3])
PY
    rm -f "$dir"/wheels/sglang-"$v"-*.whl
done
