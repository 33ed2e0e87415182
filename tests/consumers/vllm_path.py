#!/usr/bin/env python3
"""vllm_path.py VLLM_SITE FI_SITE CASE_JSON: where vLLM's own code puts FlashInfer's autotune
cache for a deployment, by the source of a vLLM release (VLLM_SITE: its unpacked wheel) and of
FlashInfer (FI_SITE), with only what they read from a running server stubbed (the world rank,
the DP rank, the config hash, FlashInfer's workspace folder). Prints one path per line: the
rank files (legacy JSON store) in tunetab's order (world rank fastest, then DP rank), or for
one rank the managed store's root.

CASE_JSON: {"env": {VAR: value, ...} (set before vLLM's envs are read; others unset),
"tp", "pp", "dp", "hash" (the config-hash folder), "workspace": FlashInfer's workspace dir
(".../<version>/<arch>"), "home"}.
"""
import ast
import importlib.util
import json
import os
import pathlib
import sys
import types


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def main():
    vsite, fsite, case = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    for k in ("VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR", "VLLM_CACHE_ROOT", "XDG_CACHE_HOME",
              "FLASHINFER_AUTOTUNE_CACHE_DIR", "FLASHINFER_WORKSPACE_BASE"):
        os.environ.pop(k, None)
    os.environ["HOME"] = case["home"]
    os.environ.update(case["env"])
    envs = load("vllm.envs", f"{vsite}/vllm/envs.py")  # stdlib only: vLLM's own module
    ns = types.SimpleNamespace
    vllm = types.ModuleType("vllm")
    vllm.envs = envs
    sys.modules["vllm"] = vllm
    cfg = types.ModuleType("vllm.config")
    cfg.CacheConfig = cfg.VllmConfig = object
    cfg.replace = lambda *a, **k: None
    sys.modules["vllm.config"] = cfg
    # 0.34.0 hashes the config with vllm.config.utils.hash_factors (the hash is the case's)
    cu = types.ModuleType("vllm.config.utils")
    cu.hash_factors = lambda items: None
    sys.modules["vllm.config.utils"] = cu
    lg = types.ModuleType("vllm.logger")
    lg.init_logger = lambda name: ns(info_once=lambda *a, **k: None, info=lambda *a, **k: None)
    sys.modules["vllm.logger"] = lg
    world = ns(rank_in_group=0, world_size=case["tp"] * case["pp"])
    ps = types.ModuleType("vllm.distributed.parallel_state")
    ps.get_world_group = lambda: world
    sys.modules["vllm.distributed"] = types.ModuleType("vllm.distributed")
    sys.modules["vllm.distributed.parallel_state"] = ps
    fi = types.ModuleType("flashinfer")
    fi_jit = types.ModuleType("flashinfer.jit")
    fi_env = types.ModuleType("flashinfer.jit.env")
    fi_env.FLASHINFER_WORKSPACE_DIR = pathlib.Path(case["workspace"])
    fi.jit = fi_jit
    fi_jit.env = fi_env
    sys.modules.update({"flashinfer": fi, "flashinfer.jit": fi_jit, "flashinfer.jit.env": fi_env})
    src = pathlib.Path(f"{vsite}/vllm/model_executor/warmup/flashinfer_autotune_cache.py")
    text = src.read_text()
    # FlashInfer's workspace module is imported where the function needs it
    mod = types.ModuleType("fac")
    mod.__dict__["flashinfer_jit_env"] = fi_env
    exec(compile(text, str(src), "exec"), mod.__dict__)
    mod.flashinfer_autotune_cache_hash = lambda runner: case["hash"]
    ranks = case["tp"] * case["pp"] * case["dp"]
    if ranks == 1:
        root = mod.resolve_flashinfer_autotune_v2_root()
        if root is None:  # FlashInfer's own default (autotune_cache.get_default_cache_root)
            atext = pathlib.Path(f"{fsite}/flashinfer/autotune_cache.py").read_text()
            tree = ast.parse(atext)
            fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef)
                      and n.name == "get_default_cache_root")
            etext = pathlib.Path(f"{fsite}/flashinfer/jit/env.py").read_text()
            etree = ast.parse(etext)
            keep = [n for n in etree.body if isinstance(n, ast.AnnAssign)
                    and getattr(n.target, "id", "") in ("FLASHINFER_BASE_DIR", "FLASHINFER_CACHE_DIR")]
            jenv = {"os": os, "pathlib": pathlib}
            exec(compile(ast.Module(body=keep, type_ignores=[]), "env.py", "exec"), jenv)
            fi_jit.env = ns(FLASHINFER_CACHE_DIR=jenv["FLASHINFER_CACHE_DIR"])
            sys.modules["flashinfer.jit"] = fi_jit
            g = {"os": os, "pathlib": pathlib, "__name__": "flashinfer.autotune_cache",
                 "__package__": "flashinfer"}
            exec(compile(ast.Module(body=[fn], type_ignores=[]), "autotune_cache.py", "exec"), g)
            root = g["get_default_cache_root"]()
        print(root)
        return
    # resolve_rank_flashinfer_autotune_file per rank, as each rank's process computes it
    # the world group spans every DP rank: a process's rank is offset by its DP rank times the
    # engine's world size (vllm/distributed/parallel_state.py:1858-1872)
    for d in range(case["dp"]):
        for r in range(case["tp"] * case["pp"]):
            world.rank_in_group = d * case["tp"] * case["pp"] + r
            runner = ns(vllm_config=ns(parallel_config=ns(data_parallel_rank=d)))
            print(mod.resolve_rank_flashinfer_autotune_file(runner))


if __name__ == "__main__":
    main()
