# 077-merge-usage: help and command-line errors (exit 2, nothing written).
. "$ROOT/tests/lib.sh"
MK="python3 $ROOT/tests/data/merge/mk.py"
$MK a 1:1=19:m:10
run tunetab help merge
run tunetab merge
run tunetab merge out
run tunetab merge out a --format yaml
run tunetab merge out.py a --format json
run tunetab merge out.json a --format both
run tunetab merge out a --bogus
run tunetab merge out a --device
ls out out.py out.json 2>&1 || true
run tunetab merge --format py out.py a
