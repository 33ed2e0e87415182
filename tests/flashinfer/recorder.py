"""recorder.py: FlashInfer's compiled cutlass fused-MoE module replaced by a recorder that applies
the binding's rules, for the released versions read: 0.2.9, 0.5.3, 0.6.18 and 0.7.4 (issue #29).

FlashInfer's Python layer (MoERunner, its tuning config, get_valid_tactics, forward) runs as
released; only the module it loads is this one. What the recorder checks, per version (the
binding, read in the released wheel; line numbers of that version's file):
- 0.7.4 and 0.6.18: flashinfer/data/csrc/fused_moe/cutlass_backend/
  flashinfer_cutlass_fused_moe_binding.cu: FusedMoeRunner(activation, weight, output,
  ds_fp8_block, w4_group, mxfp8_act, packed, fused_finalize, humming) chooses the runner from
  the dtypes and flags (mxfp8 x mxfp8 with mxfp8_act, fp8 x fp4 for MXFP4 weights on SM100+,
  humming MXFP4 x FP8 on SM90 only, W4A16 MXFP4 with BF16 activations only, int4 with packed
  weights); runMoe's dtype, rank, expert-count, inter-size and alignment checks are applied to
  what run_gemm_profile is given (19 arguments). Gated activations: 0.7.4 {3,4,5,7,8,10,13},
  0.6.18 {3,4,5,7,8} (moe_gemm_kernels.h:243; 10 is InvalidType there).
- 0.5.3: flashinfer_cutlass_fused_moe_sm100_binding.cu, the one binding of every SM module:
  init(activation, weight, output, ds, w4, mxfp8_act) (l.120); mxfp8_act does not change fp8 x
  fp8 (the per-tensor fp8 runner, l.146-150); fp8 x int64 is fp8 x fp4 on any SM (l.152-155);
  W4A16 is w4 with uint8 weights and an fp16 or bf16 activation (l.171-182); int4 needs a
  uint4x2 DLPack dtype no torch dtype maps to (l.185-216), so uint8 without w4 is refused;
  no humming, packed or finalize flag. Gated: {3,4,5} (moe_gemm_kernels.h:237-240). MXFP4's
  %128 rule for fp8 x int64 only (l.318-323).
- 0.2.9: flashinfer_cutlass_fused_moe_sm100_ops.cu, a TorchScript class
  torch.classes.fused_moe_sm100.FusedMoeRunner(activation, weight, output, ds, w4a8, mxfp8_act)
  (l.90-185), SM100 only; no W4A16, packed or humming (uint8 weights refused; int4 needs
  torch.quint4x2); run_gemm_profile takes 17 arguments (no enable_pdl, no activation: Swiglu,
  fc1 always twice fc2's inter size, l.257-259).
Every version's run_gemm_profile returns at once for fp8 block scale. A version not listed is
refused (VersionNotModelled): its binding was not read.
"""
import re

import torch

F16, BF16, FP8 = torch.float16, torch.bfloat16, torch.float8_e4m3fn
I64, U8 = torch.int64, torch.uint8
GATED = {"0.7.4": {3, 4, 5, 7, 8, 10, 13}, "0.6.18": {3, 4, 5, 7, 8}, "0.5.3": {3, 4, 5},
         "0.2.9": None}  # None: no activation argument, Swiglu
# the binding's constructor and run_gemm_profile arities, for the calls FlashInfer's Python makes
INIT_ARGS = {"0.7.4": 9, "0.6.18": 9, "0.5.3": 6, "0.2.9": 6}
PROFILE_ARGS = {"0.7.4": 19, "0.6.18": 19, "0.5.3": 19, "0.2.9": 17}


class Refused(Exception):
    """What the binding would raise (TVM_FFI_ICHECK, TORCH_CHECK and friends)."""


class VersionNotModelled(Exception):
    """The installed FlashInfer is not one whose binding the recorder models."""


def check(cond, msg):
    if not cond:
        raise Refused(msg)


def installed_version():
    from importlib.metadata import version
    v = version("flashinfer-python")  # 0.2.9 has no flashinfer.version
    base = re.match(r"\d+\.\d+\.\d+", v).group(0)
    if base not in INIT_ARGS:
        raise VersionNotModelled("the recorder models FlashInfer %s only, not %s"
                                 % (", ".join(INIT_ARGS), v))
    return base


