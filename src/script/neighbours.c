/* neighbours.c: a fit's measurements by place and configuration, and the measured-neighbour
 * mean of scripts/lib/moe_cost.lua. */
#include "script/neighbours.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Sites are equal when their four numbers are the same bits (the same inputs give the same
 * weight, which is all that sharing one needs). */
static uint64_t site_hash(const struct nb_site *s)
{
	uint64_t h = 1469598103934665603ull, v[4];
	memcpy(v, s, sizeof v);
	for (int i = 0; i < 4; i++) {
		h ^= v[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

struct named {
	const char *config;
	size_t i;
};

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->config, y->config);
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

struct nb_index *nb_index_new(const struct fit_group *groups, size_t n, unsigned stage)
{
	struct nb_index *x = xcalloc(1, sizeof *x);
	for (size_t i = 0; i < n; i++)
		if (groups[i].stage == stage) {
			x->ngroups++;
			x->npoints += groups[i].points_count;
		}
	x->group = xcalloc(x->ngroups + 1, sizeof *x->group);
	x->pt_site = xcalloc(x->npoints + 1, sizeof *x->pt_site);
	x->pt_r = xcalloc(x->npoints + 1, sizeof *x->pt_r);
	x->site = xcalloc(x->npoints + 1, sizeof *x->site);
	/* an open-addressed table of site indices + 1, at most half full */
	size_t cap = 16;
	while (cap < 2 * x->npoints)
		cap *= 2;
	size_t *slot = xcalloc(cap, sizeof *slot);
	size_t g = 0, p = 0;
	for (size_t i = 0; i < n; i++) {
		if (groups[i].stage != stage)
			continue;
		x->group[g] = (struct nb_group){ xstrdup(groups[i].config), p, groups[i].points_count };
		for (unsigned k = 0; k < groups[i].points_count; k++, p++) {
			const struct fit_point *fp = &groups[i].points[k];
			struct nb_site s = { fp->l, fp->f, fp->k, fp->b };
			size_t h = (size_t)site_hash(&s) & (cap - 1);
			while (slot[h] && memcmp(&x->site[slot[h] - 1], &s, sizeof s))
				h = (h + 1) & (cap - 1);
			if (!slot[h]) {
				x->site[x->nsites] = s;
				slot[h] = ++x->nsites;
			}
			x->pt_site[p] = slot[h] - 1;
			x->pt_r[p] = fp->r;
		}
		g++;
	}
	free(slot);
	/* moe_cost's transform of each place, computed once (Lua computed it per group) */
	x->lg = xcalloc(4 * x->nsites + 1, sizeof *x->lg);
	for (size_t i = 0; i < x->nsites; i++) {
		const struct nb_site *s = &x->site[i];
		x->lg[4 * i] = log(1 + s->l);
		x->lg[4 * i + 1] = log(s->f);
		x->lg[4 * i + 2] = log(s->k);
		x->lg[4 * i + 3] = log(s->b);
	}
	x->w = xcalloc(x->nsites + 1, sizeof *x->w);
	/* by config; of equal configs the last in the fit's order answers (as a Lua table
	 * filled in order would) */
	struct named *order = xcalloc(x->ngroups + 1, sizeof *order);
	for (size_t i = 0; i < x->ngroups; i++)
		order[i] = (struct named){ x->group[i].config, i };
	qsort(order, x->ngroups, sizeof *order, named_cmp);
	x->by_config = xcalloc(x->ngroups + 1, sizeof *x->by_config);
	for (size_t i = 0; i < x->ngroups; i++) {
		if (i && !strcmp(order[i - 1].config, order[i].config))
			x->nby_config--;
		x->by_config[x->nby_config++] = order[i].i;
	}
	free(order);
	return x;
}

void nb_index_free(struct nb_index *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->ngroups; i++)
		free((char *)x->group[i].config);
	free(x->group);
	free(x->pt_site);
	free(x->pt_r);
	free(x->site);
	free(x->lg);
	free(x->w);
	free(x->by_config);
	free(x);
}

long nb_find(const struct nb_index *x, const char *config)
{
	size_t lo = 0, hi = x->nby_config;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(x->group[x->by_config[mid]].config, config);
		if (!c)
			return (long)x->by_config[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Each site's weight for a query, once per query: the operations, and their order, are the
 * Lua estimate's (moe_cost.lua before this moved to C), so every weight is the same double. */
static void weigh(struct nb_index *x, const double at[5])
{
	if (x->weighed && !memcmp(x->at, at, sizeof x->at))
		return;
	double ll = log(1 + at[0]), lf = log(at[1]), lk = log(at[2]), lb = log(at[3]);
	double inv = 1 / (at[4] * at[4]), log2 = log(2);
	for (size_t i = 0; i < x->nsites; i++) {
		const double *s = &x->lg[4 * i];
		double a = s[0] - ll;
		double b = s[1] - lf;
		double e = s[2] - lk;
		double h = (s[3] - lb) / log2;
		x->w[i] = exp(-(a * a + b * b + e * e + h * h) * inv);
	}
	memcpy(x->at, at, sizeof x->at);
	x->weighed = true;
}

double nb_mean(struct nb_index *x, size_t g, const double at[5], double prior, double prior_value,
	       const double *shift, double shift_at)
{
	weigh(x, at);
	const struct nb_group *gr = &x->group[g];
	double num = prior * prior_value, den = prior;
	for (size_t i = gr->first; i < gr->first + gr->n; i++) {
		size_t s = x->pt_site[i];
		double w = x->w[s], r = x->pt_r[i];
		if (shift)
			r = r + (shift_at - shift[s]);
		num = num + w * r;
		den = den + w;
	}
	return num / den;
}
