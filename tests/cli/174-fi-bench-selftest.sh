# 174-fi-bench-selftest: the judge behind docs/benchmarks.md's FlashInfer figures
# (tests/bench/fi_bench.py: key strings, regret against an oracle, journal recall, compare,
# an oracle as a learn journal) on a synthetic oracle, tables and journal; stdlib only, no GPU.
python3 "$ROOT/tests/bench/fi_bench.py" selftest
