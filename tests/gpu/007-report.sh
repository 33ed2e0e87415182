# 007-report (GPU): `generate --profile --report` on the GPU writes a report from the real
# journal: measured circles in both stages' charts, a table under each chart, a scatter of
# predicted against measured per stage (issue #17), and `tunetab report` of the same journal
# writes the same page.
set -eu
T=$TUNETAB
$T generate --device auto --model qwen3-30b-a3b --dtype bf16 --profile --backend proxy -q -o r --report r/report.html
$T report r/v0_1_trtllm_fused_moe_*.journal -o again.html -q
cmp r/report.html again.html && echo "report and generate --report agree"
python3 - r/report.html <<'PYEOF'
import re, sys
h = open(sys.argv[1]).read()
charts = h.count('<svg class="chart"')
measured = len(re.findall(r'<circle class="mark m ', h))
tables = h.count('<table class="data">')
scatter = len(re.findall(r'<circle class="mark sc ', h))
fits = h.count('<p class="fit">')
print("charts %d, measured points %d, data tables %d, predicted-vs-measured points %d in %d "
      "stages" % (charts, measured, tables, scatter, fits))
assert charts == 6 and measured >= 42 * 2 and tables >= 6, "report incomplete"
assert fits == 2 and scatter >= 42 * 2, "no predicted-vs-measured scatter per stage"
assert "Measured." in h
PYEOF
