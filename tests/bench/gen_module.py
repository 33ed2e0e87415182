#!/usr/bin/env python3
"""gen_module.py N OUT: a bundled module of N valid 0.6.18-style entries (4-tuple keys with
the 20 extras, SM90 bf16 shapes, many shape families) in the ruff/black layout."""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
buckets = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 768, 1024, 1280, 1536, 1792, 2048, 2560,
           3072, 3584, 4096, 8192]
extras = ("(torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 0, 1, 0, 1, 0, False, False, "
          "False, False, False, False, True, 3, False, True)")
lines = ["best_configs = {"]
count = 0
fam = 0
while count < n:
    e = 8 + fam % 248
    inter = 128 * (1 + fam // 248)
    for stage, tac in ((1, 18), (2, 81)):
        for t in buckets:
            if count == n:
                break
            key = ("('trtllm::fused_moe::gemm%d', 'MoERunner', ((%d, 2048), (%d, %d, 2048), (0,), "
                   "(%d, 2048, %d), (0,)), %s)" % (stage, t, e, 2 * inter, e, inter, extras))
            lines.append('    "%s": (\n        0,\n        %d,\n    ),' % (key, tac))
            count += 1
    fam += 1
lines.append("}")
open(out, "w").write("\n".join(lines) + "\n")
