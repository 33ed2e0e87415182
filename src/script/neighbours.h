/* neighbours.h: a fit's measurements (data/modelfit.h) indexed for the cost model's measured
 * neighbours (scripts/lib/moe_cost.lua, "Measured neighbours"), and the kernel-weighted mean
 * that ranks by them. Plain C: tunetab.neighbours (script.c) is its Lua face.
 *
 * Why C: the mean visits every point of a configuration for every query (the shipped H200
 * fit: 16,907 points, 42 queries in one table), which in the sandboxed VM took most of a
 * fitted table's time (docs/benchmarks.md). The points of one stage sit at a few places (a
 * training entry's tokens per expert, features, reduction and weight bits: 189 per stage in
 * that fit), so a query weighs each place once and each configuration only sums. The
 * arithmetic is the Lua estimate's, operation for operation (tests/cli/025 compares every
 * estimate with it to the last bit), so tables stay byte for byte what they were. */
#ifndef TUNETAB_NEIGHBOURS_H
#define TUNETAB_NEIGHBOURS_H

#include <stdbool.h>
#include <stddef.h>

#include "data/modelfit.h"

/* One place measured: lambda (tokens x top_k / all experts), features, reduction, weight
 * bits, as in struct fit_point. */
struct nb_site {
	double l, f, k, b;
};

/* One configuration's points: pt_site/pt_r[first .. first + n). */
struct nb_group {
	const char *config;
	size_t first, n;
};

/* The measurements of one GEMM stage. */
struct nb_index {
	struct nb_site *site;     /* the distinct places, in order of first appearance */
	double *lg;               /* per site: log(1 + l), log f, log k, log b */
	size_t nsites;
	size_t *pt_site;          /* each point's place, in the fit's order */
	double *pt_r;             /* each point's r = log(time / the entry's fastest) */
	size_t npoints;
	struct nb_group *group;   /* in the fit's order */
	size_t ngroups;
	size_t *by_config;        /* group indices sorted by config (the last of equal ones wins) */
	size_t nby_config;
	double *w;                /* the weight of each site for the query in at[] */
	double at[5];             /* lambda, features, reduction, bits, width of w; w unset: */
	bool weighed;             /* false */
};

/* The points of groups[0..n) at stage (1 or 2), copied; configs are copied too. Caller frees
 * with nb_index_free. */
struct nb_index *nb_index_new(const struct fit_group *groups, size_t n, unsigned stage);
void nb_index_free(struct nb_index *x);

/* The group measured for config, or -1 when none. */
long nb_find(const struct nb_index *x, const char *config);

/* The kernel-weighted mean of group g's r at (lambda, features, k, bits) with kernel width
 * `width`, shrunk toward prior_value with the weight of `prior` close points:
 *   (prior * prior_value + sum w_i r_i) / (prior + sum w_i),
 *   w_i = exp(-d_i^2 / width^2),  d_i^2 = (log(1+l_i) - log(1+lambda))^2 + log(f_i/f)^2
 *                                      + log(k_i/k)^2 + log2(b_i/b)^2.
 * shift (per site, or NULL) moves each point's r by shift_at - shift[site] first. */
double nb_mean(struct nb_index *x, size_t g, const double at[5], double prior, double prior_value,
	       const double *shift, double shift_at);

#endif
