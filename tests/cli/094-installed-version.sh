# 094-installed-version: without --flashinfer, generate targets the FlashInfer installed here
# (found as doctor finds it, $VIRTUAL_ENV here): its keys and metadata are that version's;
# --flashinfer still wins; an install older than tuning tables falls back to the newest.
. "$ROOT/tests/lib.sh"
unset TUNETAB_TEST_IGNORE_INSTALLED CONDA_PREFIX
export PYTHONPATH= HOME=/nonexistent
site() { # $1 folder, $2 version
    mkdir -p "$1/lib/python3.11/site-packages/flashinfer"
    printf '__version__ = "%s"\n' "$2" > "$1/lib/python3.11/site-packages/flashinfer/_build_meta.py"
    : > "$1/lib/python3.11/site-packages/flashinfer/__init__.py"
}
site v0618 0.6.18
site v010 0.1.0
G="generate --device h200 --model qwen3-30b-a3b --dtype bf16"
meta() { python3 -c 'import json,sys; print(sys.argv[2] + ":", json.load(open(sys.argv[1]))["_metadata"]["flashinfer_version"])' "$1" "$2"; }
VIRTUAL_ENV=$PWD/v0618 tunetab $G -o a 2>&1 | grep 'note:' | sed "s|$PWD/||"
meta a/flashinfer_autotune_NVIDIA_H200.json "installed 0.6.18"
VIRTUAL_ENV=$PWD/v0618 tunetab $G --flashinfer 0.7.4 -o b -q
meta b/flashinfer_autotune_NVIDIA_H200.json "--flashinfer 0.7.4"
VIRTUAL_ENV=$PWD/v010 tunetab $G -o c 2>&1 | grep 'note:' | sed "s|$PWD/||"
meta c/flashinfer_autotune_NVIDIA_H200.json "installed 0.1.0"
VIRTUAL_ENV=$PWD/nowhere tunetab $G -o d 2>&1 | grep 'note:'
