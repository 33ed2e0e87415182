#!/usr/bin/env python3
"""vLLM launch-command oracle (CPU only).

Runs vLLM 0.33.0's OWN code on a `vllm serve ...` command line, with the GPU
faked:

  * vLLM's CLI parser: FlexibleArgumentParser + ServeSubcommand.subparser_init
    (make_arg_parser -> AsyncEngineArgs.add_cli_args), ServeSubcommand.validate,
    the `model_tag` -> `model` step of ServeSubcommand.cmd, and
    AsyncEngineArgs.from_cli_args;
  * the whole engine-config pipeline: EngineArgs.create_engine_config(
    UsageContext.OPENAI_API_SERVER) (ModelConfig with the HF config, dtype
    resolution, _verify_quantization, get_batch_defaults /
    _set_default_max_num_seqs_and_batched_tokens_args, ParallelConfig,
    KernelConfig, VllmConfig.__post_init__ incl. the CUDA platform's
    check_and_update_config);
  * the model class itself (vLLM's initialize_model on the meta device) for
    tp/pp/dp/pcp rank 0, stopped right after the first fused-MoE layer was
    built: that runs make_parallel_config -> FusedMoEParallelConfig.make, the
    FusedMoEConfig construction and the quant method's own MoE backend
    selection (oracle/{unquantized,fp8,nvfp4,mxfp4}.py select_*_moe_backend);
  * flashinfer_autotune_cache.resolve_rank_flashinfer_autotune_file /
    flashinfer_autotune_filename / use_flashinfer_autotune_v2 /
    resolve_flashinfer_autotune_v2_root per rank, and FlashInfer 0.7.2.post1's
    own FLASHINFER_WORKSPACE_DIR (flashinfer.jit.env, real package).

Faked / stubbed (also listed in the output fields "stubbed" and "stubbed_ops_touched"):
  * torch.cuda queries (is_available, capability, name, memory, device count);
  * vLLM's compiled extensions (vllm/_C*.so, _moe_C, flash-attn .so, ...)
    are replaced by empty modules; four capability queries of torch.ops._C are
    reimplemented from csrc (cutlass_scaled_mm_supports_fp8: cap>=89,
    ..._block_fp8: cap>=90, cutlass_group_gemm_supported: cap>=90,
    cutlass_scaled_mm_supports_fp4: cap>=100; CUDA 13 build);
  * the model-registry inspection subprocess runs in-process;
  * the distributed process groups (GroupCoordinator) are plain objects with
    world_size / rank_in_group: no torch.distributed is initialised;
  * the world rank of every (dp, pp, pcp, tp) worker is computed with the formula
    of distributed/parallel_state.py:1858-1872 + 2158-2164 (reimplemented):
    R = dp * (pp_size*pcp_size*tp_size) + (pp*pcp_size + pcp)*tp_size + tp;
  * op handles vLLM takes at import time (IMPORT_TIME_OPS) are inert stubs;
    any other torch.ops._C.* lookup fails as without the extension;
  * the model is built on the meta device (also tensors it puts on "cuda"
    explicitly), with vLLM's WorkspaceManager initialised on "meta";
  * VLLM_HAS_FLASHINFER_CUBIN=1 (FlashInfer counts as deployed with cubins);
  * a hub id is read from a planted offline HF cache; vLLM's offline swap of
    the id for the snapshot path is skipped unless --offline-model-path.

Usage:
  python vllm_launch.py --sm 90 --gpu-mem-gib 139 --gpu-name "NVIDIA H200" \
      --config-dir DIR [--triton-kernels|--no-triton-kernels] --json \
      -- vllm serve MODEL [options...]
"""
from __future__ import annotations

import argparse
import glob
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
    # "vllm serve ..." / "python -m vllm.entrypoints.cli.main serve ..." -> "serve ..."
    if "serve" in launch:
        launch = launch[launch.index("serve") :]
    else:
        sys.exit("oracle: the launch command is not `vllm serve ...`")
    return own, launch


