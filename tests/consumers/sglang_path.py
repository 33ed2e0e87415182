#!/usr/bin/env python3
"""sglang_path.py SGLANG_SITE CASE_JSON: the cache path SGLang's own
`flashinfer_autotune_cache_path` returns for a deployment, computed by that function's source
from an SGLang release (SGLANG_SITE holds its unpacked wheel), with its server state stubbed:
the function body is SGLang's, only what it reads (get_model(), get_exec(), get_parallel(),
envs, torch's device capability, flashinfer.__version__) is given. Prints the path.

CASE_JSON: {"model_path", "dtype" (torch dtype name), "quantization" (null = None),
"moe_runner_backend", "tp", "pp", "attn_dp", "ep", "hf_config_class", "skip_ops" (list),
"tp_rank", "pp_rank", "dp_rank", "sm" ("90"), "flashinfer", "cache_dir"}.
"""
import ast
import hashlib
import json
import sys
import types
from pathlib import Path


def main():
    site, case = sys.argv[1], json.loads(sys.argv[2])
    src_path = Path(site) / "sglang/srt/model_executor/runner/flashinfer_autotune.py"
    tree = ast.parse(src_path.read_text(), str(src_path))
    wanted = {"flashinfer_autotune_cache_path", "get_flashinfer_autotune_skip_ops"}
    keep = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted]
    keep += [n for n in tree.body if isinstance(n, ast.Assign)
             and any(getattr(t, "id", "") == "FLASHINFER_AUTOTUNE_WORKAROUND_SKIPS" for t in n.targets)]
    if len(keep) < 2:
        sys.exit(f"{src_path}: flashinfer_autotune_cache_path not found")
    ns = lambda **kw: types.SimpleNamespace(**kw)
    fake_torch = ns(cuda=ns(get_device_capability=lambda dev: (int(case["sm"][:-1]), int(case["sm"][-1]))))
    fake_fi = types.ModuleType("flashinfer")
    fake_fi.__version__ = case["flashinfer"]
    sys.modules["flashinfer"] = fake_fi

    class Dtype:
        def __str__(self):
            return "torch." + case["dtype"]

    hf_cls = type(case["hf_config_class"], (), {})
    model = ns(model_path=case["model_path"], quantization=case["quantization"])
    exec_ = ns(moe=ns(moe_runner_backend=case["moe_runner_backend"]),
               kernel=ns(flashinfer_autotune_skip_ops=case["skip_ops"]))
    par = ns(tp_size=case["tp"], pp_size=case["pp"], attn_dp_size=case["attn_dp"],
             moe_ep_size=case["ep"], tp_rank=case["tp_rank"], pp_rank=case["pp_rank"],
             dp_rank=case["dp_rank"])
    g = {
        "torch": fake_torch, "hashlib": hashlib, "Path": Path, "json": json,
        "get_model": lambda: model, "get_exec": lambda: exec_, "get_parallel": lambda: par,
        "envs": ns(SGLANG_CACHE_DIR=ns(get=lambda: case["cache_dir"])),
        "ModelRunner": object, "Callable": object, "Optional": object,
    }
    code = compile(ast.Module(body=keep, type_ignores=[]), str(src_path), "exec")
    exec(code, g)
    runner = ns(device="cuda:0", dtype=Dtype(), is_draft_worker=False, gpu_id=0,
                model_config=ns(hf_config=hf_cls(), quantization=case["quantization"]))
    # it creates the folder: point it at a scratch root
    print(g["flashinfer_autotune_cache_path"](runner))


if __name__ == "__main__":
    main()
