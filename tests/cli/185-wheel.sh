# 185-wheel: the wheel `make wheel` built (build/dist/, issue #31), installed by pip into a fresh
# venv and run from there under `env -i` (no PATH to the checkout, no TUNETAB_* variables, a
# fresh HOME): --version (the same as the wheel's metadata and the package's), generate
# (heuristic), validate, install --dry-run, doctor and python -m tunetab, all on the data
# inside the installed package. Then what must say no: the package's data without a device
# file, and data of another version; doctor finds the FlashInfer a .pth file of tunetab's own
# environment adds (the real 0.7.4 package of make deps-flashinfer) and, without it, says where
# it looked. auditwheel (tests/packaging/setup.sh) must agree with the tag the file name
# claims, and dist.py must refuse to tag a binary that needs a library outside glibc.
. "$ROOT/tests/lib.sh"
W=$(ls "$ROOT"/build/dist/tunetab-*.whl)
[ "$(echo "$W" | wc -l)" = 1 ] || { echo "expected one wheel in build/dist: $W"; exit 1; }
V=$(cat "$ROOT/src/VERSION")
tag=$(basename "$W" .whl | sed "s/^tunetab-$V-py3-none-//")
echo "wheel: tunetab-<version>-py3-none-<tag>.whl, version $( [ "$(basename "$W")" = "tunetab-$V-py3-none-$tag.whl" ] && echo "= src/VERSION")"
case $tag in manylinux_2_[0-9]*_x86_64|manylinux_2_[0-9]*_aarch64) echo "tag: manylinux_2_<Y>_<arch>" ;; *) echo "tag: $tag" ;; esac
"$ROOT/.venv-tools/bin/auditwheel" show "$W" >aw.out 2>&1 || { cat aw.out; exit 1; }
tr '\n' ' ' <aw.out | grep -q "consistent with the following platform tag: \"$tag\"" &&
    echo "auditwheel show: consistent with the tag the file name claims"

python3 -m venv venv
venv/bin/pip install -q --no-index --no-deps --disable-pip-version-check "$W"
W_DIR=$PWD
SITE=$(venv/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mkdir home work
cd work
# the environment a user's shell has after `pip install`: the venv's bin first, nothing else
E="env -i HOME=$W_DIR/home PATH=$W_DIR/venv/bin:/usr/bin:/bin"
# the test's folders by name in what run prints
RUN_SED="s|$E|<env -i>|;s|$W_DIR|<work>|g;s|python3\.[0-9]*|python3.X|g"
run $E sh -c 'command -v tunetab'
run $E tunetab --version
echo "metadata, package: $("$W_DIR/venv/bin/python3" -c 'import importlib.metadata as m, tunetab; print(m.version("tunetab"), tunetab.__version__)')"
run $E python3 -m tunetab --version
run $E tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 -q -o out
python3 -c 'import json,sys; print("provenance tunetab_version:", json.load(open(sys.argv[1]))["tunetab_version"])' \
    out/tunetab_provenance_NVIDIA_H200.json
run $E tunetab validate -q out/v0_1_trtllm_fused_moe_NVIDIA_H200.py out/flashinfer_autotune_NVIDIA_H200.json
run $E tunetab install --for flashinfer --from out/flashinfer_autotune_NVIDIA_H200.json --cache-file ./cache.json --dry-run
[ ! -e cache.json ] && echo "dry run: no cache.json"
run $E tunetab doctor --device h200
FI=$(ls -d "$ROOT"/.venv-flashinfer/0.7.4/lib/python3*/site-packages)
echo "$FI" >"$SITE/flashinfer-0.7.4.pth"
run $E tunetab doctor --device h200
rm "$SITE/flashinfer-0.7.4.pth"
# the data read is the package's: without its H200 file the device is unknown
mv "$SITE/tunetab/configs/devices/h200.yaml" h200.yaml
run $E tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.4 -q -o out2
mv h200.yaml "$SITE/tunetab/configs/devices/h200.yaml"
# data of another release is refused, not mixed
echo 9.9.9 >"$SITE/tunetab/VERSION"
run $E tunetab devices
echo "$V" >"$SITE/tunetab/VERSION"
run $E sh -c 'tunetab devices | head -2 | cut -c1-60'
cd "$W_DIR"
# dist.py refuses a binary that needs a library outside glibc
printf '#include <zlib.h>\nint main(void) { return zlibVersion()[0] == 0; }\n' >z.c
cc -o needs-zlib z.c -lz
run python3 "$ROOT/scripts/dev/dist.py" platform needs-zlib
