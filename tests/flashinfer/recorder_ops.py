"""recorder_ops.py: stand-ins for the compiled functions the fp4_gemm and trtllm-gen MoE runners
call (FlashInfer 0.7.4), each checking its arguments as the 0.7.4 C++ binding does and raising
BindingError on a violation; calls are recorded in .calls. CPU tensors: the bindings' "must be
a CUDA tensor" checks are the one part not applied.

  Fp4GemmModule(sm)  fp4_gemm, fp4_gemm_tactic_num (data/csrc/fp4_gemm_cutlass.cu fp4_bmm_impl
                     for SM100/103/110, fp4_gemm_cutlass_sm120.cu for SM120/121; the counts
                     from getConfigs() in data/include/flashinfer/gemm/fp4_gemm_cutlass_template*.h:
                     32 on SM100/110, 63 on SM103, 32 on SM120/121)
  Module()           trtllm_fp4_block_scale_moe, trtllm_get_valid_moe_configs
                     (data/csrc/trtllm_fused_moe_kernel_launcher.cu: trtllm_fp4_block_scale_moe,
                     FP4BlockScaleLauncher::check_routing/check_moe, check_routing_common,
                     check_routing_logits, getSupportedTileNums). Named Module so that the
                     runner's extras print 'Module' as with the real tvm_ffi module.
  CutlassMoeModule() the `module` the CUTLASS fused-MoE MoERunner closes over (core.py
                     get_cutlass_fused_moe_module): init(...) gives a FusedMoeRunner stand-in
                     (data/csrc/fused_moe/cutlass_backend/flashinfer_cutlass_fused_moe_binding.cu:
                     the FusedMoeRunner constructor's dtype combinations and mInnerDimMultiplier,
                     lines 167-335; runGemmProfile, 685-781, with the weight checks runMoe makes
                     of the same tensors, 403-437). Its tactic counts come from the compiled
                     kernels' getTactics (not in the wheel): get_gemm1/2_tactic_count raise, so
                     only tactic -1 (the fallback) is accepted.
"""
import torch

TACTICS = {100: 32, 110: 32, 103: 63, 120: 32, 121: 32}
E2M1, MXE2M1 = 17826818, 17826828  # tllm_enums.DtypeTrtllmGen


class BindingError(RuntimeError):
    pass


def check(cond, text):
    if not cond:
        raise BindingError(text)


def contiguous(x, name):
    check(x.is_contiguous(), f"{name} must be contiguous")


