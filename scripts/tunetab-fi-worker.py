#!/usr/bin/env python3
"""tunetab's FlashInfer measurement worker: times FlashInfer's own CUTLASS fused-MoE kernels.

`tunetab generate --profile --backend flashinfer` starts this script with the Python it found
(--python, $VIRTUAL_ENV, $CONDA_PREFIX, PATH) as `python3 tunetab-fi-worker.py DEVICE` and
talks to it over stdin/stdout with the worker protocol (docs/development.md "The worker
protocol", every message and field; MESSAGES below and src/tune/wire.c are its one table per
language). This side only prepares and times candidates; the rounds, intervals, racing and
decisions stay in tunetab's C code, which asks for one round at a time. Every line is
"VERB v=3 NAME=VALUE ... [COUNT=N cols=COLUMN,... -- ITEM ...]": a name this worker does not know
is ignored, a line of another protocol version or without a field it needs is answered ERR
naming both versions or the field.

  WHO                          -> WHO backend=flashinfer|none version= torch= detail=
                                  (none: no usable FlashInfer or CUDA, detail says why)
  INFO                         -> DEV name= cc_major= ... (as tunetab's own worker)
  LOAD dtype=                  -> NOTE text= ... (phases, progress), then OK seconds=
  PREP <job> key= key_fields= runner_args= cands= cols=id -- ID...
                                  (<job>: MESSAGES' JOB fields; key: the entry's FlashInfer key,
                                  key_fields: the names of its extras, comma-separated, or where
                                  the key has none of the runner's arguments, runner_args: their
                                  values as a Python tuple; all hex or "-")
                               -> START id=, then READY id= reps= or RES id= status= ... why=,
                                  per candidate; END
  GATE bound= ref_bound= <job> ... (as PREP; candidates in order of preference; the dtype's
                                  bounds, configs/dtypes.yaml)
                               -> START, G id= verdict=ok|bad|unchecked max_abs= rel= why= per
                                  candidate until one is not bad; END (the correctness gate:
                                  Kernels.gate)
  LAYER load= popularity= draws= layer_reps= layer_rounds= seed= <job> key= key_fields=
        runner_args= pairs= cols=g1,g2 -- G1,G2...
                               -> L g1= g2= status= us= why= per pair; END (the whole MoE
                                  layer per tactic pair under a routing load: Kernels.layer;
                                  the job is GEMM1's entry's; popularity: a weight per expert
                                  of every rank, hex of "w,w,...", "-": uniform)
  ROUND method= min_reps= cands= cols=id,reps -- ID,REPS...  (REPS 0: the worker sizes it)
                               -> START per id, then T id= us= (per call; F id= why=: it raised)
                                  per id; END. The round runs as one batch: a fault is not
                                  pinned on one of its candidates.
  A job's reps of 1 asks for screening: no per-entry warm-up (a tactic's first launch in this
  process is warmed), and about 100 us of back-to-back calls per sample, or a whole routing
  cycle where that takes at most SCREEN_CYCLE_US. Every other sample
  (a race's, sized by the parent, or a job's that does not screen) is whole cycles of
  FlashInfer's 16 routing samples (Kernels.routing_cycle).
  Ops beside the fused MoE (issue #39; OPS: fp4_gemm with CutlassFp4GemmRunner or
  CuteDSLFp4GemmRunner, flashinfer::trtllm_fp4_block_scale_moe with MoERunner): a PREP or GATE
  that names op= is an op's job, its fields by name (OP_COMMON, the op's fields, OP_MESSAGES):
    op= runner= consumer=sglang|vllm tune=at_m|buckets m= tune_max= bucket= reps= method=
    fp4_gemm: n= k= out=bfloat16|float16   (n: the GEMM's N; the candidates' count is cands=)
    trtllm MoE: hidden= inter= experts= local_experts= local_expert_offset= top_k= shared=
      routing=logits|routed finalize= act_dtype= weight_dtype= activation= layout= shuffled=
      packed= per_token= hidden_output= [routing_method=1 n_group=0 topk_group=0
      logits_dtype=bfloat16: not in the key, defaults as shown]   (finalize: the op's
      do_finalize, not the fused MoE's fused_finalize)
  and its candidates cols=id[,tactic] (tactic: the tactic's JSON text, hex, e.g. [8,3] or
  [[128,8],[1,1],true,false,"sm100",null]; without it the id is the integer tactic). The
  replies are PREP's, ROUND's and GATE's (the gate: against FlashInfer's default tactic, which
  is checked against the op's dequantized fp32 reference).
  OPTEST op= runner=           -> OPTEST status=works|not_in_build|cannot_run|wrong|failed detail=
                                  (optest: a small job of the op timed with profile_op and its
                                  winner checked against the reference; cannot_run names the SMs
                                  the op's modules are built for and where FlashInfer says so)
  OPPROF <op job> bucket= reps= gate=1|0 cands= cols=id[,tactic] -- ...
                               -> OPPROF timed= win= win_us= fallback_us=
                                  verdict=ok|wrong|unchecked|off detail=
                                  (one key of an op measured in one go: profile_op on the
                                  bucket's inputs, every candidate or, with cands=0 and none
                                  after '--', the runner's own get_valid_tactics for them, and
                                  FlashInfer's fallback -1 always; with gate=1 the timed tactics
                                  go through the gate fastest first until one passes: wrong
                                  says the fastest failed and win is the fastest that passed,
                                  else -1. win: the winner's JSON text as the request gave it
                                  (the tactic's text, a bare ID's number; the runner's own
                                  tactics and the fallback compact, e.g. [8,3], -1); -1 where
                                  the fallback was fastest or nothing ran; us nan where not
                                  measured; timed counts the tactics timed, the fallback among
                                  them; detail says how many were not valid or raised and
                                  which failed the gate. The gate's bounds are the op's
                                  (Op.bounds, as OPTEST's). ERR cannot run on SMxx: ... (OPTEST's
                                  words) where this GPU cannot run the op's runner)
  errors: ERR -- TEXT; FAULT -- TEXT (CUDA context broken after START: exit, parent restarts)

What is timed is what FlashInfer's autotuner times (flashinfer-formats.md §3.5, §5): the
`MoERunner` of `get_cutlass_fused_moe_module(<sm>)`, built as the job's key names it: the key's
extras are MoERunner's arguments (dtypes, top-k, TP/EP sizes, the quantisation flags of NVFP4,
MXFP4, W4A8 and DeepSeek fp8 block scale, activation, use_fused_finalize: with it off GEMM2's ids
mean other configs, cutlass-moe-tactics.md §3), the ranks come from the job, and the tensors have
the key's shapes and dtypes (packed fp4/int4 weights as random bytes: the profiler reads only
shapes); the key the runner and tensors give is checked against the job's before anything is
timed. `forward(inputs, tactic, gemm_idx=stage)` on the inputs its tuning config makes for the
bucket (the input from its default initializer, the expert weights, `do_preparation` once per
bucket; the routing is the runner's own). Keys without extras (FlashInfer before 0.6.18) come
with the runner's arguments. Mode 0 (tunetab's method): one sample is one untimed call, then `reps` back-to-back
calls between two CUDA events, divided by reps, all behind FlashInfer's delay kernel (so host
launch time is hidden): every timed call follows a call of its own tactic, as in FlashInfer's
autotuner (with PDL a call overlaps the one before it; a lone call after another tactic's
timed up to 30% slower on the H200).
Mode 1: FlashInfer's own measurement, `AutoTuner.profile_tactic` (3 warm-up calls, the mean of
10 hot calls).

Test hooks (as tunetab's own worker): TUNETAB_TEST_FAULT=<id> crashes at that candidate,
TUNETAB_TEST_HANG=<id> hangs there, TUNETAB_TEST_BAD_TACTIC=<id> asks FlashInfer for an invalid
tactic in its place (FlashInfer's own failure path), TUNETAB_TEST_WRONG_TACTIC=<id> perturbs
that tactic's output in the gate (a tactic that computes garbage). TUNETAB_FI_KERNELS=<file.py> replaces
FlashInfer with that file's `Kernels` class (CPU tests: tests/data/fi-stub/); where that class
has op_kernels(), the ops' jobs (PREP, ROUND, GATE, OPPROF with op=) go to the object it returns
in OpKernels' place (the stub's fake op timings), through the same profile_op.
"""
import ast
import importlib
import importlib.util
import inspect
import math
import random
import re
import os
import signal
import sys
import threading
import time

_out_lock = threading.Lock()


def out(line):
    with _out_lock:
        try:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            os._exit(0)  # the parent is gone (killed, or it killed us): nothing to report to


def one_line(text, limit=120):
    """A reason as the protocol carries it: one line, at most limit characters."""
    return " ".join(str(text).split())[:limit] or "error"


def note(text):
    send("NOTE", text=text)


def env_id(name):
    v = os.environ.get(name)
    try:
        return int(v) if v else None
    except ValueError:
        return None


class Unusable(Exception):
    """No FlashInfer or no CUDA here: `auto` falls back, `flashinfer` is an error."""


def import_flashinfer():
    """FlashInfer's package with only what the fused-MoE runner needs imported.

    `import flashinfer` runs the package's __init__, which imports every op family (attention,
    GEMMs, sampling, ...: 385 modules in 0.7.4, seconds of a worker's start on an H200:
    docs/benchmarks.md "Start-up"). The package module is made from its spec without running
    that __init__; the runner's modules (flashinfer.fused_moe.core now, the rest where they are
    used) then import as FlashInfer's own code imports them, and run the same kernels. Where
    that fails (a FlashInfer whose modules need its __init__), `import flashinfer` as usual."""
    if "flashinfer" in sys.modules:
        return sys.modules["flashinfer"]
    spec = importlib.util.find_spec("flashinfer")
    pkg = importlib.util.module_from_spec(spec)
    sys.modules["flashinfer"] = pkg
    try:
        importlib.import_module("flashinfer.fused_moe.core")
        pkg.__version__ = importlib.import_module("flashinfer.version").__version__
        return pkg
    except Exception:  # noqa: BLE001
        for name in [m for m in sys.modules if m == "flashinfer" or m.startswith("flashinfer.")]:
            del sys.modules[name]
    import flashinfer
    importlib.import_module("flashinfer.fused_moe.core")
    return flashinfer


# --- FlashInfer ------------------------------------------------------------------------------

def tuner_input(runner, t, shape, dtype, dev):
    """The bucket's input as this FlashInfer's tuner makes it for the runner (what
    AutoTuner._prepare_input_tensors gives input 0, read in the released wheels): the tuning
    config's initializer of input 0 where it names one (TuningConfig.tensor_initializers,
    0.6.16+), else its dynamic spec's (DynamicTensorSpec.tensor_initializers: randn in
    0.2.14-0.5.x, uniform in [-5, 5) in 0.6.0-0.6.15), else the tuner's default
    (autotuner_initializer_rand_scaled, uniform in [-5, 5), 0.6.16+; zeros before 0.2.14)."""
    cfg = runner.tuning_config
    for idx, init in getattr(cfg, "tensor_initializers", None) or ():
        if idx == 0:
            return init(shape, dtype, dev)
    inits = getattr(cfg.dynamic_tensor_specs[0], "tensor_initializers", None)
    if inits:
        return inits[0](shape, dtype, dev)
    try:
        from flashinfer.autotuner.initializers import autotuner_initializer_rand_scaled
    except ImportError:
        return t.zeros(shape, dtype=dtype, device=dev)
    return autotuner_initializer_rand_scaled(shape, dtype, dev)


def moe_runner_class(ns):
    """MoERunner of a fused-MoE module namespace: its attribute (0.6.x+), else the class the
    namespace's function closes over (0.2.9-0.5.x define MoERunner inside the module getter and
    expose only cutlass_fused_moe, which uses it)."""
    cls = getattr(ns, "MoERunner", None)
    if cls is not None:
        return cls
    for f in vars(ns).values():
        code = getattr(f, "__code__", None)
        if code is not None and "MoERunner" in code.co_freevars:
            return f.__closure__[code.co_freevars.index("MoERunner")].cell_contents
    raise ValueError("this FlashInfer's fused-MoE module has no MoERunner")


def fused_moe_module(arch):
    """The namespace holding MoERunner for this SM: get_cutlass_fused_moe_module(sm) (0.2.14+),
    before that get_cutlass_fused_moe_sm100_module() (SM100 only; core.py of 0.2.9-0.2.13)."""
    import flashinfer.fused_moe.core as core
    if hasattr(core, "get_cutlass_fused_moe_module"):
        return core.get_cutlass_fused_moe_module(arch)
    if arch not in ("100", "103", "110"):
        raise ValueError(f"FlashInfer {importlib.import_module('flashinfer.version').__version__} "
                         f"has a CUTLASS fused-MoE module for SM100 only, not SM{arch}")
    return core.get_cutlass_fused_moe_sm100_module()


# MoERunner's arguments by an earlier name (FlashInfer 0.2.9-0.2.13: core.py MoERunner.__init__)
OLD_NAMES = {"use_w4a8_group_scaling": "use_w4_group_scaling"}
# What a FlashInfer whose MoERunner lacks the argument does all the same: a runner argument given
# but not taken must be one of these (a flag not taken: False). Before 0.5.0 the binding runs
# Swiglu, SwigluBias where the experts have biases (3, 5: flashinfer_cutlass_fused_moe_sm100_ops.cu
# of 0.3.0, base_activation_type); before 0.6.15 GEMM2's finalize fusion is on (moe_kernels.h
# use_fused_finalize_ = true in 0.6.13). enable_pdl (PDL launches; none before 0.2.14) changes
# how calls overlap, not what runs: dropped whatever it is.
RUNNER_DEFAULTS = {"activation_type": (3, 5), "use_fused_finalize": (True,)}
RUNNER_DROPPED = {"enable_pdl"}


def warm_calls(t, call):
    """3 warm-up calls (as FlashInfer), then the GPU time and the host's enqueue time of one
    call, in us (Kernels.warm, OpKernels.warm)."""
    for _ in range(3):
        call()
    t.cuda.synchronize()
    e0, e1 = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
    h0 = time.perf_counter()
    e0.record()
    for _ in range(3):
        call()
    e1.record()
    host = (time.perf_counter() - h0) / 3 * 1e6
    e1.synchronize()
    return e0.elapsed_time(e1) * 1000.0 / 3, host


def sample_calls(t, call, reps):
    """One untimed call, then reps back-to-back calls between two CUDA events: the handle
    elapsed_us reads after a synchronize."""
    e0, e1 = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
    call()
    e0.record()
    for _ in range(reps):
        call()
    e1.record()
    return e0, e1, reps


def elapsed_us(handle):
    e0, e1, reps = handle
    return e0.elapsed_time(e1) * 1000.0 / reps


