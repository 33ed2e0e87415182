best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1280, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        33,
    ),
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((4096, 4096), (8, 14336, 4096), (0,), (8, 4096, 7168), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 2, 2, 1, 1, False, False, False, False, False, False, True, 3, False, True))": (
        0,
        12,
    ),
}
