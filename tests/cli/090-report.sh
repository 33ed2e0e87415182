# 090-report: the HTML report (issue #9) from journals recorded on the lent H200
# (tests/data/report: DeepSeek-V3 fp8 EP 8 up to 64 tokens; Qwen3 bf16 up to 16 tokens with
# candidate 20 made to crash the worker) and from a heuristic-only run. The numbers in its
# tables are checked against the journal by an independent reading in Python; the page has no
# external asset and no script; the same journal gives the same bytes; bad journals are refused.
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
