#!/usr/bin/env python3
"""nvfp4_moe_sizes.py sglang|vllm SITE CASE_JSON: the per-GPU intermediate and hidden sizes a
consumer gives FlashInfer's TensorRT-LLM-gen NVFP4 MoE (flashinfer::trtllm_fp4_block_scale_moe,
whose key carries them), computed by that release's own code (SITE holds the files of its
unpacked wheel, tests/consumers/fetch-*.sh): the functions are taken from their source, only
what they read is stubbed, and the padding functions run on zero CPU tensors of the weights'
shapes. Prints {"intermediate": N, "hidden": H}.

CASE_JSON: {"intermediate": the per-GPU size before padding (the model's / the MoE's TP),
"hidden": the model's hidden size, "gated": true for a gated (SwiGLU) MoE}.

SGLang (0.5.23): ModelOptNvFp4FusedMoEMethod.create_weights's first statement, the alignment
of the TensorRT-LLM weight layout (layers/quantization/modelopt_quant.py), then
_align_fp4_moe_weights with the alignments align_fp4_moe_weights_for_flashinfer_trtllm passes
(layers/moe/moe_runner/flashinfer_trtllm.py). vLLM (0.34.0): the alignments
prepare_nvfp4_moe_layer_for_fi_or_cutlass uses for FLASHINFER_TRTLLM
(quantization/utils/flashinfer_fp4_moe.py), trtllm_nvfp4_hidden_alignment as modelopt passes
it, and align_fp4_moe_hidden_dim_for_fi / align_fp4_moe_weights_for_fi
(quantization/utils/flashinfer_utils.py).
"""
import ast
import json
import sys
import types
from pathlib import Path

import torch

ns = types.SimpleNamespace


def parse(site, rel):
    path = Path(site) / rel
    return ast.parse(path.read_text(), str(path)), str(path)


def top_function(tree, name):
    for n in tree.body:
        if isinstance(n, ast.FunctionDef) and n.name == name:
            return n
    sys.exit(f"nvfp4_moe_sizes: no function {name}")


def run_function(node, path, g):
    """Defines the top-level function node (its source) in namespace g; returns it."""
    node = ast.FunctionDef(name=node.name, args=node.args, body=node.body, decorator_list=[],
                           returns=None, type_comment=None, type_params=[])
    code = compile(ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[])), path, "exec")
    exec(code, g)
    return g[node.name]


def call_keyword(fn_node, callee, kw):
    """The expression of keyword kw in fn_node's call of callee."""
    for n in ast.walk(fn_node):
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == callee:
            for k in n.keywords:
                if k.arg == kw:
                    return k.value
    sys.exit(f"nvfp4_moe_sizes: {fn_node.name} does not call {callee}({kw}=...)")


def evaluate(expr, path, names):
    return eval(compile(ast.Expression(body=expr), path, "eval"), {}, names)


