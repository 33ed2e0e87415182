# 091-report-browser: the HTML report rendered by headless Chromium (Debian's `chromium`, which
# `make test` installs when missing): for a report of the recorded H200 journal, of the one with
# a crashed candidate and of a heuristic-only run, tests/report_check.py takes a screenshot
# (it must decode and not be blank), reads the console (no message from the page may appear),
# and checks the DOM: every chart present with a title, a size and non-degenerate marks, and
# a table of values under it. Then the checker's own self-test: a good page passes, and pages
# with a script error, an empty chart, a missing asset and a blank chart each fail on the
# check meant to catch them. Only check names and verdicts are kept (pixel counts depend on
# the machine's fonts).
. "$ROOT/tests/lib.sh"
D="$ROOT/tests/data/report"
cp -r "$D/h200-small" small
cp -r "$D/h200-fault" fault
tunetab report small/v0_1_trtllm_fused_moe_NVIDIA_H200.journal -o small.html -q
tunetab report fault/v0_1_trtllm_fused_moe_NVIDIA_H200.journal -o fault.html -q
tunetab generate --device "NVIDIA H200" --model deepseek-v3 --dtype fp8 --ep 8 --max-tokens 64 -q -o heur --report heur.html
names() { sed -E 's/^(ok  |FAIL) ([^:]*):.*/\1 \2/'; }
for page in small fault heur; do
    echo "== $page"
    rc=0
    python3 "$ROOT/tests/report_check.py" $page.html $page.png >$page.out 2>&1 || rc=$?
    if [ $rc = 77 ]; then echo "no Chromium: run 'make deps-test'"; cat $page.out; fi
    names < $page.out
    echo "exit $rc"
done
echo "== self-test"
rc=0
sh "$ROOT/tests/report_check_selftest.sh" selftest >self.out 2>&1 || rc=$?
sed -E 's/ \(as expected; [0-9.]+ s\)$/ (as expected)/; s/^(ok   png decoder):.*/\1/' self.out
echo "exit $rc"
