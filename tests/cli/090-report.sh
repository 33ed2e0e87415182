# 090-report: the HTML report (issue #9) from journals recorded on the lent H200
# (tests/data/report: DeepSeek-V3 fp8 EP 8 up to 64 tokens; Qwen3 bf16 up to 16 tokens with
# candidate 20 made to crash the worker) and from a heuristic-only run. The numbers in its
# tables are checked against the journal by an independent reading in Python; the page has no
# external asset and no script; the same journal gives the same bytes; bad journals are refused.
# Then the predicted-against-measured scatter (issue #17) of a profiled GLM-4.5-Air journal from
# the H200 (docs/bench/2026-12-01-h200-learn): its points per stage, and its Spearman and
# measured/predicted figures against Python's own computation from the journal; a journal
# without measurements and a heuristic-only run say in one line why they have no scatter.
. "$ROOT/tests/lib.sh"
D="$ROOT/tests/data/report"
cp -r "$D/h200-small" small
cp -r "$D/h200-fault" fault
run tunetab report small/v0_1_trtllm_fused_moe_NVIDIA_H200.journal -o small.html
tunetab report small/v0_1_trtllm_fused_moe_NVIDIA_H200.journal -o again.html -q
cmp small.html again.html && echo "same journal, same bytes"
tunetab report fault/v0_1_trtllm_fused_moe_NVIDIA_H200.journal -o fault.html -q
tunetab generate --device "NVIDIA H200" --model deepseek-v3 --dtype fp8 --ep 8 --max-tokens 64 -q -o heur --report heur.html
python3 - small.html fault.html heur.html small/v0_1_trtllm_fused_moe_NVIDIA_H200.journal <<'PYEOF'
import html.parser, re, sys
small, fault, heur, journal = (open(p).read() for p in sys.argv[1:5])
# an independent reading of the journal: the last result per (stage, tokens, id), the decision
M, Dn = {}, {}
for line in journal.splitlines()[1:]:
    p = line.split()
    if p and p[0] == "M":
        M[(int(p[1]), int(p[2]), int(p[3]))] = (int(p[4]), float(p[5]), float(p[6]), float(p[7]))
    elif p and p[0] == "D":
        Dn[(int(p[1]), int(p[2]))] = (int(p[3]), int(p[5]))
