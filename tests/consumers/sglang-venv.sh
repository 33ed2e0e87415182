#!/bin/sh
# Recreate the CPU-only oracle venv (PyPI only; ~6 GB, mostly torch's CUDA libs,
# which the PyPI torch wheel needs just to import even without a GPU).
set -e
V=${1:?usage: sglang-venv.sh VENV_DIR}
python3.11 -m venv "$V"
"$V/bin/pip" install -q --upgrade pip
"$V/bin/pip" install -q --no-deps sglang==0.5.23
"$V/bin/pip" install -q --no-deps -r "$(dirname "$0")/sglang-venv-requirements.txt"
# For 0.5.22 the oracle runs with PYTHONPATH=<the unpacked 0.5.22 wheel> (tests/consumers/run.sh).
