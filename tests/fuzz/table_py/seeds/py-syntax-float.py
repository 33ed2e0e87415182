best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 3584), (32, 4096, 448), (0,), (32, 7168, 128), (0,)))": (0, 5.5),
}