def _model_of(launch):
    """The model the serve parser will see (positional model_tag or --model)."""
    for i, a in enumerate(launch):
        if a == "--model" and i + 1 < len(launch):
            return launch[i + 1]
        if a.startswith("--model="):
            return a[len("--model=") :]
    if len(launch) > 1 and not launch[1].startswith("-"):
        return launch[1]
    return None


def _fake_cuda(maj, mnr, n, mem_gib, name):
    import torch

    props = types.SimpleNamespace(
        name=name, major=maj, minor=mnr, total_memory=int(mem_gib * 2**30),
        multi_processor_count=132, L2_cache_size=50 * 2**20, warp_size=32,
        uuid="GPU-00000000-0000-0000-0000-000000000000", gcnArchName="",
        regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048,
        shared_memory_per_block_optin=232448, is_integrated=False,
    )
    c = torch.cuda
    c.is_available = lambda: True
    c.get_device_capability = lambda *a, **k: (maj, mnr)
    c.device_count = lambda: n
    c._device_count_nvml = lambda: n
    c.is_initialized = lambda: True
    c.current_device = lambda: 0
    c.get_device_name = lambda *a, **k: name
    c.get_device_properties = lambda *a, **k: props
    c.mem_get_info = lambda *a, **k: (props.total_memory, props.total_memory)
    c.set_device = lambda *a, **k: None
    c.synchronize = lambda *a, **k: None
    c.empty_cache = lambda *a, **k: None


STUBBED_OPS = set()
# op handles vLLM takes at import time (e.g. compilation/passes/fusion/
# matcher_utils.py: ROTARY_OP = torch.ops._C.rotary_embedding.default); they
# are never called here.
IMPORT_TIME_OPS = {
    "_C.rotary_embedding",
    "_C.rms_norm_dynamic_per_token_quant",
    "_C.fused_add_rms_norm_static_fp8_quant",
    "_C.rms_norm_static_fp8_quant",
    "_C.fused_add_rms_norm",
    "_C.silu_and_mul",
    "_C.dynamic_per_token_scaled_fp8_quant",
    "_C.dynamic_scaled_fp8_quant",
    "_C.static_scaled_fp8_quant",
}


class _Stub:
    def __init__(self, name):
        self._n = name

    def __call__(self, *a, **k):
        return _Stub(self._n + "()")

    def __getattr__(self, n):
        if n.startswith("__") and n.endswith("__"):
            raise AttributeError(n)
        return _Stub(f"{self._n}.{n}")

    def __bool__(self):
        return False


def _stub_extensions(hide):
    """Empty modules for vLLM's compiled extensions (they need libcuda), and
    make the packages in `hide` unimportable."""
    import importlib.abc
    import importlib.machinery

    import torch

    site = os.path.dirname(os.path.dirname(torch.__file__))
    names = {
        p[len(site) + 1 :].split(".")[0].replace("/", ".")
        for p in glob.glob(os.path.join(site, "vllm", "**", "*.so"), recursive=True)
    }
    names |= {"vllm._C", "vllm._moe_C"}

    class StubModule(types.ModuleType):
        def __getattr__(self, n):
            if n.startswith("__") and n.endswith("__"):
                raise AttributeError(n)
            return _Stub(f"{self.__name__}.{n}")

    class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname, path=None, target=None):
            if any(fullname == h or fullname.startswith(h + ".") for h in hide):
                raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
            if fullname in names:
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            return None

        def create_module(self, spec):
            m = StubModule(spec.name)
            m.__path__ = []
            return m

        def exec_module(self, module):
            pass

    sys.meta_path.insert(0, Finder())
    # The extensions register torch.ops namespaces; without them, op handles
    # that vLLM takes at import time (torch.ops._C.rotary_embedding.default, ...)
    # are stubs (recorded in STUBBED_OPS).  Capability queries that vLLM calls
    # at import / selection time are reimplemented as csrc has them for the
    # CUDA 13 build (scaled_mm_entry.cu, nvfp4_scaled_mm_entry.cu).
    caps = {
        "cutlass_scaled_mm_supports_fp8": lambda cap: cap >= 89,
        "cutlass_scaled_mm_supports_block_fp8": lambda cap: cap >= 90,
        "cutlass_group_gemm_supported": lambda cap: cap >= 90,
        "cutlass_scaled_mm_supports_fp4": lambda cap: cap >= 100,
    }

    class OpNS:
        def __init__(self, ns):
            self._ns = ns

        def __getattr__(self, n):
            if n.startswith("__") and n.endswith("__"):
                raise AttributeError(n)
            if self._ns == "_C" and n in caps:
                return caps[n]
            if f"{self._ns}.{n}" not in IMPORT_TIME_OPS:
                # as without the extension: hasattr(torch.ops._C, op) is False
                raise AttributeError(f"oracle: no compiled op {self._ns}.{n}")
            STUBBED_OPS.add(f"{self._ns}.{n}")
            return _Stub(f"torch.ops.{self._ns}.{n}")

    for ns in ("_C", "_moe_C", "_C_cache_ops", "_C_custom_ar", "_C_utils",
               "_vllm_fa2_C", "_vllm_fa3_C", "_flashmla_C", "_flashmla_extension_C",
               "_qutlass_C", "_deepselect_C", "_flashkda_C"):
        setattr(torch.ops, ns, OpNS(ns))


