best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1024, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((128, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1280, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1536, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1792, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2048, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        25,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((256, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2560, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        8,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3072, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        8,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((32, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3584, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        25,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4096, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((512, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((64, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((768, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8192, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        73,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1024, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((128, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1280, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1536, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((16, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1792, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        73,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2048, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((256, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        90,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2560, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3072, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((32, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3584, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        60,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        93,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4096, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((512, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        93,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((64, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        93,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((768, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        92,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8192, 3072), (32, 3072, 3072), (0,), (32, 3072, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        66,
    ),
}
