#!/usr/bin/env python3
"""fp4-gemm-tactics.py INCLUDE_DIR: the CUTLASS fp4_gemm tactic lists of a flashinfer-python wheel,
in FlashInfer's order, as the `list:` rows of configs/ops/fp4_gemm.yaml. INCLUDE_DIR is the wheel's
flashinfer/data/include/flashinfer/gemm (pip download flashinfer-python==0.7.4 --no-deps, unzip).
Reads getConfigs() of fp4_gemm_cutlass_template.h (SM100/SM110), _sm103.h and _sm120.h: the tiles,
the cluster shapes, SM100/103's reordering (best_tactics_index first), SM120's four configs per
tile (swap_ab true/false x data-parallel/StreamK). Tile K is in bytes of e2m1 (2 per byte)."""
import re
import sys


def body(path):
    text = open(path).read()
    i = text.index("::getConfigs() const {")
    return text[i:text.index("\n}\n", i)]


def tiles(b, kind):
    return [tuple(int(x) for x in m) for m in re.findall(kind + r"::CtaShape(\d+)x(\d+)x(\d+)B", b)]


def clusters(b):
    return [tuple(int(x) for x in m[:2]) for m in re.findall(r"ClusterShape_(\d+)x(\d+)x(\d+)", b)]


def sm100(path):
    b = body(path)
    ts, cs = tiles(b, "CutlassTileConfigSM100"), clusters(b)
    cands = [(t, c, False, False) for t in ts for c in cs]
    best = [int(x) for x in re.search(r"best_tactics_index = \{([\d, ]+)\}", b).group(1).split(",")]
    return [cands[i] for i in best] + [c for i, c in enumerate(cands) if i not in best]


def sm120(path):
    b = body(path)
    ts = tiles(b, "CutlassTileConfigSM120")
    # per tile: (swap_ab, stream_k) in the order the loop pushes them
    order = [(True, False), (False, False), (True, True), (False, True)]
    return [(t, (1, 1), sw, sk) for t in ts for sw, sk in order]


def rows(cands, indent="          "):
    for i, (t, c, sw, sk) in enumerate(cands):
        print(f"{indent}- {{id: {i}, tile: [{t[0]}, {t[1]}, {t[2]}], cluster: [{c[0]}, {c[1]}], "
              f"swap_ab: {str(sw).lower()}, stream_k: {str(sk).lower()}}}")


d = sys.argv[1]
for name, cands in (("sm100", sm100(f"{d}/fp4_gemm_cutlass_template.h")),
                    ("sm103", sm100(f"{d}/fp4_gemm_cutlass_template_sm103.h")),
                    ("sm120", sm120(f"{d}/fp4_gemm_cutlass_template_sm120.h"))):
    print(f"# {name}: {len(cands)}")
    rows(cands)
