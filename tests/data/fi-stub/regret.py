"""regret.py TABLE.json [off]: the regret of a flashinfer-backend table made with the stub
(tests/data/fi-stub/kernels.py, Qwen3-30B-A3B bf16) against the stub's own times averaged over
its routing samples (the time without TUNETAB_STUB_ROUTING): prints the geomean and max. `off`:
judged on the runner with use_fused_finalize off (generate --fused-finalize off)."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from fi_bench import geomean_regret, load_table  # noqa: E402

spec = importlib.util.spec_from_file_location("stub", os.path.join(HERE, "kernels.py"))
stub = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stub)
k = stub.Kernels(0)
job = dict(dtype="bf16", top_k=8, hidden=2048, inter=768,
           fused_finalize=0 if sys.argv[2:] == ["off"] else 1)
rs = []
for e in load_table(sys.argv[1])["entries"].values():
    valid = k.prepare(dict(job, stage=e["stage"], bucket=e["bucket"]))
    rs.append(k._time(e["tactic"]) / min(k._time(t) for t in valid) - 1)
print("%d entries: regret geomean %.2f%%, max %.2f%%" % (len(rs), 100 * geomean_regret(rs), 100 * max(rs)))
