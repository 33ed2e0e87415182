#!/usr/bin/env python3
"""fi_store.py FI_SITE ROOT MANIFEST_JSON CACHE_JSON: reads the managed store tunetab wrote
under ROOT with FlashInfer's own ManagedAutotuneCache (flashinfer/autotune_cache.py of a
release: torch-free; only its logger import is stubbed), for the environment MANIFEST_JSON
(what _collect_metadata() returned), and looks up every key of CACHE_JSON. Prints
"store <env dir>: N of M keys hit with the cache's tactic, P with a profiling policy" and
exits 1 unless every key hits."""
import json
import sys
import types
from pathlib import Path


def main():
    fsite, root, manifest, cache = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
    pkg = types.ModuleType("flashinfer")
    pkg.__path__ = [f"{fsite}/flashinfer"]
    jit = types.ModuleType("flashinfer.jit")
    jit.__path__ = []
    core = types.ModuleType("flashinfer.jit.core")
    core.logger = types.SimpleNamespace(warning=lambda *a, **k: print("warning:", *a, file=sys.stderr),
                                        info=lambda *a, **k: None, debug=lambda *a, **k: None)
    sys.modules.update({"flashinfer": pkg, "flashinfer.jit": jit, "flashinfer.jit.core": core})
    src = Path(f"{fsite}/flashinfer/autotune_cache.py")
    mod = types.ModuleType("flashinfer.autotune_cache")
    mod.__package__ = "flashinfer"
    sys.modules["flashinfer.autotune_cache"] = mod
    exec(compile(src.read_text(), str(src), "exec"), mod.__dict__)
    store = mod.ManagedAutotuneCache(manifest, root=root)
    entries = {k: v for k, v in json.load(open(cache)).items() if not k.startswith("_")}
    hit = pol = 0
    for key, val in entries.items():
        e = store.lookup(key)
        if e is not None and e.runner == val[0] and e.tactic == val[1]:
            hit += 1
            pol += e.profiling_policy is not None
        elif len(entries) - hit <= 3:
            print(f"miss: {key} -> {e}", file=sys.stderr)
    print(f"store {store.env_dir}: {hit} of {len(entries)} keys hit with the cache's tactic, "
          f"{pol} with a profiling policy")
    return 0 if hit == len(entries) else 1


if __name__ == "__main__":
    sys.exit(main())
