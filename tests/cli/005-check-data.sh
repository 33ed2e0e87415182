# 005-check-data: the data folder checks clean; files are recognised by their top-level key.
. "$ROOT/tests/lib.sh"
run tunetab check-data
run tunetab check-data "$ROOT/configs/devices/h200.yaml" "$ROOT/schemas/flashinfer/v0_6_18.yaml"
run tunetab check-data /nonexistent.yaml
run tunetab check-data --strict
TUNETAB_DATA_DIR=/nonexistent run tunetab devices
