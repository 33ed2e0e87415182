#!/usr/bin/env bash
# ops_keys.sh TABLE PROV [ops_keys.py options]: ops_keys.py with FlashInfer ${FI_VERSION:-0.7.4}'s
# venv (${FI_VENV_DIR:-<repo>/.venv-flashinfer}/VERSION, made by make deps-flashinfer).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
v=${FI_VERSION:-0.7.4}
py=${FI_VENV_DIR:-$root/.venv-flashinfer}/$v/bin/python
[ $# -ge 2 ] || { echo "usage: ops_keys.sh TABLE PROV [--mutate FIELD=DELTA] [--forward]" >&2; exit 2; }
[ -x "$py" ] || { echo "ops_keys: no FlashInfer $v venv at $py (make deps-flashinfer, or set FI_VENV_DIR)" >&2; exit 2; }
table=$1 prov=$2
shift 2
exec "$py" "$here/ops_keys.py" --table "$table" --provenance "$prov" "$@"
