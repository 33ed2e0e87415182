# 022-hostile-scripts: user heuristics that loop, eat memory, reach for the OS, files,
# modules or bytecode each fail with a clear error (exit 3) and leave no output file.
. "$ROOT/tests/lib.sh"
for s in loop membomb os_execute io_open require dofile dump bytecode syntax runtime_error bad_id no_register; do
  run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 -q -o "out-$s" \
    --heuristic "$ROOT/tests/data/scripts/$s.lua" --script-mem 16 --script-instructions 5000000
  [ -e "out-$s" ] && echo "LEFT OUTPUT: out-$s" || echo "no output written"
done
[ -e /tmp/tunetab-pwned ] && echo "os.execute RAN" || echo "nothing executed"
# C work the count hook never sees is charged to the budget: the neighbour mean in a loop
run tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 -q -o out-nb \
    --model-fit "$ROOT/configs/fits/NVIDIA_H200.yaml" --flashinfer 0.7.4 \
    --heuristic "$ROOT/tests/data/scripts/neighbours_loop.lua" --script-instructions 5000000
[ -e out-nb ] && echo "LEFT OUTPUT: out-nb" || echo "no output written"