class Fp4GemmModule:
    def __init__(self, sm=100):
        self.sm = sm
        self.calls = []

    def fp4_gemm_tactic_num(self):
        return TACTICS[self.sm]

    def fp4_gemm(self, mat1, mat2, mat1Scale, mat2Scale, globalScale, out, workspace, tactic):
        sm120 = self.sm in (120, 121)
        for x, name, dt in ((mat1, "mat1", torch.uint8), (mat2, "mat2", torch.uint8),
                            (mat1Scale, "mat1Scale", torch.uint8), (mat2Scale, "mat2Scale", torch.uint8),
                            (globalScale, "globalScale", torch.float32)):
            check(x.dtype == dt, f"Inconsistency of Tensor type: {name} ({x.dtype}, not {dt})")
            if not sm120:  # CHECK_INPUT_AND_TYPE: contiguous too (SM100 binding)
                contiguous(x, name)
        check(mat1.dim() in (2, 3), "mat1 must be a matrix or a batch of matrices")
        check(mat2.dim() == mat1.dim(), "mat2 must be a matrix" if mat1.dim() == 2 else "mat2 must be a batch of matrices")
        check(mat1.shape[-1] == mat2.shape[-1],
              f"mat1 and mat2 shapes cannot be multiplied ({tuple(mat1.shape)} and {tuple(mat2.shape)})")
        m, n, k = mat1.shape[-2], mat2.shape[-2], mat2.shape[-1] * 2
        if sm120:
            check(globalScale.numel() == 1, "globalScale must be a scalar tensor")
        if tactic == -1 and not sm120:
            tactic = 0
        if tactic != -1:
            check(0 <= tactic < TACTICS[self.sm], f"tactic must be between 0 and {TACTICS[self.sm]}")
        if not sm120:
            check(k % 32 == 0, f"Expected k to be divisible by 32, k: {k}")
            check(n % 32 == 0, f"Expected n to be divisible by 32, mat2 shape {tuple(mat2.shape)}")
        check(tuple(out.shape) == (m, n), f"out shape {tuple(out.shape)}, expected {(m, n)}")
        check(out.dtype in (torch.float16, torch.bfloat16), "out_dtype must be one of fp16/bf16.")
        # the sizes the kernel reads (the binding's comment, not checked there): the 128x4 scales
        ksf = (k // 16 + 3) // 4 * 4
        check(mat1Scale.numel() >= (m + 127) // 128 * 128 * ksf, "mat1Scale smaller than ceil(M/128)*128*ceil(K/16/4)*4")
        check(mat2Scale.numel() >= (n + 127) // 128 * 128 * ksf, "mat2Scale smaller than ceil(N/128)*128*ceil(K/16/4)*4")
        check(workspace.dtype == torch.uint8 and workspace.dim() == 1, "workspace: a 1-D byte buffer")
        self.calls.append(("fp4_gemm", m, n, k, tactic))
        return out


def supported_tiles(dtype_act, dtype_weights):
    tiles = [8, 16, 32, 64]
    tiles.append(128)
    if dtype_act == dtype_weights == E2M1:
        tiles.append(192)
    tiles.append(256)
    return tiles


class Module:
    def __init__(self):
        self.calls = []

    def trtllm_get_valid_moe_configs(self, dtype_act, dtype_weights, quant, top_k, hidden,
                                     hidden_out, inter, local_experts, experts, act, shuffled,
                                     layout, per_token, num_tokens, has_lora):
        """A fixed [tile_N, config] list (the real config indices come from the trtllm-gen cubin
        artifact, not in the wheel): config 0 of every supported tile."""
        return [[t, 0] for t in supported_tiles(int(dtype_act), int(dtype_weights))]

    def trtllm_fp4_block_scale_moe(self, routing_input_mode, routing_logits, topk_ids,
                                   topk_weights, routing_bias, hidden_states, hidden_states_scale,
                                   gemm1_weights, gemm1_weights_scale, gemm1_bias, gemm1_lora_delta,
                                   gemm1_alpha, gemm1_beta, gemm1_clamp_limit, gemm2_weights,
                                   gemm2_weights_scale, gemm2_bias, output1_scales_scalar,
                                   output1_scales_gate_scalar, output2_scales_scalar,
                                   per_token_scales, num_experts, top_k, num_fused_shared_experts,
                                   n_group, topk_group, intermediate_size, local_expert_offset,
                                   local_num_experts, routed_scaling_factor, routing_method_type,
                                   do_finalize, enable_pdl, act_type, output, config_index,
                                   norm_topk_prob, routing_replay_out, da_routing_metadata,
                                   da_body_workspace, is_da_body_preparation, valid_hidden_size,
                                   valid_intermediate_size, workspace_buffer,
                                   query_workspace_size, nvfp4_4over6_code):
        num_tokens = hidden_states.shape[0]
        hidden = hidden_states.shape[1] * (2 if hidden_states.dtype == torch.uint8 else 1)
        nfse = num_fused_shared_experts or 0
        total_local = local_num_experts + nfse
        gated = int(act_type) in (3, 4, 7, 10)
        logical = total_local * intermediate_size * (2 if gated else 1) * hidden
        raw = logical // gemm1_weights_scale.numel()
        vec = 32 if raw > 16 else 16
        check(gemm1_weights_scale.numel() >= logical // vec, "weight scale tensor too small")
        dtype_w = E2M1 if vec == 16 else MXE2M1
        if routing_bias is not None:
            check(routing_bias.dtype in (torch.bfloat16, torch.float32), "routing_bias must be bfloat16 or float.")
            check(routing_bias.dim() == 1 and routing_bias.shape[0] == num_experts, "routing_bias has incorrect shape.")
        check(gemm1_weights.dtype == torch.uint8 and gemm2_weights.dtype == torch.uint8, "weights must be fp4 packed in uint8.")
        check(hidden_states.dtype in (torch.uint8, torch.bfloat16, torch.float8_e4m3fn),
              "hidden_states must be bf16, fp8 or uint8 (packed fp4).")
        check(hidden_states.dtype == torch.uint8, "the recorder knows the NVFP4 (uint8) activation only")
        check(hidden_states_scale is not None and hidden_states_scale.dtype == torch.float8_e4m3fn,
              "hidden_states_scale must be provided for fp4 activation.")
        hvec = num_tokens * hidden // hidden_states_scale.numel()
        check(hvec in (16, 32), "Unsupported hidden state scale shape.")
        dtype_a = E2M1 if hvec == 16 else MXE2M1
        # check_routing_common
        check(0 < top_k <= num_experts, "top_k must be between 1 and num_experts")
        check(0 < local_num_experts <= num_experts, "local_num_experts must be between 1 and num_experts")
        check(local_expert_offset >= 0 and local_expert_offset + local_num_experts <= num_experts,
              "expert offset and count must be within valid range")
        if routing_logits is not None:
            check(routing_logits.dim() == 2, "routing_logits must be 2D.")
            check(routing_logits.shape[0] == num_tokens, "routing_logits and hidden_states must have the same number of tokens.")
            check(routing_logits.shape[1] == num_experts, "routing_logits dim1 must match num_experts.")
            check(routing_logits.dtype in (torch.float32, torch.bfloat16), "routing_logits must be float or bfloat16.")
        if int(routing_input_mode) == 1:  # UnpackedPrecomputed
            check(topk_ids.dtype == torch.int32, "topk_ids must be int32 for unpacked precomputed routing.")
            check(topk_weights.dtype in (torch.bfloat16, torch.float32),
                  "topk_weights must be bfloat16 or float32 for unpacked precomputed routing.")
        if nfse > 0:
            check(topk_ids.numel() == num_tokens * (top_k + nfse), "topk_ids must have num_tokens * (top_k + num_fused_shared_experts) elements")
        # check_moe
        check(dtype_a == E2M1 and dtype_w == E2M1 or dtype_a != E2M1,
              "Only E2m1 and MxE2m1 are supported by block scale MoE with E2m1 activation")
        if dtype_a == E2M1:
            for x, name in ((output1_scales_scalar, "output1_scales_scalar"),
                            (output1_scales_gate_scalar, "output1_scales_gate_scalar"),
                            (output2_scales_scalar, "output2_scales_scalar")):
                check(x is not None, f"{name} is required for E2m1 activation")
        check(gemm1_weights_scale.dtype == torch.float8_e4m3fn, "gemm1_weights_scale must be fp8.")
        check(gemm2_weights_scale.dtype == torch.float8_e4m3fn, "gemm2_weights_scale must be fp8.")
        check(hidden_states.dim() == 2, "hidden_states must be 2D.")
        if nfse > 0:
            check(gemm1_weights.shape[0] == total_local and gemm2_weights.shape[0] == total_local,
                  "weights dim 0 must be local_num_experts + num_fused_shared_experts.")
        # the op's Python side (core.py) and the launcher: output (T, H) bf16 with finalize
        if do_finalize:
            check(output.dtype == torch.bfloat16 and output.shape[0] == num_tokens, "output: (T, H) bf16")
        tile, cfg = list(config_index)
        tiles = supported_tiles(dtype_a, dtype_w)
        check(tile == -1 or tile in tiles, f"tile_N {tile} not among the supported {tiles}")
        self.calls.append(("trtllm_fp4_block_scale_moe", num_tokens, tile, cfg))
        return [output]


class FusedMoeRunner:
    """The CUTLASS fused-MoE binding's FusedMoeRunner, as far as profiling reads it."""

    def __init__(self, x_dtype, weight_dtype, output_dtype, use_deepseek_fp8_block_scale,
                 use_w4_group_scaling, use_mxfp8_act_scaling, use_packed_weights,
                 use_fused_finalize, use_wfp4afp8_humming):
        self.x_dtype, self.weight_dtype, self.output_dtype = x_dtype, weight_dtype, output_dtype
        self.use_w4_group_scaling = use_w4_group_scaling
        self.use_fused_finalize = use_fused_finalize
        self.calls = []
        # isNvfp4Quant(): int64 weights, activation not fp8 (binding :1619-1622); mInnerDimMultiplier 16
        self.nvfp4 = weight_dtype == torch.int64 and x_dtype != torch.float8_e4m3fn
        check(self.nvfp4, "the recorder knows the NVFP4 (int64 weights) CUTLASS MoE only")
        # the NVFP4 runner: bf16/fp16 activation (quantized by the kernel) or packed fp4 (uint8)
        check(x_dtype in (torch.bfloat16, torch.float16, torch.uint8),
              f"Could not construct fused moe op with the requested input combination Activation: {x_dtype}")
        check(output_dtype in (torch.bfloat16, torch.float16, torch.float32),
              f"Invalid output type {output_dtype}")
        self.inner = 16

    def get_gemm1_tactic_count(self):
        raise BindingError("the tactic counts come from the compiled kernels (not recorded)")

    get_gemm2_tactic_count = get_tactic_num = get_gemm1_tactic_count

    def run_gemm_profile(self, input, fc1_expert_weights, fc1_expert_biases, fc2_expert_weights,
                         fc2_expert_biases, top_k, tp_size, tp_rank, ep_size, ep_rank, cluster_size,
                         cluster_rank, enable_alltoall, min_latency_mode, gemm_idx, profile_id,
                         do_preparation, enable_pdl, activation_type):
        check(input.dtype == self.x_dtype, f"input dtype {input.dtype}, the runner's is {self.x_dtype}")
        check(fc1_expert_weights.dtype == self.weight_dtype and fc2_expert_weights.dtype == self.weight_dtype,
              "weights dtype differs from the runner's")
        check(profile_id == -1, f"Invalid profile id: {profile_id} (the recorder accepts -1 only)")
        check(gemm_idx in (1, 2), f"gemm_idx {gemm_idx}")
        check(fc1_expert_weights.dim() == 3 and fc2_expert_weights.dim() == 3, "weights must be [E, N, K]")
        check(fc1_expert_weights.shape[0] == fc2_expert_weights.shape[0],
              "fc1_expert_weights and fc2_expert_weights must have the same number of experts.")
        hidden = fc2_expert_weights.shape[1]
        inter = fc2_expert_weights.shape[2] * self.inner
        # isGatedActivation (cutlass_kernels/include/moe_gemm_kernels.h:254-260): Swiglu, Geglu,
        # SwigluBias, SwigluStep, GegluTanh, Situ, PowLU (tllm_enums.ActivationType)
        gated = int(activation_type) in (3, 4, 5, 7, 8, 10, 13)
        check(fc1_expert_weights.shape[1] == inter * (2 if gated else 1),
              "fc1_expert_weights inter size must be 2 times fc2_expert_weights inter size." if gated else
              "fc1_expert_weights inter size must be equal to fc2_expert_weights inter size.")
        check(fc1_expert_weights.shape[2] * self.inner == hidden,
              f"fc1 K ({fc1_expert_weights.shape[2] * self.inner}) is not fc2's hidden size ({hidden})")
        x_hidden = input.shape[1] * (2 if input.dtype == torch.uint8 else 1)
        check(x_hidden == hidden, f"input hidden {x_hidden}, weights' {hidden}")
        # min_alignment = 128 / (8 * min(bytes of activation, weight)): 16 for fp4 / int64 weights
        align = 128 // (8 * min(input.element_size(), fc2_expert_weights.element_size()))
        check(hidden % align == 0, f"hidden_size {hidden} must be divisible by {align} for weights")
        check(inter % align == 0, f"inter_size {inter} must be divisible by {align} for weights")
        check(0 < top_k and cluster_size == 1 and cluster_rank == 0, "top_k > 0, cluster 1/0")
        for b, w, name in ((fc1_expert_biases, fc1_expert_weights, "fc1"), (fc2_expert_biases, fc2_expert_weights, "fc2")):
            if b is not None:
                check(b.shape[0] == w.shape[0] and b.shape[1] == w.shape[1], f"{name}_expert_biases shape")
        self.calls.append(("run_gemm_profile", input.shape[0], gemm_idx, profile_id, do_preparation))


class CutlassMoeModule:
    def __init__(self):
        self.runners = []

    def init(self, *args):
        r = FusedMoeRunner(*args)
        self.runners.append(r)
        return r
