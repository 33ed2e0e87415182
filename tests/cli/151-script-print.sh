# 151-script-print: a heuristic's print() goes to stderr, prefixed "tunetab: script:", as it
# runs (before the messages of what follows), and the table is still written; the same before
# an error that stops the run.
. "$ROOT/tests/lib.sh"
run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 -o out \
  --heuristic "$ROOT/tests/data/scripts/print.lua"
printf 'print("before the error")\nerror("stop")\n' >stop.lua
run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 -o out2 --heuristic stop.lua
