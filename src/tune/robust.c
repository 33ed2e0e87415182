/* robust.c: the least worst-case regret choice of a tactic pair (robust.h). */
#include "tune/robust.h"

#include <math.h>
#include <string.h>

static bool measured(double us)
{
	return us >= 0 && isfinite(us);
}

static bool is_choice(const struct robust_pair *p, const struct robust_choice *c, size_t nloads)
{
	for (size_t l = 0; l < nloads; l++)
		if (c->counts[l] && !measured(p->us[l]))
			return false;
	return true;
}

double robust_regret(const struct robust_pair *p, const struct robust_choice *c, size_t l)
{
	if (l >= ROBUST_LOADS_MAX || !c->counts[l] || !measured(p->us[l]) || !(c->best_us[l] > 0))
		return -1;
	return p->us[l] / c->best_us[l] - 1;
}

static double worst(const struct robust_pair *p, const struct robust_choice *c, size_t nloads)
{
	double w = 0;
	for (size_t l = 0; l < nloads; l++)
		if (c->counts[l])
			w = fmax(w, robust_regret(p, c, l));
	return w;
}

void robust_choose(const struct robust_pair *p, size_t n, size_t nloads,
		   struct robust_choice *out)
{
	memset(out, 0, sizeof *out);
	out->index = -1;
	if (nloads > ROBUST_LOADS_MAX)
		nloads = ROBUST_LOADS_MAX;
	for (size_t l = 0; l < ROBUST_LOADS_MAX; l++) {
		out->best_us[l] = out->regret[l] = -1;
		for (size_t i = 0; i < n && l < nloads; i++)
			out->counts[l] |= measured(p[i].us[l]);
	}
	bool any = false;
	for (size_t l = 0; l < nloads; l++)
		any |= out->counts[l];
	if (!any) /* nothing was measured: no choice */
		return;
	for (size_t l = 0; l < nloads; l++)
		for (size_t i = 0; i < n; i++)
			if (out->counts[l] && is_choice(&p[i], out, nloads) &&
			    (out->best_us[l] < 0 || p[i].us[l] < out->best_us[l]))
				out->best_us[l] = p[i].us[l];
	size_t l0 = 0; /* the first load that counts: ties go to the faster under it */
	while (l0 < nloads && !out->counts[l0])
		l0++;
	double best = INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!is_choice(&p[i], out, nloads))
			continue;
		double w = worst(&p[i], out, nloads);
		int at = out->index;
		bool better = at < 0 || w < best * (1 - ROBUST_TIE) - ROBUST_TIE;
		if (!better && at >= 0 && fabs(w - best) <= ROBUST_TIE * (1 + fabs(best))) {
			/* a tie: the per-GEMM pair, then the faster under the first load that counts */
			if (p[i].per_gemm != p[at].per_gemm)
				better = p[i].per_gemm;
			else if (l0 < nloads)
				better = p[i].us[l0] < p[at].us[l0];
		}
		if (better) {
			out->index = (int)i;
			best = w;
		}
	}
	if (out->index >= 0) {
		out->worst = best;
		for (size_t l = 0; l < nloads; l++)
			out->regret[l] = robust_regret(&p[out->index], out, l);
	}
}
