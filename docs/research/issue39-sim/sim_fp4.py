import sys, torch, types
from flashinfer.autotuner import AutoTuner
import flashinfer.gemm.gemm_base as gb
from flashinfer.fused_moe.utils import get_hybrid_num_tokens_buckets, map_to_hybrid_bucket_uncapped

class StubMod:
    def fp4_gemm(self, *a): raise RuntimeError("stub")
    def fp4_gemm_tactic_num(self): return 32
runner = gb._create_cutlass_fp4_gemm_module(StubMod(), "flashinfer::cutlass_fp4_gemm", "cutlass_fp4_gemm").cutlass_fp4_gemm_runner()
cfg = gb._MM_FP4_TUNING_CONFIG_128x4

def inputs_for(M, N, K):
    rup = lambda x, y: (x + y - 1)//y*y
    a = torch.empty(M, K//2, dtype=torch.uint8)
    b = torch.empty(N, K//2, dtype=torch.uint8).T            # weight.T -> (K/2, N)
    a_sf = torch.empty(rup(M,128), rup(K//16,4), dtype=torch.uint8)
    b_sf = torch.empty(rup(N,128), rup(K//16,4), dtype=torch.float8_e4m3fn).T
    alpha = torch.tensor(1.0, dtype=torch.float32)          # 0-d, as SGLang/vLLM build it
    out = torch.empty(M, N, dtype=torch.bfloat16)
    ws = torch.empty(gb.DEFAULT_WORKSPACE_SIZE, dtype=torch.uint8)
    return [a, b, a_sf, b_sf, alpha, torch.bfloat16, out, 16, True, ws]

M, N, K = [int(x) for x in sys.argv[1:4]] if len(sys.argv) > 3 else (1, 4096, 7168)
inp = inputs_for(M, N, K)
shapes = AutoTuner.get()._get_input_sizes(inp)
print("raw shapes:", shapes)
key = AutoTuner._get_cache_key("fp4_gemm", runner, shapes, cfg, runner.get_cache_key_extras(inp))
print("runtime lookup key:", key.file_key)
print("policy:", AutoTuner._profiling_policy(cfg))
profs = AutoTuner.get()._generate_optimization_profiles(cfg, inp)
print("tuning at M=%d: %d profiles" % (M, len(profs)))
for p in profs:
    k = AutoTuner._get_cache_key("fp4_gemm", runner, p.get_opt_shapes(), cfg, runner.get_cache_key_extras(inp))
    print("  opt M=%5d -> %s" % (p.get_opt_shapes()[0][0], k.file_key))
print("buckets(8192):", get_hybrid_num_tokens_buckets(8192))
print("buckets(16384):", get_hybrid_num_tokens_buckets(16384))
print("map:", {x: map_to_hybrid_bucket_uncapped(x) for x in [0,1,3,5,200,257,300,1000,2049,2500,4097,5000,8193,10000,20000]})

import os
if os.environ.get("VLLM_MAX"):
    from flashinfer.autotuner import autotune
    mx = int(os.environ["VLLM_MAX"])
    t = AutoTuner.get()
    with autotune(True, tuning_buckets=get_hybrid_num_tokens_buckets(mx), round_up=True):
        cfg2 = t._apply_tuning_overrides(cfg)
        profs = t._generate_optimization_profiles(cfg2, inp)
        print("vLLM-style override max=%d: %d profiles" % (mx, len(profs)))
        ks = [AutoTuner._get_cache_key("fp4_gemm", runner, p.get_opt_shapes(), cfg2, ()).file_key for p in profs]
        print("  first:", ks[0]); print("  last:", ks[-1])
        print("  M in keys:", [p.get_opt_shapes()[0][0] for p in profs])
        print("  policy:", AutoTuner._profiling_policy(cfg2))
