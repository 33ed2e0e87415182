# 024-example-scripts: every example heuristic in scripts/ (documented in scripts/README.md)
# runs and produces a table that validates.
. "$ROOT/tests/lib.sh"
for s in "$ROOT"/scripts/heuristics/*.lua "$ROOT"/scripts/examples/*.lua; do
  name=$(basename "$s" .lua)
  tunetab generate --device rtx-pro-6000-server --model qwen3-30b-a3b --dtype nvfp4 -q -o "$name" --heuristic "$s"
  tunetab validate -q "$name"/* && echo "$name: ok"
done
