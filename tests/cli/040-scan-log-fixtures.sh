# requires: fixtures
# 040-scan-log-fixtures: the ten real logs of ../shared/fixtures/logs (not copied here), each
# giving what its README section expects: sessions, hits, JSON cache loads/saves, fallbacks
# with shapes, failed tactics, tqdm passes (done/total, rate, updates) and nothing from the
# noise. Text output of each, then --json of one in full and the totals of all ten.
. "$ROOT/tests/lib.sh"
W=$(pwd)
cd "$ROOT/../shared/fixtures/logs"
for f in 0*.log 10-*.log; do
    run tunetab scan-log "$f"
done
run tunetab scan-log --json 07-flashinfer-0.6.3-bench-autotune-cache.log
tunetab scan-log --json 0*.log 10-*.log >"$W/all.json" || true
python3 - "$W/all.json" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    t, c = f["totals"], f["counts"]
    passes = ["%s:%d" % (o["op"], len(o["passes"])) for o in f["ops"] if o["passes"]]
    print("%s: sessions %d/%d, hits %d, misses %d, fallbacks %d, failed %d, loads %d, saves %d, passes %s, events %d"
          % (f["file"][:2], c.get("session-start", 0), c.get("session-end", 0), t["hits"], t["misses"],
             t["fallbacks"], t["failed_tactics"], c.get("cache-load", 0), c.get("cache-save", 0),
             ",".join(passes) or "-", len(f["events"])))
PY