class RecorderRunner:
    """FusedMoeRunner as the version's binding builds it; records what the profiler is given."""

    def __init__(self, version, sm, *args):
        check(len(args) == INIT_ARGS[version], "FlashInfer %s's binding takes %d constructor "
              "arguments, got %d" % (version, INIT_ARGS[version], len(args)))
        act, w, out, ds, w4, mx8 = args[:6]
        packed, finalize, humming = args[6:] if len(args) == 9 else (False, True, False)
        self.version, self.sm, self.act, self.w, self.out = version, sm, act, w, out
        self.ds, self.w4, self.mx8, self.packed, self.humming = ds, w4, mx8, packed, humming
        self.mult, self.mxfp4 = 1, False
        self.kind = self._kind()
        self.profiled = []

    def _kind(self):
        v, act, w, out = self.version, self.act, self.w, self.out
        new = v in ("0.6.18", "0.7.4")
        if act == F16 and w == F16:
            return "half x half"
        if act == BF16 and w == BF16:
            return "bf16 x bf16"
        if act == BF16 and w == FP8:
            return "bf16 x fp8"
        if act == FP8 and w == FP8 and not self.ds:
            # before 0.6.x mxfp8_act does not change the runner: the per-tensor fp8 one
            return self._output("mxfp8 x mxfp8" if new and self.mx8 else "fp8 x fp8")
        if act == FP8 and w == I64:  # MXFP4 weights, fp8 or mxfp8 activations
            if new:
                check(self.sm >= 100, "Could not construct fused moe op with the requested input "
                      "combination Activation: %s, Weight: %s, Output: %s (fp8 x fp4 is SM100+)"
                      % (act, w, out))
            self.mult, self.mxfp4 = 16, True
            return self._output("fp8 x fp4")
        if w == I64 and act != FP8:
            self.mult = 16
            return self._output("nvfp4")
        if v == "0.2.9":
            # no W4A16, packed or humming runner; int4 weights must be torch.quint4x2
            raise self._cannot()
        if new and self.humming and self.w4 and act in (F16, BF16) and w == U8 and not self.packed \
                and not self.mx8:
            check(self.sm == 90, "Humming-style MXFP4 x FP8 is only supported on SM90.")
            check(act == out, "Humming-style MXFP4 x FP8 requires activation dtype == output dtype")
            self.mult, self.mxfp4 = 2, True
            return self._output("humming mxfp4 x fp8")
        if self.w4 and w == U8 and (not new or not self.packed):
            if new:
                check(act == BF16, "SM90 MXFP4 W4A16 supports BF16 activations only")
            if act in (F16, BF16):
                self.mult = 2
                return "%s x mxfp4" % ("bf16" if act == BF16 else "half")
        if new and w == U8 and self.packed and act in (F16, BF16):
            self.mult = 2
            return "fp8 x int4" if self.w4 else "%s x int4" % act
        raise self._cannot()

    def _cannot(self):
        return Refused("Could not construct fused moe op with the requested input combination "
                       "Activation: %s, Weight: %s, Output: %s" % (self.act, self.w, self.out))

    def _output(self, kind):
        if self.out in (I64, FP8):
            raise Refused("Outputting %s directly is not currently supported" % self.out)
        check(self.out in (F16, BF16), "Invalid output type %s" % self.out)
        return kind

    # the tactic lists: their sizes do not matter here
    def get_gemm1_tactic_count(self):
        return 4

    def get_gemm2_tactic_count(self):
        return 4

    def get_tactic_num(self):
        return 8

    def get_tactic_occupancy(self, t):
        return 1

    def get_valid_tactics_for_shape(self, stage, n, k):
        return list(range(4)) if stage == 1 else list(range(4, 8))

    def run_gemm_profile(self, *a):
        check(len(a) == PROFILE_ARGS[self.version], "FlashInfer %s's run_gemm_profile takes %d "
              "arguments, got %d" % (self.version, PROFILE_ARGS[self.version], len(a)))
        x, fc1, b1, fc2, b2 = a[:5]
        gemm_idx = a[14]
        activation = int(a[18]) if len(a) == 19 else 3  # 0.2.9: Swiglu
        if self.ds:  # "TODO: support profiling under fp8 block scaling": returns at once
            self.profiled.append("skipped (fp8 block scale)")
            return
        # runMoe's checks, on what the profiler gets
        check(x.dtype == self.act, "input dtype %s, the runner's activation %s" % (x.dtype, self.act))
        for name, t in (("fc1", fc1), ("fc2", fc2)):
            check(t.dtype == self.w, "%s_expert_weights dtype %s, the runner's weight %s" % (name, t.dtype, self.w))
            check(t.dim() == 3, "%s_expert_weights must be 3-D" % name)
        check(x.dim() == 2, "input must be 2-D")
        if b1 is not None or b2 is not None:
            check(b1 is not None and b2 is not None, "both biases or neither")
            check(b1.dtype == self.out and b2.dtype == self.out, "biases must be the output dtype")
            check(b1.dim() == 2 and b2.dim() == 2, "biases must be 2-D")
            check(b1.size(0) == fc1.size(0) and b2.size(0) == fc2.size(0), "biases: experts")
            check(b1.size(1) == fc1.size(1) and b2.size(1) == fc2.size(1), "biases: output shape")
        check(fc1.size(0) == fc2.size(0), "fc1 and fc2 must have the same number of experts")
        inter = fc2.size(2) * self.mult
        gated = GATED[self.version]
        want = inter * 2 if gated is None or activation in gated else inter
        check(fc1.size(1) == want, "fc1_expert_weights inter size %d, want %d" % (fc1.size(1), want))
        hidden = fc2.size(1)
        if self.mxfp4:
            check(hidden % 128 == 0 and inter % 128 == 0,
                  "hidden %d and inter %d must be divisible by 128 for MXFP4 weights" % (hidden, inter))
        else:
            align = 128 // (8 * min(self.act.itemsize, self.w.itemsize))
            check(hidden % align == 0 and inter % align == 0,
                  "hidden %d and inter %d must be divisible by %d" % (hidden, inter, align))
        check(gemm_idx in (1, 2), "gemm_idx %s" % gemm_idx)
        self.profiled.append("gemm%d %s x %s" % (gemm_idx, tuple(x.shape), self.kind))


