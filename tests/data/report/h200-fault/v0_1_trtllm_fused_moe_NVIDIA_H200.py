best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((16, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        21,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((2, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        19,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((8, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        18,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((1, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        99,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((16, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((2, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((4, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
    "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        100,
    ),
}
