# 010-python-oracle: python3 is the oracle for Python-literal and JSON formatting.
# (1) Keys with tricky strings and extras: tunetab must accept exactly the keys that equal
#     Python's str() of their tuple, and name that str() for the ones that do not.
# (2) A JSON cache written by Python's json.dump(indent=2) (with _generation computed by
#     hashlib): tunetab convert must reproduce it byte for byte.
. "$ROOT/tests/lib.sh"
python3 - "$TUNETAB" <<'PY'
import hashlib, json, subprocess, sys
tunetab = sys.argv[1]

class Dt(str):
    def __repr__(self): return str(self)

tricky = ["plain", "a'b", 'a"b', "a'b\"c", "back\\slash", "tab\there", "new\nline", "cr\rx",
          "bell\x07", "del\x7f", "caf\u00e9", "\u4e2d\u6587", "emoji\U0001F600", "nbsp\u00a0x",
          "shy\u00adx", "zwsp\u200bx", "ls\u2028x", "tag\U000E0001x", "priv\ue000x", "", " ",
          "''", '""', "\\'", "\x1b[31m"]
extras_pool = [(), (Dt("torch.uint8"), Dt("torch.int64"), Dt("torch.bfloat16"), 8, 1, 0, 1, 0, 1, 0,
                    False, False, False, False, False, False, True, 3, False, True),
               (None, True, -1, (), (1,), ((2, 3),), "x'y", Dt("torch.float8_e4m3fn"))]
cases = []
for i, s in enumerate(tricky):
    ex = extras_pool[i % len(extras_pool)]
    t = ("trtllm::fused_moe::gemm1", s, ((i + 1, 2048), (8, 512, 2048), (0,), (8, 2048, 256), (0,)), ex)
    canon = str(t)
    cases.append((canon, canon))                       # canonical: must pass
    cases.append((canon.replace(", ", ",", 1), canon))  # spacing: must be flagged
    if "'" not in s and '"' not in s and s:
        cases.append((canon.replace("'" + s + "'", '"' + s + '"', 1) if "\\" not in repr(s) else canon.replace(", (", ",  (", 1), canon))
lines = ["best_configs = {"]
for key, _ in cases:
    lines.append("    %r: (0, 18)," % key)
lines.append("}")
open("v0_1_trtllm_fused_moe_NVIDIA_H200.py", "w", encoding="utf-8").write("\n".join(lines) + "\n")
out = subprocess.run([tunetab, "validate", "--format", "json", "--flashinfer", "0.6.18",
                      "v0_1_trtllm_fused_moe_NVIDIA_H200.py"], capture_output=True, text=True)
flagged = {}
for l in out.stdout.split("\n"):
    if not l: continue
    f = json.loads(l)
    if "summary" in f:  # the closing summary line; the others are findings
        continue
    if f["check"] == "key-canonical":
        flagged[f["line"]] = f["message"].split("it should read: ", 1)[1]
    if f["check"] in ("syntax", "key-syntax"):
        print("unexpected:", f)
ok = bad = 0
for i, (key, canon) in enumerate(cases):
    line = i + 2
    if key == canon:
        good = line not in flagged
    else:
        good = flagged.get(line) == canon
    ok += good
    bad += not good
    if not good:
        print("MISMATCH line", line, repr(key), "->", repr(flagged.get(line)), "want", repr(canon))
print("keys: %d agree with python3, %d disagree" % (ok, bad))

# (2) JSON cache byte for byte
doc = {"_metadata": {"flashinfer_version": "0.6.18", "cuda_version": "13.0", "cublas_version": "13.1.0",
                     "cudnn_version": "91900", "cudnn_frontend_version": "1.25.0", "gpu": "NVIDIA H200 \u00e9\"\\"}}
entries = {}
for i, (key, canon) in enumerate(cases[:40]):
    entries[canon] = ["MoERunner", i if i % 3 else [i, [i + 1, -2], True]]
for k in sorted(entries):
    doc[k] = entries[k]
compact = json.dumps(doc, sort_keys=True, separators=(",", ":"))
doc["_generation"] = hashlib.sha256(compact.encode()).hexdigest()
with open("cache.json", "w") as f:
    json.dump(doc, f, indent=2)
r = subprocess.run([tunetab, "convert", "cache.json", "-o", "again.json"], capture_output=True, text=True)
same = open("cache.json", "rb").read() == open("again.json", "rb").read()
print("json cache round trip identical:", same, r.returncode)

# (3) 0.7.4's entries [runner, tactic, policy, selection] and _records with floats: the same
#     bytes back, and _generation (which covers them) is the content's, as Python computes it
import random
rnd = random.Random(7)
floats = [0.1, -0.0, 1.0, 1e16, 1e15, 123456789012345.6, 1e-05, 0.0001, 2.5e-07, 1.7976931348623157e308,
          5e-324, 3.141592653589793, 100.0, 1e22, 0.30000000000000004] + \
         [rnd.uniform(-1e6, 1e6) for _ in range(40)] + [rnd.random() * 10 ** rnd.randint(-30, 30) for _ in range(40)]
doc = {"_metadata": {"flashinfer_version": "0.7.4", "cuda_version": "13.0", "cublas_version": "13.1.0",
                     "cudnn_version": "91900", "cudnn_frontend_version": "1.25.0", "cutlass_dsl_version": "*",
                     "gpu": "NVIDIA H200"},
       "_records": {"trtllm_moe_da": {"r0": {"schema": 1, "values": floats}}}}
for i, (key, canon) in enumerate(cases[:20]):
    doc[canon] = ["MoERunner", i, ["cuda_graph_profile_replays", None, "l2_cache_policy", "hot"],
                  {"tie": floats[i], "n": i}]
ordered = {"_metadata": doc["_metadata"], "_records": doc["_records"]}
for k in sorted(k for k in doc if not k.startswith("_")):
    ordered[k] = doc[k]
ordered["_generation"] = hashlib.sha256(json.dumps(ordered, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
with open("policy.json", "w") as f:
    json.dump(ordered, f, indent=2)
r = subprocess.run([tunetab, "convert", "policy.json", "-o", "policy2.json"], capture_output=True, text=True)
same = open("policy.json", "rb").read() == open("policy2.json", "rb").read()
print("policies, selection records and float records round trip identical:", same, r.returncode)
v = subprocess.run([tunetab, "validate", "--format", "json", "policy.json"], capture_output=True, text=True)
print("json-generation findings on it:", v.stdout.count('"json-generation"'))
PY
