# 011-launch-sglang (GPU): issue #28 on FlashInfer 0.7.4's real kernels (.gpu/flashinfer-h200).
# A pasted SGLang launch command (SGLang's default environment: use_fused_finalize off) is all
# tunetab gets: `install --for sglang --profile -- LAUNCH` derives the deployment, measures the
# table on the runner that server builds (finalize off) and installs it where that server reads
# it; `doctor --for sglang -- LAUNCH` then says every lookup hits; and SGLang 0.5.23's call inside
# autotune(True, cache=THAT FILE) profiles nothing, every bucket on the file's tactic
# (fi_bench.py sglang-start, exit 1 otherwise). The model is the Hub's Qwen3-30B-A3B config.json
# in a local folder (tests/data/hf), the path SGLang hashes.
set -eu
T=$TUNETAB
. "$ROOT/tests/gpu/fi-h200.sh"
B="python3 $ROOT/tests/bench/fi_bench.py"
cp -r "$ROOT/tests/data/hf/Qwen/Qwen3-30B-A3B" model
L="python -m sglang.launch_server --model-path $PWD/model --moe-runner-backend flashinfer_cutlass"
O="--device auto --python python3 --consumer-version 0.5.23 --cache-dir $PWD/sg"
$T install --for sglang $O --profile -o tables -- $L >paths.txt 2>install.log || { cat install.log; exit 1; }
grep -e 'server builds it' -e 'entries measured' -e 'backend flashinfer' install.log | sed "s|$PWD/||g"
wc -l <paths.txt
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("metadata flashinfer_version", d["_metadata"]["flashinfer_version"]); k=[k for k in d if "gemm2" in k][0]; print("GEMM2 key ends", k[-12:])' "$(head -1 paths.txt)"
$T doctor --for sglang $O -- $L | grep -e '^  lookups' -e '^  metadata' -e '^verdict'
$B sglang-start qwen3-bf16 "$(head -1 paths.txt)" --fused-finalize 0 --json start.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("SGLang start: %d profiling calls, %d of %d buckets on the file tactic" % (d["tuner_runner_calls"], d["buckets_with_file_tactic"], d["buckets"]))' start.json
