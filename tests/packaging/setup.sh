#!/bin/sh
# setup.sh: .venv-tools/ with auditwheel from PyPI, the independent judge of the wheel's
# manylinux tag (tests/cli/185-wheel.sh). A no-op (and no network) when it is already there.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
V=$root/.venv-tools
AUDITWHEEL=6.8.2
if "$V/bin/auditwheel" --version 2>/dev/null | grep -q "auditwheel $AUDITWHEEL "; then exit 0; fi
echo "tunetab: installing auditwheel $AUDITWHEEL into $V (PyPI)" >&2
rm -rf "$V"
python3 -m venv "$V"
"$V/bin/pip" install -q --disable-pip-version-check "auditwheel==$AUDITWHEEL"
