best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1024, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((128, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1280, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1536, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1792, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2048, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((256, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2560, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3072, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((32, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3584, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        8,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4096, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((512, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((64, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((768, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8192, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        90,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1024, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((128, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        90,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1280, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1536, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((16, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        90,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1792, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2048, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        66,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((256, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        93,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2560, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3072, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((32, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3584, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        62,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4096, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        66,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((512, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        93,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((64, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((768, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        92,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8192, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        66,
    ),
}
