#!/bin/sh
# options.sh: the closed world's data from the released wheels again (issue #47). Dumps SGLang
# 0.5.22/0.5.23's and vLLM 0.33.0/0.34.0's own launch parsers (dump_options.py, in a CPU-only
# Python that imports each release) and the variables each release and FlashInfer 0.7.4 read
# (dump_env.py, from their source), and compares them with tests/consumers/options/: a release
# whose options or variables moved fails here, and `python3 scripts/dev/consumer-inputs.py`
# then remakes scripts/lib/<consumer>_options.lua (tests/cli/221 checks that). Part of
# `make test-consumers`; needs network the first time (the wheels, ~650 MB, and the packages
# the releases import, into $OPTIONS_VENV, default .venv-consumers/options). torch comes from
# the FlashInfer venvs' base (make deps-flashinfer) when there is one, else from PyPI (CPU).
# Prints one line per file and "N passed, N failed".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
V=${OPTIONS_VENV:-$root/.venv-consumers/options}
W=$V/wheels
if [ ! -x "$V/bin/python" ]; then
    python3.11 -m venv "$V"
    base=$(ls -d "$root"/.venv-flashinfer/_base-torch*/lib/python3.11/site-packages 2>/dev/null | head -1)
    if [ -n "$base" ]; then
        echo "$base" >"$V/lib/python3.11/site-packages/_torch_base.pth"
    else
        "$V/bin/pip" install -q torch --index-url https://download.pytorch.org/whl/cpu
    fi
    # SGLang's pins, then vLLM's for the packages SGLang does not pin (one version each)
    { grep -v -e '^nvidia' -e '^torch' -e '^#' "$here/sglang-venv-requirements.txt"
      sed -n '/--no-deps \\/,$p' "$here/vllm-venv.sh" | tr ' \\' '\n\n' | grep '==' |
          grep -v -e '^nvidia' -e '^torch' -e '^cuda-' -e '^triton'
    } | awk -F'==' '!seen[tolower($1)]++' >"$V/req.txt"
    "$V/bin/pip" install -q --no-deps -r "$V/req.txt"
    # SGLang's multimodal configs import torchvision: the newest wheel, without its torch pin
    "$V/bin/pip" install -q --no-deps torchvision
fi
mkdir -p "$W"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
pass=0 fail=0
check() { # NAME FILE: FILE against tests/consumers/options/NAME
    if cmp -s "$2" "$here/options/$1"; then
        pass=$((pass + 1)); echo "ok   $1"
    else
        fail=$((fail + 1)); echo "FAIL $1 (the release differs from tests/consumers/options/$1)"
        diff "$here/options/$1" "$2" | head -20 || true
    fi
}
for spec in sglang:0.5.22 sglang:0.5.23 vllm:0.33.0 vllm:0.34.0; do
    c=${spec%%:*} v=${spec#*:}
    ls "$W/$c-$v-"*.whl >/dev/null 2>&1 ||
        python3 -m pip download -q --no-deps --only-binary :all: "$c==$v" -d "$W" >/dev/null
    site=$V/$c-$v
    if [ ! -d "$site/$c" ]; then
        mkdir -p "$site"
        python3 -m zipfile -e "$(ls "$W/$c-$v-"*.whl | head -1)" "$site"
    fi
    PYTHONPATH=$site "$V/bin/python" "$here/dump_options.py" "$c" >"$scratch/$c-$v.tsv" 2>"$scratch/err" ||
        { cat "$scratch/err" >&2; exit 1; }
    check "$c-$v.tsv" "$scratch/$c-$v.tsv"
    python3 "$here/dump_env.py" "$site/$c" >"$scratch/$c-$v-env.tsv"
    check "$c-$v-env.tsv" "$scratch/$c-$v-env.tsv"
done
fi=$(ls -d "$root"/.venv-flashinfer/0.7.4/lib/python3.11/site-packages/flashinfer 2>/dev/null || true)
if [ -n "$fi" ]; then
    python3 "$here/dump_env.py" "$fi" >"$scratch/flashinfer-0.7.4-env.tsv"
    check flashinfer-0.7.4-env.tsv "$scratch/flashinfer-0.7.4-env.tsv"
else
    echo "skip flashinfer-0.7.4-env.tsv (no .venv-flashinfer/0.7.4: make deps-flashinfer)"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
