best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1024, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((128, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        40,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1280, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1536, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        8,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1792, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        25,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2048, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        32,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((256, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        40,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2560, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3072, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((32, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3584, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4096, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        10,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((512, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        40,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((64, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((768, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        22,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8192, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1024, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        73,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((128, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1280, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        75,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1536, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        75,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((16, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1792, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        71,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2048, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        73,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((256, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2560, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        73,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3072, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        74,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((32, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3584, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        74,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4096, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        73,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((512, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        104,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((64, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((768, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        104,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        99,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8192, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        73,
    ),
}
