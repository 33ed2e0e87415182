best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1024, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((128, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        40,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1280, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1536, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1792, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        6,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2048, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((256, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        40,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2560, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        11,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3072, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        29,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((32, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        40,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((3584, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4096, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((512, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((64, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        40,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((768, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        23,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        38,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8192, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        82,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1024, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        71,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((128, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1280, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        71,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1536, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        71,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((16, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        99,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1792, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        71,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        82,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2048, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        95,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((256, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        102,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2560, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        56,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3072, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        56,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((32, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((3584, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        56,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        119,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4096, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        114,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((512, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        104,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((64, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((768, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        104,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        82,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8192, 5120), (16, 4096, 5120), (0,), (16, 5120, 2048), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 1, 4, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        113,
    ),
}