class Kernels:
    """FlashInfer's fused-MoE runner on one GPU."""

    # FlashInfer's profiler builds 16 fake routings at do_preparation and runs each call on the
    # next one (GemmProfilerBackend::runProfiler: mSampleIndex = (mSampleIndex + 1) % 16,
    # NUM_ROUTING_SAMPLES in moe_kernels.h; cutlass-moe-tactics.md §1.2). A sample of 16
    # back-to-back calls is the mean over all of them, whatever sample it starts on; a shorter
    # one times each tactic on other routings (docs/benchmarks.md "routing samples").
    routing_cycle = 16

    def __init__(self, device):
        # a Python without them says so at once: importing torch alone takes seconds
        for name in ("torch", "flashinfer"):
            if importlib.util.find_spec(name) is None:
                raise Unusable(f"this Python ({sys.executable}) has no {name}")
        try:
            import torch
        except Exception as e:  # noqa: BLE001
            raise Unusable(f"this Python has no torch ({type(e).__name__}: {e})")
        if not torch.cuda.is_available():
            raise Unusable(f"torch {torch.__version__} sees no CUDA GPU")
        try:
            flashinfer = import_flashinfer()
        except Exception as e:  # noqa: BLE001
            raise Unusable(f"this Python cannot import flashinfer ({type(e).__name__}: {e})")
        self.torch, self.fi = torch, flashinfer
        self.device = device
        if device >= torch.cuda.device_count():
            raise Unusable(f"no GPU {device} ({torch.cuda.device_count()} visible)")
        torch.cuda.set_device(device)
        self.dev = torch.device("cuda", device)  # where the key's tensors are made
        self._fresh()

    def _fresh(self):
        """The state of a worker that has prepared nothing (a subclass's __init__ calls it)."""
        self.runners, self.weights = {}, {}
        self.gate_cache = {}  # (runner, weights, bucket) -> the gate's inputs (_gate_inputs)
        self.module = None
        self.job = None
        # a sample as a CUDA graph (capture): the prepared entry's, by (tactic, reps); None in
        # graph_why while graphs are used, else why not. Off unless TUNETAB_FI_GRAPHS=1: on the
        # H200 they saved no profiling time (the samples' GPU time, not the host, bounds it)
        # and moved one 1-token GEMM2 pick (docs/benchmarks.md, issue #30)
        self.graphs = {}
        self.graph_why = None if os.environ.get("TUNETAB_FI_GRAPHS") == "1" else \
            "off (TUNETAB_FI_GRAPHS=1 turns them on)"
        self.cap_stream = None
        self.stats = dict(inputs_s=0.0, valid_s=0.0, doprep_s=0.0, captures=0, capture_s=0.0,
                          capture_failed=0)

    def who(self):
        t = self.torch
        return (self.fi.__version__, t.__version__,
                f"flashinfer {self.fi.__version__} from {os.path.dirname(self.fi.__file__)}; "
                f"torch {t.__version__} (CUDA {t.version.cuda})")

    def info(self):
        t = self.torch
        p = t.cuda.get_device_properties(self.device)
        attr = cuda_attributes(self.device)
        clock = attr.get("clock_khz", 0) / 1000.0
        bw = 2.0 * attr.get("mem_clock_khz", 0) * 1e3 * attr.get("bus_bits", 0) / 8.0 / 1e9
        return (p.name, p.major, p.minor, p.multi_processor_count,
                getattr(p, "shared_memory_per_block_optin", 0),
                getattr(p, "shared_memory_per_multiprocessor", 0),
                getattr(p, "L2_cache_size", 0), p.total_memory, clock, bw,
                t.cuda.device_count(), attr.get("driver", 0), attr.get("runtime", 0))

    def arch(self):
        p = self.torch.cuda.get_device_properties(self.device)
        return f"{p.major * 10 + p.minor}"

    def load(self, dtype):
        """Loads (JIT-compiles the first time) the fused-MoE module of this GPU's SM."""
        if self.module is not None:
            return
        from flashinfer.jit import fused_moe as jit_moe
        arch = self.arch()
        gen = {"90": "sm90", "89": "sm89", "100": "sm100", "103": "sm103", "107": "sm100",
               "110": "sm100", "120": "sm120", "121": "sm120"}.get(arch)
        if gen is None:
            raise ValueError(f"FlashInfer has no CUTLASS fused-MoE module for SM{arch}")
        spec = getattr(jit_moe, f"gen_cutlass_fused_moe_{gen}_module")()
        where = spec.get_library_path()
        if spec.is_compiled:
            note(f"loading FlashInfer's fused-MoE module for SM{arch} from {where}")
        else:
            note(f"compiling FlashInfer's fused-MoE module for SM{arch} (minutes, once); "
                 f"FlashInfer caches it in {where}")
        t0 = time.monotonic()
        done = threading.Event()

        def beat():  # progress while nvcc runs, and it keeps the parent's watchdog quiet
            while not done.wait(10):
                note(f"still building the fused-MoE module: {time.monotonic() - t0:.0f} s")

        th = threading.Thread(target=beat, daemon=True)
        th.start()
        try:
            self.module = fused_moe_module(arch)
            from flashinfer.tllm_utils import get_trtllm_utils_module
            get_trtllm_utils_module()  # the delay kernel, before any timing
        finally:
            done.set()
        self._spin_up()

    def _spin_up(self, seconds=0.3):
        """An idle H200 sits at 345 MHz: keep it busy until its clocks are up, so the first
        entries are not timed on a waking GPU."""
        t = self.torch
        a = t.randn((4096, 4096), device="cuda", dtype=t.bfloat16)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for _ in range(8):
                a = (a @ a).clamp_(-1, 1)
            t.cuda.synchronize()

    @property
    def moe_runner(self):
        return moe_runner_class(self.module)

    def _key_runner(self, job):
        """The MoERunner the job's key names. Its arguments are the key's extras by the names of
        the target version's schema (x_dtype ... use_fused_finalize) or, where the version's key
        has none (FlashInfer before 0.6.18), the runner's arguments the job carries (the newest
        schema's fields: src/flashinfer/lookup.h lookup_runner_args); the ranks come from the
        job. The installed MoERunner's signature takes what it names (OLD_NAMES: earlier names of
        the same argument); an argument it needs that the job does not give, or a dtype flag
        set that it does not take, is an error, not a guess."""
        t = self.torch
        values = job["runner"] if job.get("runner") is not None else job["key"][3]
        if len(values) != len(job["key_fields"]):
            raise ValueError(f"{len(values)} runner arguments for {len(job['key_fields'])} names")
        args = {}
        for name, v in zip(job["key_fields"], values):
            args[name] = getattr(t, v.attr()) if isinstance(v, TorchName) else v
        args.update(tp_rank=job["tp_rank"], ep_rank=job["ep_rank"], cluster_rank=0)
        params = [p for p in inspect.signature(self.moe_runner.__init__).parameters if p != "self"]
        given = {p: args[OLD_NAMES.get(p, p)] for p in params if OLD_NAMES.get(p, p) in args}
        missing = [p for p in params if p not in given]
        if missing:
            raise ValueError("the key does not name MoERunner's " + ", ".join(missing))
        taken = {OLD_NAMES.get(p, p) for p in params}
        lost = [f"{n}={args[n]}" for n in args if n not in taken and n not in RUNNER_DROPPED
                and args[n] not in RUNNER_DEFAULTS.get(n, (False,))]
        if lost:
            raise ValueError(f"FlashInfer {self.fi.__version__}'s MoERunner takes no "
                             + ", ".join(lost) + ": it cannot run this dtype or activation")
        if "activation_type" in given:
            from flashinfer.fused_moe.core import ActivationType  # tllm_enums' from 0.6.x
            given["activation_type"] = ActivationType(given["activation_type"])
        rkey = tuple((p, str(given[p])) for p in params)
        if rkey not in self.runners:
            self.runners[rkey] = self.moe_runner(**given)
        return self.runners[rkey], args

    def _tensor(self, shape, dtype, g):
        """Random contents of a key's tensor: floats ~N(0, 0.05^2) (fp8 too), packed integer
        weights (fp4 in uint8 or int64, int4 in uint8) random bytes; None for a (0,) shape
        (no bias). The profiler reads only their shapes (flashinfer-moe-inputs.md)."""
        t = self.torch
        if tuple(shape) == (0,):
            return None
        if dtype.is_floating_point:
            return (t.randn(tuple(shape), device=self.dev, generator=g) * 0.05).to(dtype)
        size = t.empty((), dtype=dtype).element_size()
        raw = t.randint(0, 256, tuple(shape[:-1]) + (shape[-1] * size,), device=self.dev,
                        dtype=t.uint8, generator=g)
        return raw.view(dtype)

    def _inputs(self, runner, shapes, xd, wd, od):
        """The tuner's five inputs of these shapes (a key's: input, fc1, fc1 bias, fc2, fc2 bias):
        the expert weights (kept while the geometry lasts) and the bucket's input from
        FlashInfer's default initializer."""
        t = self.torch
        wkey = (tuple(tuple(x) for x in shapes[1:]), str(wd), str(od))
        if wkey not in self.weights:
            self.weights.clear()  # one geometry at a time: weights can be GBs
            self.gate_cache.clear()
            if self.dev.type == "cuda":
                t.cuda.empty_cache()
            g = t.Generator(device=self.dev).manual_seed(0)
            self.weights[wkey] = (self._tensor(shapes[1], wd, g), self._tensor(shapes[2], od, g),
                                  self._tensor(shapes[3], wd, g), self._tensor(shapes[4], od, g))
        w1, b1, w2, b2 = self.weights[wkey]
        return [tuner_input(runner, t, tuple(shapes[0]), xd, self.dev), w1, b1, w2, b2]

    def _check_key(self, job, runner, inputs):
        """The key FlashInfer's tuner would build for this runner and these inputs is the
        job's: its shapes, and its extras where the version's key has them (AutoTuner's cache
        key, flashinfer-formats.md §3)."""
        t = self.torch
        key = job["key"]
        shapes = tuple(tuple(a.size()) if isinstance(a, t.Tensor) else (0,) for a in inputs)
        want = tuple(str(v) for v in key[3]) if len(key) == 4 else None
        extras = (tuple(str(v) for v in runner.get_cache_key_extras(inputs))
                  if want is not None and hasattr(runner, "get_cache_key_extras") else want)
        if shapes != tuple(tuple(s) for s in key[2]) or extras != want:
            raise ValueError(f"the runner built is not the key's: shapes {shapes}, extras "
                             f"{extras} for {key[2]}, {want}")

    def prepare(self, job):
        """The bucket's inputs as FlashInfer's tuner makes them; returns the valid tactics."""
        from flashinfer.autotuner import AutoTuner
        if not (job.get("key") and job.get("key_fields")):
            raise ValueError("PREP without the entry's key and the runner's arguments")
        self.graphs = {}  # they replay the last entry's buffers, which preparation replaces
        t0 = time.perf_counter()
        runner, args = self._key_runner(job)
        inputs = self._inputs(runner, job["key"][2], args["x_dtype"], args["weight_dtype"],
                              args["output_dtype"])
        self._check_key(job, runner, inputs)
        self.job = dict(job, runner=runner, inputs=inputs, fi=None)
        t1 = time.perf_counter()
        self.stats["inputs_s"] += t1 - t0
        if job.get("for_gate"):  # the gate calls FlashInfer's public API: no profiler state
            return set()
        runner.gemm_idx_for_tuning = job["stage"]
        valid = set(runner.get_valid_tactics(inputs, None))
        t2 = time.perf_counter()
        runner(inputs, tactic=-1, do_preparation=True, gemm_idx=job["stage"])
        if job["method"] == 1:
            tuner = AutoTuner.get()
            self.job["fi"] = (tuner,) + tuple(tuner.prepare_tactic_profile(inputs, runner.tuning_config))
        self.sync()
        self.stats["valid_s"] += t2 - t1
        self.stats["doprep_s"] += time.perf_counter() - t2
        return valid

    def _call(self, tactic):
        j = self.job
        j["runner"](j["inputs"], tactic=tactic, gemm_idx=j["stage"])

    def warm(self, tactic):
        """3 warm-up calls (as FlashInfer), then the GPU time and the host's enqueue time of
        one call, in us."""
        return warm_calls(self.torch, lambda: self._call(tactic))

    def delay(self, us):
        from flashinfer.tllm_utils import delay_kernel
        if us > 0:
            delay_kernel(int(us))

    def capture(self, tactic, reps):
        """The sample start() enqueues (the untimed call, the first event, reps calls, the
        second event) captured once as a CUDA graph of the prepared entry, which start() then
        replays: the host enqueues one graph (~10 us) instead of reps + 1 calls (~50 us each),
        the GPU runs the same kernels in the same order on the same routing samples (the
        capture takes the profiler's next reps + 1, a whole number of cycles as before). True
        when a graph is ready. A capture that fails where the plain call works turns graphs
        off for the process (graph_why says why); one that fails with the call is the
        tactic's own failure, which the plain sample then reports."""
        if self.graph_why is not None:
            return False
        if (tactic, reps) in self.graphs:
            return True
        t = self.torch
        t0 = time.perf_counter()
        try:
            e0 = t.cuda.Event(enable_timing=True, external=True)
            e1 = t.cuda.Event(enable_timing=True, external=True)
        except TypeError:
            self.graph_why = f"torch {t.__version__} records no CUDA events inside a graph"
            return False
        if self.cap_stream is None:
            self.cap_stream = t.cuda.Stream(device=self.dev)
        # each graph its own (empty: the calls allocate nothing) memory pool: a pool shared by
        # graphs that are all freed (a new entry drops them) fails the next capture's assert
        g, err = t.cuda.CUDAGraph(), None
        with t.cuda.stream(self.cap_stream):
            try:
                g.capture_begin()
            except Exception as e:  # noqa: BLE001
                self.graph_why = f"capturing a sample failed: {type(e).__name__}: {e}"
                return False
            try:
                self._call(tactic)
                e0.record()
                for _ in range(reps):
                    self._call(tactic)
                e1.record()
            except Exception as e:  # noqa: BLE001
                err = e
            try:
                g.capture_end()
            except Exception as e:  # noqa: BLE001
                err = err or e
        self.stats["capture_s"] += time.perf_counter() - t0
        if err is None:
            self.graphs[(tactic, reps)] = (g, e0, e1)
            self.stats["captures"] += 1
            return True
        self.stats["capture_failed"] += 1
        try:
            self._call(tactic)
        except Exception:  # noqa: BLE001 -- the tactic fails plain too: its own failure
            return False
        self.graph_why = f"capturing a sample failed: {type(err).__name__}: {err}"
        return False

    def start(self, tactic, reps):
        """Enqueues one untimed call, then reps back-to-back calls between two CUDA events
        (the captured graph of them where capture() made one); elapsed_us() reads them after
        sync()."""
        g = self.graphs.get((tactic, reps))
        if g is not None:
            g[0].replay()
            return g[1], g[2], reps
        return sample_calls(self.torch, lambda: self._call(tactic), reps)

    def elapsed_us(self, handle):
        return elapsed_us(handle)

    def sync(self):
        self.torch.cuda.synchronize()

    def mark(self):
        """An event after the work enqueued so far; wait() blocks until the GPU passed it."""
        e = self.torch.cuda.Event()
        e.record()
        return e

    def wait(self, mark):
        mark.synchronize()

    # --- the correctness gate ---------------------------------------------------------------
    # A tactic's output on the entry's inputs (a routed input of `bucket` tokens) against
    # FlashInfer's output with the default tactics (-1: the first of each list), which itself
    # is checked against a torch MoE in fp32 on the same (dequantised) weights. Bounds (the
    # dtype's, configs/dtypes.yaml `gate`, sent with GATE): the largest absolute difference
    # over the largest absolute reference value, a tactic against the default and the default
    # against torch.

    def _gate_inputs(self):
        """The gate's inputs, reference and FlashInfer's default output for the prepared job,
        made once per job; {"why": text} where the gate cannot build them."""
        j = self.job
        if j.get("gate") is not None:
            return j["gate"]
        t = self.torch
        r = j["runner"]
        _, w1, b1, w2, b2 = j["inputs"]
        # GEMM1's and GEMM2's entries of a bucket run the same MoE: one set of inputs, one
        # reference and one default output for both (while the weights last)
        ckey = (id(r), id(w1), id(w2), j["bucket"])
        cached = self.gate_cache.get(ckey)
        if cached is not None:
            j["gate"] = cached
            return cached
        if len(self.gate_cache) > 64:
            self.gate_cache.clear()
        kind, why = self._call_kind(reference=True)
        if why:
            j["gate"] = {"why": why}
            return j["gate"]
        n, hidden, e_local = j["bucket"], w2.shape[1], w2.shape[0]
        g = t.Generator(device="cuda").manual_seed(4242 + n)
        xin, xref, experts, scales, quant = self._call_inputs(kind, n, None, g)
        act = int(getattr(r, "activation_type", 3))  # Swiglu before 0.5.0 (RUNNER_DEFAULTS)
        ref = torch_moe(t, xref, experts, scales, w1.float(), w2.float(), act, r.ep_rank)
        j["gate"] = {"kind": kind, "x": xin, "experts": experts, "scales": scales, "quant": quant}
        default = self._gate_call(-1)
        j["gate"].update(default=default, ref_rel=compare(t, default, ref)[1])
        self.gate_cache[ckey] = j["gate"]
        return j["gate"]

    def _call_kind(self, reference):
        """(kind, why): the inputs FlashInfer's public cutlass_fused_moe can be called with for
        the prepared job's runner (bf16, fp16, per-tensor fp8), or why not (reference: the
        gate's torch reference must know the activation, and there are no biases)."""
        t, j = self.torch, self.job
        r, b1 = j["runner"], j["inputs"][2]
        kinds = {(t.bfloat16, t.bfloat16): "bf16", (t.float16, t.float16): "fp16",
                 (t.float8_e4m3fn, t.float8_e4m3fn): "fp8"}
        kind = kinds.get((r.x_dtype, r.weight_dtype))
        flags = [f for f in ("use_deepseek_fp8_block_scale", "use_w4_group_scaling",
                             "use_mxfp8_act_scaling", "use_wfp4afp8_humming", "use_packed_weights")
                 if getattr(r, f, False)]
        act = int(getattr(r, "activation_type", 3))  # Swiglu before 0.5.0 (RUNNER_DEFAULTS)
        from flashinfer.fused_moe import cutlass_fused_moe
        why = ("this FlashInfer's cutlass_fused_moe takes no profile_ids (a tactic per GEMM)"
               if "profile_ids" not in inspect.signature(cutlass_fused_moe).parameters else
               "only bf16, fp16 and per-tensor fp8 inputs are built" if kind is None or flags
               else None)
        if why is None and reference:
            why = (f"activation {act} (the gate's torch reference knows {sorted(GATE_ACTS)})"
                   if act not in GATE_ACTS else "experts with biases" if b1 is not None else None)
        return kind, why

    def _call_inputs(self, kind, n, popularity, g):
        """One call's inputs for n tokens: x as FlashInfer takes it and as the reference reads
        it, the experts each token picks (top-k distinct: uniform over every rank's experts
        where popularity is None, else drawn by those weights), softmax scales, and the fp8
        quantisation scales (None for bf16/fp16)."""
        t, j = self.torch, self.job
        r, w2 = j["runner"], j["inputs"][3]
        hidden, e_local = w2.shape[1], w2.shape[0]
        x = t.randn((n, hidden), generator=g, device="cuda")
        if popularity is None:
            experts = t.rand((n, e_local * r.ep_size), generator=g, device="cuda").topk(
                r.top_k, dim=1).indices
        else:
            experts = t.multinomial(popularity.expand(n, -1).contiguous(), r.top_k,
                                    replacement=False, generator=g)
        experts = experts.to(t.int32).contiguous()
        scales = t.softmax(t.randn((n, r.top_k), generator=g, device="cuda"), dim=1).float().contiguous()
        quant = None
        if kind == "fp8":
            # per-tensor fp8 as FlashInfer's fp8 path takes it (cutlass_fused_moe docstring):
            # [fc1 dequant per expert, fc2 activation quant, fc2 dequant per expert, fc1 input dequant]
            fmax = t.finfo(t.float8_e4m3fn).max
            sx = (x.abs().max() / fmax).clamp(min=1e-12)
            xin = (x / sx).clamp(-fmax, fmax).to(t.float8_e4m3fn)
            xref = xin.float() * sx
            quant = [(t.ones(e_local, device="cuda") * sx).float(), t.tensor(1.0, device="cuda"),
                     t.ones(e_local, device="cuda").float(), sx.reshape(()).float()]
        else:
            xin = x.to(r.x_dtype)
            xref = xin.float()
        return xin, xref, experts, scales, quant

    def _moe_call(self, x, experts, scales, quant, ids, out):
        """FlashInfer's public cutlass_fused_moe with tactics ids = [GEMM1's, GEMM2's] on the
        prepared job's runner's weights and settings, into out."""
        from flashinfer.fused_moe import cutlass_fused_moe
        j = self.job
        r = j["runner"]
        _, w1, _, w2, _ = j["inputs"]
        kw = dict(tp_size=r.tp_size, tp_rank=r.tp_rank, ep_size=r.ep_size, ep_rank=r.ep_rank,
                  output=out, profile_ids=ids)
        for name in ("enable_pdl", "activation_type", "use_fused_finalize"):  # where it has them
            if hasattr(r, name):
                kw[name] = getattr(r, name)
        takes = inspect.signature(cutlass_fused_moe).parameters
        cutlass_fused_moe(x, experts, scales, w1, w2, r.output_dtype, quant,
                          **{k: v for k, v in kw.items() if k in takes})

    def layer(self, job, pairs, load):
        """The whole MoE layer (FlashInfer's cutlass_fused_moe: routing, GEMM1, activation,
        GEMM2, finalize) per (GEMM1, GEMM2) tactic pair, as served: load["draws"] calls on as
        many router draws (load["popularity"]: a weight per expert of every rank, None:
        uniform) captured in one CUDA graph, replayed load["reps"] times per round after one
        warm replay; a round times every pair once, in a shuffled order; the time is the
        median over load["rounds"] rounds of graph time / (reps x draws): the expected layer
        time over the router, in us. Yields (g1, g2, status, us, why) per pair, status as a
        RES's (2: it raised)."""
        t = self.torch
        self.prepare(dict(job, for_gate=True))  # the runner and weights, no profiler state
        kind, why = self._call_kind(reference=False)
        if why:
            for g1, g2 in pairs:
                yield g1, g2, 1, float("nan"), why
            return
        r, w2 = self.job["runner"], self.job["inputs"][3]
        n, draws = job["bucket"], max(1, load["draws"])
        g = t.Generator(device="cuda").manual_seed(load["seed"])
        pop = load["popularity"]
        if pop is not None:
            pop = t.tensor(pop, dtype=t.float32, device="cuda")
            if pop.numel() != w2.shape[0] * r.ep_size:
                raise ValueError(f"popularity of {pop.numel()} experts, the layer has "
                                 f"{w2.shape[0] * r.ep_size}")
        calls = [self._call_inputs(kind, n, pop, g) for _ in range(draws)]
        outs = [t.empty((n, w2.shape[1]), dtype=r.output_dtype, device="cuda") for _ in calls]
        stream = t.cuda.Stream()
        # one memory pool for every pair's graph: they are replayed one at a time, never
        # together, and a pool each (the calls' workspaces) would hold GBs at large buckets
        pool = t.cuda.graph_pool_handle()
        graphs, failed = {}, {}
        for g1, g2 in pairs:
            def run_all(ids=(g1, g2)):
                for (x, _, e, s, q), o in zip(calls, outs):
                    self._moe_call(x, e, s, q, list(ids), o)
            try:
                run_all()  # eager first: workspaces and lazy loading outside the capture
                t.cuda.synchronize()
                graph = t.cuda.CUDAGraph()
                with t.cuda.graph(graph, pool=pool, stream=stream):
                    run_all()
                graph.replay()
                t.cuda.synchronize()
                graphs[(g1, g2)] = graph
            except Exception as e:  # noqa: BLE001
                self.exit_if_broken_hook()
                failed[(g1, g2)] = one_line(f"{type(e).__name__}: {e}")
        times = {p: [] for p in graphs}
        order = list(graphs)
        rng = random.Random(load["seed"])
        reps = max(1, load["reps"])
        for _ in range(max(1, load["rounds"])):
            rng.shuffle(order)
            for p in order:
                a, b = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(reps):
                    graphs[p].replay()
                b.record()
                b.synchronize()
                times[p].append(a.elapsed_time(b) * 1000.0 / (reps * draws))
        graphs.clear()
        for g1, g2 in pairs:
            if (g1, g2) in failed:
                yield g1, g2, 2, float("nan"), failed[(g1, g2)]
            else:
                ts = sorted(times[(g1, g2)])
                yield g1, g2, 0, ts[len(ts) // 2], "-"

    def exit_if_broken_hook(self):
        """A capture that broke the CUDA context ends the worker (the parent restarts it)."""
        why = self.broken()
        if why:
            send("FAULT", text=one_line(why, 300))
            sys.exit(3)

    def _gate_call(self, tactic):
        """FlashInfer's public cutlass_fused_moe on the gate's inputs, this tactic at the job's
        stage and the default (-1) at the other."""
        j, t = self.job, self.torch
        r, gi = j["runner"], j["gate"]
        w2 = j["inputs"][3]
        ids = [tactic, -1] if j["stage"] == 1 else [-1, tactic]
        out = t.empty((gi["x"].shape[0], w2.shape[1]), dtype=r.output_dtype, device="cuda")
        self._moe_call(gi["x"], gi["experts"], gi["scales"], gi["quant"], ids, out)
        return out

    def gate(self, tactic, bounds):
        """(verdict, max abs difference, relative difference, why): ok, bad or unchecked.
        bounds: (a tactic against the default, the default against torch)."""
        if bounds[0] <= 0:
            return "unchecked", 0.0, 0.0, "the dtype has no gate bounds (configs/dtypes.yaml)"
        gi = self._gate_inputs()
        if "why" in gi:
            return "unchecked", 0.0, 0.0, gi["why"]
        if gi["ref_rel"] > bounds[1]:
            return "unchecked", 0.0, 0.0, (f"FlashInfer's default tactics differ from the torch "
                                          f"reference by {gi['ref_rel']:.3g} of its largest value "
                                          f"(bound {bounds[1]:g}): the gate cannot judge here")
        out = self._gate_call(tactic)
        if env_id("TUNETAB_TEST_WRONG_TACTIC") == tactic:  # a tactic that computes garbage
            out = out + 0.1 * gi["default"].float().abs().max() * self.torch.randn_like(out.float())
        d_abs, d_rel = compare(self.torch, out, gi["default"].float())
        tol = bounds[0]
        if d_rel > tol:
            return "bad", d_abs, d_rel, (f"differs from FlashInfer's default tactics by {d_rel:.3g} "
                                        f"of their largest value (bound {tol:g})")
        return "ok", d_abs, d_rel, "-"

    def fi_sample(self, tactic):
        j = self.job
        tuner, config, batches = j["fi"]
        ms = tuner.profile_tactic(j["runner"], j["inputs"], tactic, config, batches,
                                  gemm_idx=j["stage"])
        return ms * 1000.0

    def broken(self):
        """The CUDA error that broke the context, or None."""
        try:
            self.torch.cuda.synchronize()
            return None
        except Exception as e:  # noqa: BLE001
            return f"{type(e).__name__}: {e}"


def cuda_attributes(device):
    """Clock, memory clock, bus width and versions through the CUDA runtime torch loaded."""
    import ctypes
    lib = None
    for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if lib is None:
        return {}
    got = {}
    for key, attr in (("clock_khz", 13), ("mem_clock_khz", 36), ("bus_bits", 37)):
        v = ctypes.c_int(0)
        if lib.cudaDeviceGetAttribute(ctypes.byref(v), attr, device) == 0:
            got[key] = v.value
    for key, fn in (("driver", "cudaDriverGetVersion"), ("runtime", "cudaRuntimeGetVersion")):
        v = ctypes.c_int(0)
        if getattr(lib, fn)(ctypes.byref(v)) == 0:
            got[key] = v.value
    return got


# --- the protocol ----------------------------------------------------------------------------

# A screening sample is a whole routing cycle where that takes at most this long (kernels up to
# 40 us at FlashInfer's 16 routings); above it about 100 us of calls. Partial cycles misjudged
# small buckets of DeepSeek-V3 EP 8 by up to 43%, so that runs differed in which near-equal
# tactic they raced (docs/benchmarks.md "Start-up", Tables).
def _silu(t, v):
    return t.nn.functional.silu(v)


# FlashInfer's ActivationType (flashinfer-formats.md §3.3) -> (gated, function) for the gate's
# torch reference. fc1 of a gated activation is [up; gate] (w3 then w1, as TensorRT-LLM's
# fc1 and FlashInfer's W4A8 test build it), so the activation is f(second half) * first half.
GATE_ACTS = {0: (False, lambda t, v: t.nn.functional.gelu(v)),
             1: (False, lambda t, v: t.relu(v)),
             2: (False, _silu),
             3: (True, _silu),
             4: (True, lambda t, v: t.nn.functional.gelu(v)),
             6: (False, lambda t, v: t.relu(v) ** 2)}


def torch_moe(t, x, experts, scales, w1, w2, act, ep_rank):
    """The MoE layer of one rank in fp32: each token's top-k experts of this rank (global ids
    ep_rank*E .. ), fc1, the activation, fc2, weighted by the router's scales."""
    gated, f = GATE_ACTS[act]
    e_local = w2.shape[0]
    out = t.zeros((x.shape[0], w2.shape[1]), device=x.device)
    first = ep_rank * e_local
    hit_ids = [int(v) - first for v in t.unique(experts).tolist() if first <= int(v) < first + e_local]
    for e in hit_ids:  # the experts of this rank any token chose (one synchronization)
        hit = experts == e + first
        rows = hit.any(dim=1)
        h = x[rows] @ w1[e].T
        if gated:
            up, gate = h.chunk(2, dim=-1)
            a = f(t, gate) * up
        else:
            a = f(t, h)
        out[rows] += (scales * hit).sum(dim=1)[rows, None] * (a @ w2[e].T)
    return out


def compare(t, out, ref):
    """The largest absolute difference and that over the largest absolute reference value."""
    d = (out.float() - ref).abs().max().item()
    return d, d / max(ref.abs().max().item(), 1e-30)


SCREEN_CYCLE_US = 640.0

# The worker protocol (docs/development.md "The worker protocol"; src/tune/wire.c holds the same
# table for tunetab's side): every message, both directions, is one line
#   VERB v=3 NAME=VALUE ... [COUNT=N cols=COLUMN,... -- ITEM ...]   (a message with a list)
#   VERB v=3 -- TEXT                                                (ERR and FAULT)
# the names in any order; a reader ignores names (and list columns) it does not know, refuses a
# line of another version (naming both) and one without a field it needs (naming the field). A
# list's items are its columns' values joined by ",", in the order cols= names them. Free text is
# hex ("-" for none); the text of ERR and FAULT, which a reader of any version may have to show,
# is the rest of the line. write() and read() below are the only code that knows the format.
PROTO = 3  # src/tune/wire.h WIRE_VERSION
MAX_ITEMS = 4096


def unhex(word):
    return None if word == "-" else bytes.fromhex(word).decode("utf-8")


class Type:
    """How a field's value is read from its word and written as one."""

    def __init__(self, kind, read, write):
        self.kind, self.read, self.write = kind, read, write


def _word(v):
    if v in (None, ""):
        return "-"
    if len(str(v).split()) != 1:
        raise ValueError(f"not one word: {v!r}")
    return str(v)


INT = Type("int", int, lambda v: "%d" % v)
WORD = Type("word", str, _word)
TEXT = Type("text", unhex, lambda v: "-" if v in (None, "") else str(v).encode("utf-8", "replace").hex())


def REAL(fmt):
    return Type("real(%s)" % fmt, float, lambda v: fmt % v)


class Msg:
    """One message: its fields [(name, Type) or (name, Type, default): may be absent], and its
    list (count: the field that counts the items, cols: their columns, as fields) or, with
    text, the free text after "--"."""

    def __init__(self, fields=(), count=None, cols=(), text=False):
        self.fields, self.count, self.cols, self.text = list(fields), count, list(cols), text


# a job of the CUTLASS fused MoE (JOB, PREP, GATE): one MoE stage's GEMM at one token bucket, per
# rank; KEY: the entry's FlashInfer key, its extras' names and the runner's arguments
JOB = [(n, WORD if n == "dtype" else INT) for n in (
    "dtype", "batch", "tokens", "features", "k", "rounds", "reps", "method", "stage", "bucket",
    "hidden", "inter", "local_experts", "top_k", "tp", "tp_rank", "ep", "ep_rank", "act", "biases",
    "fused_finalize")]
KEY = [("key", TEXT), ("key_fields", TEXT), ("runner_args", TEXT)]
IDS = [("id", INT)]
REQUEST, REPLY = "request", "reply"
MESSAGES = {
    REQUEST: {
        "WHO": Msg(),
        "INFO": Msg(),
        "LOAD": Msg([("dtype", WORD)]),
        "JOB": Msg(JOB, "cands", [("id", INT), ("tile_m", INT), ("tile_n", INT), ("cluster_m", INT),
                                  ("cluster_n", INT), ("stages", INT), ("swap", INT), ("sm80", INT)]),
        "PREP": Msg(JOB + KEY, "cands", IDS),
        "GATE": Msg([("bound", REAL("%.6g")), ("ref_bound", REAL("%.6g"))] + JOB + KEY, "cands", IDS),
        # reps: the calls of a candidate's sample, sized by the parent (0: the worker's)
        "ROUND": Msg([("method", INT), ("min_reps", INT)], "cands", [("id", INT), ("reps", INT, 0)]),
        "CAL": Msg([], "tiles", [("tile_m", INT), ("tile_n", INT)]),
        "OPTEST": Msg([("op", WORD), ("runner", WORD)]),
        # and the op's call fields (OP_COMMON, the op's own); tactic: its JSON text (none: the
        # integer tactic id)
        "OPPROF": Msg([("bucket", INT), ("reps", INT), ("gate", INT)], "cands",
                      [("id", INT), ("tactic", TEXT, None)]),
        # the whole MoE layer per (GEMM1, GEMM2) pair under a routing load (issue #49): the
        # job is GEMM1's entry's (its runner and weights); popularity: a weight per expert of
        # every rank, comma-separated ("-": uniform, as FlashInfer's profiler routes)
        "LAYER": Msg([("load", WORD), ("popularity", TEXT), ("draws", INT), ("layer_reps", INT),
                      ("layer_rounds", INT), ("seed", INT)] + JOB + KEY, "pairs",
                     [("g1", INT), ("g2", INT)]),
    },
    REPLY: {
        "WHO": Msg([("backend", WORD), ("version", WORD), ("torch", WORD), ("detail", TEXT)]),
        "DEV": Msg([("name", TEXT), ("cc_major", INT), ("cc_minor", INT), ("sms", INT),
                    ("smem_optin", INT), ("smem_sm", INT), ("l2", INT), ("mem", INT),
                    ("clock_khz", INT), ("mem_bw_gbs", REAL("%.1f")), ("visible", INT),
                    ("driver", INT), ("runtime", INT), ("blaslt", INT)]),
        "NOTE": Msg([("text", TEXT)]),
        "OK": Msg([("seconds", REAL("%.3f"))]),
        "START": Msg(IDS),
        "RES": Msg([("id", INT), ("status", INT), ("median_us", REAL("%.4f")), ("lo_us", REAL("%.4f")),
                    ("hi_us", REAL("%.4f")), ("samples", INT), ("why", TEXT)]),
        "READY": Msg([("id", INT), ("reps", INT)]),
        "T": Msg([("id", INT), ("us", REAL("%.4f"))]),
        "F": Msg([("id", INT), ("why", TEXT)]),
        "G": Msg([("id", INT), ("verdict", WORD), ("max_abs", REAL("%.6g")), ("rel", REAL("%.6g")),
                  ("why", TEXT)]),
        # a pair's layer time (us a call, the mean over the draws; status as RES's)
        "L": Msg([("g1", INT), ("g2", INT), ("status", INT), ("us", REAL("%.4f")), ("why", TEXT)]),
        "END": Msg(),
        "CAL": Msg([("copy_gbs", REAL("%.2f")), ("tflops_bf16", REAL("%.2f")), ("tflops_fp8", REAL("%.2f"))],
                   "tiles", [("tile_m", INT), ("tile_n", INT), ("eff_bf16", REAL("%.4f")),
                             ("eff_fp8", REAL("%.4f"))]),
        "OPTEST": Msg([("status", WORD), ("detail", TEXT)]),
        "OPPROF": Msg([("timed", INT), ("win", TEXT), ("win_us", REAL("%.4f")),
                       ("fallback_us", REAL("%.4f")), ("verdict", WORD), ("detail", TEXT)]),
        "ERR": Msg(text=True),
        "FAULT": Msg(text=True),
    },
}
VERBS = set(MESSAGES[REQUEST]) | set(MESSAGES[REPLY])


class ProtocolError(ValueError):
    """A request this worker cannot read: its text is the ERR line's."""


def write(verb, direction=REPLY, items=(), extra=(), **fields):
    """A message's line (without its newline): fields by name (ERR's and FAULT's text as
    text=), extra name=value words beside them (an op's call fields), the list's items (dicts
    by column)."""
    m = MESSAGES[direction][verb]
    words = [verb, "v=%d" % PROTO]
    words += ["%s=%s" % (f[0], f[1].write(fields[f[0]])) for f in m.fields]
    words += ["%s=%s" % kv for kv in extra]
    if m.count:
        words += ["%s=%d" % (m.count, len(items)), "cols=" + ",".join(c[0] for c in m.cols), "--"]
        words += [",".join(c[1].write(it.get(c[0], c[2] if len(c) > 2 else None)) for c in m.cols)
                  for it in items]
    if m.text:
        words += ["--", " ".join(str(fields["text"]).split())]
    return " ".join(words)


def send(verb, **kw):
    out(write(verb, **kw))


def res(c, status, why):
    """RES of a candidate not timed: status 1 (not valid here) or 2 (failed), and why."""
    send("RES", id=c, status=status, median_us=0, lo_us=0, hi_us=0, samples=0, why=why)


def check_version(verb, words, direction=REQUEST):
    """Refuses a line of another protocol version (the version first: such a line may mean other
    things by its words), or one that is not the protocol's."""
    v = None
    for w in words:
        if w == "--":
            break
        if w.startswith("v=") and w[2:].isascii() and w[2:].isdigit() and len(w) < 12 and v is None:
            v = w[2:]  # the first v= with a number (not a word of an older version's free text)
    if (v == str(PROTO) and verb not in MESSAGES[direction]) or (v is None and verb not in VERBS):
        line = " ".join([verb] + words)
        raise ProtocolError(f"not a {direction} of the worker protocol: "
                            f"'{line[:100]}{'...' if len(line) > 100 else ''}'")
    if v == str(PROTO):
        return
    theirs = v[:16] if v is not None else "2 or older"
    if direction == REQUEST:
        raise ProtocolError(f"tunetab speaks protocol {theirs}, this worker {PROTO} "
                            f"(its {verb} line{'' if v is not None else ', without v='})")
    raise ProtocolError(f"the worker speaks protocol {theirs}, tunetab {PROTO}")


def read(verb, words, m=None, direction=REQUEST):
    """A line's words after its verb, read as its message (MESSAGES[direction][verb], or m):
    (fields, items): each field m lists (one with a default may be absent), names it does not
    list ignored; the list's items as dicts by column (columns it does not list ignored), or
    the text after "--" as fields["text"]."""
    check_version(verb, words, direction)
    m = m or MESSAGES[direction][verb]
    kv, tail = {}, None
    for i, w in enumerate(words):
        if w == "--":
            tail = words[i + 1:]
            break
        name, eq, value = w.partition("=")
        if not eq:
            raise ProtocolError(f"{verb}: '{w}' is not name=value")
        kv[name] = value
    if m.text:
        return {"text": " ".join(tail or [])}, None
    got = {}
    for f in m.fields:
        name, typ = f[0], f[1]
        if name not in kv:
            if len(f) > 2:
                got[name] = f[2]
                continue
            raise ProtocolError(f"{verb} without '{name}'")
        try:
            got[name] = typ.read(kv[name])
        except ValueError:
            raise ProtocolError(f"{verb}: bad value '{name}={kv[name]}'") from None
    if not m.count:
        return got, None
    for name in (m.count, "cols"):
        if name not in kv:
            raise ProtocolError(f"{verb} without '{name}'")
    try:
        n = int(kv[m.count])
        if not 0 <= n <= MAX_ITEMS:
            raise ValueError
    except ValueError:
        raise ProtocolError(f"{verb}: bad value '{m.count}={kv[m.count]}'") from None
    if tail is None:
        raise ProtocolError(f"{verb} without '--' before its items")
    if len(tail) != n:
        raise ProtocolError(f"{verb}: {m.count}={n} but {len(tail)} items after '--'")
    names = kv["cols"].split(",")
    cols = {c[0]: c for c in m.cols}
    for c in m.cols:
        if c[0] not in names and len(c) <= 2:
            raise ProtocolError(f"{verb}: its items lack the column '{c[0]}'")
    items = []
    for it in tail:
        vals = it.split(",")
        if len(vals) != len(names):
            raise ProtocolError(f"{verb}: bad item '{it}' (its columns: {kv['cols']})")
        row = {c[0]: c[2] for c in m.cols if len(c) > 2}
        try:
            row.update((nm, cols[nm][1].read(v)) for nm, v in zip(names, vals) if nm in cols)
        except ValueError:
            raise ProtocolError(f"{verb}: bad item '{it}' (its columns: {kv['cols']})") from None
        items.append(row)
    return got, items


def table():
    """The messages as `tunetab __worker --table` prints tunetab's (tests/cli/190 compares them)."""
    lines = []
    for direction in (REQUEST, REPLY):
        for verb, m in MESSAGES[direction].items():
            words = [direction, verb] + ["%s:%s" % (f[0], f[1].kind) for f in m.fields]
            if m.count:
                words.append("%s=[%s]" % (m.count, ",".join("%s:%s" % (c[0], c[1].kind) for c in m.cols)))
            if m.text:
                words.append("--text")
            lines.append(" ".join(words))
    return lines


class TorchName(str):
    """A torch dtype as a key prints it (torch.bfloat16): str() gives that text back."""

    def attr(self):
        return self[len("torch."):]


def parse_key(text):
    """A FlashInfer tuning key's text (str() of its tuple, flashinfer-formats.md §3) as a
    tuple, its torch dtypes as TorchName."""
    lit = re.sub(r"\btorch\.(\w+)", r'"@torch.\1"', text)
    def conv(v):
        if isinstance(v, tuple):
            return tuple(conv(x) for x in v)
        if isinstance(v, str) and v.startswith("@torch."):
            return TorchName(v[1:])
        return v
    return conv(ast.literal_eval(lit))


def parse_job(verb, words):
    """A PREP's or GATE's fields (read): the job (JOB, the GATE's bounds, its key and the
    runner's arguments parsed, as key and runner, and the names of its extras as key_fields)
    and the candidates' ids."""
    job, cands = read(verb, words)
    key, fields, runner = job.pop("key"), job.pop("key_fields"), job.pop("runner_args")
    job["key"] = parse_key(key) if key else None
    job["key_fields"] = fields.split(",") if fields else None
    job["runner"] = parse_key(runner) if runner else None
    return job, [c["id"] for c in cands]


# --- ops beside the CUTLASS fused MoE (issue #39) --------------------------------------------
# One generic path: an op class in OPS knows its FlashInfer runner, the tensors the server's call
# hands FlashInfer's tuner (built from the job's named fields for m tokens), FlashInfer's own
# TuningConfig for that call, a dequantized fp32 reference of its output and the SMs its modules
# are built for. OpKernels times any of them with the MoE path's machinery (Worker.prep/round:
# warm, start, elapsed_us behind the delay kernel); profile_op and OPTEST use the same calls.

def _rup(x, y):
    return (x + y - 1) // y * y


def _cc_text(ccs):
    return ", ".join(f"SM{c}" for c in sorted(ccs))


def _where(obj):
    """file:line of a FlashInfer object, relative to the package (for OPTEST's detail)."""
    try:
        f = inspect.getsourcefile(obj)
        line = inspect.getsourcelines(obj)[1]
        root = os.path.dirname(importlib.import_module("flashinfer").__file__ or "")
        return f"{os.path.relpath(f, root) if root else f}:{line}"
    except Exception:  # noqa: BLE001
        return getattr(obj, "__name__", "?")


# e2m1 code -> value (sign bit 3, exponent bits 2-1, mantissa bit 0); a byte holds two, the
# first element in the low nibble
E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)


