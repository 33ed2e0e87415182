#!/usr/bin/env bash
# setup.sh [VERSION...]: one virtual environment per FlashInfer version, for the oracle.
#
#   .venv-flashinfer/_base-torch<T>/   real PyTorch <T> from PyPI (CPU use only) plus the
#                                      dependencies every FlashInfer version shares, pinned
#   .venv-flashinfer/<VERSION>/        flashinfer-python==VERSION (--no-deps) and a .pth line
#                                      that puts the base's site-packages on sys.path
#
# Without arguments the versions in DEFAULT_VERSIONS are set up. A venv that already imports
# flashinfer.autotuner at the right version is skipped. Versions PyPI does not serve are
# listed at the end. Needs python3 (3.10+) and access to PyPI; no GPU, no CUDA toolkit.
# Environment: FI_VENV_DIR (default <repo>/.venv-flashinfer), PYTHON (default python3).
# Exit: 0 when every served version is ready, 1 when one failed, 2 on bad usage.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
VENVS=${FI_VENV_DIR:-$root/.venv-flashinfer}
PY=${PYTHON:-python3}

# One per key-form range of flashinfer-formats.md §1.3/§1.1 plus the newest release:
# 0.2.9-0.2.10 (v<version> file prefix), 0.2.11-0.5.2 (v0_1, shared tactic list),
# 0.5.3-0.6.12 (3-tuple keys; JSON cache from 0.6.7), 0.6.13-0.6.17 (4-tuple keys),
# 0.6.18+ (MoERunner extras), newest.
DEFAULT_VERSIONS="0.2.9 0.2.10 0.2.11 0.5.2 0.6.7 0.6.12 0.6.13 0.6.14 0.6.15 0.6.17 0.6.18 0.7.4"

TORCH_VERSION=2.15.0
BASE=$VENVS/_base-torch$TORCH_VERSION

# torch and every Linux dependency it declares except triton (not needed to import torch;
# 286 MB). PyPI's Linux torch links libcudart, cuBLAS, cuDNN, NCCL, cuFile, ... at load
# time, so `import torch` fails without the nvidia-* wheels even on a CPU-only machine.
TORCH_PINS="
torch==2.15.0
cuda-bindings==13.4.4
cuda-pathfinder==1.9.1
cuda-toolkit==13.2.2
filelock==4.3.1
fsspec==2026.9.0
jinja2==3.1.6
markupsafe==3.0.4
mpmath==1.3.0
networkx==3.6.1
nvidia-cublas==13.4.1.3
nvidia-cuda-cccl==13.3.5.0.6
nvidia-cuda-cupti==13.2.86
nvidia-cuda-nvrtc==13.2.86
nvidia-cuda-runtime==13.2.86
nvidia-cudnn-cu13==9.26.0.51
nvidia-cufft==12.2.0.57
nvidia-cufile==1.17.1.22
nvidia-cusolver==12.2.0.11
nvidia-cusparse==12.7.10.12
nvidia-cusparselt-cu13==0.8.1
nvidia-nccl-cu13==2.30.7
nvidia-nvjitlink==13.5.37
nvidia-nvshmem-cu13==3.7.2
nvidia-nvtx==13.2.86
setuptools==84.2.1
sympy==1.14.0
typing-extensions==4.16.0
"
# What FlashInfer 0.2.9-0.7.4 declare (Requires-Dist), minus EXCLUDED, plus their own
# dependencies. nvidia-cudnn-frontend is installed without its nvidia-cutlass-dsl dependency:
# `import cudnn` works without it and FlashInfer only reads cudnn.__version__ from it.
COMMON_PINS="
numpy==2.4.6
packaging==26.4
apache-tvm-ffi==0.1.15.post2
nvidia-cudnn-frontend==1.32.0
cuda-python==13.4.4
cuda-core==1.2.2
nvidia-ml-py==13.615.71
requests==2.34.2
certifi==2026.10.19.post1
charset-normalizer==3.5.3
idna==3.20
urllib3==2.8.0
tqdm==4.70.1
tabulate==0.10.0
click==8.5.1
einops==0.8.2
ninja==1.13.2
"
# Installed into a version's own venv when it declares a requirement the set above does not
# meet (0.2.11-0.2.14 ask for cuda-python<=12.9: the metapackage only; the cuda.bindings
# module still comes from the base).
EXTRA_PINS="
cuda-python==12.9.0
"
# Declared by some versions, deliberately not installed: GPU compilers, NCCL bindings and
# CUDA 12 libraries that importing flashinfer.autotuner does not need (see README.md), and
# pynvml, whose module nvidia-ml-py provides (the pynvml wheel only adds a deprecation warning).
EXCLUDED="torch triton pynvml nvidia-cutlass-dsl cuda-tile nccl4py nccl-extensions nvidia-nvshmem-cu12 nvidia-cudnn-cu12"

log() { printf '%s\n' "$*"; }
pins_of() { printf '%s\n' "$TORCH_PINS" "$COMMON_PINS" | sed '/^$/d'; }

for v in "$@"; do
    case $v in
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        [0-9]*.[0-9]*) ;;
        *) echo "setup.sh: error: not a version '$v'" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || set -- $DEFAULT_VERSIONS

start=$(date +%s)
mkdir -p "$VENVS"

