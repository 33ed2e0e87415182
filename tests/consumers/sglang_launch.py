#!/usr/bin/env python3
"""SGLang autotune-cache oracle (CPU only).

Runs SGLang's OWN CLI parser (prepare_server_args), its own resolution
pipeline (ServerArgs.resolve_once via publish), its own ModelConfig /
hf-config loader, and its own flashinfer_autotune_cache_path(), with the GPU
faked (torch.cuda.* patched, GPU-only packages sgl_kernel/flashinfer stubbed).

Usage (in the venv that has sglang + torch + transformers installed):

  python oracle.py [oracle options] -- python -m sglang.launch_server \
      --model-path deepseek-ai/DeepSeek-V3 --tp 8 ...

Oracle options:
  --sm 90|100|103|120       GPU compute capability to fake (default 90)
  --num-gpus N              visible GPUs to fake (default 8)
  --gpu-mem-gib G           per-GPU memory to fake (default 141)
  --config-dir DIR          folder holding the checkpoint's config.json (and
                            optionally hf_quant_config.json, *.safetensors
                            index, tokenizer files).  Needed when --model-path
                            is a hub id or a path that does not exist here:
                            the files are planted in an offline HF cache (or a
                            local folder at the same path) so the model_path
                            string SGLang hashes stays exactly what was typed.
  --flashinfer-version V    flashinfer.__version__ to use (default 0.7.2,
                            the version sglang 0.5.23 pins)
  --cache-dir DIR           SGLANG_CACHE_DIR (default: SGLang's own default)
  --all-ranks               list the cache file of every (tp, pp) rank
  --json                    print one JSON object instead of text

Model path handling: if --model-path is a local folder that exists, it is used
as-is.  Otherwise --config-dir is required.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_cache import plant_config  # noqa: E402


def _split_argv(argv):
    if "--" in argv:
        i = argv.index("--")
        own, launch = argv[:i], argv[i + 1 :]
    else:
        own, launch = [], argv
    # Drop "python -m sglang.launch_server" / "sglang serve" prefixes.
    while launch and not launch[0].startswith("-"):
        launch = launch[1:]
    if launch[:1] == ["-m"]:
        launch = launch[2:]
    while launch and not launch[0].startswith("-"):
        launch = launch[1:]
    return own, launch


def _model_path_of(launch):
    for i, a in enumerate(launch):
        if a in ("--model-path", "--model") and i + 1 < len(launch):
            return launch[i + 1]
        for flag in ("--model-path=", "--model="):
            if a.startswith(flag):
                return a[len(flag) :]
    return None


def _fake_cuda(maj, mnr, n, mem_gib):
    import torch

    name = {9: "NVIDIA H200", 10: "NVIDIA B200", 12: "NVIDIA RTX PRO 6000"}.get(
        maj, "NVIDIA GPU"
    )
    props = types.SimpleNamespace(
        name=name, major=maj, minor=mnr, total_memory=mem_gib * 2**30,
        multi_processor_count=132, L2_cache_size=50 * 2**20, warp_size=32,
        uuid="GPU-00000000-0000-0000-0000-000000000000", gcnArchName="",
        regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048,
    )
    c = torch.cuda
    c.is_available = lambda: True
    c.get_device_capability = lambda *a, **k: (maj, mnr)
    c.device_count = lambda: n
    c.is_initialized = lambda: True  # keeps get_device_sm() off NVML
    c.current_device = lambda: 0
    c.get_device_name = lambda *a, **k: name
    c.get_device_properties = lambda *a, **k: props
    c.mem_get_info = lambda *a, **k: (mem_gib * 2**30, mem_gib * 2**30)
    c.set_device = lambda *a, **k: None
    c.synchronize = lambda *a, **k: None
    c.empty_cache = lambda *a, **k: None


def _stub_gpu_packages(fi_version, triton_kernels=False):
    import importlib.abc
    import importlib.machinery

    class Stub:
        def __init__(self, name):
            self._n = name

        def __call__(self, *a, **k):
            return Stub(self._n + "()")

        def __getattr__(self, n):
            if n.startswith("__") and n.endswith("__"):
                raise AttributeError(n)
            return Stub(f"{self._n}.{n}")

        def __getitem__(self, k):
            return Stub(self._n + "[]")

        def __iter__(self):
            return iter(())

        def __bool__(self):
            return False

        def __mro_entries__(self, bases):
            return (object,)

    class StubModule(types.ModuleType):
        def __getattr__(self, n):
            if n.startswith("__") and n.endswith("__"):
                raise AttributeError(n)
            return Stub(f"{self.__name__}.{n}")

    roots = {"sgl_kernel", "flashinfer"}
    if triton_kernels:
        roots.add("triton_kernels")
    attrs = {"flashinfer": {"__version__": fi_version}}

    class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname, path=None, target=None):
            if fullname.split(".")[0] in roots:
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            return None

        def create_module(self, spec):
            m = StubModule(spec.name)
            m.__path__ = []
            return m

        def exec_module(self, module):
            for k, v in attrs.get(module.__name__, {}).items():
                setattr(module, k, v)

    sys.meta_path.insert(0, Finder())


def main(argv):
    own, launch = _split_argv(argv)
    ap = argparse.ArgumentParser(prog="oracle.py")
    ap.add_argument("--sm", default="90")
    ap.add_argument("--num-gpus", type=int, default=8)
    ap.add_argument("--gpu-mem-gib", type=int, default=141)
    ap.add_argument("--config-dir")
    ap.add_argument("--flashinfer-version", default="0.7.2")
    ap.add_argument("--cache-dir")
    ap.add_argument("--all-ranks", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--triton-kernels",
        action="store_true",
        help="pretend the optional triton_kernels package is installed "
        "(GPT-OSS auto -> triton_kernel on non-Blackwell; gpt_oss.py:102-120)",
    )
    ap.add_argument(
        "--nvidia-driver",
        default=None,
        help="driver version string nvidia-smi would report, e.g. 595.58.03 "
        "(GPT-OSS on Blackwell, gpt_oss.py:110)",
    )
    opts = ap.parse_args(own)

    sm = opts.sm.lower().removeprefix("sm").replace(".", "")
    maj, mnr = int(sm[:-1]), int(sm[-1])

    model_path = _model_path_of(launch)
    if model_path is None:
        sys.exit("oracle: the launch command has no --model-path")
    tmp = tempfile.mkdtemp(prefix="sglang-oracle-")
    import atexit

    atexit.register(shutil.rmtree, tmp, True)
    plant_config(model_path, opts.config_dir, tmp)
    if opts.cache_dir:
        os.environ["SGLANG_CACHE_DIR"] = opts.cache_dir
    # Keep SGLang's third-party JIT cache redirect (environ.py
    # third_party_cache_defaults) from creating dirs under SGLANG_CACHE_DIR.
    for var in ("TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR", "CUDA_CACHE_PATH",
                "TILELANG_CACHE_DIR"):
        os.environ.setdefault(var, os.path.join(tmp, var.lower()))

    _fake_cuda(maj, mnr, opts.num_gpus, opts.gpu_mem_gib)
    _stub_gpu_packages(opts.flashinfer_version, opts.triton_kernels)
    import sglang.srt.utils.common as _common

    _common.get_nvidia_driver_version_str = lambda: opts.nvidia_driver

    import logging
    import pathlib

    from sglang.srt.server_args import prepare_server_args
    from sglang.srt.runtime_context import (
        SpawnRanks,
        get_exec,
        get_model,
        get_parallel,
        override_platform,
        publish,
        spawn_world_rank,
    )

    platform = override_platform(has_flashinfer=True)
    platform.install()

    server_args = prepare_server_args(launch)  # SGLang's own argparse
    logging.getLogger().setLevel(logging.WARNING)
    # publish() runs ServerArgs.resolve_once() (the whole resolution pipeline)
    # and projects the config bags get_model()/get_exec()/get_parallel() read.
    publish(
        server_args,
        role="scheduler",
        ranks=SpawnRanks(
            world_rank=spawn_world_rank(server_args, tp_rank=0, pp_rank=0),
            dp_rank=None,
            gpu_id=0,
        ),
    )

    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.model_executor.runner import flashinfer_autotune as fa

    # What TpModelWorker._init_model_config builds for the target model.
    model_config = ModelConfig.from_server_args(
        server_args,
        model_path=get_model().model_path,
        model_revision=get_model().revision,
        is_draft_model=False,
    )
    # ModelRunner.dtype = model_config.dtype (model_runner.py:1362).  The
    # sm<80 float16 fallback (load_model_utils.py:80-88) is applied here too.
    if maj < 8:
        import torch

        model_config.dtype = torch.float16

    mr = types.SimpleNamespace(
        device="cuda",
        dtype=model_config.dtype,
        model_config=model_config,
        is_draft_worker=False,
        gpu_id=0,
    )

    # Capture the exact pre-hash key string SGLang builds.
    captured = {}
    real_hashlib = fa.hashlib

    class _HashSpy:
        def __getattr__(self, n):
            return getattr(real_hashlib, n)

        def sha256(self, data=b""):
            captured["model_key"] = data.decode()
            return real_hashlib.sha256(data)

    fa.hashlib = _HashSpy()
    real_mkdir = pathlib.Path.mkdir
    pathlib.Path.mkdir = lambda self, *a, **k: None  # do not touch the disk
    try:
        cache_path = fa.flashinfer_autotune_cache_path(mr)
        rank_files = []
        if opts.all_ranks:
            # Re-publish per rank exactly like run_scheduler_process does
            # (scheduler.py:6327-6335); resolution already ran, so this only
            # re-projects the bags.  dp_rank: the DP controller passes the
            # attention-DP rank under DP attention
            # (data_parallel_controller.py:718-724), the replica index for
            # plain DP replicas, and None (-> "dp0") without a DP controller.
            par = get_parallel()
            tp_size, pp_size = par.tp_size, par.pp_size
            attn_dp = par.attn_dp_enabled
            per_dp = par.attn_tp_size * par.attn_cp_size
            replicas = par.dp_size
            for rep in range(replicas):
                for pp in range(pp_size):
                    for tp in range(tp_size):
                        if attn_dp:
                            dp = tp // per_dp
                        elif replicas > 1:
                            dp = rep
                        else:
                            dp = None
                        publish(
                            server_args,
                            role="scheduler",
                            ranks=SpawnRanks(
                                world_rank=spawn_world_rank(
                                    server_args, tp_rank=tp, pp_rank=pp
                                ),
                                dp_rank=dp,
                                gpu_id=0,
                            ),
                        )
                        rank_files.append(str(fa.flashinfer_autotune_cache_path(mr)))
    finally:
        pathlib.Path.mkdir = real_mkdir
        fa.hashlib = real_hashlib

    par = get_parallel()
    backend = get_exec().moe.moe_runner_backend
    out = {
        "model_path": str(get_model().model_path),
        "dtype": str(mr.dtype),
        "quantization": str(get_model().quantization),
        "model_config.quantization": str(model_config.quantization),
        "moe_runner_backend": str(backend),
        "moe_a2a_backend": str(get_exec().moe.moe_a2a_backend),
        "tp_size": par.tp_size,
        "pp_size": par.pp_size,
        "dp_size": par.dp_size,
        "attn_dp_size": par.attn_dp_size,
        "moe_ep_size": par.moe_ep_size,
        "moe_tp_size": par.moe_tp_size,
        "hf_config_class": model_config.hf_config.__class__.__name__,
        "architectures": list(model_config.hf_config.architectures or []),
        "skip_ops": sorted(fa.get_flashinfer_autotune_skip_ops(mr)),
        "disable_flashinfer_autotune": get_exec().kernel.disable_flashinfer_autotune,
        # The backend list literal inside should_run_flashinfer_autotune.
        "moe_backend_needs_autotune": any(
            isinstance(c, tuple) and "flashinfer_cutlass" in c and backend in c
            for c in fa.should_run_flashinfer_autotune.__code__.co_consts
        ),
        "sm": f"sm{maj}{mnr}",
        "model_key": captured.get("model_key"),
        "cache_path": str(cache_path),
    }
    # Token-count facts (GPU-memory dependent: see --gpu-mem-gib).
    from sglang.srt.runtime_context import get_schedule, max_prefill_buffer_tokens

    sched = get_schedule()
    out["chunked_prefill_size"] = sched.chunked_prefill_size
    out["max_prefill_tokens"] = sched.max_prefill_tokens
    out["max_prefill_buffer_tokens"] = max_prefill_buffer_tokens()
    try:
        graph_cfg = get_exec().graph.cuda_graph_config
        out["decode_cuda_graph_backend"] = str(graph_cfg.decode.backend)
        out["decode_cuda_graph_max_bs"] = graph_cfg.decode.max_bs
    except Exception as e:  # noqa: BLE001
        out["decode_cuda_graph_max_bs"] = f"unavailable ({e!r})"
    try:
        from sglang.srt.layers.moe.moe_runner import flashinfer_cutlass as fc

        fn = getattr(fc, "_cutlass_moe_tune_max_num_tokens", None)
        out["cutlass_tune_max_num_tokens"] = (
            fn(1) if fn is not None else "next_power_of_2(x.shape[0]) (per call)"
        )
    except Exception as e:  # noqa: BLE001
        out["cutlass_tune_max_num_tokens"] = f"unavailable ({e!r})"
    if rank_files:
        out["rank_files"] = rank_files
    if opts.json:
        print(json.dumps(out, indent=2))
    else:
        for k, v in out.items():
            if k == "rank_files":
                print("rank_files:")
                for f in v:
                    print("  " + f)
            else:
                print(f"{k}: {v}")


if __name__ == "__main__":
    main(sys.argv[1:])
