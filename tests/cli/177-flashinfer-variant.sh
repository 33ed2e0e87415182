# 177-flashinfer-variant: the flashinfer backend times the runner variant each key names. With
# --fused-finalize off the worker builds FlashInfer's runner with use_fused_finalize off, whose
# GEMM2 ids mean other configs (cutlass-moe-tactics.md §3); the stub times that epilogue with
# other factors, so a table timed on the default runner has regret against the off runner (the
# worker before this test built every runner with finalize on: 5.6% / 23.1% geomean / max here). Activation,
# biases, TP and EP reach the runner as the key says (the stub records each preparation).
. "$ROOT/tests/lib.sh"
export TUNETAB_FI_KERNELS="$ROOT/tests/data/fi-stub/kernels.py"
unset VIRTUAL_ENV CONDA_PREFIX
G="tunetab generate --device auto --dtype bf16 --profile --backend flashinfer -q"
TUNETAB_STUB_RECORD=$PWD/off.rec $G --model qwen3-30b-a3b --fused-finalize off -o off
tunetab validate -q off/*.json && echo "finalize off: table valid"
python3 "$ROOT/tests/data/fi-stub/regret.py" off/flashinfer_autotune_NVIDIA_H200.json off
sed 's/ dtype.*//; s/^dtype [a-z0-9]* stage \([12]\) finalize \([01]\).*/stage \1 finalize \2/' off.rec | sort | uniq -c | sed 's/^ *//'
# the default runner, judged as such
$G --model qwen3-30b-a3b -o on
python3 "$ROOT/tests/data/fi-stub/regret.py" on/flashinfer_autotune_NVIDIA_H200.json
# gpt-oss: SwigluBias (FlashInfer's ActivationType 5) with expert biases, at TP 2 EP 2
TUNETAB_STUB_RECORD=$PWD/oss.rec $G --model gpt-oss-20b --tp 2 --ep 2 --max-tokens 64 -o oss
cut -d' ' -f5- oss.rec | sort | uniq -c | sed 's/^ *//'
# Relu2 (not gated: fc1 is [E, I, H]) and GeGLU models reach it as theirs
for act in relu2 geglu; do
    cat >"$act.yaml" <<YAML
model:
  id: $act
  name: "$act test"
  aliases: []
  hidden_size: 1024
  moe_intermediate_size: 512
  routed_experts: 8
  top_k: 2
  shared_experts: 0
  activation: $act
  moe_layers: 1
  total_layers: 1
YAML
    TUNETAB_STUB_RECORD=$PWD/$act.rec $G --model "$act.yaml" --max-tokens 8 -o "$act"
    tunetab validate -q "$act"/*.json && echo "$act: table valid, runners: $(cut -d' ' -f5-10 "$act.rec" | sort -u)"
    grep -o "([0-9, ]*), ([0-9, ]*), ([0-9, ]*)" "$act"/flashinfer_autotune_*.json | head -1
done
