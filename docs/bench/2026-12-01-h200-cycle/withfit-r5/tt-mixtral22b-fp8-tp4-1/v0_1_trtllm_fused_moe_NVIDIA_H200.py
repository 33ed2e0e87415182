best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1024, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((128, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1280, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1536, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1792, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        16,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2048, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((256, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2560, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3072, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((32, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3584, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4096, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((512, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((64, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((768, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8192, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1024, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        105,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((128, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1280, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        86,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1536, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        65,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((16, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1792, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        65,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2048, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        86,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((256, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2560, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        64,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3072, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        104,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((32, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3584, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        86,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4096, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        104,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((512, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((64, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        93,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((768, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        65,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8192, 6144), (8, 8192, 6144), (0,), (8, 6144, 4096), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 2, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        64,
    ),
}
