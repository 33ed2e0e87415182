#!/bin/sh
# fetch-sglang.sh VERSION...: the files of each SGLang release that `make test` runs as the
# consumer's own code, taken from the released wheel on PyPI (no dependencies, ~10 MB each, the
# wheel deleted after) into $CONSUMERS_DIR/sglang-VERSION/ (default .venv-consumers/): where its
# FlashInfer autotune cache is (sglang/srt/model_executor/runner/flashinfer_autotune.py:
# tests/plan_cases.py, tests/consumers/run.sh) and how it pads the NVFP4 MoE's sizes
# (quantization/modelopt_quant.py, moe_runner/flashinfer_trtllm.py, utils/common.py:
# tests/consumers/nvfp4_moe_sizes.py). make deps-test runs it; a release missing any is fetched.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${CONSUMERS_DIR:-$root/.venv-consumers}
files="sglang/srt/model_executor/runner/flashinfer_autotune.py
sglang/srt/layers/quantization/modelopt_quant.py
sglang/srt/layers/moe/moe_runner/flashinfer_trtllm.py
sglang/srt/utils/common.py"
for v in "$@"; do
    site=$dir/sglang-$v
    have=1
    for f in $files; do [ -f "$site/$f" ] || have=0; done
    [ "$have" = 1 ] && continue
    echo "tunetab: fetching SGLang $v's source files (PyPI wheel, no dependencies)"
    mkdir -p "$dir/wheels" "$site"
    ls "$dir"/wheels/sglang-"$v"-*.whl >/dev/null 2>&1 ||
        python3 -m pip download -q --no-deps --only-binary :all: "sglang==$v" -d "$dir/wheels" >/dev/null
    # shellcheck disable=SC2086  # the file list's words
    python3 - "$dir/wheels" "$v" "$site" $files <<'PY'
import glob, sys, zipfile
whl = glob.glob(f"{sys.argv[1]}/sglang-{sys.argv[2]}-*.whl")[0]
z = zipfile.ZipFile(whl)
for f in sys.argv[4:]:
    z.extract(f, sys.argv[3])
PY
    rm -f "$dir"/wheels/sglang-"$v"-*.whl
done