class RecorderModule:
    def __init__(self, version, sm):
        self.version, self.sm = version, sm

    def init(self, *args):
        return RecorderRunner(self.version, self.sm, *args)

    def set_deepgemm_jit_include_dirs(self, dirs):
        pass

    def __getattr__(self, name):
        """The module's other functions (weight interleaving, ...): not on the tuner's path."""
        def other(*a, **k):
            raise Refused("the recorder has no %s" % name)
        return other


class _TorchClassNamespace:
    """torch.classes.fused_moe_sm100 of 0.2.9: FusedMoeRunner(...) is the recorder's."""

    def __init__(self, module):
        self.FusedMoeRunner = module.init


def fi_module(sm):
    """The release's fused-MoE module getter for this SM with its compiled module the recorder:
    get_cutlass_fused_moe_module(sm), or 0.2.9's get_cutlass_fused_moe_sm100_module() with
    torch.classes.fused_moe_sm100 the recorder's. Returns the namespace holding MoERunner."""
    import flashinfer.fused_moe.core as core
    version = installed_version()
    module = RecorderModule(version, sm)

    class Spec:
        @staticmethod
        def build_and_load(**kw):
            return module

    for name in dir(core):
        if re.fullmatch(r"gen_cutlass_fused_moe_sm\d+_module", name):
            setattr(core, name, lambda use_fast_build=False: Spec)
    if hasattr(core, "get_cutlass_fused_moe_module"):
        core.get_cutlass_fused_moe_module.cache_clear()
        return core.get_cutlass_fused_moe_module(str(sm))
    if sm not in (100, 103, 110):
        raise Refused("FlashInfer %s has a CUTLASS fused-MoE module for SM100 only" % version)
    setattr(torch.classes, "fused_moe_sm100", _TorchClassNamespace(module))
    core.get_cutlass_fused_moe_sm100_module.cache_clear()
    return core.get_cutlass_fused_moe_sm100_module()
