import sys, os, torch, tvm_ffi
from flashinfer.autotuner import AutoTuner
from flashinfer.fused_moe.backends.trtllm import MoERunner
from flashinfer.fused_moe.shared.inputs import MoeRunnerInputs
from flashinfer.tllm_enums import (DtypeTrtllmGen, Fp8QuantizationType, WeightLayout,
    ActivationType, RoutingInputMode, deduce_trtllm_gen_tensor_dtype, SfLayout)

# DeepSeek-V3-like: E=256, top-8, H=7168, I=2048; TP8 -> I_local=256, E_local=256; EP8 -> I=2048, E_local=32
mode = os.environ.get("PAR", "tp8")
E, K, H, I = 256, 8, 7168, 2048
E_local, I_local = (256, I // 8) if mode == "tp8" else (32, I)
T = int(os.environ.get("T", "1"))
path = os.environ.get("ROUTE", "logits")   # logits | unpacked | packed
tune_max = int(os.environ.get("TUNE_MAX", "8192"))

hs = torch.empty(T, H // 2, dtype=torch.uint8)
hs_sf = torch.empty(T, H // 16, dtype=torch.float8_e4m3fn)
w1 = torch.empty(E_local, 2 * I_local, H // 2, dtype=torch.uint8)
w1_sf = torch.empty(E_local, 2 * I_local, H // 16, dtype=torch.float8_e4m3fn)
output = torch.empty(T, H, dtype=torch.bfloat16)
if path == "logits":
    logits = torch.empty(T, E, dtype=torch.float32); mode_ = RoutingInputMode.FromLogits
    topk_ids = torch.empty(T, K, dtype=torch.int32); topk_w = torch.empty(T, K, dtype=torch.bfloat16)
elif path == "unpacked":
    logits = None; mode_ = RoutingInputMode.UnpackedPrecomputed
    topk_ids = torch.zeros(T, K, dtype=torch.int32); topk_w = torch.empty(T, K, dtype=torch.float32)
else:
    logits = None; mode_ = RoutingInputMode.PackedPrecomputed
    topk_ids = torch.zeros(T, K, dtype=torch.int32); topk_w = torch.empty(T, K, dtype=torch.bfloat16)

r = MoERunner(tvm_ffi.system_lib(), top_k=K, num_local_experts=E_local,
    dtype_act=deduce_trtllm_gen_tensor_dtype(hs, hs_sf),
    dtype_weights=deduce_trtllm_gen_tensor_dtype(w1, w1_sf),
    fp8_quantization_type=Fp8QuantizationType.NoneFp8, hidden_size=H, hidden_size_output=H,
    intermediate_size=I_local, activation_type=ActivationType.Swiglu.value,
    weight_layout=WeightLayout.MajorK, use_shuffled_weight=True,
    use_per_token_scaling=False, num_experts=E, num_fused_shared_experts=0)
mi = MoeRunnerInputs(output=output, routing_logits=logits, topk_ids=topk_ids, expert_weights=topk_w,
    hidden_states=hs, hidden_states_scale=hs_sf, gemm1_lora_delta=None, per_token_scale=None)
cfg = r._make_tuning_config(mi, tune_max_num_tokens=tune_max, routing_input_mode=mode_,
    hidden_states_scale_layout=SfLayout.layout_linear, use_cold_l2_cache=True, use_cuda_graph=True)
inp = mi.to_list()
t = AutoTuner.get()
shapes = t._get_input_sizes(inp)
print("raw:", shapes)
print("lookup:", AutoTuner._get_cache_key("flashinfer::trtllm_fp4_block_scale_moe", r, shapes, cfg, r.get_cache_key_extras(inp)).file_key)
print("policy:", AutoTuner._profiling_policy(cfg))
profs = t._generate_optimization_profiles(cfg, inp)
print("profiles:", [p.get_opt_shapes()[4][0] for p in profs])
print("query_key for valid tactics (T=%d):" % T, (int(r.dtype_act), int(r.dtype_weights), int(r.fp8_quantization_type), K, H, H, I_local, E_local, E, int(r.activation_type), True, 0, False, T, False))