def e2m1_to_float(t, packed):
    """uint8 [..., K/2] -> float32 [..., K]."""
    lut = t.tensor(E2M1, dtype=t.float32, device=packed.device)
    lo, hi = (packed & 0x0F).long(), (packed >> 4).long()
    return t.stack((lut[lo], lut[hi]), dim=-1).reshape(*packed.shape[:-1], packed.shape[-1] * 2)


def unswizzle_128x4(t, sf, rows, cols):
    """A 128x4-swizzled block-scale matrix (storage [rows/128][cols/4][32][4][4], FlashInfer's
    layout_128x4) as a float32 (rows, cols) matrix of its fp8-e4m3 values."""
    rp, cp = _rup(rows, 128), _rup(cols, 4)
    s = sf.contiguous().view(t.uint8).view(t.float8_e4m3fn).reshape(rp // 128, cp // 4, 32, 4, 4)
    return s.permute(0, 3, 2, 1, 4).reshape(rp, cp)[:rows, :cols].float()


def random_e2m1(t, shape, dev, g):
    return t.randint(0, 256, tuple(shape), dtype=t.uint8, device=dev, generator=g)


def random_scales(t, shape, dev, g):
    """fp8-e4m3 block scales in [0.25, 1): finite, positive."""
    return (t.rand(tuple(shape), device=dev, generator=g) * 0.75 + 0.25).to(t.float8_e4m3fn)


class OpInputs(list):
    """The tensors FlashInfer's tuner gets (a list, as choose_one's inputs), with the keyword
    arguments the op's choose_one passes the runner (kwargs)."""
    kwargs = {}


class Fp4Gemm:
    """fp4_gemm (mm_fp4, gemm/gemm_base.py): a [m, k] x [n, k]^T NVFP4 GEMM, as SGLang's and
    vLLM's NVFP4 linear layers call it (weight padded to 32 in N and K, b = weight.T, the
    128x4-swizzled scales, a 0-d float32 alpha, out allocated by mm_fp4 as (m, N padded))."""
    name = "fp4_gemm"
    runners = ("CutlassFp4GemmRunner", "CuteDSLFp4GemmRunner")
    fields = {"n": int, "k": int, "out": str}
    selftest = dict(n=256, k=512, out="bfloat16", m=64)
    bounds = (0.02, 0.1)  # the gate's (against the default, the default against the reference)

    @staticmethod
    def rule(fi, runner):
        """(the supported CCs, where FlashInfer says so, what else)."""
        gb = importlib.import_module("flashinfer.gemm.gemm_base")
        if runner == "CutlassFp4GemmRunner":
            req = gb._cutlass_gemm_fp4_requirement
            return set(req._supported_ccs), _where(req), "CUTLASS modules"
        req = gb._cute_dsl_gemm_fp4_requirement
        # on SM12x backend "cute-dsl" is another runner (Sm12xCuTeFp4GemmRunner):
        # _cute_dsl_gemm_fp4_runner returns CuteDSLFp4GemmRunner for major 10 only
        return ({c for c in req._supported_ccs if c // 10 == 10},
                f"{_where(req)}, {_where(gb._cute_dsl_gemm_fp4_runner)}", "CuTe-DSL kernels")

    @staticmethod
    def in_build(fi, runner):
        gb = importlib.import_module("flashinfer.gemm.gemm_base")
        need = {"CutlassFp4GemmRunner": "get_cutlass_fp4_gemm_module",
                "CuteDSLFp4GemmRunner": "_cute_dsl_gemm_fp4_runner"}.get(runner)
        if need is None:
            return f"fp4_gemm has no runner {runner} here (FlashInfer's are {', '.join(Fp4Gemm.runners)})"
        if not hasattr(gb, need) or not hasattr(gb, "_MM_FP4_TUNING_CONFIG_128x4"):
            return f"FlashInfer {fi.__version__}'s gemm_base has no {need}"
        return None

    @staticmethod
    def runner(fi, job, cc=None):
        """FlashInfer's runner as mm_fp4 builds it for this GPU (backend_to_runner_factory)."""
        gb = importlib.import_module("flashinfer.gemm.gemm_base")
        t = importlib.import_module("torch")
        major, minor = cc if cc else t.cuda.get_device_capability()
        if job["runner"] == "CutlassFp4GemmRunner":
            return gb.get_cutlass_fp4_gemm_module(major, minor).cutlass_fp4_gemm_runner()
        return gb._cute_dsl_gemm_fp4_runner(major, minor, True, getattr(t, job["out"]), True)

    @staticmethod
    def inputs(job, m, device, g=None):
        """[a, b, a_descale, b_descale, alpha, out_dtype, out, block_size, use_nvfp4, workspace]
        as mm_fp4 hands them to its tuner (gemm_base.py mm_fp4): SGLang's weight scales are
        fp8 (weight_scale_interleaved), vLLM's viewed as uint8; the activation's uint8."""
        import torch as t
        gb = importlib.import_module("flashinfer.gemm.gemm_base")
        n, k = _rup(job["n"], 32), _rup(job["k"], 32)
        ksf = _rup(k // 16, 4)
        if g is None:
            g = t.Generator(device=device).manual_seed(1234 + m)
        a = random_e2m1(t, (m, k // 2), device, g)
        w = random_e2m1(t, (n, k // 2), device, g)
        a_sf = random_scales(t, (_rup(m, 128), ksf), device, g).view(t.uint8)
        w_sf = random_scales(t, (_rup(n, 128), ksf), device, g)
        if job.get("consumer") == "vllm":
            w_sf = w_sf.view(t.uint8)
        alpha = t.tensor(1.0 / 64, dtype=t.float32, device=device)
        odt = getattr(t, job["out"])
        out = t.empty((m, n), dtype=odt, device=device)
        if t.device(device).type == "cuda":
            ws = gb._get_stream_cache_buf("mm_fp4_workspace", gb.DEFAULT_WORKSPACE_SIZE, t.device(device))
        else:  # what _get_stream_cache_buf allocates, on the CPU (it asks CUDA for the stream)
            ws = t.empty(gb.DEFAULT_WORKSPACE_SIZE, dtype=t.uint8, device=device)
        x = OpInputs([a, w.T, a_sf, w_sf.T, alpha, odt, out, 16, True, ws])
        x.kwargs = {}
        return x

    @staticmethod
    def tuning_config(job, inputs=None):
        gb = importlib.import_module("flashinfer.gemm.gemm_base")
        return gb._MM_FP4_TUNING_CONFIG_128x4  # use_8x4_sf_layout=False, a 0-d alpha

    @staticmethod
    def output(result, inputs):
        return inputs[6]

    @staticmethod
    def reference(inputs):
        """alpha * dequant(a) @ dequant(w)^T in fp32, (m, N padded)."""
        import torch as t
        a, b, a_sf, b_sf, alpha = inputs[:5]
        m, k = a.shape[0], a.shape[1] * 2
        n = b.shape[1]
        af = e2m1_to_float(t, a).reshape(m, k // 16, 16) * \
            unswizzle_128x4(t, a_sf, m, k // 16)[:, :, None]
        wf = e2m1_to_float(t, b.T.contiguous()).reshape(n, k // 16, 16) * \
            unswizzle_128x4(t, b_sf.T, n, k // 16)[:, :, None]
        return float(alpha) * (af.reshape(m, k) @ wf.reshape(n, k).T)


class TrtllmFp4Moe:
    """flashinfer::trtllm_fp4_block_scale_moe (fused_moe/core.py): the trtllm-gen NVFP4 MoE as
    vLLM's monolithic class (logits) and SGLang's flashinfer_trtllm runner (logits or routed)
    call it: hidden_states (T, H/2) uint8 with a linear (T, H/16) fp8 scale, shuffled weights,
    finalize on or off."""
    name = "flashinfer::trtllm_fp4_block_scale_moe"
    runners = ("MoERunner",)
    fields = {"hidden": int, "inter": int, "experts": int, "local_experts": int,
              "local_expert_offset": int, "top_k": int, "shared": int, "routing": str,
              "finalize": int, "act_dtype": str, "weight_dtype": str, "activation": int,
              "layout": int, "shuffled": int, "packed": int, "per_token": int,
              "hidden_output": int}
    # fields not in the key that the call still needs (optional, with these defaults)
    optional = {"routing_method": (int, 1), "n_group": (int, 0), "topk_group": (int, 0),
                "logits_dtype": (str, "bfloat16")}
    selftest = dict(hidden=1024, inter=256, experts=8, local_experts=8, local_expert_offset=0,
                    top_k=2, shared=0, routing="logits", finalize=1, act_dtype="e2m1",
                    weight_dtype="e2m1", activation=3, layout=0, shuffled=1, packed=0,
                    per_token=0, hidden_output=1024, m=16)
    bounds = (0.25, 1.25)  # GEMM2's input is requantized to fp4

    @staticmethod
    def rule(fi, runner):
        """The trtllm-gen cubins it dispatches to (jit/trtllm_gen_metainfo.py): Blackwell's and
        Rubin's. Its module compiles for majors 10 and 12 (jit/fused_moe.py), but holds no
        kernel for SM12x."""
        mi = importlib.import_module("flashinfer.jit.trtllm_gen_metainfo")
        archs = tuple(mi.BLACKWELL_CUBIN_ARCHS) + tuple(getattr(mi, "RUBIN_CUBIN_ARCHS", ()))
        ccs = set()
        for a in archs:  # "Sm100a", "Sm100f" (the 10.x family: 100, 103), "Sm103a", "Sm107a"
            cc = int(re.sub(r"\D", "", a))
            ccs.add(cc)
        src = inspect.getsourcefile(mi)
        line = next((i + 1 for i, s in enumerate(open(src)) if s.startswith("BLACKWELL_CUBIN_ARCHS")), 0)
        return ccs, f"jit/trtllm_gen_metainfo.py:{line}", "trtllm-gen cubins"

    @staticmethod
    def in_build(fi, runner):
        if runner != "MoERunner":
            return f"trtllm_fp4_block_scale_moe has no runner {runner} (FlashInfer's is MoERunner)"
        try:
            importlib.import_module("flashinfer.fused_moe.backends.trtllm").MoERunner
            core = importlib.import_module("flashinfer.fused_moe.core")
            core.get_trtllm_moe_sm100_module
        except (ImportError, AttributeError) as e:
            return f"FlashInfer {fi.__version__} has no trtllm-gen MoERunner ({e})"
        return None

    @staticmethod
    def runner(fi, job, moe_op=None):
        """MoERunner as trtllm_fp4_block_scale_moe_op builds it (core.py), its moe_op the JIT
        module's loaded library (the extras' 'Module')."""
        import torch as t
        from flashinfer.fused_moe.backends.trtllm import MoERunner
        from flashinfer.tllm_enums import DtypeTrtllmGen, Fp8QuantizationType, WeightLayout
        if moe_op is None:
            core = importlib.import_module("flashinfer.fused_moe.core")
            dev = t.device("cuda", t.cuda.current_device())
            ns = core._get_trtllm_moe_sm100_module_impl(core.get_compute_capability(dev) == (10, 7))
            moe_op = TrtllmFp4Moe._moe_op(ns)
        dt = {"e2m1": DtypeTrtllmGen.E2m1, "mxe2m1": DtypeTrtllmGen.MxE2m1}
        return MoERunner(
            moe_op, top_k=job["top_k"], num_local_experts=job["local_experts"],
            dtype_act=dt[job["act_dtype"]], dtype_weights=dt[job["weight_dtype"]],
            fp8_quantization_type=Fp8QuantizationType.NoneFp8, hidden_size=job["hidden"],
            hidden_size_output=job["hidden_output"], intermediate_size=job["inter"],
            activation_type=job["activation"], weight_layout=WeightLayout(job["layout"]),
            use_shuffled_weight=bool(job["shuffled"]), use_packed_weights=bool(job["packed"]),
            use_per_token_scaling=bool(job["per_token"]), num_experts=job["experts"],
            num_fused_shared_experts=job["shared"])

    @staticmethod
    def _moe_op(ns):
        """The loaded module inside the namespace _build_trtllm_moe_namespace returns: the
        object whose trtllm_fp4_block_scale_moe the op calls (its closure's moe_op)."""
        f = getattr(ns, "trtllm_fp4_block_scale_moe")
        f = getattr(f, "__wrapped__", f)
        code = getattr(f, "__code__", None)
        if code is not None and "moe_op" in code.co_freevars:
            return f.__closure__[code.co_freevars.index("moe_op")].cell_contents
        raise ValueError("cannot find the trtllm-gen module's moe_op")

    @staticmethod
    def inputs(job, m, device, g=None):
        """MoeRunnerInputs.to_list() as trtllm_fp4_block_scale_moe_op hands it to choose_one,
        its kwargs the op's runner_kwargs (weights, scales, routing arguments)."""
        import torch as t
        from flashinfer.fused_moe.shared.inputs import MoeRunnerInputs, RoutingInputMode
        if g is None:
            g = t.Generator(device=device).manual_seed(4321 + m)
        H, I, E = job["hidden"], job["inter"], job["experts"]
        el, nfse = job["local_experts"], job["shared"]
        kk = job["top_k"] + nfse
        hs = random_e2m1(t, (m, H // 2), device, g)
        hs_sf = random_scales(t, (m, H // 16), device, g)  # linear, not swizzled
        gated = job["activation"] in (3, 4, 7, 10)
        rows1 = (2 if gated else 1) * I
        w1 = random_e2m1(t, (el + nfse, rows1, H // 2), device, g)
        w1_sf = random_scales(t, (el + nfse, rows1, H // 16), device, g)
        w2 = random_e2m1(t, (el + nfse, job["hidden_output"], I // 2), device, g)
        w2_sf = random_scales(t, (el + nfse, job["hidden_output"], I // 16), device, g)
        one = t.ones(el + nfse, dtype=t.float32, device=device)
        if job["routing"] == "logits":
            mode = RoutingInputMode.FromLogits
            logits = t.randn((m, E), device=device, generator=g).to(getattr(t, job["logits_dtype"]))
            ids = t.empty((m, kk), dtype=t.int32, device=device)
            wts = t.empty((m, kk), dtype=t.bfloat16, device=device)
        else:  # routed: SGLang's/vLLM's (ids, weights) tuple, UnpackedPrecomputed
            mode = RoutingInputMode.UnpackedPrecomputed
            logits = None
            ids = t.rand((m, E), device=device, generator=g).topk(job["top_k"], dim=1).indices.to(t.int32)
            wts = t.softmax(t.randn((m, job["top_k"]), device=device, generator=g), dim=1).float()
        out = t.empty((m, job["hidden_output"] if job["finalize"] else 0), dtype=t.bfloat16,
                      device=device)
        mi = MoeRunnerInputs(output=out, routing_logits=logits, topk_ids=ids, expert_weights=wts,
                             hidden_states=hs, hidden_states_scale=hs_sf, gemm1_lora_delta=None,
                             per_token_scale=None)
        x = OpInputs(mi.to_list())
        x.moe_inputs, x.mode = mi, mode
        x.kwargs = dict(
            workspace_buffer=None, routing_input_mode=int(mode), num_experts=E, routing_bias=None,
            gemm1_weights=w1, gemm1_weights_scale=w1_sf, gemm1_bias=None, gemm1_alpha=None,
            gemm1_beta=None, gemm1_clamp_limit=None, gemm2_weights=w2, gemm2_weights_scale=w2_sf,
            gemm2_bias=None, output1_scale_scalar=one, output1_scale_gate_scalar=one.clone(),
            output2_scale_scalar=one.clone(), n_group=job["n_group"], topk_group=job["topk_group"],
            local_expert_offset=job["local_expert_offset"], routed_scaling_factor=None,
            routing_method_type=job["routing_method"], enable_pdl=None, do_finalize=bool(job["finalize"]),
            activation_type=job["activation"], num_fused_shared_experts=nfse, norm_topk_prob=True,
            routing_replay_out=None, valid_hidden_size=None, valid_intermediate_size=None)
        return x

    @staticmethod
    def tuning_config(job, inputs, runner=None):
        """runner._make_tuning_config as the op calls it (tune_max: the consumer's
        tune_max_num_tokens)."""
        from flashinfer.tllm_enums import SfLayout
        return runner._make_tuning_config(
            inputs.moe_inputs, tune_max_num_tokens=job["tune_max"], routing_input_mode=inputs.mode,
            hidden_states_scale_layout=SfLayout.layout_linear, use_cold_l2_cache=True,
            use_cuda_graph=True)

    @staticmethod
    def output(result, inputs):
        return result[0] if isinstance(result, (list, tuple)) else result

    @staticmethod
    def reference(inputs):
        """The routed expert sum in fp32 on the dequantized tensors (SwiGLU on GEMM1's [up; gate]
        halves, the router's top-k renormalized by softmax; finalize on). The weights are taken
        as the kernel reads them only if they were prepared (shuffled) by prepare_weights."""
        import torch as t
        kw = inputs.kwargs
        hs, hs_sf = inputs[4], inputs[5]
        m, H = hs.shape[0], hs.shape[1] * 2
        x = (e2m1_to_float(t, hs).reshape(m, H // 16, 16) * hs_sf.float()[:, :, None]).reshape(m, H)
        ref = kw["ref_weights"]
        w1, w2 = ref["w1"], ref["w2"]
        k = kw["top_k_ref"]
        if inputs[1] is not None:
            top = inputs[1].float().topk(k, dim=1)
            experts, scales = top.indices, t.softmax(top.values, dim=1)
        else:
            experts, scales = inputs[2].long(), inputs[3].float()
        return torch_moe(t, x, experts, scales, w1, w2, 3, 0)


OPS = {c.name: c for c in (Fp4Gemm, TrtllmFp4Moe)}
OP_COMMON = {"op": str, "runner": str, "consumer": str, "tune": str, "m": int, "tune_max": int}


def prepare_moe_weights(t, x):
    """The gate's MoE weights: the random ones as logical [up; gate] rows, dequantized to fp32
    for the reference, then laid out as the kernel reads them with FlashInfer's own helpers
    (core._maybe_get_cached_w3_w1_permute_indices / get_w2_permute_indices_with_cache with
    epilogue_tile_m 128, block_scale_interleave), as FlashInfer's tests prepare them. Scales are
    made small enough that GEMM1's output is not clipped by its fp4 requantization (scalars 1)."""
    core = importlib.import_module("flashinfer.fused_moe.core")
    from flashinfer.quantization.fp4_quantization import block_scale_interleave
    kw = x.kwargs
    w1, w2 = kw["gemm1_weights"], kw["gemm2_weights"]
    e, r1, h2 = w1.shape
    hout, i2 = w2.shape[1], w2.shape[2]
    s1 = (kw["gemm1_weights_scale"].float() / 32).to(t.float8_e4m3fn)
    s2 = (kw["gemm2_weights_scale"].float() / 32).to(t.float8_e4m3fn)
    deq = lambda w, s: (e2m1_to_float(t, w).reshape(*w.shape[:-1], -1, 16) * s.float()[..., None]).reshape(*w.shape[:-1], -1)
    kw["ref_weights"] = {"w1": deq(w1, s1), "w2": deq(w2, s2)}
    cache = {}
    w1s, s1s, w2s, s2s = [], [], [], []
    for j in range(e):
        p = core._maybe_get_cached_w3_w1_permute_indices(cache, w1[j], 128)
        w1s.append(w1[j][p.to(w1.device)].contiguous())
        p = core._maybe_get_cached_w3_w1_permute_indices(cache, s1[j].view(t.uint8), 128, num_elts_per_sf=16)
        s1s.append(block_scale_interleave(s1[j].view(t.uint8)[p.to(w1.device)].contiguous()))
        p = core.get_w2_permute_indices_with_cache(cache, w2[j], 128)
        w2s.append(w2[j][p.to(w2.device)].contiguous())
        p = core.get_w2_permute_indices_with_cache(cache, s2[j].view(t.uint8), 128, num_elts_per_sf=16)
        s2s.append(block_scale_interleave(s2[j].view(t.uint8)[p.to(w2.device)].contiguous()))
    kw["gemm1_weights"] = t.stack(w1s)
    kw["gemm1_weights_scale"] = t.stack(s1s).view(t.float8_e4m3fn).reshape(e, r1, h2 * 2 // 16)
    kw["gemm2_weights"] = t.stack(w2s)
    kw["gemm2_weights_scale"] = t.stack(s2s).view(t.float8_e4m3fn).reshape(e, hout, i2 * 2 // 16)


class OpKernels:
    """An op's runner on one GPU, with the interface Worker.prep/round/gate use (Kernels'):
    prepare, warm, start, elapsed_us, gate; the rest (delay kernel, sync, events, info) is the
    base Kernels'. Candidates are the PREP's ids; their tactics come with them (ID,HEX)."""

    routing_cycle = 1
    capture = None
    graph_why = "off for ops"

    def __init__(self, base):
        self.base = base
        self.stats = base.stats
        self.job = None
        self.runners = {}
        self.delay_loaded = False

    def __getattr__(self, name):  # delay, sync, mark, wait, broken, who, info
        return getattr(self.base, name)

    def load(self, dtype=None):
        if not self.delay_loaded:
            from flashinfer.tllm_utils import get_trtllm_utils_module
            get_trtllm_utils_module()  # the delay kernel, before any timing
            self.base._spin_up()
            self.delay_loaded = True

    def _runner(self, op, job):
        rkey = (op.name, job["runner"]) + tuple((f, job[f]) for f in sorted(op.fields))
        if rkey not in self.runners:
            self.runners[rkey] = op.runner(self.base.fi, job)
        return self.runners[rkey]

    def usable(self, name, runner):
        """None, or why this GPU cannot run the op's runner here (op_usable's words)."""
        got = op_usable(self.base, OPS[name], runner)
        return None if got is None else got[1]

    def prepare(self, job):
        """The bucket's inputs as the op's call hands them to FlashInfer's tuner; returns the ids
        of the candidates whose tactic the runner lists (get_valid_tactics). A job whose
        tactics are None takes the runner's list itself, ids its places (tactic())."""
        op = OPS[job["op"]]
        t = self.base.torch
        t0 = time.perf_counter()
        self.load()
        runner = self._runner(op, job)
        inputs = op.inputs(job, job["bucket"], self.base.dev)
        if job.get("for_gate") and op is TrtllmFp4Moe:
            prepare_moe_weights(t, inputs)
            inputs.kwargs["top_k_ref"] = job["top_k"]
        cfg = op.tuning_config(job, inputs, runner) if op is TrtllmFp4Moe else op.tuning_config(job, inputs)
        self.job = dict(job, op_cls=op, runner_obj=runner, inputs=inputs, cfg=cfg, fi=None)
        t1 = time.perf_counter()
        self.stats["inputs_s"] += t1 - t0
        if job.get("for_gate"):
            return set(job["tactics"])
        valid = [v for v in runner.get_valid_tactics(inputs, None)]
        if job["tactics"] is None:
            self.job["tactics"] = dict(enumerate(valid))
            ids = set(self.job["tactics"])
        else:
            norm = {json_tactic(v) for v in valid}
            ids = {c for c, tac in job["tactics"].items() if json_tactic(tac) in norm}
        runner(inputs, tactic=-1, do_preparation=True, **inputs.kwargs)
        if job.get("method") == 1:
            from flashinfer.autotuner import AutoTuner
            tuner = AutoTuner.get()
            self.job["fi"] = (tuner,) + tuple(tuner.prepare_tactic_profile(inputs, cfg))
        self.sync()
        self.stats["valid_s"] += time.perf_counter() - t1
        return ids

    def tactic(self, c):
        return self.job["tactics"].get(c, c)

    def _call(self, c):
        j = self.job
        return j["runner_obj"](j["inputs"], tactic=self.tactic(c), **j["inputs"].kwargs)

    def warm(self, c):
        return warm_calls(self.base.torch, lambda: self._call(c))

    def start(self, c, reps):
        return sample_calls(self.base.torch, lambda: self._call(c), reps)

    def elapsed_us(self, handle):
        return elapsed_us(handle)

    def fi_sample(self, c):
        j = self.job
        tuner, config, batches = j["fi"]
        ms = tuner.profile_tactic(j["runner_obj"], j["inputs"], self.tactic(c), config, batches,
                                  **j["inputs"].kwargs)
        return ms * 1000.0

    def output_of(self, c):
        j = self.job
        return j["op_cls"].output(self._call(c), j["inputs"]).float().clone()

    def gate(self, c, bounds):
        """As Kernels.gate: the tactic's output against FlashInfer's default (-1), and the
        default against the op's fp32 reference (op.reference)."""
        j, t = self.job, self.base.torch
        if bounds[0] <= 0:
            return "unchecked", 0.0, 0.0, "the dtype has no gate bounds (configs/dtypes.yaml)"
        if j.get("gate") is None:
            default = self.output_of(-1)
            ref = j["op_cls"].reference(j["inputs"])
            j["gate"] = dict(default=default, ref_rel=compare(t, default, ref[:, :default.shape[1]])[1])
        gi = j["gate"]
        if gi["ref_rel"] > bounds[1]:
            return "unchecked", 0.0, 0.0, (f"FlashInfer's default tactic differs from the fp32 "
                                          f"reference by {gi['ref_rel']:.3g} of its largest value "
                                          f"(bound {bounds[1]:g}): the gate cannot judge here")
        out = self.output_of(c)
        if env_id("TUNETAB_TEST_WRONG_TACTIC") == c:
            out = out + 0.1 * gi["default"].abs().max() * t.randn_like(out)
        d_abs, d_rel = compare(t, out, gi["default"])
        if d_rel > bounds[0]:
            return "bad", d_abs, d_rel, (f"differs from FlashInfer's default tactic by {d_rel:.3g} "
                                        f"of its largest value (bound {bounds[0]:g})")
        return "ok", d_abs, d_rel, "-"


def json_tactic(v):
    """A tactic as the cache's JSON holds it (tuples as lists), for comparing."""
    import json
    return json.dumps(v if not isinstance(v, tuple) else _listify(v))


def _listify(v):
    return [_listify(x) for x in v] if isinstance(v, (list, tuple)) else v


class OpProfile:
    """What profile_op found: times (tactic text -> us, or why it has none), ids (candidate id
    -> tactic), us (candidate id -> us, the timed ones), win (the winner's id or None), verdict
    ((verdict, abs, rel, why) of the winner: "off" without the gate), failed ([(tactic text,
    why)]: the faster tactics that failed the gate), fallback (the fallback's id or None),
    listed (how many tactics were asked for or listed by the runner, the fallback not added)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def tactic(self):
        return None if self.win is None else self.ids[self.win]


def profile_op(k, job, tactics, reps=8, bounds=(0.02, 0.1), gate=True, fallback=False):
    """Times each tactic of an op job (OpKernels: the bucket's inputs, 3 warm-up calls, then
    reps back-to-back calls between CUDA events behind the delay kernel, the median of 3
    samples) and gates the timed ones against the op's fp32 reference, fastest first, until
    one passes (ok or unchecked: the winner). tactics: a list (its ids: their places), a dict
    {id: tactic} (a request's candidates), or None: the runner's own get_valid_tactics for the
    bucket's inputs. With fallback, FlashInfer's fallback tactic -1 is timed too (id -1, unless
    a candidate is -1 or has id -1). Without gate, the fastest wins unchecked ("off").
    TUNETAB_TEST_FAULT and TUNETAB_TEST_HANG name ids here, TUNETAB_TEST_WRONG_TACTIC too (the
    gate's). Returns an OpProfile."""
    import json
    name = lambda tac: json.dumps(_listify(tac))  # noqa: E731
    ids = dict(enumerate(tactics)) if isinstance(tactics, (list, tuple)) else \
        None if tactics is None else dict(tactics)
    job = dict(job, tactics=ids)
    valid = set(k.prepare(job))
    if ids is None:  # the runner's list, as prepare took it
        ids = {c: k.tactic(c) for c in sorted(valid)}
    listed, fid = len(ids), None
    if fallback:
        fid = next((c for c, tac in ids.items() if name(tac) == "-1"), None)
        if fid is None:
            fid = -1
            ids.setdefault(-1, -1)
        valid.add(fid)
    times, us = {}, {}
    for c, tac in ids.items():
        if c not in valid:
            times[name(tac)] = "not a valid tactic here (get_valid_tactics)"
            continue
        hooks(c)  # TUNETAB_TEST_FAULT / _HANG, as in PREP
        try:
            gpu_us, host_us = k.warm(c)
            samples = []
            for _ in range(3):
                k.delay(host_us * (reps + 1) * 1.3 + 30.0)
                h = k.start(c, reps)
                k.sync()
                samples.append(k.elapsed_us(h))
            us[c] = times[name(tac)] = sorted(samples)[1]
        except Exception as e:  # noqa: BLE001
            if k.broken():
                raise
            times[name(tac)] = f"{type(e).__name__}: {e}"
    res = OpProfile(times=times, ids=ids, us=us, win=None, failed=[], fallback=fid, listed=listed,
                    verdict=("unchecked", 0.0, 0.0, "no tactic ran"))
    timed = sorted((t, c) for c, t in us.items())
    if not timed:
        return res
    if not gate:
        res.win, res.verdict = timed[0][1], ("off", 0.0, 0.0, "-")
        return res
    k.prepare(dict(job, tactics=ids, for_gate=True))
    for _, c in timed:
        try:
            v = k.gate(c, bounds)
        except Exception as e:  # noqa: BLE001
            if k.broken():
                raise
            v = ("unchecked", 0.0, 0.0, f"the gate's call raised {type(e).__name__}: {e}")
        if v[0] != "bad":
            res.win, res.verdict = c, v
            break
        res.failed.append((name(ids[c]), v[3]))
    return res


# an op's job (PREP or GATE with op=, OPPROF): the common fields (OP_COMMON), the op's own (its
# fields and its optional ones), then the verb's; the candidates ID, or ID and the tactic's JSON
OP_CANDS = [("id", INT), ("tactic", TEXT, None)]
OP_MESSAGES = {"PREP": Msg([("bucket", INT), ("reps", INT), ("method", INT)], "cands", OP_CANDS),
               "GATE": Msg([("bucket", INT), ("reps", INT), ("method", INT), ("bound", REAL("%.6g")),
                            ("ref_bound", REAL("%.6g"))], "cands", OP_CANDS),
               "OPPROF": MESSAGES[REQUEST]["OPPROF"]}


def _fields(spec):
    """{name: int or str} (an op's fields) as the protocol's fields."""
    return [(name, INT if conv is int else REAL("%.6g") if conv is float else WORD)
            for name, conv in spec.items()]


def op_of(words):
    """The op a request names (op=NAME before '--'), or None: a job of the CUTLASS fused MoE."""
    for w in words:
        if w == "--":
            break
        if w.startswith("op="):
            return w[3:]
    return None


def parse_op_job(verb, words):
    """A PREP's or GATE's fields for an op (OPS): the common ones (OP_COMMON), the op's (its
    fields, its optional ones with their defaults), the verb's; the candidates as ID or ID,HEX
    (HEX: the tactic's JSON text, hex; a bare ID is the integer tactic ID)."""
    import json
    name = op_of(words)
    op = OPS.get(name)
    if op is None:
        raise ProtocolError(f"{verb}: unknown op '{name}' (this worker knows {', '.join(OPS)})")
    verb_msg = OP_MESSAGES[verb]
    optional = [(f, _fields({f: conv})[0][1], dflt)
                for f, (conv, dflt) in getattr(op, "optional", {}).items()]
    m = Msg(_fields(OP_COMMON) + _fields(op.fields) + optional + verb_msg.fields, verb_msg.count,
            verb_msg.cols)
    job, cands = read(verb, words, m)
    if job["runner"] not in op.runners:
        raise ProtocolError(f"{verb}: {name} has no runner '{job['runner']}' "
                            f"(FlashInfer's are {', '.join(op.runners)})")
    tactics, texts = {}, {}
    for c in cands:
        cid = c["id"]
        texts[cid] = c["tactic"] if c["tactic"] is not None else str(cid)
        try:
            tactics[cid] = json.loads(texts[cid])
        except ValueError:
            raise ProtocolError(f"{verb}: bad candidate {cid}'s tactic '{texts[cid]}'") from None
    job["tactics"], job["texts"] = tactics, texts  # texts: each tactic's JSON as given
    return job, list(tactics)


def op_usable(base, op, runner):
    """None where this GPU can run the op's runner with this FlashInfer, else (status, why):
    not_in_build (FlashInfer lacks it), cannot_run (the SM is not one its modules are built
    for: "cannot run on SMxx: ...", OPTEST's and OPPROF's words)."""
    fi, t = base.fi, base.torch
    why = op.in_build(fi, runner)
    if why:
        return "not_in_build", why
    major, minor = t.cuda.get_device_capability(base.device)
    ccs, where, what = op.rule(fi, runner)
    if major * 10 + minor not in ccs:
        return "cannot_run", (f"cannot run on SM{major * 10 + minor}: {op.name}'s {what} are "
                              f"built for {_cc_text(ccs)} ({where})")
    if runner == "CuteDSLFp4GemmRunner" and importlib.util.find_spec("cutlass") is None:
        return "not_in_build", "the CuTe-DSL runner needs nvidia-cutlass-dsl (no 'cutlass' module here)"
    return None


def _us(v):
    return math.nan if v is None else v


def opprof(k, words):
    """OPPROF v=3 <op job> bucket= reps= gate= cands= cols= -- CAND...: one key of an op measured in
    one go (profile_op with FlashInfer's fallback), answered on one line (the header's words)."""
    import json
    job, _ = parse_op_job("OPPROF", words)
    op = OPS[job["op"]]
    why = k.usable(op.name, job["runner"])
    if why:
        return write("ERR", text=why[:400])
    if job["reps"] < 1:
        raise ProtocolError(f"OPPROF: bad value 'reps={job['reps']}'")
    # gate: OpKernels keeps the gate's reference in its job under that name
    texts, tactics, gate = job.pop("texts"), job.pop("tactics"), bool(job.pop("gate"))
    k.load()
    res = profile_op(k, job, tactics or None, reps=job["reps"], bounds=op.bounds, gate=gate,
                     fallback=True)
    if res.win is None or res.win == res.fallback:
        text = "-1"
    elif tactics:  # the candidate's JSON text as the request gave it
        text = texts[res.win]
    else:  # one of the runner's own: compact JSON, as [8,3]
        text = json.dumps(_listify(res.ids[res.win]), separators=(",", ":"))
    if not gate:
        verdict = "off"
    elif res.failed:
        verdict = "wrong"
    else:
        verdict = res.verdict[0]
    untimed = [(n, v) for n, v in res.times.items() if isinstance(v, str)]
    invalid = [n for n, v in untimed if v.startswith("not a valid")]
    raised = [(n, v) for n, v in untimed if not v.startswith("not a valid")]
    src = (f"candidates {len(tactics)}" if tactics else
           f"the runner's get_valid_tactics {res.listed}")
    parts = [f"bucket {job['bucket']}: {src}, and the fallback -1; timed {len(res.us)}, "
             f"not valid {len(invalid)}{' (' + ' '.join(invalid[:8]) + ')' if invalid else ''}, "
             f"raised {len(raised)}"]
    if raised:
        parts.append(f"first raised {raised[0][0]}: {raised[0][1]}")
    for n, w in res.failed:
        parts.append(f"{n} failed the gate: {w}")
    if res.failed:
        parts.append(f"the winner is the fastest that passed: {text}")
    if res.win is not None and verdict == "unchecked":
        parts.append(f"unchecked: {res.verdict[3]}")
    if not res.us:
        parts.append("nothing ran")
    detail = " ".join("; ".join(parts).split())[:600]
    return write("OPPROF", timed=len(res.us), win=text, win_us=_us(res.us.get(res.win)),
                 fallback_us=_us(res.us.get(res.fallback)), verdict=verdict, detail=detail)


def optest(base, words):
    """OPTEST v=3 op=NAME runner=CLASS: can this GPU run the op's runner here?
    (status, detail): works (a small job of the op profiled with profile_op: its winner and
    FlashInfer's default within 2% / 10% of the largest value of the fp32 reference;
    the MoE's bound 25%: GEMM2's input is requantized to fp4), not_in_build, cannot_run
    (the SM is not one its modules are built for), wrong (a result off the reference) or
    failed (it raised)."""
    req, _ = read("OPTEST", words)
    op = OPS.get(req["op"])
    if op is None:
        return "not_in_build", f"tunetab's worker knows no op '{req['op']}' (it knows {', '.join(OPS)})"
    if getattr(base, "fi", None) is None or getattr(base, "torch", None) is None:
        return "not_in_build", ("the worker's kernels are a stand-in without FlashInfer "
                                "(TUNETAB_FI_KERNELS): nothing of the op to test")
    refused = op_usable(base, op, req["runner"])
    if refused:
        return refused
    job = dict(op=op.name, runner=req["runner"], consumer="sglang", tune="at_m",
               tune_max=op.selftest["m"], bucket=op.selftest["m"], reps=8, method=0,
               **{k: v for k, v in op.selftest.items()})
    for f, (_, dflt) in getattr(op, "optional", {}).items():
        job.setdefault(f, dflt)
    k = OpKernels(base)
    try:
        k.load()
        runner = k._runner(op, job)
        x = op.inputs(job, job["m"], base.dev)
        tactics = list(runner.get_valid_tactics(x, None))[:4]
        if not tactics:
            return "failed", "the runner lists no valid tactic for the self-test's shape"
        res = profile_op(k, job, tactics, bounds=op.bounds)
    except Exception as e:  # noqa: BLE001
        if base.broken():
            raise
        return "failed", f"{type(e).__name__}: {e}"
    if not res.us:
        return "failed", "no tactic ran: " + "; ".join(f"{n}: {w}" for n, w in res.times.items())
    if res.failed:
        return "wrong", f"fastest {res.failed[0][0]}: {res.failed[0][1]}"
    if res.verdict[0] == "ok":
        return "works", f"{len(res.times)} tactics timed, fastest {json_tactic(res.tactic)}; within the reference"
    return "wrong", f"fastest {json_tactic(res.tactic)}: {res.verdict[3]}"


def load_kernels(device):
    path = os.environ.get("TUNETAB_FI_KERNELS")
    if not path:
        return Kernels(device)
    spec = importlib.util.spec_from_file_location("tunetab_fi_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Kernels(device)


def hooks(tactic):
    if env_id("TUNETAB_TEST_FAULT") == tactic:
        os.kill(os.getpid(), signal.SIGSEGV)
    if env_id("TUNETAB_TEST_HANG") == tactic:
        while True:
            time.sleep(1)


class Worker:
    def __init__(self, device):
        self.device = device
        self.k, self.why = None, None
        self.base = self.ops = None  # the fused MoE's Kernels; the ops' (OpKernels over it)
        try:
            self.k = self.base = load_kernels(device)
            make = getattr(self.base, "op_kernels", None)  # a stand-in's own (the stub's)
            self.ops = make() if make is not None else OpKernels(self.base)
        except Unusable as e:
            self.why = str(e)
        except Exception as e:  # noqa: BLE001
            self.why = f"{type(e).__name__}: {e}"
        self.ready = {}   # candidate -> [tactic, reps] of the prepared job
        self.light = False  # the prepared job screens (see round())
        self.seen = set()  # tactics launched once in this process (lazy loading paid)
        self.host_us = 0.0  # the host's enqueue time of one call, the most seen
        # where the time goes (stderr at exit with TUNETAB_PROF_TIMING, as tunetab's own)
        self.host_seen = []  # the enqueue time of one call in recent batches, us
        self.graph_seen = []  # the enqueue time of one graph's sample in recent batches, us
        self.stats = dict(prep_s=0.0, preps=0, warm_s=0.0, round_s=0.0, rounds=0, calls=0,
                          replays=0, samples=0, retaken=0, host_bound=0, enqueue_s=0.0,
                          delay_s=0.0, wait_s=0.0, capture_wall_s=0.0, gpu_s=0.0, idle_s=0.0,
                          other_s=0.0)

    def exit_if_broken(self):
        """After an exception: FAULT and exit when the CUDA context is broken (the parent
        restarts the worker and blames the candidate it started last)."""
        broken = self.k.broken() if self.k is not None else None
        if broken:
            send("FAULT", text=one_line(broken, 300))
            sys.exit(3)

    def fault_or_fail(self, tactic, e):
        """A candidate's exception while prepared: FAULT (broken context) or RES failed."""
        self.exit_if_broken()
        res(tactic, 2, one_line(f"{type(e).__name__}: {e}"))

    def use(self, words):
        """The kernels a PREP or GATE is for (an op's: op=NAME, else the fused MoE's), made the
        current ones (ROUND times the prepared job's), and the request's job and candidates."""
        if op_of(words) is None:
            self.k = self.base
            return parse_job(words[0], words[1:])
        self.k = self.ops
        return parse_op_job(words[0], words[1:])

    def prep(self, words):
        job, cands = self.use(["PREP"] + words)
        self.ready = {}
        self.k.load(job.get("dtype"))  # a restarted worker gets no LOAD
        valid = self.k.prepare(job)
        bad = env_id("TUNETAB_TEST_BAD_TACTIC")
        light = self.light = job["reps"] <= 1  # screening: see round()
        for c in cands:
            send("START", id=c)
            hooks(c)
            if c not in valid and c != bad:
                why = ("not a valid GEMM%d tactic here (FlashInfer get_valid_tactics)" % job["stage"]
                       if "op" not in job else "not a valid tactic here (FlashInfer get_valid_tactics)")
                res(c, 1, one_line(why))
                continue
            tactic = 1 << 20 if c == bad else c
            if light and tactic in self.seen:
                # no per-entry warm-up: a tactic's first launch in this process (which pays
                # its lazy loading) was warmed below
                self.ready[c] = [tactic, 1]
                continue
            t0 = time.perf_counter()
            try:
                gpu_us, host_us = self.k.warm(tactic)
            except Exception as e:  # noqa: BLE001
                self.fault_or_fail(c, e)
                continue
            finally:
                self.stats["warm_s"] += time.perf_counter() - t0
            self.seen.add(tactic)
            self.host_us = max(self.host_us, host_us)
            cap = max(1, job["reps"])
            self.ready[c] = [tactic, max(1, min(cap, math.ceil(300.0 / max(gpu_us, 1e-3))))]
            if not light:
                send("READY", id=c, reps=self.ready[c][1])
        if light and self.ready:
            # one sample of each candidate is at least ~100 us of back-to-back calls: one
            # call of a 10 us kernel is below what an event pair times well
            c0 = next(iter(self.ready))
            try:
                self.k.delay(2 * self.host_us + 20.0)
                h = self.k.start(self.ready[c0][0], 1)
                self.k.sync()
                t0 = self.k.elapsed_us(h)
            except Exception as e:  # noqa: BLE001
                self.fault_or_fail(c0, e)
                del self.ready[c0]
                t0 = 100.0
            reps = max(1, min(16, math.ceil(100.0 / max(t0, 1e-3))))
            cycle = getattr(self.k, "routing_cycle", 1)
            if t0 * cycle <= SCREEN_CYCLE_US:
                # a whole routing cycle is cheap here: every candidate screened on the same
                # routings (short kernels are where a part of the cycle misjudges most)
                reps = max(reps, cycle)
            for c in self.ready:
                self.ready[c][1] = reps
                send("READY", id=c, reps=reps)
        send("END")

    def round(self, words):
        """One sample of each candidate, queued in batches behind a delay kernel long enough
        to cover the host's enqueueing, events between them, the next batch enqueued while
        the GPU runs the one before and one synchronization a round (run_chunks): the GPU runs
        the round without waiting on Python inside a sample. Each gets max(min_reps, its reps)
        calls and one untimed call before them. Every sample but a screening one (a screening
        job's, not sized by the parent) is whole routing cycles (Kernels.routing_cycle): a
        race compares its finalists on the same routings, as the oracle does. A screen's
        ~100 us samples do not (a whole cycle of every tactic would cost 16 calls of each);
        its margin keeps near-ties."""
        req, items = read("ROUND", words)
        mode, min_reps = req["method"], req["min_reps"]
        asked = {it["id"]: it["reps"] for it in items}  # the parent may size a sample itself
        ids = list(asked)
        for c in ids:
            if c not in self.ready:
                send("ERR", text=f"candidate {c} was not prepared")
                return
        if mode == 1:  # FlashInfer's own measurement, one candidate at a time
            for c in ids:
                send("START", id=c)
                hooks(c)
                try:
                    send("T", id=c, us=self.k.fi_sample(self.ready[c][0]))
                except Exception as e:  # noqa: BLE001
                    self.fail_while_timed(c, e)
            send("END")
            return
        reps = {c: max(min_reps, asked[c] or self.ready[c][1]) for c in ids}
        cycle = getattr(self.k, "routing_cycle", 1)
        full = set()  # whole-cycle samples: a race's, replayed round after round (graphs)
        for c in ids:
            if asked[c] or not self.light:
                reps[c] = cycle * math.ceil(reps[c] / cycle)
                full.add(c)
        t0 = time.perf_counter()
        handles, failed = {}, set()
        self.run_chunks(ids, reps, full, handles, failed)
        for c, h in handles.items():
            us = self.k.elapsed_us(h)
            send("T", id=c, us=us)
            self.stats["gpu_s"] += us * (reps[c] + 1) * 1e-6  # the timed calls and the lead-in
        self.stats["samples"] += len(handles)
        self.stats["round_s"] += time.perf_counter() - t0
        self.stats["rounds"] += 1
        send("END")

    def host_estimate(self, graph=False):
        """The host's enqueue time of one call (of one graph's sample with graph), in us: the
        median of the last batches'."""
        h = sorted(self.graph_seen if graph else self.host_seen)
        if h:
            return h[len(h) // 2]
        if graph:
            return 30.0
        return self.host_us if self.host_us > 0 else 50.0

    def cost(self, c, reps, graphs):
        """The host's expected enqueue time of c's sample, us."""
        if c in graphs:
            return self.host_estimate(graph=True)
        return (reps[c] + 1) * self.host_estimate()  # each sample's untimed lead-in call too

    def chunks(self, ids, reps, full):
        """Splits a round into batches of at most ~8 ms of enqueueing: a batch's delay must
        cover its enqueueing, and FlashInfer's delay kernel is kept short. Whole-cycle samples
        are costed as graphs (capture() may still fall back)."""
        ready = set(full) if hasattr(self.k, "capture") and getattr(self.k, "graph_why", 1) is None \
            else set()
        chunk, cost = [], 0.0
        for c in ids:
            x = self.cost(c, reps, ready)
            if chunk and cost + x > 8000.0:
                yield chunk
                chunk, cost = [], 0.0
            chunk.append(c)
            cost += x
        if chunk:
            yield chunk

    def run_chunks(self, ids, reps, full, handles, failed):
        """Enqueues the round's batches one after the other, each behind its own delay
        kernel, while the GPU runs the one before (at most two in flight), and synchronizes
        once at the end. A whole-cycle sample is captured as a graph (Kernels.capture) before
        its batch is enqueued, while the GPU still runs the batch before. A batch whose
        enqueueing outlasted its delay (the GPU may have waited on Python inside a sample: a
        host-bound sample) is taken again behind a longer delay once the round is in."""
        capture = getattr(self.k, "capture", None)
        mark = getattr(self.k, "mark", None)
        inflight, again = [], []
        for chunk in self.chunks(ids, reps, full):
            graphs = set()
            if capture is not None:
                t0 = time.perf_counter()
                for c in chunk:
                    if c in full and c not in failed:
                        try:
                            if capture(self.ready[c][0], reps[c]):
                                graphs.add(c)
                        except Exception as e:  # noqa: BLE001
                            self.exit_if_broken()
                            self.k.graph_why = f"capture raised {type(e).__name__}: {e}"
                self.stats["capture_wall_s"] += time.perf_counter() - t0
            if mark is None:
                self.batch(chunk, reps, graphs, handles, failed, 1.0, again)
                self.sync_or_fault()
                continue
            if len(inflight) >= 2:
                t0 = time.perf_counter()
                try:
                    self.k.wait(inflight.pop(0))
                except Exception as e:  # noqa: BLE001
                    send("FAULT", text=one_line(f"{type(e).__name__}: {e}", 300))
                    sys.exit(3)
                self.stats["wait_s"] += time.perf_counter() - t0
            self.batch(chunk, reps, graphs, handles, failed, 1.0, again)
            inflight.append(mark())
        self.sync_or_fault()
        for chunk, graphs, seen in again:  # host-bound: once more, alone, behind a longer delay
            per = max(self.host_estimate(), seen) * 1.5
            self.stats["retaken"] += 1
            late = []
            self.batch(chunk, reps, graphs, handles, failed, per / self.host_estimate(), late)
            self.sync_or_fault()
            self.stats["host_bound"] += bool(late)

    def sync_or_fault(self):
        t0 = time.perf_counter()
        try:
            self.k.sync()
        except Exception as e:  # noqa: BLE001
            send("FAULT", text=one_line(f"{type(e).__name__}: {e}", 300))
            sys.exit(3)
        self.stats["wait_s"] += time.perf_counter() - t0

    def batch(self, chunk, reps, graphs, handles, failed, scale, again):
        """Queues one sample of each candidate behind one delay kernel sized (times scale) for
        the enqueueing; a batch whose enqueueing outlasted it goes to again."""
        est = sum(self.cost(c, reps, graphs) for c in chunk) * scale
        delay = min(20000.0, 1.3 * est + 30.0)
        self.k.delay(delay)
        h0 = time.perf_counter()
        for c in chunk:
            if c in failed:
                continue
            send("START", id=c)
            hooks(c)
            try:
                handles[c] = self.k.start(self.ready[c][0], reps[c])
            except Exception as e:  # noqa: BLE001
                handles.pop(c, None)
                failed.add(c)
                self.fail_while_timed(c, e)
        enqueue = (time.perf_counter() - h0) * 1e6
        self.stats["enqueue_s"] += enqueue * 1e-6
        self.stats["delay_s"] += delay * 1e-6
        calls = sum(reps[c] + 1 for c in chunk if c not in graphs)
        self.stats["calls"] += calls
        self.stats["replays"] += sum(1 for c in chunk if c in graphs)
        if graphs and not calls:
            self.graph_seen.append(enqueue / len(chunk))
            del self.graph_seen[:-16]
        elif calls and not graphs:
            self.host_seen.append(enqueue / calls)
            del self.host_seen[:-16]
        if enqueue > delay:
            again.append((chunk, graphs, enqueue / max(1, calls + len(graphs))))

    def gate(self, words):
        """GATE: the job's candidates in the parent's order of preference through the
        correctness gate (Kernels.gate), until one passes or is unchecked."""
        job, cands = self.use(["GATE"] + words)
        bounds = (job.pop("bound"), job.pop("ref_bound"))
        job["for_gate"] = True
        self.k.load(job.get("dtype"))
        self.k.prepare(job)
        for c in cands:
            send("START", id=c)
            hooks(c)
            try:
                v, d_abs, d_rel, why = self.k.gate(c, bounds)
            except Exception as e:  # noqa: BLE001
                self.exit_if_broken()
                v, d_abs, d_rel, why = "unchecked", 0.0, 0.0, f"the gate's call raised: {type(e).__name__}: {e}"
            send("G", id=c, verdict=v, max_abs=d_abs, rel=d_rel, why=one_line(why, 300))
            if v != "bad":
                break
        send("END")

    def layer(self, words):
        """LAYER: the whole MoE layer per tactic pair under one routing load (Kernels.layer)."""
        job, items = read("LAYER", words)
        for name, parse in (("key", parse_key), ("runner_args", parse_key),
                            ("key_fields", lambda v: v.split(","))):
            v = job.pop(name)
            job["runner" if name == "runner_args" else name] = parse(v) if v else None
        pop = job.pop("popularity")
        try:
            pop = [float(v) for v in pop.split(",")] if pop else None
        except ValueError:
            raise ProtocolError("LAYER: popularity is not a list of numbers") from None
        load = dict(name=job.pop("load"), popularity=pop, draws=job.pop("draws"),
                    reps=job.pop("layer_reps"), rounds=job.pop("layer_rounds"), seed=job.pop("seed"))
        self.k = self.base
        self.ready = {}  # the layer's preparation replaces the prepared job
        self.k.load(job.get("dtype"))
        for g1, g2, status, us, why in self.k.layer(job, [(i["g1"], i["g2"]) for i in items], load):
            send("L", g1=g1, g2=g2, status=status, us=us, why=one_line(why, 300))
        send("END")

    def fail_while_timed(self, c, e):
        self.exit_if_broken()
        send("F", id=c, why=one_line(f"{type(e).__name__}: {e}"))

    def serve(self):
        done = None  # when the last answer was written: the parent's time until the next
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            req, args = words[0], words[1:]
            t_req = time.perf_counter()
            if done is not None and req in ("PREP", "ROUND", "GATE"):
                self.stats["idle_s"] += t_req - done
            try:
                check_version(req, args)
                if req == "WHO":
                    read(req, args)
                    if self.k is None:
                        send("WHO", backend="none", version="-", torch="-", detail=self.why)
                    else:
                        v, tv, detail = self.k.who()
                        send("WHO", backend="flashinfer", version=v, torch=tv, detail=detail)
                elif self.k is None:
                    send("ERR", text=self.why)
                elif req == "INFO":
                    read(req, args)
                    i = self.k.info()
                    send("DEV", name=i[0], cc_major=i[1], cc_minor=i[2], sms=i[3], smem_optin=i[4],
                         smem_sm=i[5], l2=i[6], mem=i[7], clock_khz=round(i[8] * 1000),
                         mem_bw_gbs=i[9], visible=i[10], driver=i[11], runtime=i[12], blaslt=0)
                elif req == "LOAD":
                    t0 = time.monotonic()
                    self.base.load(read(req, args)[0]["dtype"])
                    send("OK", seconds=time.monotonic() - t0)
                elif req == "PREP":
                    t0 = time.perf_counter()
                    self.prep(args)
                    self.stats["prep_s"] += time.perf_counter() - t0
                    self.stats["preps"] += 1
                elif req == "ROUND":
                    self.round(args)
                elif req == "GATE":
                    self.gate(args)
                elif req == "LAYER":
                    self.layer(args)
                elif req == "OPPROF":
                    self.ready = {}  # the op's prepared job is OPPROF's now: no ROUND of the PREP's
                    out(opprof(self.ops, args))
                elif req == "OPTEST":
                    status, detail = optest(self.base, args)
                    send("OPTEST", status=status, detail=" ".join(str(detail).split())[:400])
                else:  # JOB, CAL
                    raise ProtocolError(f"{req} is tunetab's own worker's request, not the "
                                        "flashinfer worker's")
            except SystemExit:
                raise
            except ProtocolError as e:
                send("ERR", text=str(e)[:400])
            except Exception as e:  # noqa: BLE001
                self.exit_if_broken()
                send("ERR", text=" ".join(f"{type(e).__name__}: {e}".split())[:400])
            if req in ("PREP", "ROUND", "GATE"):
                done = time.perf_counter()
                if req == "GATE":
                    self.stats["other_s"] += done - t_req

    def timing(self):
        """Where the worker's time went (stderr at exit with TUNETAB_PROF_TIMING)."""
        s, ks = self.stats, getattr(self.k, "stats", {})
        lines = [
            "%d PREP %.3f s (inputs %.3f, valid tactics %.3f, do_preparation %.3f, warm-up "
            "%.3f)" % (s["preps"], s["prep_s"], ks.get("inputs_s", 0), ks.get("valid_s", 0),
                       ks.get("doprep_s", 0), s["warm_s"]),
            "%d ROUND %.3f s: %d samples, %d calls enqueued one by one + %d graph replays; "
            "enqueueing %.3f s, delay kernels %.3f s, waiting for the GPU %.3f s, capturing "
            "%.3f s (%d graphs, %d failed%s)" % (
                s["rounds"], s["round_s"], s["samples"], s["calls"], s["replays"],
                s["enqueue_s"], s["delay_s"], s["wait_s"], s["capture_wall_s"],
                ks.get("captures", 0), ks.get("capture_failed", 0),
                "; graphs off: " + getattr(self.k, "graph_why") if getattr(self.k, "graph_why", None) else ""),
            "samples' GPU time (timed calls and lead-ins) %.3f s; host enqueue %.1f us a call, "
            "%.1f us a graph (recent medians; %.1f a call the most at warm-up); %d batches "
            "taken again (host-bound), %d host-bound twice" % (
                s["gpu_s"], self.host_estimate(), self.host_estimate(graph=True), self.host_us,
                s["retaken"], s["host_bound"]),
            "between answers (the parent's time) %.3f s; GATE %.3f s" % (s["idle_s"], s["other_s"]),
        ]
        return lines


def main():
    if sys.argv[1:] == ["--table"]:  # the protocol's table, as `tunetab __worker --table` prints it
        print("\n".join(table()))
        return
    device = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    os.environ.setdefault("FLASHINFER_CONFIDENTIAL_COMPUTE", "0")  # keep the CUDA-event timer
    w = Worker(device)
    w.serve()
    if os.environ.get("TUNETAB_PROF_TIMING"):
        for line in w.timing():
            print("tunetab-fi-worker timing: " + line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
