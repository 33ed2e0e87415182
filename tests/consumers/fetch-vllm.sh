#!/bin/sh
# fetch-vllm.sh VERSION...: the files of each vLLM release that `make test` runs as the
# consumer's own code, taken from the released wheel on PyPI (no dependencies; about 240 MB
# downloaded, the wheel deleted after) into $CONSUMERS_DIR/vllm-VERSION/ (default
# .venv-consumers/), the layout tests/consumers/run.sh uses: where its FlashInfer autotune cache
# is (vllm/model_executor/warmup/flashinfer_autotune_cache.py, vllm/envs.py: tests/plan_cases.py)
# and how it pads the NVFP4 MoE's sizes (quantization/utils/flashinfer_utils.py,
# flashinfer_fp4_moe.py, vllm/utils/math_utils.py: tests/consumers/nvfp4_moe_sizes.py). make
# deps-test runs it for the release tests/plan_cases.py checks; a release missing any is fetched.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${CONSUMERS_DIR:-$root/.venv-consumers}
files="vllm/model_executor/warmup/flashinfer_autotune_cache.py
vllm/envs.py
vllm/model_executor/layers/quantization/utils/flashinfer_utils.py
vllm/model_executor/layers/quantization/utils/flashinfer_fp4_moe.py
vllm/utils/math_utils.py"
for v in "$@"; do
    site=$dir/vllm-$v
    have=1
    for f in $files; do [ -f "$site/$f" ] || have=0; done
    [ "$have" = 1 ] && continue
    echo "tunetab: fetching vLLM $v's source files (PyPI wheel, no dependencies)"
    mkdir -p "$dir/wheels" "$site"
    ls "$dir"/wheels/vllm-"$v"-*.whl >/dev/null 2>&1 ||
        python3 -m pip download -q --no-deps --only-binary :all: "vllm==$v" -d "$dir/wheels" >/dev/null
    # shellcheck disable=SC2086  # the file list's words
    python3 - "$dir/wheels" "$v" "$site" $files <<'PY'
import glob, sys, zipfile
whl = glob.glob(f"{sys.argv[1]}/vllm-{sys.argv[2]}-*.whl")[0]
z = zipfile.ZipFile(whl)
for f in sys.argv[4:]:
    z.extract(f, sys.argv[3])
PY
    rm -f "$dir"/wheels/vllm-"$v"-*.whl
done
