# 073-merge-identity: every input must be for one device and one FlashInfer version, taken
# from its provenance, else a JSON cache's _metadata (unless "*"), else the module's file name
# (device); 3- against 4-tuple keys are two versions. A difference is an error naming both
# inputs and values, and nothing is written. --device / --flashinfer supply what no input says.
. "$ROOT/tests/lib.sh"
MK="python3 $ROOT/tests/data/merge/mk.py"
$MK h200 1:1=19:m:10 2:1=99:m:8
$MK b200 --device "NVIDIA B200" 1:2=19:m:10
# device: provenance and _metadata.gpu against another input's
run tunetab merge out h200 b200
# device: a module's file name (no provenance, no metadata) against another input's
$MK b200mod --device "NVIDIA B200" --format py --no-prov 1:4=19
run tunetab merge out h200 b200mod
# device: --device against the inputs
run tunetab merge out --device b200 h200
# device: _metadata.gpu against the provenance beside it, in one folder
$MK h200gpu --meta gpu="NVIDIA H100 80GB HBM3" 1:2=36:p
run tunetab merge out h200 h200gpu
# FlashInfer version: _metadata of two caches without provenance
$MK v618 --format json --no-prov 1:1=19
$MK v6182 --format json --no-prov --meta flashinfer_version=0.6.18rc2 1:2=19
run tunetab merge out v618 v6182
# FlashInfer version: a provenance against the _metadata beside it
$MK v616 --meta flashinfer_version=0.6.16 1:2=36:p
run tunetab merge out h200 v616
# "*" says nothing: the version comes from the other input
$MK star --format json --no-prov --meta flashinfer_version=* --meta gpu=* 1:8=36
run tunetab merge -q star.json h200 star
python3 -c 'import json; print(json.load(open("star.json"))["_metadata"])'
# key form: 3- against 4-tuple keys (modules: only their keys say the version)
$MK k3 --version 0.6.12 --format py --no-prov 1:1=19
$MK k4 --version 0.6.18 --format py --no-prov 1:2=19
run tunetab merge out k3 k4
run tunetab merge out k3 k4 --flashinfer 0.6.18
run tunetab merge out k4 --flashinfer 0.6.12
run tunetab merge out k3 h200
ls out 2>&1 || true
run tunetab merge k4.py k4 --flashinfer 0.6.18
# nothing says the device: a module under another name
mkdir plain && cp k4/*.py plain/best.py
run tunetab merge out plain/best.py --flashinfer 0.6.18
run tunetab merge -q byflag.py plain/best.py --flashinfer 0.6.18 --device h200
cmp byflag.py k4.py && echo "--device h200: same bytes as from the module's own name"
run tunetab merge out k4 --flashinfer 0.1
run tunetab merge out k4 --flashinfer latest
