# 097-all-ranks: --tp-rank all / --ep-rank all: FlashInfer 0.6.18 to 0.7.1 put the TP and EP
# rank in the key, so one rank's table misses every lookup of the others. With "all" the table
# holds the keys of every rank, and equals the union of the per-rank tables (same tactics);
# 0.7.4's key holds no rank: nothing is added. Validate passes (provenance included).
. "$ROOT/tests/lib.sh"
G="generate --device b200 --model deepseek-v3 --dtype nvfp4 --format json -q"
keys() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len([k for k in d if not k.startswith("_")]))' "$1"; }
union() { # files...: the union of their entries, sorted, as key=tactic lines
    python3 -c '
import json, sys
u = {}
for f in sys.argv[1:]:
    u.update({k: v[1] for k, v in json.load(open(f)).items() if not k.startswith("_")})
print("\n".join(sorted("%s=%s" % kv for kv in u.items())))' "$@"
}
J=flashinfer_autotune_NVIDIA_B200.json
for v in 0.6.18 0.7.1 0.7.4; do
    tunetab $G --tp 4 --tp-rank all --flashinfer $v -o all-$v
    for r in 0 1 2 3; do tunetab $G --tp 4 --tp-rank $r --flashinfer $v -o r$r-$v; done
    union all-$v/$J > a.txt
    union r0-$v/$J r1-$v/$J r2-$v/$J r3-$v/$J > b.txt
    cmp -s a.txt b.txt && same=yes || same=no
    echo "$v TP 4: rank 0 alone $(keys r0-$v/$J) keys, all ranks $(keys all-$v/$J); union of the four per-rank tables equal: $same"
    tunetab validate -q all-$v/* || echo "$v: not valid"
done
tunetab $G --ep 8 --ep-rank all --flashinfer 0.7.1 -o ep
echo "0.7.1 EP 8 --ep-rank all: $(keys ep/$J) keys"
run tunetab $G --tp 4 --tp-rank all --keys keys.txt -o x
