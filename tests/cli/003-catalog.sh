# 003-catalog: decoded candidate lists, by device or SM, per FlashInfer version; errors.
. "$ROOT/tests/lib.sh"
run tunetab catalog --sm 90 --dtype bf16 --flashinfer 0.6.18 --stage 1
run tunetab catalog --device "NVIDIA B200" --dtype nvfp4 --flashinfer 0.4.0
run tunetab catalog --device rtx-pro-6000-server --dtype nvfp4 --flashinfer 0.6.9
run tunetab catalog --device "NVIDIA GeForce RTX 5090" --dtype nvfp4 --stage 2
tunetab catalog --device b200 --dtype nvfp4 --flashinfer 0.6.18 --json >cat.json
python3 - <<'PY'
import json
c = json.load(open("cat.json"))
g2 = {t["id"]: t for t in c["gemm2"]}
print(c["catalog"], c["gemm1_count"], c["gemm2_count"], "g2 ids", min(g2), max(g2))
t = g2[42 + 79]
print("id 121:", t["m"], t["n"], t["k_bytes"], t["k_elements"], t["mma"], t["swap_ab"], t["finalize"], t["dyn_cluster"])
PY
run tunetab catalog --device "NVIDIA H200 NVL" --dtype bf16
run tunetab catalog --sm 90 --dtype nvfp4
run tunetab catalog --sm 90 --dtype bf16 --flashinfer 0.4.0
run tunetab catalog --sm 90 --dtype bf16 --flashinfer 0.2.8
run tunetab catalog --sm 100 --dtype nvfp4 --flashinfer 0.9.1 --stage 1
run tunetab catalog --sm 90 --dtype int3
run tunetab catalog --sm 90
run tunetab catalog --sm 90 --device b200 --dtype bf16
run tunetab catalog --sm 90 --dtype bf16 --flashinfer banana
run tunetab catalog --sm 90 --dtype bf16 --stage 3
# --device auto reads GPU 0 (make run picks its dtype so): it fails (exit 4) where detect does
d=0; "$TUNETAB" detect >/dev/null 2>&1 || d=$?
c=0; "$TUNETAB" catalog --device auto --dtype fp8 >/dev/null 2>&1 || c=$?
[ "$c" = "$d" ] && echo "catalog --device auto: exits as detect does"
