"""regret.py TABLE.json: the regret of a flashinfer-backend table made with the stub
(tests/data/fi-stub/kernels.py, Qwen3-30B-A3B bf16) against the stub's own times averaged over
its routing samples (the time without TUNETAB_STUB_ROUTING): prints the geomean and max."""
import importlib.util
import json
import math
import os
import sys

spec = importlib.util.spec_from_file_location("stub", os.path.join(os.path.dirname(__file__), "kernels.py"))
stub = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stub)
k = stub.Kernels(0)
job = dict(dtype="bf16", top_k=8, hidden=2048, inter=768)
rs = []
for key, v in json.load(open(sys.argv[1])).items():
    if key.startswith("_"):
        continue
    stage = 1 if "gemm1" in key else 2
    bucket = int(key.split("((")[1].split(",")[0])
    valid = k.prepare(dict(job, stage=stage, bucket=bucket))
    rs.append(k._time(v[1]) / min(k._time(t) for t in valid) - 1)
geo = math.exp(sum(math.log1p(r) for r in rs) / len(rs)) - 1
print("%d entries: regret geomean %.2f%%, max %.2f%%" % (len(rs), 100 * geo, 100 * max(rs)))
