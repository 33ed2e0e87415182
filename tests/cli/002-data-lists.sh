# 002-data-lists: the device and model profiles as users see them.
. "$ROOT/tests/lib.sh"
run tunetab devices
run tunetab models
tunetab devices --json >devices.json
python3 - <<'PY'
import json
d = json.load(open("devices.json"))
h = [x for x in d if x["name"] == "NVIDIA H200"][0]
print("devices:", len(d), "H200:", h["compute_capability"], h["sm_count"], h["l2_bytes"])
print("unknown stays null:", [x["id"] for x in d if x["l2_bytes"] is None])
PY
tunetab models --json | python3 -c 'import json,sys; m=json.load(sys.stdin); print(len(m), "models;", sorted(x["id"] for x in m)[:3])'
