# fi_race_check.py [--oracles DIR] [--over X] [RUNS...]: for every entry of real profiled runs
# (default: docs/bench/2026-12-01-h200-learn2, its withfit and fresh-* runs) whose regret against
# its oracle is over X (default 0.03), whether the oracle's best was raced (timed more than
# once) and what tunetab measured for it and for its pick; run from the repository root.
# Oracles: DIR/oracle_D.json (default: the first oracles, docs/bench/2026-12-01-h200-{flashinfer,
# learn,fresh}; docs/bench/2026-12-01-h200-cycle has the whole-routing-cycle ones).
import argparse
import collections
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fi_bench import load_table  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument('--oracles')
ap.add_argument('--over', type=float, default=0.03)
ap.add_argument('runs', nargs='*', default=['docs/bench/2026-12-01-h200-learn2/' + s for s in
                                            ('withfit', 'fresh-default', 'fresh-fit')])
args = ap.parse_args()
oracles = {}
dirs = [args.oracles] if args.oracles else ['docs/bench/2026-12-01-h200-%s' % d for d in ('flashinfer', 'learn', 'fresh')]
for d in dirs:
    for p in glob.glob(d + '/oracle_*.json'):
        oracles[p.split('oracle_')[1][:-5]] = p
tot = collections.Counter()
for jp in sorted(j for r in args.runs for j in glob.glob(r + '/tt-*-1/*.journal')):
    name = jp.split('/tt-')[1].split('-1/')[0]
    o = json.load(open(oracles[name]))['entries']
    meas = {}  # (stage, tokens, id) -> (median, lo, hi, n, why) of the ok M lines
    for line in open(jp):
        f = line.split()
        if f and f[0] == 'M' and f[4] == '0':
            meas[(int(f[1]), int(f[2]), int(f[3]))] = (float(f[5]), float(f[6]), float(f[7]), int(f[8]), f[9])
    table = load_table(jp.rsplit('/', 1)[0] + '/flashinfer_autotune_NVIDIA_H200.json')
    for e in table['entries'].values():
        st, tok, tac = e['stage'], e['bucket'], e['tactic']
        t = {int(k): v for k, v in o['%d:%d' % (st, tok)]['times_us'].items() if v}
        best = min(t, key=t.get)
        r = t[tac] / t[best] - 1
        if r > args.over:
            mb, mc = meas.get((st, tok, best)), meas.get((st, tok, tac))
            tot['raced' if mb and mb[3] > 1 else 'not raced'] += 1
            # would the lowest sample (not the median) have chosen better?
            fin = [(i, m) for (s2, t2, i), m in meas.items() if s2 == st and t2 == tok and m[3] > 1]
            bymin = min(fin, key=lambda x: x[1][1])[0] if fin else None
            print("%-28s %d:%-5d r=%5.1f%% chose %3d med %.1f | best %3d %s | by-min pick %s (r=%.1f%%)"
                  % (jp.split('/')[-3] + '/' + name, st, tok, 100 * r, tac, mc[0] if mc else -1, best,
                     ("med %.1f min %.1f n %d %s" % (mb[0], mb[1], mb[3], mb[4])) if mb else 'not measured',
                     bymin, 100 * (t.get(bymin, t[tac]) / t[best] - 1)))
print(tot)
