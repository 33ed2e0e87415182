best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1024, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((128, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1280, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1536, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        25,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1792, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2048, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((256, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        40,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2560, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3072, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((32, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3584, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4096, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((512, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((64, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((768, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8192, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1024, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        73,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((128, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1280, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        75,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1536, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        75,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((16, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        99,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1792, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        75,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2048, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        75,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((256, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2560, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        75,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3072, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        74,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((32, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3584, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        74,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4096, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        75,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((512, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        104,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((64, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((768, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        104,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8192, 4096), (64, 2816, 4096), (0,), (64, 4096, 1408), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 2, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        73,
    ),
}
