# requires: fixtures
# 023-b200-fixture-agreement: heuristic-only generation for NVIDIA B200 with the pre-0.5.3
# catalog (FlashInfer 0.4.0), DeepSeek-V3 geometry, NVFP4, TP 8 (256 experts x 256) and
# 32 routed experts without EP (32 x 2048: the table's "EP8-style" keys, which its switch
# points show were routed over 32 experts; tests/data/rankings/b200-v0_1-ep8.yaml), max 16384
# tokens, against FlashInfer's own shipped B200 table: the share of its keys whose tactic we
# reproduce, per shape family (target: at least 80% overall).
. "$ROOT/tests/lib.sh"
tunetab generate --device "NVIDIA B200" --model deepseek-v3 --dtype nvfp4 --tp 8 --flashinfer 0.4.0 --max-tokens 16384 -o tp -q
tunetab generate --device "NVIDIA B200" --model "$ROOT/tests/data/models/deepseek-v3-e32.yaml" --dtype nvfp4 --flashinfer 0.4.0 --max-tokens 16384 -o ep -q
python3 - "$ROOT/../shared/fixtures/flashinfer/v0_1_trtllm_fused_moe_NVIDIA_B200.py" <<'PY'
import ast, sys
def load(p): return ast.literal_eval(open(p).read().split("=", 1)[1])
fixture = load(sys.argv[1])
ours = {**load("tp/v0_1_trtllm_fused_moe_NVIDIA_B200.py"), **load("ep/v0_1_trtllm_fused_moe_NVIDIA_B200.py")}
fam = {}
for k, v in fixture.items():
    t = ast.literal_eval(k)
    f = "%s E%d" % (t[0].split("::")[-1], t[2][1][0])
    a = fam.setdefault(f, [0, 0])
    a[1] += 1
    a[0] += k in ours and ours[k][1] == v[1]
hit = sum(a for a, n in fam.values()); n = sum(n for a, n in fam.values())
for f in sorted(fam):
    print("%-11s %2d/%2d" % (f, fam[f][0], fam[f][1]))
print("reproduced %d/%d keys (%.1f%%): %s" % (hit, n, 100.0 * hit / n, "target met" if hit >= 0.8 * n else "TARGET MISSED"))
PY
