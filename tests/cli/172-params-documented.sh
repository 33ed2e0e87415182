# 172-params-documented: every free parameter the default heuristic declares (what `tunetab
# learn` fits and `generate --model-fit` sets) is named in scripts/README.md's table, and the
# table names none it does not declare (issue #17: "the parameters it reads are named").
. "$ROOT/tests/lib.sh"
tunetab learn "$ROOT/tests/data/learn/qwen3-bf16.journal" --sweeps 1 --loss regret --json > fit.json
python3 - fit.json "$ROOT/scripts/README.md" <<'PYEOF'
import json, re, sys
names = [p["name"] for p in json.load(open(sys.argv[1]))["params"]]
doc = open(sys.argv[2]).read()
rows = {m.group(1): m.group(0) for m in re.finditer(r"^\s*\| `([A-Za-z0-9_]+)` \|.*$", doc, re.M)}
missing = []
for n in names:
    if n in rows:
        continue
    m = re.match(r"(sm80_)?tile_(\d+x\d+)$", n)
    row = rows.get((m.group(1) or "") + "tile_MxN") if m else None
    if not row or m.group(2) not in row:
        missing.append(n)
pattern = {"tile_MxN", "sm80_tile_MxN"}
extra = [r for r in rows if r not in names and r not in pattern and not r.startswith("q.")]
print("params declared:", len(names))
print("not in scripts/README.md:", missing or "none")
print("in the table but not declared:", extra or "none")
PYEOF