# ---------------------------------------------------------------- base: torch + shared deps
base_ok() {
    [ -x "$BASE/bin/python" ] && [ -f "$BASE/.tunetab-pins" ] &&
        [ "$(cat "$BASE/.tunetab-pins")" = "$(pins_of)" ] &&
        "$BASE/bin/python" -c "import torch, numpy, tvm_ffi, cudnn, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_VERSION')" \
            >/dev/null 2>&1
}
if base_ok; then
    log "base      $BASE: present (torch $TORCH_VERSION)"
else
    log "base      $BASE: installing torch $TORCH_VERSION and shared dependencies (about 3 GB download)"
    rm -rf "$BASE"
    "$PY" -m venv "$BASE"
    "$BASE/bin/python" -m pip install -q --disable-pip-version-check --no-deps $(pins_of)
    "$BASE/bin/python" -c "import torch; print('base      torch', torch.__version__, 'cuda', torch.version.cuda, 'cuda available:', torch.cuda.is_available())"
    pins_of >"$BASE/.tunetab-pins"
fi
BASE_SITE=$("$BASE/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

# ---------------------------------------------------------------- what PyPI serves
served=$("$PY" -m pip index versions --pre flashinfer-python --disable-pip-version-check 2>/dev/null |
    sed -n 's/^Available versions: //p' | tr -d ' ' | tr ',' ' ') || served=
if [ -z "$served" ]; then
    log "warning: 'pip index versions flashinfer-python' gave nothing; trying every version"
fi
is_served() {
    [ -z "$served" ] && return 0
    case " $served " in *" $1 "*) return 0 ;; esac
    return 1
}

# ---------------------------------------------------------------- one venv per version
venv_ok() { # $1 venv, $2 version
    [ -x "$1/bin/python" ] && [ -f "$1/.tunetab-base" ] && [ "$(cat "$1/.tunetab-base")" = "$BASE_SITE" ] &&
        "$1/bin/python" - "$2" >/dev/null 2>&1 <<'EOF'
import sys, flashinfer, flashinfer.autotuner, importlib.metadata as m
sys.exit(m.version("flashinfer-python") != sys.argv[1])
EOF
}

# Declared requirements of the installed flashinfer-python (EXCLUDED left out) that the
# environment does not satisfy, each resolved to a pin of EXTRA_PINS: prints one pin per line,
# or "unpinned: REQUIREMENT" for one that no pin satisfies.
unmet_requirements() { # $1 venv
    "$1/bin/python" - "$EXCLUDED" "$EXTRA_PINS" <<'EOF'
import sys, importlib.metadata as m
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name
excluded = {canonicalize_name(n) for n in sys.argv[1].split()}
pins = [Requirement(p) for p in sys.argv[2].split()]
for line in m.requires("flashinfer-python") or []:
    r = Requirement(line)
    if r.marker is not None and not r.marker.evaluate({"extra": ""}):
        continue
    if canonicalize_name(r.name) in excluded:
        continue
    try:
        if r.specifier.contains(m.version(r.name), prereleases=True):
            continue
    except m.PackageNotFoundError:
        pass
    for p in pins:
        if canonicalize_name(p.name) == canonicalize_name(r.name) and all(
            r.specifier.contains(s.version, prereleases=True) for s in p.specifier
        ):
            print(p)
            break
    else:
        print("unpinned:", line.replace(" ", ""))
EOF
}

ready= missing= failed=
for v in "$@"; do
    venv=$VENVS/$v
    if ! is_served "$v"; then
        log "$v: not served by PyPI"
        missing="$missing $v"
        continue
    fi
    if venv_ok "$venv" "$v"; then
        log "$v: present ($venv)"
        ready="$ready $v"
        continue
    fi
    log "$v: installing flashinfer-python==$v"
    t0=$(date +%s)
    rm -rf "$venv"
    if ! (
        set -e
        "$PY" -m venv "$venv"
        site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
        printf '%s\n' "$BASE_SITE" >"$site/_tunetab_flashinfer_base.pth"
        # The venv's own setuptools (65) would shadow the base's; sdists (0.2.x-0.4.x) need
        # setuptools>=77 to build, without build isolation (which would fetch torch again).
        "$venv/bin/python" -m pip uninstall -q -y setuptools >/dev/null 2>&1 || true
        "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
            --no-build-isolation "flashinfer-python==$v"
        unmet=$(unmet_requirements "$venv")
        case $unmet in *unpinned:*)
            echo "$v: declared requirements that no pin satisfies (add them to EXTRA_PINS):" >&2
            printf '%s\n' "$unmet" | sed -n 's/^unpinned: /  /p' >&2
            exit 1 ;;
        esac
        if [ -n "$unmet" ]; then
            log "$v: also installing" $unmet
            "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps $unmet
        fi
        printf '%s\n' "$BASE_SITE" >"$venv/.tunetab-base"
        "$venv/bin/python" -c "import flashinfer.autotuner" 2>"$venv/.tunetab-import.err" || {
            echo "$v: import flashinfer.autotuner failed:" >&2
            tail -5 "$venv/.tunetab-import.err" >&2
            exit 1
        }
    ); then
        log "$v: FAILED (left in $venv for inspection)"
        failed="$failed $v"
        continue
    fi
    log "$v: ready in $(( $(date +%s) - t0 )) s, $(du -sh "$venv" | cut -f1)"
    ready="$ready $v"
done

log "---"
log "ready:${ready:- none}"
[ -n "$missing" ] && log "not served by PyPI:$missing"
[ -n "$failed" ] && log "failed:$failed"
log "disk: $(du -sh "$VENVS" | cut -f1) in $VENVS; $(( $(date +%s) - start )) s"
[ -z "$failed" ]
