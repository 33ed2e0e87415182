best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1024, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((128, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1280, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1536, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1792, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        25,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2048, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((256, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2560, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3072, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((32, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3584, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4096, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((512, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((64, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((768, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8192, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1024, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((128, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        90,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1280, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1536, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((16, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1792, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2048, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        66,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((256, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        93,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2560, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        66,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3072, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        65,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((32, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        90,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3584, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        65,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4096, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        66,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((512, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((64, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        90,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((768, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8192, 4096), (32, 3072, 4096), (0,), (32, 4096, 1536), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 4, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        66,
    ),
}
