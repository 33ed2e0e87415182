# A generated table cut short: FlashInfer re-raises the SyntaxError (flashinfer-formats.md §1.2).
best_configs = {
    "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 3584), (256, 512, 448), (0,), (256, 7168, 16), (0,)))": (0, 5),
