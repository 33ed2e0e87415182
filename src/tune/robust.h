/* robust.h: the rule that picks a bucket's (GEMM1, GEMM2) tactic pair from the whole MoE
 * layer's times under several routing loads (issue #49; docs/guide.md "Routing loads"):
 * the pair with the least worst-case regret over the loads.
 *   - A load counts where at least one pair was measured under it (a bucket measured under
 *     one load only is chosen on that one).
 *   - A pair is a choice only if it was measured under every load that counts (one that
 *     failed under a load is out).
 *   - Its regret under a load: its time over the best choice's there, minus 1; its worst:
 *     the largest over the loads that count.
 *   - Least worst regret wins; a tie (within ROBUST_TIE, relative) goes to the per-GEMM pair
 *     (what the per-GEMM profiles chose), then to the faster under the first load
 *     (balanced), then to the earlier pair. Pure: no I/O, no GPU. */
#ifndef TUNETAB_ROBUST_H
#define TUNETAB_ROBUST_H

#include <stdbool.h>
#include <stddef.h>

#define ROBUST_LOADS_MAX 8
#define ROBUST_TIE 1e-9

struct robust_pair {
	int g1, g2;
	double us[ROBUST_LOADS_MAX]; /* the layer's time under each load; < 0 or NaN: failed
				      * or not measured */
	bool per_gemm;               /* the pair the per-GEMM profiles chose */
};

struct robust_choice {
	int index;                        /* the chosen pair, -1 when none is a choice */
	bool counts[ROBUST_LOADS_MAX];    /* the loads that count */
	double best_us[ROBUST_LOADS_MAX]; /* the best choice's time under each (< 0: none) */
	double regret[ROBUST_LOADS_MAX];  /* the chosen pair's under each (< 0: does not count) */
	double worst;                     /* the chosen pair's worst regret */
};

/* Chooses among p[0..n) measured under nloads (<= ROBUST_LOADS_MAX) loads. */
void robust_choose(const struct robust_pair *p, size_t n, size_t nloads,
		   struct robust_choice *out);

/* A pair's regret under load l against out's best there (< 0: not measured there or the
 * load does not count). */
double robust_regret(const struct robust_pair *p, const struct robust_choice *c, size_t l);

#endif