class _Group:
    """Stand-in for vllm.distributed.parallel_state.GroupCoordinator."""

    def __init__(self, name, ranks, rank):
        self.unique_name = name
        self.ranks = list(ranks)
        self.world_size = len(self.ranks)
        self.rank = rank
        self.rank_in_group = self.ranks.index(rank)
        self.local_rank = 0
        pg = types.SimpleNamespace(size=lambda: self.world_size,
                                   rank=lambda: self.rank_in_group)
        self.device_group = pg
        self.cpu_group = pg
        self.device_communicator = None
        self.use_custom_op_call = False
        self.use_device_communicator = False

    first_rank = property(lambda s: s.ranks[0])
    last_rank = property(lambda s: s.ranks[-1])
    is_first_rank = property(lambda s: s.rank == s.ranks[0])
    is_last_rank = property(lambda s: s.rank == s.ranks[-1])
    next_rank = property(lambda s: s.ranks[(s.rank_in_group + 1) % s.world_size])
    prev_rank = property(lambda s: s.ranks[(s.rank_in_group - 1) % s.world_size])

    def __getattr__(self, n):
        raise AttributeError(f"oracle: fake process group has no {n!r}")


def _install_groups(pc, dp, pp, pcp, tp):
    """Fake the process groups of the worker (dp, pp, pcp, tp), laid out as
    parallel_state.initialize_model_parallel does (parallel_state.py:2158-2164:
    arange(world).reshape(-1, DP, PP, PCP, TP))."""
    import numpy as np

    import vllm.distributed.parallel_state as ps

    D, P, C, T = pc.data_parallel_size, pc.pipeline_parallel_size, \
        pc.prefill_context_parallel_size, pc.tensor_parallel_size
    all_ranks = np.arange(D * P * C * T).reshape(D, P, C, T)
    me = int(all_ranks[dp, pp, pcp, tp])
    dcp = pc.decode_context_parallel_size
    ps._WORLD = _Group("world", range(D * P * C * T if D > 1 else P * C * T),
                       me if D > 1 else me - dp * P * C * T)
    ps._NODE_COUNT = pc.nnodes
    ps._TP = _Group("tp", all_ranks[dp, pp, pcp, :], me)
    ps._ETP = ps._TP
    ps._PP = _Group("pp", all_ranks[dp, :, pcp, tp], me)
    ps._DP = _Group("dp", all_ranks[:, pp, pcp, tp], me)
    ps._PCP = _Group("pcp", all_ranks[dp, pp, :, tp], me)
    t0 = tp - tp % dcp
    ps._DCP = _Group("dcp", all_ranks[dp, pp, pcp, t0 : t0 + dcp], me)
    # EP group: DP x PCP x TP (parallel_state.py:2326-2337)
    ps._EP = _Group("ep", all_ranks[:, pp, :, :].reshape(-1), me)
    ps._EPLB = ps._EP
    ps._INNER_DP_WORLD = ps._DP
    return me


