# 001-help: top-level help, per-command help and usage errors.
. "$ROOT/tests/lib.sh"
run tunetab
run tunetab help
run tunetab help catalog
run tunetab detect --help
run tunetab help nosuch
run tunetab nosuch
run tunetab devices --bogus
run tunetab models extra-arg
