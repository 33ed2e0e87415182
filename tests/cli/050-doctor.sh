# 050-doctor: doctor's verdicts on a fake site-packages tree (a FlashInfer version file, a
# tuning_configs folder, torch's version file): no module; a module under another version's
# name; a valid module with the variable unset, set to "true", set to 1; a module that does not
# parse; JSON caches with a definite mismatch, with "*", with an indeterminate value (soft),
# and as FlashInfer 0.6.10 judges them (any difference ignores the file); --json.
. "$ROOT/tests/lib.sh"
unset FLASHINFER_AUTOTUNER_LOAD_FROM_FILE || true
SP=site/lib/python3.11/site-packages
mkdir -p $SP/flashinfer/tuning_configs $SP/torch
printf '"""Build metadata for flashinfer package."""\n__version__ = "0.7.2"\n' > $SP/flashinfer/_build_meta.py
: > $SP/flashinfer/__init__.py
printf "__version__ = '2.9.0+cu130'\ncuda: Optional[str] = '13.0'\n" > $SP/torch/version.py
TC=$SP/flashinfer/tuning_configs
D="tunetab doctor --flashinfer-dir $SP --device h200 --model qwen3-30b-a3b --dtype bf16"
summary() { grep -e '^bundled module' -e '^  missing' -e '^  present' -e '^  broken' -e 'wrong name' -e '^FLASHINFER' -e '^JSON cache' -e '^deployment' -e '^  GEMM' -e '^verdict' -e '^  falls back' -e 'ignored' || true; }

echo "== no module"
rc=0; $D > out.txt 2>&1 || rc=$?; summary < out.txt; echo "exit $rc"
echo "== a module under 0.2.9's name only"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.2 --format py -o gen -q
cp gen/v0_1_trtllm_fused_moe_NVIDIA_H200.py $TC/v0_2_9_trtllm_fused_moe_NVIDIA_H200.py
rc=0; $D > out.txt 2>&1 || rc=$?; summary < out.txt; echo "exit $rc"
grep -A3 '^next:' out.txt | sed "s|$PWD/||"
rm $TC/v0_2_9_trtllm_fused_moe_NVIDIA_H200.py
# the generate line doctor prints runs as printed and puts the module where FlashInfer imports it
g=$(grep -A1 '^next:' out.txt | grep '^tunetab generate')
rc=0; eval "$g -q" || rc=$?
echo "doctor's generate line: exit $rc, $(ls $TC)"
cmp -s gen/v0_1_trtllm_fused_moe_NVIDIA_H200.py $TC/v0_1_trtllm_fused_moe_NVIDIA_H200.py && echo "the same module as generate -o gen"
echo "== valid module, variable unset"
rc=0; $D > out.txt 2>&1 || rc=$?; summary < out.txt; echo "exit $rc"
echo "== valid module, variable 'true'"
rc=0; FLASHINFER_AUTOTUNER_LOAD_FROM_FILE=true $D > out.txt 2>&1 || rc=$?; summary < out.txt; echo "exit $rc"
echo "== valid module, variable 1"
rc=0; FLASHINFER_AUTOTUNER_LOAD_FROM_FILE=1 $D > out.txt 2>&1 || rc=$?; summary < out.txt; echo "exit $rc"
echo "== valid module, variable 1, deployment beyond its buckets"
rc=0; FLASHINFER_AUTOTUNER_LOAD_FROM_FILE=1 $D --max-tokens 20000 > out.txt 2>&1 || rc=$?; summary < out.txt; echo "exit $rc"
echo "== a module that does not parse"
printf 'best_configs = {\n' > $TC/v0_1_trtllm_fused_moe_NVIDIA_H200.py
rc=0; FLASHINFER_AUTOTUNER_LOAD_FROM_FILE=1 $D > out.txt 2>&1 || rc=$?; summary < out.txt; echo "exit $rc"
rm $TC/v0_1_trtllm_fused_moe_NVIDIA_H200.py

echo "== JSON cache saved under CUDA 12.8 (this environment: 13.0): a definite mismatch"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.2 --format json --metadata cuda_version=12.8 -o c128 -q
rc=0; $D --cache c128/flashinfer_autotune_NVIDIA_H200.json > out.txt 2>&1 || rc=$?; summary < out.txt; grep -e 'cuda_version ' -e ' gpu ' out.txt; echo "exit $rc"
echo "== JSON cache with \"*\" for what tunetab cannot know"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.2 --format json -o star -q
rc=0; $D --cache star/flashinfer_autotune_NVIDIA_H200.json > out.txt 2>&1 || rc=$?; summary < out.txt; grep 'cuda_version ' out.txt; echo "exit $rc"
echo "== JSON cache with cuda_version null: soft"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.7.2 --format json -o soft -q
sed -i 's/"cuda_version": "\*"/"cuda_version": null/' soft/flashinfer_autotune_NVIDIA_H200.json
rc=0; $D --cache soft/flashinfer_autotune_NVIDIA_H200.json > out.txt 2>&1 || rc=$?; summary < out.txt; echo "exit $rc"
echo "== the same null as FlashInfer 0.6.10 judges it (installed: 0.7.2)"
tunetab generate --device h200 --model qwen3-30b-a3b --dtype bf16 --flashinfer 0.6.10 --format json -o old -q
sed -i 's/"cuda_version": "\*"/"cuda_version": null/' old/flashinfer_autotune_NVIDIA_H200.json
rc=0; tunetab doctor --flashinfer 0.6.10 --device h200 --model qwen3-30b-a3b --dtype bf16 --cache old/flashinfer_autotune_NVIDIA_H200.json > out.txt 2>&1 || rc=$?
summary < out.txt; echo "exit $rc"
echo "== --json"
rc=0; $D --cache c128/flashinfer_autotune_NVIDIA_H200.json --json > out.json 2>&1 || rc=$?
python3 -c '
import json, sys
j = json.load(open("out.json"))
print("version", j["flashinfer"]["version"], "| module exists", j["bundled"]["exists"], "| env_ok", j["bundled"]["env_ok"])
print("cache", j["cache"]["verdict"], [f["field"] for f in j["cache"]["fields"] if f["status"] == "hard"])
print("lookups", len(j["lookups"]), "hits", j["hits"], "fallbacks", j["fallbacks"], "all_hit", j["all_hit"])
'
echo "exit $rc"
echo "== no FlashInfer here"
rc=0; tunetab doctor --flashinfer-dir nowhere --device h200 > out.txt 2>&1 || rc=$?; cat out.txt; echo "exit $rc"
echo "== found without --flashinfer-dir, through \$VIRTUAL_ENV"
rc=0; VIRTUAL_ENV=$PWD/site PYTHONPATH= HOME=/nonexistent tunetab doctor --device h200 > out.txt 2>&1 || rc=$?
head -1 out.txt | sed "s|$PWD/||g"; echo "exit $rc"
