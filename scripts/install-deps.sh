#!/bin/sh
# Installs the Debian/Ubuntu packages named on the command line that are missing.
# A no-op (and no network) when everything is already installed.
set -eu
missing=""
for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "tunetab: installing missing packages:$missing" >&2
if ! command -v apt-get >/dev/null 2>&1; then
    echo "tunetab: error: apt-get not found; install these packages by hand:$missing" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
