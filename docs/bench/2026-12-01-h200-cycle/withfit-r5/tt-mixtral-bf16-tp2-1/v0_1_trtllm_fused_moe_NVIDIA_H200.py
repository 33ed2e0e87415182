best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        40,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1024, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((128, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        22,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1280, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1536, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1792, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        34,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2048, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((256, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2560, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3072, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((32, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3584, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4096, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((512, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((64, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((768, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        34,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8192, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1024, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        57,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((128, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        104,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1280, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1536, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        74,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((16, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1792, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        57,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2048, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        57,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((256, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        114,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2560, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        74,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3072, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        73,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((32, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3584, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        79,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        119,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4096, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        79,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((512, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        74,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((64, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((768, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        74,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8192, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        113,
    ),
}
