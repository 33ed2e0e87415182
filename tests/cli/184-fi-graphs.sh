# 184-fi-graphs: the flashinfer backend's worker with TUNETAB_FI_GRAPHS=1 captures a race's
# whole-cycle samples as CUDA graphs and replays them (issue #30). On the stub, whose replays
# run on the routing samples of the capture, a graph's whole cycle is the same mean as the
# plain calls', so the table is the plain run's, with the routing effect on; the timing summary
# says how many samples were replays. A capture that fails where the plain call works turns
# graphs off for the process, says why, and the run still measures every entry.
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py" TUNETAB_STUB_ROUTING=0.05
unset VIRTUAL_ENV CONDA_PREFIX
G="tunetab generate --device auto --model qwen3-30b-a3b --dtype bf16 --max-tokens 256 --profile --backend flashinfer -q --model-fit datasheet"
TUNETAB_PROF_TIMING=1 $G -o plain 2> plain.err
TUNETAB_FI_GRAPHS=1 TUNETAB_PROF_TIMING=1 $G -o graphs 2> graphs.err
grep -o '[0-9]* graph replays' plain.err
grep -q ' [1-9][0-9]* graph replays' graphs.err && echo "graphs: samples replayed"
grep -o 'ROUND.*([0-9]* graphs, [0-9]* failed' graphs.err | sed 's/.*(\([0-9]*\) graphs/captured \1 graphs/' |
    awk '{ print ($2 > 0 ? "captured some graphs" : $0) }'
cmp plain/flashinfer_autotune_NVIDIA_H200.json graphs/flashinfer_autotune_NVIDIA_H200.json && echo "same table"
python3 "$ROOT/tests/data/fi-stub/regret.py" graphs/flashinfer_autotune_NVIDIA_H200.json
TUNETAB_FI_GRAPHS=1 TUNETAB_STUB_CAPTURE_FAIL=1 TUNETAB_PROF_TIMING=1 $G -o failing 2> failing.err
grep -o 'graphs off: .*' failing.err
grep -o '[0-9]* graph replays' failing.err
grep -c '"tactic"' failing/tunetab_provenance_NVIDIA_H200.json >/dev/null && echo "failing capture: table written"
cmp plain/flashinfer_autotune_NVIDIA_H200.json failing/flashinfer_autotune_NVIDIA_H200.json && echo "same table"
