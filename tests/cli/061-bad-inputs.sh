# 061-bad-inputs: every malformed or hostile input of tests/bad_inputs.py (bundled modules, JSON
# caches, key files, every YAML kind, Lua heuristics, logs incl. gzip, command-line arguments)
# ends with a clear error line and its documented exit code: no signal, no hang, no sanitizer
# report, no output left behind. Oversized, deep and long inputs are generated on the fly.
. "$ROOT/tests/lib.sh"
python3 "$ROOT/tests/bad_inputs.py" "$TUNETAB" || echo "[bad_inputs.py exit $?]"
