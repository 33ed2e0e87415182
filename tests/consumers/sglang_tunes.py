#!/usr/bin/env python3
"""sglang_tunes.py SGLANG_SITE CASE_JSON: whether SGLang tunes FlashInfer at start for a
deployment (and so reads its autotune cache at all), by SGLang's own
`should_run_flashinfer_autotune` (sglang/srt/model_executor/runner/flashinfer_autotune.py of a
release, SGLANG_SITE holding its unpacked file), with only what it reads stubbed from the
deployment the case states (the server's arguments after SGLang's resolution). Prints True or
False (the target worker's answer).

CASE_JSON: {"moe_runner_backend" (as resolved, e.g. "auto", "flashinfer_cutlass"),
"moe_a2a_backend" ("none"), "quantization" (the model config's, e.g. "fp8" for DeepSeek-V3's
checkpoint; null = None), "fp4_gemm_backend" (resolved: "flashinfer_cutlass", ...),
"block_fp8_as_mxfp8" (the model serves block FP8 as MXFP8 on FlashInfer: a Blackwell path),
"disable_flashinfer_autotune", "deterministic", "kv_cache_sharding", "speculative" (bool),
"sm" ("90")}."""
import ast
import json
import sys
import types
from pathlib import Path


def main():
    site, case = sys.argv[1], json.loads(sys.argv[2])
    src_path = Path(site) / "sglang/srt/model_executor/runner/flashinfer_autotune.py"
    tree = ast.parse(src_path.read_text(), str(src_path))
    keep = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in
            ("should_run_flashinfer_autotune", "_serves_block_fp8_as_mxfp8_on_flashinfer")]
    if not any(n.name == "should_run_flashinfer_autotune" for n in keep):
        sys.exit(f"{src_path}: should_run_flashinfer_autotune not found")
    ns = types.SimpleNamespace
    sm = case.get("sm", "90")
    fake_torch = ns(cuda=ns(get_device_capability=lambda dev=None: (int(sm[:-1]), int(sm[-1]))))

    def backend(name):
        return ns(is_flashinfer_cutlass=lambda: name == "flashinfer_cutlass",
                  is_flashinfer_cutedsl=lambda: name == "flashinfer_cutedsl",
                  is_flashinfer=lambda: name.startswith("flashinfer"))

    # the modules the function imports inside its body
    fp4 = types.ModuleType("sglang.srt.layers.quantization.fp4_utils")
    fp4.get_fp4_gemm_runner_backend = lambda: backend(case.get("fp4_gemm_backend") or "auto")
    fp8 = types.ModuleType("sglang.srt.layers.quantization.fp8_utils")
    fp8.flashinfer_per_tensor_fp8_supported = lambda: False
    fp8.resolve_mxfp8_dense_gemm_backend = lambda: backend("none")
    for name in ("sglang", "sglang.srt", "sglang.srt.layers", "sglang.srt.layers.quantization"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules[fp4.__name__] = fp4
    sys.modules[fp8.__name__] = fp8
    no_tune = case.get("disable_flashinfer_autotune", False)
    exec_ = ns(kernel=ns(disable_flashinfer_autotune=no_tune),
               deterministic=ns(enable_deterministic_inference=case.get("deterministic", False)),
               moe=ns(moe_runner_backend=case["moe_runner_backend"],
                      moe_a2a_backend=case.get("moe_a2a_backend", "none")))
    g = {"torch": fake_torch, "get_exec": lambda: exec_,
         "get_parallel": lambda: ns(enable_kv_cache_sharding=case.get("kv_cache_sharding", False)),
         "get_spec": lambda: ns(speculative_moe_runner_backend=None,
                                speculative_moe_a2a_backend=None),
         "ModelRunner": object, "Callable": object, "Optional": object}
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(src_path), "exec"), g)
    if "_serves_block_fp8_as_mxfp8_on_flashinfer" in g:  # 0.5.23 reads the built model's layers
        mxfp8 = case.get("block_fp8_as_mxfp8", False)
        g["_serves_block_fp8_as_mxfp8_on_flashinfer"] = lambda mr: mxfp8
    runner = ns(device="cuda", model_config=ns(quantization=case.get("quantization")),
                spec_algorithm=ns(is_speculative=lambda: case.get("speculative", False)),
                is_draft_worker=False)
    print(g["should_run_flashinfer_autotune"](runner))


if __name__ == "__main__":
    main()