class Tables(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.tables = []; s.cell = None; s.row = None; s.cap = None
    def handle_starttag(s, t, a):
        if t == "table": s.tables.append({"class": dict(a).get("class"), "caption": "", "rows": []})
        elif t == "tr": s.row = []
        elif t in ("td", "th"): s.cell = ""
        elif t == "caption": s.cap = ""
    def handle_endtag(s, t):
        if t in ("td", "th") and s.row is not None: s.row.append(s.cell.strip()); s.cell = None
        elif t == "tr": s.tables[-1]["rows"].append(s.row); s.row = None
        elif t == "caption": s.tables[-1]["caption"] = s.cap; s.cap = None
    def handle_data(s, d):
        if s.cell is not None: s.cell += d
        if s.cap is not None: s.cap += d
def tables(h):
    p = Tables(); p.feed(h); return p.tables
T = tables(small)
print("small: charts %d, data tables %d, measured points %d, predicted points %d" % (
    small.count('<svg class="chart"'), sum(t["class"] == "data" for t in T),
    len(re.findall(r'<circle class="mark m ', small)), len(re.findall(r'<polygon class="mark p ', small))))
bad = 0
for t in T:
    m = re.match(r"GEMM(\d): speed-up", t["caption"])
    if not m:
        continue
    st = int(m.group(1))
    for row in t["rows"][1:]:
        tok = int(row[0]); chosen, fb = Dn[(st, tok)]
        c, f = M[(st, tok, chosen)], M[(st, tok, fb)]
        want = f[1] / c[1]
        got = float(row[1].rstrip("×"))
        lo, hi = (1.0, 1.0) if chosen == fb else (f[2] / c[3], f[3] / c[2])
        if abs(got - want) > 5e-4 * want or abs(float(row[2].rstrip("×")) - lo) > 5e-4 * lo or abs(float(row[3].rstrip("×")) - hi) > 5e-4 * hi:
            bad += 1; print("  differs: GEMM%d %d: %s, journal says %.3f [%.3f, %.3f]" % (st, tok, row, want, lo, hi))
print("speed-ups in the report that differ from the journal:", bad)
print("every speed-up row checked:", sum(len(t["rows"]) - 1 for t in T if "speed-up" in t["caption"]), "of", len(Dn))
fails = [t for t in tables(fault) if t["caption"].startswith("Candidates that were not timed")]
print("fault: not-timed table rows:", [r[:4] for r in fails[0]["rows"][1:]] if fails else "none")
print("heuristic only: banner %s, measured points %d, predicted points %d, speed-ups labelled predicted %s" % (
    "Heuristic only: nothing was measured." in heur, len(re.findall(r'<circle class="mark m ', heur)),
    len(re.findall(r'<polygon class="mark p ', heur)), ">predicted</td>" in heur and ">measured</td>" not in heur))
for name, h in (("small", small), ("fault", fault), ("heuristic", heur)):
    ext = re.findall(r'(?:src|href)="[^"#]', h) + re.findall(r"url\(", h) + re.findall(r"<script", h)
    print(name, "external references or scripts:", len(ext))
PYEOF
# refused
printf 'M 1 1 19 0 1 1 1 1 -\n' > notjournal.txt
run tunetab report notjournal.txt -o x.html
run tunetab report missing.journal -o x.html
run tunetab report small/v0_1_trtllm_fused_moe_NVIDIA_H200.journal
ls x.html 2>/dev/null || echo "nothing written"
# a journal cut mid-line (a killed run) still reports what it holds
head -c 3000 small/v0_1_trtllm_fused_moe_NVIDIA_H200.journal > cut.journal
run tunetab report cut.journal -o cut.html
# predicted against measured: a profiled journal (flashinfer backend) with P and M lines
cp -r "$ROOT/docs/bench/2026-12-01-h200-learn/tt-glm45air-bf16-ep2-1" glm
run tunetab report glm/v0_1_trtllm_fused_moe_NVIDIA_H200.journal -o glm.html
grep -v '^M ' glm/v0_1_trtllm_fused_moe_NVIDIA_H200.journal > predonly.journal
tunetab report predonly.journal -o predonly.html -q
python3 - glm.html glm/v0_1_trtllm_fused_moe_NVIDIA_H200.journal predonly.html heur.html small.html <<'PYEOF'
import collections, html.parser, re, statistics, sys, xml.etree.ElementTree as ET
glm, journal, predonly, heur, small = (open(p).read() for p in sys.argv[1:6])
# the journal read independently: last P and last M per (stage, tokens, id) win
P, M = {}, {}
for line in journal.splitlines()[1:]:
    p = line.split()
    if p and p[0] == "P":
        P[(int(p[1]), int(p[2]), int(p[3]))] = float(p[4])
    elif p and p[0] == "M":
        M[(int(p[1]), int(p[2]), int(p[3]))] = (int(p[4]), float(p[5]))
pts = collections.defaultdict(list)  # (stage, tokens) -> [(pred, meas)]
for k, (status, med) in M.items():
    if status == 0 and med > 0 and P.get(k, 0) > 0:
        pts[k[:2]].append((P[k], med))
def avg_ranks(v):  # rank by counting: 1 + smaller ones + half the other equal ones
    return [1 + sum(w < x for w in v) + (sum(w == x for w in v) - 1) / 2 for x in v]
def spearman(xy):
    rx, ry = avg_ranks([a for a, _ in xy]), avg_ranks([b for _, b in xy])
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx, syy = sum((a - mx) ** 2 for a in rx), sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else None
# the page: each chart's stage and scatter points, the figures beside it, the per-bucket table
charts = re.findall(r'<svg class="chart".*?</svg>', glm, re.S)
scatter = {}
for c in charts:
    t = re.search(r"<title[^>]*>GEMM(\d): measured against predicted", c)
    if t:
        scatter[int(t.group(1))] = len(re.findall(r'<circle class="mark sc ', c))
fig = {int(m[0]): m[1:] for m in re.findall(r'<p class="fit">GEMM(\d): (\d+) candidates with both.*?'
       r'the mean over the (\d+) buckets with at least 3 points: ([-0-9.]+)\. Median of measured / '
       r'predicted: ([0-9.]+)×', glm)}
rows = {int(m.group(1)): re.findall(r'<tr><th scope="row">(\d+)</th><td>(\d+)</td><td>([^<]*)</td>', m.group(0))
        for m in re.finditer(r'<caption>GEMM(\d): predicted against measured per token bucket.*?</table>', glm, re.S)}
print("glm: charts %d, scatters for GEMM %s" % (len(charts), sorted(scatter)))
for st in (1, 2):
    buckets = sorted(t for s, t in pts if s == st)
    n = sum(len(pts[(st, t)]) for t in buckets)
    rhos = {t: spearman(pts[(st, t)]) if len(pts[(st, t)]) >= 3 else None for t in buckets}
    used = [r for r in rhos.values() if r is not None]
    rho = statistics.fmean(used)
    ratio = statistics.median(m / p for t in buckets for p, m in pts[(st, t)])
    gp, gb, grho, gratio = fig[st]
    print("GEMM%d: points in the scatter %d, in the text %s, in the journal %d" % (st, scatter[st], gp, n))
    print("GEMM%d: Spearman %s over %s buckets; Python %.3f over %d; same %s" % (
        st, grho, gb, rho, len(used), abs(float(grho) - rho) <= 5e-4 and int(gb) == len(used)))
    print("GEMM%d: median measured/predicted %s; Python %.3f; same %s" % (
        st, gratio, ratio, abs(float(gratio) - ratio) <= 5e-4 * ratio))
    bad = [r for r in rows[st] if int(r[1]) != len(pts[(st, int(r[0]))]) or
           (rhos.get(int(r[0])) is None) != (r[2] == "–") or
           (r[2] != "–" and abs(float(r[2]) - rhos[int(r[0])]) > 5e-4)]
    print("GEMM%d: bucket rows %d of %d, differing from Python %d" % (st, len(rows[st]), len(buckets), len(bad)))
# every chart is well-formed XML, and the page's elements nest
class Nest(html.parser.HTMLParser):
    VOID = {"meta", "line", "circle", "path", "polygon", "br", "img", "input", "link"}
    def __init__(s):
        super().__init__(); s.stack = []; s.bad = 0
    def handle_starttag(s, t, a):
        if t not in s.VOID: s.stack.append(t)
    def handle_startendtag(s, t, a): pass
    def handle_endtag(s, t):
        if t in s.VOID: return
        if not s.stack or s.stack.pop() != t: s.bad += 1
for name, h in (("glm", glm), ("predonly", predonly), ("heuristic", heur), ("small", small)):
    xml_bad = 0
    for c in re.findall(r'<svg class="chart".*?</svg>', h, re.S):
        try: ET.fromstring(c)
        except ET.ParseError: xml_bad += 1
    n = Nest(); n.feed(h)
    print("%s: charts not well-formed %d, misnested tags %d, left open %d, scatters %d, no-scatter lines:" % (
        name, xml_bad, n.bad, len(n.stack), len(re.findall(r"<title[^>]*>GEMM\d: measured against predicted", h))))
    for m in re.findall(r'<p class="nofit">([^<]*)</p>', h):
        print("  " + m)
PYEOF
