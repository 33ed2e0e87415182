# fi_race_check.py [--oracles DIR] [--over X] [RUNS...]: for every entry of real profiled runs
# (default: docs/bench/2026-12-01-h200-learn2, its withfit and fresh-* runs) whose regret against
# its oracle is over X (default 0.03), whether the oracle's best was raced (timed more than
# once) and what tunetab measured for it and for its pick; run from the repository root.
# Oracles: DIR/oracle_D.json (default: the first oracles, docs/bench/2026-12-01-h200-{flashinfer,
# learn,fresh}; docs/bench/2026-12-01-h200-cycle has the whole-routing-cycle ones).
import argparse, json, glob, collections
ap = argparse.ArgumentParser()
ap.add_argument('--oracles')
ap.add_argument('--over', type=float, default=0.03)
ap.add_argument('runs', nargs='*', default=['docs/bench/2026-12-01-h200-learn2/' + s for s in
                                            ('withfit', 'fresh-default', 'fresh-fit')])
a = ap.parse_args()
orc={}
dirs = [a.oracles] if a.oracles else ['docs/bench/2026-12-01-h200-%s' % d for d in ('flashinfer', 'learn', 'fresh')]
for d in dirs:
    for p in glob.glob(d + '/oracle_*.json'):
        orc[p.split('oracle_')[1][:-5]]=p
tot=collections.Counter()
for jp in sorted(j for r in a.runs for j in glob.glob(r+'/tt-*-1/*.journal')):
    name=jp.split('/tt-')[1].split('-1/')[0]
    o=json.load(open(orc[name]))['entries']
    meas={}
    for line in open(jp):
        f=line.split()
        if f and f[0]=='M' and f[4]=='0':
            meas[(int(f[1]),int(f[2]),int(f[3]))]=(float(f[5]),float(f[6]),float(f[7]),int(f[8]),f[9])
    table=json.load(open(jp.rsplit('/',1)[0]+'/flashinfer_autotune_NVIDIA_H200.json'))
    for k,v in table.items():
        if k.startswith('_'): continue
        st=1 if 'gemm1' in k else 2; tok=int(k.split('((')[1].split(',')[0]); tac=v[1]
        t={int(a):b for a,b in o['%d:%d'%(st,tok)]['times_us'].items() if b}
        best=min(t,key=t.get); r=t[tac]/t[best]-1
        if r>a.over:
            mb=meas.get((st,tok,best)); mc=meas.get((st,tok,tac))
            raced = mb and mb[3]>1
            tot['raced' if raced else 'not raced']+=1
            # would min-statistic have chosen better?
            fin=[(i,m) for (s2,t2,i),m in meas.items() if s2==st and t2==tok and m[3]>1]
            bymin=min(fin,key=lambda x:x[1][1])[0] if fin else None
            print("%-28s %d:%-5d r=%5.1f%% chose %3d med %.1f | best %3d %s | by-min pick %s (r=%.1f%%)"%(jp.split('/')[-3]+'/'+name,st,tok,100*r,tac,mc[0] if mc else -1,best,("med %.1f min %.1f n %d %s"%(mb[0],mb[1],mb[3],mb[4])) if mb else 'not measured',bymin,100*(t.get(bymin,t[tac])/t[best]-1)))
print(tot)