def weights(experts, inter, hidden, gated):
    """Zero NVFP4 expert weights and scales: w13 [E, (2)I, H/2], w2 [E, H, I/2] (uint8, 2 fp4
    a byte), scales one per 16 elements."""
    up = 2 if gated else 1
    return (torch.zeros(experts, up * inter, hidden // 2, dtype=torch.uint8),
            torch.zeros(experts, up * inter, hidden // 16, dtype=torch.uint8),
            torch.zeros(experts, hidden, inter // 2, dtype=torch.uint8),
            torch.zeros(experts, hidden, inter // 16, dtype=torch.uint8))


def logger():
    quiet = lambda *a, **k: None
    return ns(info=quiet, info_once=quiet, warning=quiet, warning_once=quiet, debug=quiet)


def sglang(site, case):
    gated = case["gated"]
    common, cpath = parse(site, "sglang/srt/utils/common.py")
    round_up = run_function(top_function(common, "round_up"), cpath, {})
    # create_weights: `if self.enable_flashinfer_trtllm_moe: ... round_up(...)` (its first if)
    mq, mpath = parse(site, "sglang/srt/layers/quantization/modelopt_quant.py")
    cls = next(n for n in mq.body if isinstance(n, ast.ClassDef) and n.name == "ModelOptNvFp4FusedMoEMethod")
    cw = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "create_weights")
    first_if = next(n for n in cw.body if isinstance(n, ast.If))
    if ast.unparse(first_if.test) != "self.enable_flashinfer_trtllm_moe":
        sys.exit(f"nvfp4_moe_sizes: {mpath}: create_weights's first if is {ast.unparse(first_if.test)}")
    body = first_if.body + [ast.Return(value=ast.Name(id="intermediate_size_per_partition", ctx=ast.Load()))]
    fn = ast.FunctionDef(name="aligned", args=ast.arguments(
        posonlyargs=[], args=[ast.arg(arg=a) for a in ("self", "layer", "intermediate_size_per_partition")],
        kwonlyargs=[], kw_defaults=[], defaults=[]), body=body, decorator_list=[])
    g = {"round_up": round_up}
    aligned = run_function(fn, mpath, g)
    layer = ns(moe_runner_config=ns(is_gated=gated))
    this = ns(enable_flashinfer_trtllm_moe=True, use_flashinfer_trtllm_weight_layout=True)
    inter = aligned(this, layer, case["intermediate"])
    # then align_fp4_moe_weights_for_flashinfer_trtllm: _align_fp4_moe_weights with its alignments
    ft, fpath = parse(site, "sglang/srt/layers/moe/moe_runner/flashinfer_trtllm.py")
    g = {"torch": torch, "logger": logger()}
    g["round_up_to_multiple"] = run_function(top_function(ft, "round_up_to_multiple"), fpath, g)
    align = run_function(top_function(ft, "_align_fp4_moe_weights"), fpath, g)
    hidden_alignment = run_function(top_function(ft, "trtllm_nvfp4_hidden_alignment"), fpath, g)
    caller = top_function(ft, "align_fp4_moe_weights_for_flashinfer_trtllm")
    ia = evaluate(call_keyword(caller, "_align_fp4_moe_weights", "intermediate_alignment"), fpath,
                  {"is_gated": gated})
    ha = hidden_alignment(use_per_token_activation=False, is_gated=gated)
    w13, s13, w2, s2 = weights(1, inter, case["hidden"], gated)
    out = align(w13, s13, w2, s2, is_gated=gated, intermediate_alignment=ia, hidden_alignment=ha)
    return {"intermediate": out[4], "hidden": out[5]}


def vllm(site, case):
    gated = case["gated"]
    mu, upath = parse(site, "vllm/utils/math_utils.py")
    round_up = run_function(top_function(mu, "round_up"), upath, {})
    fu, fpath = parse(site, "vllm/model_executor/layers/quantization/utils/flashinfer_utils.py")
    g = {"torch": torch, "logger": logger(), "round_up": round_up}
    align_inter = run_function(top_function(fu, "align_fp4_moe_weights_for_fi"), fpath, g)
    align_hidden = run_function(top_function(fu, "align_fp4_moe_hidden_dim_for_fi"), fpath, g)
    hidden_alignment = run_function(top_function(fu, "trtllm_nvfp4_hidden_alignment"), fpath, g)
    # prepare_nvfp4_moe_layer_for_fi_or_cutlass: `min_alignment = 64 if is_gated else 128`
    fm, mpath = parse(site, "vllm/model_executor/layers/quantization/utils/flashinfer_fp4_moe.py")
    prep = top_function(fm, "prepare_nvfp4_moe_layer_for_fi_or_cutlass")
    assigns = [n for n in ast.walk(prep) if isinstance(n, ast.Assign)
               and [getattr(t, "id", None) for t in n.targets] == ["min_alignment"]]
    if len(assigns) != 1:
        sys.exit(f"nvfp4_moe_sizes: {mpath}: {len(assigns)} assignments of min_alignment")
    min_alignment = evaluate(assigns[0].value, mpath, {"is_gated": gated})
    w13, s13, w2, s2 = weights(1, case["intermediate"], case["hidden"], gated)
    # the hidden size first, then the intermediate (the order of prepare_..._for_fi_or_cutlass)
    w13, s13, w2, s2, hidden = align_hidden(
        w13, s13, w2, s2, min_alignment=hidden_alignment(per_token_activation=False, is_act_and_mul=gated))
    out = align_inter(w13, s13, w2, s2, gated, min_alignment)
    return {"intermediate": out[4], "hidden": hidden}


def main():
    consumer, site, case = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    print(json.dumps({"sglang": sglang, "vllm": vllm}[consumer](site, case)))


if __name__ == "__main__":
    main()
