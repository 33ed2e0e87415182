# 013-wheel (GPU, issue #31): the wheel (build/dist/, carried) installed by pip into a fresh venv
# that sees the machine's torch and the FlashInfer 0.7.4 bundle through .pth files, as a
# server's environment would. From that venv, under `env -i` (no PYTHONPATH, no VIRTUAL_ENV, the
# machine's PATH, whose python3 has torch but no FlashInfer): `generate --profile --backend
# flashinfer` finds FlashInfer through tunetab's own environment, without --python, and writes
# tables that validate; doctor finds
# the same FlashInfer. LD_DEBUG shows what the binary loads: the driver's libcuda.so.1 and no
# library of the CUDA toolkit (the runtime is linked in), so a machine with only the driver runs it.
set -eu
W=$(ls "$ROOT"/build/dist/tunetab-*.whl) || { echo "no wheel: carry build/dist (make wheel)"; exit 1; }
. "$ROOT/tests/gpu/fi-h200.sh"          # the bundle in $SITE, on PYTHONPATH for this script only
TORCH_SITE=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
python3 -m venv --without-pip venv      # pip comes from python3 (the image has no registry; ensurepip unchecked)
PURE=$(venv/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$TORCH_SITE" >"$PURE/machine-torch.pth"
echo "$SITE" >"$PURE/flashinfer-h200.pth"
python3 -m pip --python venv/bin/python3 install -q --no-index --no-deps --disable-pip-version-check "$W"
E="env -i HOME=$PWD PATH=$PATH"
if $E python3 -c 'import flashinfer' 2>/dev/null; then
    echo "python3 on PATH imports flashinfer without PYTHONPATH: the test would prove nothing"; exit 1
fi
echo "python3 on PATH ($($E sh -c 'command -v python3')): no flashinfer without PYTHONPATH, as intended"
$E venv/bin/tunetab --version
$E venv/bin/tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --max-tokens 16 --profile \
    --backend flashinfer -o tables 2>gen.log || { cat gen.log; exit 1; }
grep 'backend flashinfer:' gen.log
grep -q "python $PWD/venv/bin/python3 (from tunetab's Python environment)" gen.log
$E venv/bin/tunetab validate tables/*.py tables/*.json tables/tunetab_provenance_*.json
$E venv/bin/tunetab doctor 2>&1 | head -3 | tee doctor.txt
grep -q "FlashInfer 0.7.4 at $SITE/flashinfer" doctor.txt
# what the binary asks the loader for: no toolkit library, the driver's libcuda.so.1 found
$E LD_DEBUG=libs venv/bin/tunetab detect >detect.txt 2>ld.txt
grep -o 'find library=[^ ]*' ld.txt | sort -u
grep -o 'calling init: .*libcuda\.so[.0-9]*' ld.txt | head -1
if grep -E 'libcudart|libcublas|libnvrtc' ld.txt; then echo "a CUDA toolkit library was loaded"; exit 1; fi
head -3 detect.txt
