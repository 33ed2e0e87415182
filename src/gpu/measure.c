/* measure.c: interleaved rounds, medians with intervals, racing (measure.h). */
#include "gpu/measure.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int measure_screened_out(const struct prof_result *r)
{
	return r->status == PROF_OK && !strcmp(r->why, MEASURE_SCREENED_OUT);
}

void measure_median_ci(double *v, size_t n, double *med, double *lo, double *hi)
{
	if (!n) {
		*med = *lo = *hi = 0;
		return;
	}
	qsort(v, n, sizeof *v, cmp_double);
	*med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	double h = 0.98 * sqrt((double)n);
	long l = (long)floor((double)n / 2.0 - h), u = (long)ceil((double)n / 2.0 + h);
	if (l < 0)
		l = 0;
	if (u > (long)n - 1)
		u = (long)n - 1;
	*lo = v[l];
	*hi = v[u];
}

/* summary of candidate i's samples so far, without disturbing their order */
static void summarize(const double *samples, size_t cnt, double *scratch, double *med, double *lo,
		      double *hi)
{
	memcpy(scratch, samples, cnt * sizeof *scratch);
	measure_median_ci(scratch, cnt, med, lo, hi);
}

/* After the screening round (with keep x MEASURE_SEMIFINAL) and again after the first round
 * after it (with keep, final): the keep fastest go on, and any within the margin of the last;
 * after the final cut none more than MEASURE_FINAL_MARGIN behind the fastest. That sample is
 * a full one (whole routing cycles on FlashInfer's kernels), whose repeats agree within
 * 0.2-0.4% (the oracles' passes): one 5% behind does not win the race, which otherwise
 * times it for at least MEASURE_RACE_MIN rounds (15-33% of a race's GPU time on the H200,
 * docs/benchmarks.md, issue #30). */
static void screen(const double *samples, int rounds, const size_t *cnt, bool *active, size_t n,
		   int keep, bool final)
{
	size_t k = 0;
	double *t = xcalloc(n + 1, sizeof *t);
	for (size_t i = 0; i < n; i++)
		if (active[i] && cnt[i])
			t[k++] = samples[i * (size_t)rounds];
	if (k > 1 && (k > (size_t)keep || final)) {
		qsort(t, k, sizeof *t, cmp_double);
		double cut = t[(k > (size_t)keep ? (size_t)keep : k) - 1] * (1 + MEASURE_SCREEN_MARGIN);
		if (final && cut > t[0] * (1 + MEASURE_FINAL_MARGIN))
			cut = t[0] * (1 + MEASURE_FINAL_MARGIN);
		for (size_t i = 0; i < n; i++)
			if (active[i] && cnt[i] && samples[i * (size_t)rounds] > cut)
				active[i] = false;
	}
	free(t);
}

/* One-sided 95% quantiles of Student's t for df 1..30 (beyond: the normal's 1.645). */
static double t95(size_t df)
{
	static const double q[] = { 6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860,
		1.833, 1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
		1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697 };
	return df >= 1 && df <= 30 ? q[df - 1] : 1.645;
}

/* Method 3's test of candidate i against the leader l over their m paired samples (the last m
 * of each, taken in the same rounds): true when i can be dropped, slower with 95% confidence or
 * within the indifference margin either way (measure.h). */
static bool seq_drop(const double *si, const double *sl, size_t m)
{
	double sum = 0, sum2 = 0;
	for (size_t j = 0; j < m; j++) {
		double x = log(si[j] / sl[j]);
		sum += x;
		sum2 += x * x;
	}
	double mean = sum / (double)m;
	double var = m > 1 ? (sum2 - sum * mean) / (double)(m - 1) : 0;
	double half = t95(m - 1) * sqrt(var > 0 ? var : 0) / sqrt((double)m);
	double eps = log(1 + MEASURE_INDIFFERENCE);
	return mean - half > 0 || (mean + half < eps && mean - half > -eps);
}

