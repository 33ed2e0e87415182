#!/usr/bin/env python3
"""routing_frontier.py: what any per-bucket choice of (GEMM1, GEMM2) pairs could reach, on the
layer times routing_bench.py measured (issue #49), so that a regret target can be checked
against the data before a rule is blamed for missing it.

  routing_frontier.py ROUTING.json [--balanced-target 1.0] [--hot hot-1.2]

ROUTING.json is routing_bench.py's --out: per load and bucket, the layer time of every pair it
timed (the run's candidates and every table's pairs). Regret at a bucket is a pair's time over
the best pair timed there under that load, minus 1; a choice's regret under a load is the
geomean of (1 + regret) over the buckets, minus 1 (routing_bench.py's figure).

Prints, from the same pairs:
- the least worst-case regret rule over each set of loads (tunetab's rule, src/tune/robust.c,
  without its tie rules) and the regrets it gets under every load;
- the exact least geomean regret under --hot that a choice can have while its balanced geomean
  regret stays within --balanced-target: a multiple-choice knapsack over the buckets, solved by
  dynamic programming with each pair's balanced cost rounded down to a grid (so the answer is a
  lower bound: no choice of these pairs does better);
- the weighted frontier: per bucket the pair least in log(balanced) + w * log(worst hot load).
Pure Python, no GPU: it reads only the file."""
import argparse
import itertools
import json
import math

GRID = 1e-5  # log-cost resolution of the knapsack


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("routing")
    ap.add_argument("--balanced-target", type=float, default=1.0, metavar="PCT")
    ap.add_argument("--hot", default="hot-1.2", metavar="LOAD")
    a = ap.parse_args()
    with open(a.routing) as f:
        us = json.load(f)["us"]
    loads = list(us)
    hots = [x for x in loads if x != "balanced"]
    buckets = sorted(us["balanced"], key=int)
    # log regret of each pair timed under every load, per bucket
    cost = {}
    for m in buckets:
        best = {x: min(us[x][m].values()) for x in loads}
        pairs = [p for p in us["balanced"][m] if all(p in us[x][m] for x in loads)]
        cost[m] = {p: {x: math.log(us[x][m][p] / best[x]) for x in loads} for p in pairs}

    def pct(choice, x):
        return (math.exp(sum(cost[m][choice[m]][x] for m in buckets) / len(buckets)) - 1) * 100

    def show(label, choice):
        print("%-34s %s" % (label, "  ".join("%s %.2f%%" % (x, pct(choice, x)) for x in loads)))

    print("%s: %d buckets, %d to %d pairs timed per bucket under %s" % (
        a.routing, len(buckets), min(len(cost[m]) for m in buckets),
        max(len(cost[m]) for m in buckets), ", ".join(loads)))
    print("least worst-case regret over:")
    for n in range(2, len(loads) + 1):
        for s in itertools.combinations(loads, n):
            if "balanced" not in s:
                continue
            ch = {m: min(cost[m], key=lambda p: max(cost[m][p][x] for x in s)) for m in buckets}
            show("  " + ", ".join(s), ch)

    # the knapsack: minimise the summed log cost under --hot with the summed balanced log cost
    # at most n * log(1 + target); balanced costs rounded down (a lower bound on the optimum)
    cap = int(len(buckets) * math.log1p(a.balanced_target / 100) / GRID)
    INF = float("inf")
    dp = [0.0] * (cap + 1)  # dp[b]: least hot cost of the buckets so far with balanced <= b
    took = []               # took[i][b]: the pair bucket i takes in that optimum
    for m in buckets:
        items = [(int(c["balanced"] / GRID), c[a.hot], p) for p, c in cost[m].items()]
        new, arg = [INF] * (cap + 1), [None] * (cap + 1)
        for b in range(cap + 1):
            for w, h, p in items:
                if w <= b and dp[b - w] + h < new[b]:
                    new[b], arg[b] = dp[b - w] + h, (p, w)
        dp = new
        took.append(arg)
    if dp[cap] == INF:
        print("balanced within %.2f%%: no choice of these pairs" % a.balanced_target)
    else:
        least = (math.exp(dp[cap] / len(buckets)) - 1) * 100
        ch, b = {}, cap
        for i in range(len(buckets) - 1, -1, -1):
            ch[buckets[i]], w = took[i][b]
            b -= w
        print("balanced within %.2f%%: no choice of these pairs is under %.2f%% geomean under %s;"
              " the choice found:" % (a.balanced_target, least, a.hot))
        show("  knapsack", ch)

    print("weighted frontier (w: weight of the worst hot load against balanced):")
    for w in (0, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 100):
        ch = {m: min(cost[m], key=lambda p: cost[m][p]["balanced"] +
                     w * max(cost[m][p][x] for x in hots)) for m in buckets}
        show("  w %g" % w, ch)


if __name__ == "__main__":
    main()
