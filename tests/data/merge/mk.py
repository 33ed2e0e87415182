#!/usr/bin/env python3
"""mk.py: small inputs for the `tunetab merge` tests (tests/cli/07x-merge-*.sh), written the way
their writers write them, independently of tunetab: a bundled module (pprint-style literal,
flashinfer-formats.md §1.2), a JSON cache (json.dump(indent=2) with _metadata and, from
0.6.18, _generation, §2.2) and a provenance file (docs/fleet.md "Provenance file").

  mk.py DIR [--version V] [--device NAME] [--format py|json|both] [--no-prov]
            [--run ID] [--shard I/N] [--model NAME] [--meta K=V]... [--no-meta]
            [--records JSON] ENTRY...

ENTRY is STAGE:TOKENS=TACTIC[:SOURCE[:TIME]], e.g. 1:4=36:m:12.5. STAGE 1 or 2 (GEMM1/2),
TOKENS a token bucket, SOURCE m(easured), f(allback) or p(redicted); without SOURCE the key
has no provenance entry. Keys are those FlashInfer builds for Qwen3-30B-A3B (hidden 2048,
128 experts, intermediate 768), bf16, TP 1 on the device: 3-tuples up to 0.6.12, 4-tuples
with the 20 extras of 0.6.18-0.7.1 (§1.3, §3.3).
"""
import argparse
import hashlib
import json
import os

EXTRAS_20 = ("(torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 0, 1, 0, 1, 0, False, False, "
             "False, False, False, False, True, 3, False, True)")
SOURCES = {"m": "measured", "f": "fallback", "p": "predicted"}


def vtuple(v):
    return tuple(int(x) for x in v.split("."))


def key(version, stage, tokens):
    shapes = f"(({tokens}, 2048), (128, 1536, 2048), (0,), (128, 2048, 768), (0,))"
    k = f"'trtllm::fused_moe::gemm{stage}', 'MoERunner', {shapes}"
    if vtuple(version) >= (0, 6, 13):
        k += ", " + EXTRAS_20
    return f"({k})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("entries", nargs="*")
    ap.add_argument("--version", default="0.6.18")
    ap.add_argument("--device", default="NVIDIA H200")
    ap.add_argument("--format", default="both")
    ap.add_argument("--no-prov", action="store_true")
    ap.add_argument("--run", default="00000000000000a1")
    ap.add_argument("--shard")
    ap.add_argument("--model", default="Qwen3-30B-A3B")
    ap.add_argument("--meta", action="append", default=[])
    ap.add_argument("--no-meta", action="store_true")
    ap.add_argument("--records")
    a = ap.parse_intermixed_args()
    os.makedirs(a.dir, exist_ok=True)
    part = a.device.replace(" ", "_")
    py_name = f"v0_1_trtllm_fused_moe_{part}.py"
    json_name = f"flashinfer_autotune_{part}.json"
    table, prov = {}, {}
    for spec in a.entries:
        where, what = spec.split("=")
        stage, tokens = where.split(":")
        parts = what.split(":")
        k = key(a.version, stage, tokens)
        table[k] = int(parts[0])
        if len(parts) > 1:
            t = float(parts[2]) if len(parts) > 2 else None
            measured = parts[1] in "mf"
            prov[k] = {"tactic": parts[0], "source": SOURCES[parts[1]], "run": 0, "time_us": t,
                       "lo_us": t - 0.25 if measured and t is not None else None,
                       "hi_us": t + 0.25 if measured and t is not None else None,
                       "fallback_us": 20.0 if measured else None, "ties": []}
    files = {}
    if a.format in ("py", "both"):
        with open(os.path.join(a.dir, py_name), "w") as f:
            f.write("best_configs = {\n")
            for k in sorted(table):
                f.write(f"    {k!r}: (0, {table[k]}),\n")
            f.write("}\n")
        files["py"] = py_name
    if a.format in ("json", "both"):
        doc = {}
        if not a.no_meta:
            meta = {"flashinfer_version": a.version, "cuda_version": "*", "cublas_version": "*",
                    "cudnn_version": "*"}
            if vtuple(a.version) >= (0, 6, 11):
                meta["cudnn_frontend_version"] = "*"
            meta["gpu"] = a.device
            for kv in a.meta:
                name, value = kv.split("=", 1)
                meta[name] = value
            doc["_metadata"] = meta
        if a.records:
            doc["_records"] = json.loads(a.records)
        for k in sorted(table):
            doc[k] = ["MoERunner", table[k]]
        if vtuple(a.version) >= (0, 6, 18):
            compact = json.dumps(doc, sort_keys=True, separators=(",", ":"))
            doc["_generation"] = hashlib.sha256(compact.encode()).hexdigest()
        with open(os.path.join(a.dir, json_name), "w") as f:
            json.dump(doc, f, indent=2)
        files["json"] = json_name
    if not a.no_prov:
        run = {"id": a.run, "model": a.model, "dtype": "bf16", "tp": 1, "ep": 1,
               "profiled": any(p["source"] != "predicted" for p in prov.values()),
               "shard": None}
        if a.shard:
            i, n = a.shard.split("/")
            run["shard"] = {"count": int(n), "index": int(i), "source": "--shard"}
        doc = {"format": 1, "device": a.device, "flashinfer_version": a.version,
               "tunetab_version": "0.1.0", "files": files, "runs": [run], "entries": prov}
        with open(os.path.join(a.dir, f"tunetab_provenance_{part}.json"), "w") as f:
            f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")


main()