int measure_rounds(struct prof_result *out, size_t n, int rounds, int method, int keep,
		   measure_round_fn round, void *ctx)
{
	if (rounds <= 0)
		rounds = keep > 0 ? MEASURE_SCREEN_ROUNDS : MEASURE_ROUNDS;
	if (method == 1)
		rounds = 1;
	double *samples = xcalloc(n * (size_t)rounds + 1, sizeof *samples);
	double *scratch = xcalloc((size_t)rounds + 1, sizeof *scratch);
	size_t *cnt = xcalloc(n + 1, sizeof *cnt), *idx = xcalloc(n + 1, sizeof *idx);
	double *us = xcalloc(n + 1, sizeof *us), *med = xcalloc(n + 1, sizeof *med);
	double *lo = xcalloc(n + 1, sizeof *lo), *hi = xcalloc(n + 1, sizeof *hi);
	bool *active = xcalloc(n + 1, sizeof *active);
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		active[i] = out[i].status == PROF_OK;
	for (int r = 0; r < rounds && !rc; r++) {
		if ((method == 0 && r >= MEASURE_RACE_MIN) || method == 3) {
			/* the race: the leader by median, then who can no longer win is dropped, by
			 * method 0's intervals or method 3's paired test (measure.h) */
			size_t lead = n, left = 0;
			for (size_t i = 0; i < n; i++) {
				if (!active[i] || !cnt[i])
					continue;
				summarize(samples + i * (size_t)rounds, cnt[i], scratch, &med[i], &lo[i], &hi[i]);
				if (lead == n || med[i] < med[lead])
					lead = i;
			}
			for (size_t i = 0; (method == 0 || lead < n) && i < n; i++) {
				if (!active[i] || !cnt[i])
					continue;
				if (i != lead && method == 0) {
					double bar = hi[lead] * (keep > 0 ? 1 - MEASURE_INDIFFERENCE : 1);
					if (lo[i] > bar)
						active[i] = false;
				} else if (i != lead) {
					size_t m = cnt[i] < cnt[lead] ? cnt[i] : cnt[lead];
					if (m >= MEASURE_SEQ_MIN &&
					    seq_drop(samples + i * (size_t)rounds + cnt[i] - m,
						     samples + lead * (size_t)rounds + cnt[lead] - m, m))
						active[i] = false;
				}
				left += active[i];
			}
			if (left <= 1 && (method == 0 || lead < n))
				break;
		}
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (active[i])
				idx[k++] = i;
		if (!k)
			break;
		if ((rc = round(ctx, r, idx, k, us)))
			break;
		for (size_t j = 0; j < k; j++) {
			size_t i = idx[j];
			if (us[j] < 0) { /* it failed while timed: out[i].why says why */
				out[i].status = PROF_FAILED;
				active[i] = false;
				continue;
			}
			samples[i * (size_t)rounds + cnt[i]++] = us[j];
		}
		if (r <= 1 && keep > 0 && method != 1) {
			/* round 0 screens to the semifinalists, round 1 (the first full samples)
			 * to the finalists */
			screen(samples, rounds, cnt, active, n, r == 0 ? keep * MEASURE_SEMIFINAL : keep,
			       r == 1);
			for (size_t i = 0; i < n; i++) {
				if (out[i].status != PROF_OK || !cnt[i] || measure_screened_out(&out[i]))
					continue;
				if (!active[i])
					snprintf(out[i].why, sizeof out[i].why, "%s", MEASURE_SCREENED_OUT);
				else if (r == 0) {
					out[i].median_us = samples[i * (size_t)rounds];
					cnt[i] = 0; /* the results come from the rounds after */
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (out[i].status == PROF_OK && cnt[i]) {
			summarize(samples + i * (size_t)rounds, cnt[i], scratch, &out[i].median_us,
				  &out[i].lo_us, &out[i].hi_us);
			out[i].n = (int)cnt[i];
		}
	free(samples);
	free(scratch);
	free(cnt);
	free(idx);
	free(us);
	free(med);
	free(lo);
	free(hi);
	free(active);
	return rc;
}
