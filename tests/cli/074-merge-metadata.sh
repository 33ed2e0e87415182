# 074-merge-metadata: JSON caches' _metadata and _records. A field equal in every input is
# kept, one whose values differ (or that some input lacks) becomes "*" with a note; the
# version's fields come in FlashInfer's order, others after them by name. flashinfer_version
# and gpu are the agreed identity. _records are kept when every input that has them has the
# same; different _records are an error. _generation is recomputed.
. "$ROOT/tests/lib.sh"
MK="python3 $ROOT/tests/data/merge/mk.py"
REC='{"trtllm_moe_da": {"r1": {"schema": 1, "tile": 128}}}'
$MK a --format json --no-prov --meta cuda_version=13.0 --meta cublas_version=13.1.0 --meta site=lab \
    --records "$REC" 1:1=19 1:2=36
$MK b --format json --no-prov --meta cuda_version=13.0 --meta cublas_version=13.0.2 --meta site=lab \
    --meta zone=eu --records "$REC" 1:4=36
$MK c --format json --no-prov --meta cuda_version=13.0 --meta cublas_version=13.1.0 --meta site=lab 1:8=36
run tunetab merge m.json a b c
python3 - <<'PY'
import json, hashlib
m = json.load(open("m.json"))
print("keys:", [k if k.startswith("_") else "<entry>" for k in m])
print("_metadata:", m["_metadata"])
print("_records:", m["_records"])
gen = m.pop("_generation")
print("_generation recomputed:", gen == hashlib.sha256(json.dumps(m, sort_keys=True, separators=(",", ":")).encode()).hexdigest())
PY
run tunetab validate m.json
# a cache with no _metadata at all: every field but the identity becomes "*"
$MK nometa --format json --no-prov --no-meta 2:1=99
run tunetab merge m2.json a nometa
python3 -c 'import json; print(json.load(open("m2.json"))["_metadata"])'
# no input has _metadata (modules only): stamped as generate stamps it
$MK pa --format py --no-prov 1:1=19
run tunetab merge m3.json pa --flashinfer 0.6.18
python3 -c 'import json; m = json.load(open("m3.json")); print(m["_metadata"], "_records" in m)'
# different _records
$MK d --format json --no-prov --records '{"trtllm_moe_da": {"r1": {"schema": 1, "tile": 256}}}' 2:2=100
run tunetab merge m4.json a d
ls m4.json 2>&1 || true
