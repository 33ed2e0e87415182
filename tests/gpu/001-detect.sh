# 001-detect (GPU): detect reads every GPU through the CUDA runtime; a GPU with a device
# profile maps to it; the bundled file name follows FlashInfer's rule.
set -eu
"$TUNETAB" detect | tee detect.txt
"$TUNETAB" detect --json >detect.json
"$TUNETAB" devices --json >devices.json
python3 - <<'PY'
import json, sys
d = json.load(open("detect.json"))
profiles = {p["name"]: p for p in json.load(open("devices.json"))}
assert d["gpus"], "no GPU listed"
assert d["driver_version"] > 0 and d["runtime_version"] > 0
for g in d["gpus"]:
    assert g["sm_count"] > 0 and g["memory_bytes"] > 0 and g["l2_bytes"] > 0, g
    assert g["smem_per_block_optin"] < g["smem_per_sm"], g
    if g["name"] in profiles:
        p = profiles[g["name"]]
        assert g["profile"] == p["id"], (g["profile"], p["id"])
        cc = "%s" % g["compute_capability"]
        assert cc == p["compute_capability"], (cc, p["compute_capability"])
    else:
        assert g["profile"] is None and g["nearest_profiles"], g
g0 = d["gpus"][0]
want = "v0_1_trtllm_fused_moe_" + g0["name"].replace(" ", "_") + ".py"
assert any(f["file"] == want for f in g0["bundled_files"]), g0["bundled_files"]
for g in d["gpus"]:  # the JSON cache generate writes for it (the GPU tests take the name from here)
    assert g["json_cache"] == "flashinfer_autotune_" + g["name"].replace(" ", "_") + ".json", g["json_cache"]
print("detect ok:", [(g["name"], g["profile"]) for g in d["gpus"]])
PY