class _Captured(Exception):
    pass


def _MetaDevice():
    """Every tensor the model's constructor makes goes to the meta device,
    also those it puts on device="cuda" explicitly (no GPU memory here)."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._device import _device_constructors

    ctors = _device_constructors()

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types_, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if func in ctors:
                dev = kwargs.get("device")
                # explicit CPU tensors (expert maps, ...) stay on the CPU
                if dev is None or "cpu" not in str(dev):
                    kwargs["device"] = "meta"
            elif func in (torch.Tensor.to, torch.Tensor.cuda):
                dev = kwargs.get("device", args[1] if len(args) > 1 else None)
                if func is torch.Tensor.cuda or (
                        dev is not None and "cuda" in str(dev)):
                    return args[0]
            return func(*args, **kwargs)

    return Mode()


def main(argv):
    own, launch = _split_argv(argv)
    ap = argparse.ArgumentParser(prog="vllm_launch.py")
    ap.add_argument("--sm", default="90")
    ap.add_argument("--num-gpus", type=int, default=8)
    ap.add_argument("--gpu-mem-gib", type=float, default=139)
    ap.add_argument("--gpu-name", default=None)
    ap.add_argument("--config-dir")
    ap.add_argument(
        "--triton-kernels", dest="triton_kernels", action="store_true", default=True,
        help="triton_kernels importable (the default: vLLM 0.33.0 bundles it as "
        "vllm.third_party.triton_kernels, utils/import_utils.py:560-567)")
    ap.add_argument(
        "--no-triton-kernels", dest="triton_kernels", action="store_false",
        help="hide triton_kernels and vllm.third_party.triton_kernels")
    ap.add_argument("--cache-root", help="VLLM_CACHE_ROOT (default: a temp dir)")
    ap.add_argument("--home", help="HOME for FlashInfer/vLLM default paths")
    ap.add_argument("--no-model", action="store_true",
                    help="skip building the model (no MoE backend selection)")
    ap.add_argument("--offline-model-path", action="store_true",
                    help="let vLLM replace a hub id by its snapshot path, as it "
                    "does under HF_HUB_OFFLINE=1 (default: keep the id, as online)")
    ap.add_argument("--json", action="store_true")
    opts = ap.parse_args(own)

    sm = opts.sm.lower().removeprefix("sm").replace(".", "")
    maj, mnr = int(sm[:-1]), int(sm[-1])
    name = opts.gpu_name or {9: "NVIDIA H200", 10: "NVIDIA B200",
                             12: "NVIDIA RTX PRO 6000 Blackwell Server Edition"}.get(
        maj, "NVIDIA GPU")

    model = _model_of(launch)
    tmp = tempfile.mkdtemp(prefix="vllm-oracle-")
    import atexit

    atexit.register(shutil.rmtree, tmp, True)
    if model is not None:
        plant_config(model, opts.config_dir, tmp)
    if opts.home:
        os.environ["HOME"] = opts.home
    if opts.cache_root:
        os.environ["VLLM_CACHE_ROOT"] = opts.cache_root
    # FlashInfer is assumed deployed with its cubins (has_flashinfer() needs
    # flashinfer-cubin or nvcc+ninja: utils/flashinfer.py has_flashinfer).
    os.environ.setdefault("VLLM_HAS_FLASHINFER_CUBIN", "1")
    for var in ("TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR"):
        os.environ.setdefault(var, os.path.join(tmp, var.lower()))

    # vLLM logs to stdout by default; keep stdout for the JSON.
    os.environ.setdefault("VLLM_LOGGING_STREAM", "ext://sys.stderr")
    import logging

    hide = [] if opts.triton_kernels else ["triton_kernels",
                                          "vllm.third_party.triton_kernels"]
    _stub_extensions(hide)
    _fake_cuda(maj, mnr, opts.num_gpus, opts.gpu_mem_gib, name)

    import torch

    from vllm import platforms
    from vllm.platforms.cuda import NonNvmlCudaPlatform

    # No NVML here: the non-NVML CUDA platform reads the (faked) torch.cuda.
    platforms.current_platform = NonNvmlCudaPlatform()
    import vllm.model_executor.models.registry as registry

    registry._run_in_subprocess = lambda fn: fn()
    # no model-info cache under VLLM_CACHE_ROOT (read or written)
    registry._LazyRegisteredModel._load_modelinfo_from_cache = lambda *a, **k: None
    registry._LazyRegisteredModel._save_modelinfo_to_cache = lambda *a, **k: None

    import vllm.entrypoints.cli.serve as serve
    import vllm.engine.arg_utils as arg_utils

    if not opts.offline_model_path:
        # The planted hub cache is read offline (HF_HUB_OFFLINE=1), but a
        # deployment that is online keeps the hub id as the model string
        # (EngineArgs.__post_init__ swaps in the snapshot path only when
        # HF_HUB_OFFLINE is set: arg_utils.py:932-947).
        arg_utils.get_model_path = lambda model, revision=None: model
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.usage.usage_lib import UsageContext
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    # vllm/entrypoints/cli/main.py: the top parser + the serve subcommand.
    parser = FlexibleArgumentParser(description="vLLM CLI")
    sub = parser.add_subparsers(required=False, dest="subparser")
    cmd = serve.ServeSubcommand()
    cmd.subparser_init(sub).set_defaults(dispatch_function=cmd.cmd)
    args = parser.parse_args(launch)
    cmd.validate(args)
    if getattr(args, "model_tag", None) is not None:  # ServeSubcommand.cmd
        args.model = args.model_tag
    engine_args = AsyncEngineArgs.from_cli_args(args)
    parsed = {k: getattr(engine_args, k) for k in (
        "model", "tensor_parallel_size", "pipeline_parallel_size",
        "data_parallel_size", "prefill_context_parallel_size",
        "enable_expert_parallel", "quantization", "dtype",
        "max_num_batched_tokens", "moe_backend", "all2all_backend",
        "enable_flashinfer_autotune")}
    logging.getLogger("vllm").setLevel(logging.WARNING)
    cfg = engine_args.create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)
    mc, pc, sc, kc = (cfg.model_config, cfg.parallel_config, cfg.scheduler_config,
                      cfg.kernel_config)

    out = {
        "vllm_version": __import__("vllm").__version__,
        "sm": f"sm{maj}{mnr}",
        "gpu_name": name,
        "gpu_mem_gib": opts.gpu_mem_gib,
        "parsed": {k: (str(v) if not isinstance(v, (int, float, bool, type(None))) else v)
                   for k, v in parsed.items()},
        "model_arg": model,
        "model": mc.model,
        "architecture": mc.architecture,
        "tensor_parallel_size": pc.tensor_parallel_size,
        "pipeline_parallel_size": pc.pipeline_parallel_size,
        "data_parallel_size": pc.data_parallel_size,
        "prefill_context_parallel_size": pc.prefill_context_parallel_size,
        "decode_context_parallel_size": pc.decode_context_parallel_size,
        "world_size": pc.world_size,
        "world_size_across_dp": pc.world_size_across_dp,
        "enable_expert_parallel": pc.enable_expert_parallel,
        "all2all_backend": pc.all2all_backend,
        "quantization_arg": parsed["quantization"],
        "quantization": mc.quantization,
        "quant_config_class": type(cfg.quant_config).__name__ if cfg.quant_config else None,
        "dtype": str(mc.dtype),
        "max_num_batched_tokens": sc.max_num_batched_tokens,
        "max_num_seqs": sc.max_num_seqs,
        "max_model_len": mc.max_model_len,
        "moe_backend_arg": kc.moe_backend,
        "enable_flashinfer_autotune": kc.enable_flashinfer_autotune,
        "max_cudagraph_capture_size": cfg.compilation_config.max_cudagraph_capture_size,
    }
    from vllm.model_executor.layers.fused_moe.config import FusedMoEParallelConfig

    # FusedMoEParallelConfig.make for rank 0, as make_parallel_config calls it
    # (tp/dp/pcp from the groups; no sequence parallelism).
    _install_groups(pc, 0, 0, 0, 0)
    mpc = FusedMoEParallelConfig.make(
        tp_size_=pc.tensor_parallel_size, pcp_size_=pc.prefill_context_parallel_size,
        dp_size_=pc.data_parallel_size, sp_size_=1, vllm_parallel_config=pc)
    out["fused_moe_parallel_config"] = {
        "tp_size": mpc.tp_size, "tp_rank": mpc.tp_rank, "ep_size": mpc.ep_size,
        "ep_rank": mpc.ep_rank, "dp_size": mpc.dp_size, "use_ep": mpc.use_ep,
        "all2all_backend": mpc.all2all_backend}

    # --- the model's first fused-MoE layer, built by vLLM's model class -------
    if not opts.no_model:
        out["moe"] = _first_moe_layer(cfg)

    # --- autotune file names per rank ------------------------------------------
    import pathlib

    import vllm.model_executor.warmup.flashinfer_autotune_cache as fac
    from vllm.distributed.parallel_state import get_world_group
    from vllm.utils.flashinfer import has_flashinfer, has_flashinfer_autotune_v2

    real_mkdir = pathlib.Path.mkdir
    pathlib.Path.mkdir = lambda self, *a, **k: None  # do not touch the disk
    ranks = []
    try:
        D, P, C, T = (pc.data_parallel_size, pc.pipeline_parallel_size,
                      pc.prefill_context_parallel_size, pc.tensor_parallel_size)
        orig_dp_rank = pc.data_parallel_rank
        for d in range(D):
            for p in range(P):
                for c in range(C):
                    for t in range(T):
                        _install_groups(pc, d, p, c, t)
                        # each DP engine core gets its own data_parallel_rank
                        object.__setattr__(pc, "data_parallel_rank", d)
                        runner = types.SimpleNamespace(vllm_config=cfg)
                        path = fac.resolve_rank_flashinfer_autotune_file(runner)
                        world = get_world_group()
                        ranks.append({
                            "dp": d, "pp": p, "pcp": c, "tp": t,
                            "world_rank": world.rank_in_group,
                            "world_size": world.world_size,
                            "file": path.name,
                            "path": str(path),
                            "use_v2": fac.use_flashinfer_autotune_v2(runner),
                        })
        object.__setattr__(pc, "data_parallel_rank", orig_dp_rank)
    finally:
        pathlib.Path.mkdir = real_mkdir
    out["has_flashinfer"] = has_flashinfer()
    out["has_flashinfer_autotune_v2"] = has_flashinfer_autotune_v2()
    out["flashinfer_autotune_root"] = str(fac.flashinfer_autotune_root())
    out["flashinfer_autotune_v2_root"] = (
        str(fac.resolve_flashinfer_autotune_v2_root())
        if fac.resolve_flashinfer_autotune_v2_root() else None)
    out["use_flashinfer_autotune_v2"] = sorted({r["use_v2"] for r in ranks})
    out["rank_files"] = [r["file"] for r in ranks]
    out["ranks"] = ranks
    out["stubbed_ops_touched"] = sorted(STUBBED_OPS)
    out["stubbed"] = [
        "torch.cuda device queries (capability, name, memory, count)",
        "vLLM compiled extensions (*.so) -> empty modules; torch.ops._C "
        "cutlass_scaled_mm_supports_{fp8,block_fp8,fp4}, cutlass_group_gemm_supported "
        "reimplemented from csrc",
        "process groups (world/tp/pp/dp/pcp/dcp/ep) -> objects with rank_in_group",
        "world rank layout reimplemented (parallel_state.py:1858-1872, 2158-2164)",
        "model registry inspection runs in-process (no model-info cache)",
        "model built on the meta device (explicit cuda tensors too), WorkspaceManager "
        "on meta, stopped after the first fused-MoE layer",
        "VLLM_HAS_FLASHINFER_CUBIN=1",
        "hub id kept as the model string (offline snapshot swap skipped)"
        if not opts.offline_model_path else "offline snapshot path swap (vLLM's)",
    ]
    if opts.json:
        print(json.dumps(out, indent=2, default=str))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")


def _first_moe_layer(cfg):
    """Build the model with vLLM's own initialize_model (meta device) for rank 0
    and stop when the first fused-MoE layer's quant method has been created (its
    __init__ runs the MoE backend selection)."""
    import torch

    import vllm.model_executor.layers.fused_moe.layer as layer_mod
    from vllm.model_executor.layers.fused_moe import routed_experts as re_mod
    from vllm.model_executor.model_loader.utils import initialize_model
    from vllm.utils.torch_utils import set_default_torch_dtype

    res = {}
    real_init = re_mod.RoutedExperts.__init__

    def spy(self, layer_name, params_dtype, moe_config, quant_config, *a, **k):
        real_init(self, layer_name, params_dtype, moe_config, quant_config, *a, **k)
        raise _Captured(self, layer_name, moe_config)

    re_mod.RoutedExperts.__init__ = spy
    # The oracles log every candidate they reject (debug) and the one they
    # pick (info): keep those lines.
    import logging

    msgs = []

    class Keep(logging.Handler):
        def emit(self, record):
            msgs.append(record.getMessage())

    olog = logging.getLogger("vllm.model_executor.layers.fused_moe.oracle")
    olog.setLevel(logging.DEBUG)
    olog.addHandler(Keep(logging.DEBUG))
    olog.propagate = False
    res["selection_log"] = msgs
    # what GPUWorker does before building the model (gpu_worker.py:558)
    from vllm.v1.worker.workspace import init_workspace_manager

    init_workspace_manager(torch.device("meta"))
    try:
        with set_default_torch_dtype(cfg.model_config.dtype), _MetaDevice():
            initialize_model(cfg)
        res["error"] = "model built without a fused-MoE layer"
        return res
    except _Captured as c:
        experts, layer_name, moe = c.args
    except Exception as e:  # noqa: BLE001
        import traceback

        res["error"] = f"{type(e).__name__}: {e}"
        res["traceback_tail"] = traceback.format_exc().splitlines()[-24:]
        return res
    finally:
        re_mod.RoutedExperts.__init__ = real_init
    qm = getattr(experts, "quant_method", None)
    res["layer"] = layer_name
    res["quant_method"] = type(qm).__name__ if qm is not None else None
    for attr in ("unquantized_backend", "fp8_backend", "nvfp4_backend",
                 "mxfp4_backend", "int8_backend", "wna16_backend"):
        if qm is not None and hasattr(qm, attr):
            v = getattr(qm, attr)
            res["backend_attr"] = attr
            res["backend"] = getattr(v, "name", str(v))
            res["backend_value"] = getattr(v, "value", str(v))
    from vllm.utils.import_utils import has_deep_gemm, has_triton_kernels

    res["has_triton_kernels"] = has_triton_kernels()
    res["has_deep_gemm"] = has_deep_gemm()
    ec = getattr(qm, "experts_cls", None)
    res["experts_cls"] = getattr(ec, "__name__", str(ec)) if ec is not None else None
    mpc = moe.moe_parallel_config
    res["moe_config"] = {
        "num_experts": moe.num_experts, "experts_per_token": moe.experts_per_token,
        "hidden_dim": moe.hidden_dim, "intermediate_size": moe.intermediate_size,
        "num_local_experts": moe.num_local_experts,
        "activation": getattr(moe.activation, "name", str(moe.activation)),
        "routing_method": getattr(moe.routing_method, "name", str(moe.routing_method)),
        "in_dtype": str(moe.in_dtype),
        "router_logits_dtype": str(moe.router_logits_dtype),
        "max_num_tokens": moe.max_num_tokens,
        "moe_backend": moe.moe_backend,
        "has_bias": moe.has_bias,
        "parallel": {"tp_size": mpc.tp_size, "tp_rank": mpc.tp_rank,
                     "ep_size": mpc.ep_size, "ep_rank": mpc.ep_rank,
                     "dp_size": mpc.dp_size, "use_ep": mpc.use_ep},
    }
    return res


if __name__ == "__main__":
    main(sys.argv[1:])
