/* test_report.c: the report's predicted-against-measured figures (report_fit) on made-up
 * candidates: which count as points, Spearman's rank correlation with and without ties, buckets
 * left out (fewer than 3 points, all tied), the median of measured / predicted; and the page's
 * scatter points, or its one line when nothing was measured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "tune/report.h"
#include "ttest.h"
#include "base/util.h"

/* one candidate: predicted and measured (< 0: not measured) time, status */
struct mk {
	double pred, meas;
	int status;
};

static void add_entry(struct report *r, int stage, long tokens, const struct mk *m, size_t n)
{
	ALLOC_GROW(r->e, r->n + 1, r->cap);
	struct rep_entry *e = &r->e[r->n++];
	memset(e, 0, sizeof *e);
	e->stage = stage;
	e->tokens = tokens;
	e->chosen = 0;
	e->fallback = -1;
	e->kind = -1;
	e->c = xcalloc(n, sizeof *e->c);
	e->nc = e->cap = n;
	for (size_t i = 0; i < n; i++) {
		struct rep_cand *c = &e->c[i];
		c->id = (int)i;
		c->pred_us = m[i].pred;
		c->timed = m[i].meas >= 0;
		c->status = m[i].status;
		c->med_us = c->lo_us = c->hi_us = m[i].meas;
		c->n = 1;
	}
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void fill(struct report *r)
{
	memset(r, 0, sizeof *r);
	r->measured = true;
	/* rho 1; a failed, an unpredicted and an untimed candidate are no points */
	const struct mk a[] = {
		{ 1, 10, PROF_OK }, { 2, 20, PROF_OK }, { 3, 30, PROF_OK }, { 4, 40, PROF_OK },
		{ 5, 50, PROF_FAILED }, { -1, 60, PROF_OK }, { 6, -1, PROF_OK },
	};
	const struct mk b[] = { { 1, 3, PROF_OK }, { 2, 2, PROF_OK }, { 3, 1, PROF_OK } }; /* rho -1 */
	const struct mk c[] = { { 1, 2, PROF_OK }, { 2, 4, PROF_OK } };         /* too few */
	const struct mk d[] = { { 5, 5, PROF_OK }, { 5, 10, PROF_OK }, { 5, 15, PROF_OK } }; /* tied */
	const struct mk e[] = { { 1, 1, PROF_OK }, { 1, 2, PROF_OK }, { 2, 3, PROF_OK } };  /* ties */
	add_entry(r, 1, 1, a, ARRAY_SIZE(a));
	add_entry(r, 1, 2, b, ARRAY_SIZE(b));
	add_entry(r, 1, 4, c, ARRAY_SIZE(c));
	add_entry(r, 1, 8, d, ARRAY_SIZE(d));
	add_entry(r, 2, 1, e, ARRAY_SIZE(e));
}

TEST(report_fit_figures)
{
	struct report r;
	fill(&r);
	struct rep_fit f;
	report_fit(&r, 1, -1, &f);
	CHECK_INT(f.points, 12);
	CHECK_INT(f.buckets, 2);
	CHECK(near(f.spearman, 0));
	/* ratios .33 1 1 2 2 2 3 3 10 10 10 10 */
	CHECK(near(f.ratio, 2.5));
	report_fit(&r, 1, 1, &f);
	CHECK_INT(f.points, 4);
	CHECK(near(f.spearman, 1) && near(f.ratio, 10));
	report_fit(&r, 1, 2, &f);
	CHECK(near(f.spearman, -1) && near(f.ratio, 1));
	report_fit(&r, 1, 4, &f);
	CHECK_INT(f.points, 2);
	CHECK_INT(f.buckets, 0);
	CHECK(isnan(f.spearman) && near(f.ratio, 2));
	report_fit(&r, 1, 8, &f);
	CHECK_INT(f.buckets, 0);
	CHECK(isnan(f.spearman) && near(f.ratio, 2));
	/* ranks 1.5 1.5 3 against 1 2 3: 1.5 / sqrt(1.5 * 2) */
	report_fit(&r, 2, -1, &f);
	CHECK_INT(f.points, 3);
	CHECK(near(f.spearman, 1.5 / sqrt(3)) && near(f.ratio, 1.5));
	report_fit(&r, 3, -1, &f);
	CHECK_INT(f.points, 0);
	CHECK(isnan(f.spearman) && isnan(f.ratio));
	report_release(&r);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

TEST(report_fit_page)
{
	struct report r;
	fill(&r);
	struct strbuf sb = STRBUF_INIT;
	report_write_html(&r, &sb);
	CHECK_INT(count(sb.buf, "<circle class=\"mark sc "), 15);
	CHECK_INT(count(sb.buf, "measured against predicted time per candidate</title>"), 2);
	CHECK(strstr(sb.buf, "GEMM1: 12 candidates with both a prediction and a measurement"));
	CHECK(strstr(sb.buf, "mean over the 2 buckets with at least 3 points: 0.000. Median of "
		     "measured / predicted: 2.500×"));
	CHECK_INT(count(sb.buf, "class=\"nofit\""), 0);
	/* nothing measured: no scatter, one line per stage */
	for (size_t i = 0; i < r.n; i++)
		for (size_t k = 0; k < r.e[i].nc; k++)
			r.e[i].c[k].timed = false;
	sb_reset(&sb);
	report_write_html(&r, &sb);
	CHECK_INT(count(sb.buf, "<circle class=\"mark sc "), 0);
	CHECK_INT(count(sb.buf, "<p class=\"nofit\">No chart: nothing was measured"), 2);
	sb_release(&sb);
	report_release(&r);
}

TTEST_SUITE(report_tests) = {
	{ "report_fit_figures", report_fit_figures },
	{ "report_fit_page", report_fit_page },
	TTEST_END,
};
