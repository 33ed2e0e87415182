#!/bin/sh
# fetch-vllm.sh VERSION...: the two files of each vLLM release that say where its FlashInfer
# autotune cache is (vllm/model_executor/warmup/flashinfer_autotune_cache.py, vllm/envs.py),
# taken from the released wheel on PyPI (no dependencies; about 240 MB downloaded, the wheel
# deleted after) into $CONSUMERS_DIR/vllm-VERSION/ (default .venv-consumers/), the layout
# tests/consumers/run.sh uses. make deps-test runs it for the release tests/plan_cases.py checks.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${CONSUMERS_DIR:-$root/.venv-consumers}
for v in "$@"; do
    site=$dir/vllm-$v
    [ -f "$site/vllm/envs.py" ] && [ -f "$site/vllm/model_executor/warmup/flashinfer_autotune_cache.py" ] && continue
    echo "tunetab: fetching vLLM $v's cache-path files (PyPI wheel, no dependencies)"
    mkdir -p "$dir/wheels" "$site"
    ls "$dir"/wheels/vllm-"$v"-*.whl >/dev/null 2>&1 ||
        python3 -m pip download -q --no-deps --only-binary :all: "vllm==$v" -d "$dir/wheels" >/dev/null
    python3 - "$dir/wheels" "$v" "$site" <<'PY'
import glob, sys, zipfile
whl = glob.glob(f"{sys.argv[1]}/vllm-{sys.argv[2]}-*.whl")[0]
z = zipfile.ZipFile(whl)
for f in ("vllm/model_executor/warmup/flashinfer_autotune_cache.py", "vllm/envs.py"):
    z.extract(f, sys.argv[3])
PY
    rm -f "$dir"/wheels/vllm-"$v"-*.whl
done
