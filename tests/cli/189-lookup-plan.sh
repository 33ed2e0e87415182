# 189-lookup-plan: issues #38's and #47's mismatch table. 110 deployments, each installed with
# tunetab and checked by `tunetab doctor --for` and by an oracle made of the consumers' and
# FlashInfer's own released code (tests/plan_cases.py says how): doctor exits 0 exactly where the
# oracle says every rank's lookups hit, 1 naming the cause where they do not, 2 where SGLang's own
# parser refuses the command, and 6 ("cannot tell") where what decides it is out of tunetab's
# sight (no FlashInfer to read the environment's _metadata, vLLM's config hash, a model config
# install's flags do not find, an option or variable tunetab does not model); an entry whose profiling
# policy is not its op's is no hit where the server looks it up in FlashInfer's tune mode
# (SGLang; the oracle then looks up inside autotune(True)), also for fp4_gemm and the NVFP4
# TensorRT-LLM-gen MoE (their keys FlashInfer's, at the sizes the consumer pads to); install
# never writes an untuned fallback unasked. Every bullet of #47's "Why" is a case that failed
# on f6ffc43 (ORACLE_TUNETAB=<this build> TUNETAB=<f6ffc43's> shows 22). 27 of them are
# launch commands copied from public SGLang/vLLM docs, recipes and model cards (each cites its
# page), where doctor may also say it cannot tell; never 0 where the oracle says no. Needs make
# deps-test (SGLang's path, digest and should_run_flashinfer_autotune functions, vLLM 0.34.0's
# path function) and make deps-flashinfer (FlashInfer 0.7.4 and 0.6.18).
. "$ROOT/tests/lib.sh"
python3 "$ROOT/tests/plan_cases.py"
