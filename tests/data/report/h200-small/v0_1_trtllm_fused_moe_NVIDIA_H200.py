best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        18,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        18,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((32, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((64, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((16, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((32, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        90,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((64, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        93,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 7168), (32, 4096, 7168), (0,), (32, 7168, 2048), (0,)), (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16, 8, 1, 8, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        91,
    ),
}
