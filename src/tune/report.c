/* report.c: the HTML report (issue #9): data from a journal or a plan, then one static page
 * with inline SVG and CSS. Every number drawn is also in a table under its chart. */
#include "tune/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/measure.h"
#include "tune/journal.h"
#include "flashinfer/provenance.h"

#include <jansson.h>

/* ------------------------------------------------------------------ data */

static struct rep_entry *entry(struct report *r, int stage, long tokens)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].stage == stage && r->e[i].tokens == tokens)
			return &r->e[i];
	ALLOC_GROW(r->e, r->n + 1, r->cap);
	struct rep_entry *e = &r->e[r->n++];
	memset(e, 0, sizeof *e);
	e->stage = stage;
	e->tokens = tokens;
	e->chosen = e->fallback = -2;
	e->kind = -1;
	return e;
}

static struct rep_cand *cand(struct rep_entry *e, int id)
{
	for (size_t i = 0; i < e->nc; i++)
		if (e->c[i].id == id)
			return &e->c[i];
	ALLOC_GROW(e->c, e->nc + 1, e->cap);
	struct rep_cand *c = &e->c[e->nc++];
	memset(c, 0, sizeof *c);
	c->id = id;
	c->pred_us = c->med_us = c->lo_us = c->hi_us = -1;
	return c;
}

static const struct rep_cand *find_cand(const struct rep_entry *e, int id)
{
	for (size_t i = 0; i < e->nc; i++)
		if (e->c[i].id == id)
			return &e->c[i];
	return NULL;
}

void report_info(struct report *r, const char *label, const char *value)
{
	if (!value)
		return;
	ALLOC_GROW(r->info, r->ninfo + 2, r->capinfo);
	r->info[r->ninfo++] = xstrdup(label);
	r->info[r->ninfo++] = xstrdup(value);
}

void report_set_title(struct report *r, const char *title)
{
	free(r->title);
	r->title = xstrdup(title);
}

void report_release(struct report *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->e[i].c);
	free(r->e);
	free_strings(r->info, r->ninfo);
	free(r->title);
	free(r->backend);
	memset(r, 0, sizeof *r);
}

static int by_bucket(const void *a, const void *b)
{
	const struct rep_entry *x = a, *y = b;
	if (x->stage != y->stage)
		return x->stage - y->stage;
	return (x->tokens > y->tokens) - (x->tokens < y->tokens);
}

static int by_id(const void *a, const void *b)
{
	return ((const struct rep_cand *)a)->id - ((const struct rep_cand *)b)->id;
}

static void sort_report(struct report *r)
{
	if (r->n) /* qsort of NULL, even of 0 items, is undefined */
		qsort(r->e, r->n, sizeof *r->e, by_bucket);
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].nc)
			qsort(r->e[i].c, r->e[i].nc, sizeof *r->e[i].c, by_id);
}

void report_from_plan(const struct lookup_list *p, struct report *r)
{
	memset(r, 0, sizeof *r);
	r->measured = false;
	for (size_t i = 0; i < p->n; i++) {
		const struct lookup_entry *g = &p->v[i];
		struct rep_entry *e = entry(r, g->stage, g->tokens);
		e->chosen = g->tactic;
		e->fallback = g->fallback;
		e->kind = CHOICE_PREDICTED;
		for (int k = 0; k < g->ntop; k++)
			cand(e, g->top[k])->pred_us = g->top_time[k];
	}
	sort_report(r);
}

static void info_num(struct report *r, const char *label, json_t *v, int kind)
{
	if (!json_is_integer(v))
		return;
	long long x = json_integer_value(v);
	char b[64];
	if (kind == 1) /* CUDA's 13000 -> 13.0 */
		snprintf(b, sizeof b, "%lld.%lld", x / 1000, x % 1000 / 10);
	else if (kind == 2) /* cuBLASLt's 130100 -> 13.1.0 */
		snprintf(b, sizeof b, "%lld.%lld.%lld", x / 10000, x % 10000 / 100, x % 100);
	else
		snprintf(b, sizeof b, "%lld", x);
	if (x || kind == 0)
		report_info(r, label, b);
}

/* the facts of a provenance run object worth a line of the summary */
static void run_info(struct report *r, const char *run_json)
{
	json_t *run = json_loads(run_json, 0, NULL);
	if (!run)
		return;
	const char *s;
	if ((s = json_string_value(json_object_get(run, "gpu"))))
		report_info(r, "GPU measured on", s);
	info_num(r, "GPU SMs", json_object_get(run, "gpu_sm_count"), 0);
	info_num(r, "GPU max clock (MHz)", json_object_get(run, "gpu_clock_mhz"), 0);
	info_num(r, "CUDA driver", json_object_get(run, "cuda_driver"), 1);
	info_num(r, "CUDA runtime", json_object_get(run, "cuda_runtime"), 1);
	info_num(r, "cuBLASLt", json_object_get(run, "cublaslt"), 2);
	if ((s = json_string_value(json_object_get(run, "method"))))
		report_info(r, "measurement method", s);
	info_num(r, "candidates per entry (--top)", json_object_get(run, "top"), 0);
	info_num(r, "rounds", json_object_get(run, "rounds"), 0);
	if ((s = json_string_value(json_object_get(run, "heuristic"))))
		report_info(r, "heuristic", s);
	if ((s = json_string_value(json_object_get(run, "catalog"))))
		report_info(r, "tactic catalog", s);
	s = json_string_value(json_object_get(run, "calibration"));
	report_info(r, "calibration", s ? s : "none");
	json_t *sh = json_object_get(run, "shard");
	if (json_is_object(sh)) {
		char b[160];
		snprintf(b, sizeof b, "%lld of %lld (%s)", json_integer_value(json_object_get(sh, "index")),
			 json_integer_value(json_object_get(sh, "count")),
			 json_string_value(json_object_get(sh, "source")) ? json_string_value(json_object_get(sh, "source")) : "?");
		report_info(r, "shard", b);
	}
	if ((s = json_string_value(json_object_get(run, "id"))))
		report_info(r, "run id", s);
	json_decref(run);
}

/* the provenance file beside the journal that names its module: run facts for the summary */
static void provenance_info(const char *journal, struct report *r)
{
	char *module = journal_module(journal);
	struct provenance pv;
	char *where = NULL;
	if (prov_find_beside(journal, module, &pv, &where) == 0) {
		if (pv.nruns)
			run_info(r, pv.runs[0].json);
		report_info(r, "tunetab", pv.tunetab_version);
		report_info(r, "provenance file", where);
		prov_release(&pv);
		free(where);
	}
	free(module);
}

/* the facts and the title the journal's identity gives */
static void identity_info(struct report *r, const char *id)
{
	struct journal_run_text t;
	journal_run_read(id, &t);
	const char *const facts[][2] = {
		{ t.device, "device" }, { t.version, "FlashInfer" }, { t.model, "model" },
		{ t.dtype, "dtype" }, { t.tp, "TP" }, { t.ep, "EP" }, { t.max_tokens, "max tokens" },
		{ t.keys, "keys file" },
	};
	for (size_t k = 0; k < sizeof facts / sizeof facts[0]; k++)
		if (facts[k][0])
			report_info(r, facts[k][1], facts[k][0]);
	char *title = xasprintf("%s %s TP %s EP %s on %s, FlashInfer %s", t.model ? t.model : "?",
				t.dtype ? t.dtype : "?", t.tp ? t.tp : "?", t.ep ? t.ep : "?",
				t.device ? t.device : "?", t.version ? t.version : "?");
	report_set_title(r, title);
	free(title);
	journal_run_text_release(&t);
}

int report_from_journal(const char *path, struct report *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	r->measured = true;
	struct journal_reader jr;
	int rc = journal_reader_open(&jr, path, d);
	if (rc)
		return rc;
	identity_info(r, jr.identity);
	const char *command = NULL, *backend = NULL;
	struct journal_record x;
	while (journal_reader_next(&jr, &x)) {
		switch (x.kind) {
		case JOURNAL_COMMAND: /* a resumed run appends its own: the last one is shown */
			command = x.text;
			break;
		case JOURNAL_BACKEND:
			backend = x.text;
			break;
		case JOURNAL_MEASUREMENT: {
			struct rep_cand *c = cand(entry(r, x.stage, x.tokens), x.m.id);
			c->timed = true;
			c->status = (int)x.m.status;
			c->med_us = x.m.median_us, c->lo_us = x.m.lo_us, c->hi_us = x.m.hi_us, c->n = x.m.n;
			snprintf(c->why, sizeof c->why, "%s", x.m.why);
			break;
		}
		case JOURNAL_PREDICTION:
			cand(entry(r, x.stage, x.tokens), x.id)->pred_us = x.pred_us;
			break;
		case JOURNAL_DECISION: {
			struct rep_entry *e = entry(r, x.stage, x.tokens);
			e->chosen = x.chosen;
			e->kind = x.choice;
			e->fallback = x.fallback;
			e->out_of_budget = x.out_of_budget;
			break;
		}
		}
	}
	/* a journal without a backend line was written before there was a choice: the proxy's */
	struct journal_run_text t;
	journal_run_read(jr.identity, &t);
	r->backend = xstrdup(backend ? backend : t.backend ? t.backend : PROV_BACKEND_DEFAULT);
	journal_run_text_release(&t);
	report_info(r, "measurement backend", r->backend);
	report_info(r, "command", command);
	journal_reader_close(&jr);
	report_info(r, "journal", path);
	provenance_info(path, r);
	sort_report(r);
	if (!r->n) {
		report_release(r);
		return diag_error(d, TT_INVALID, "journal", path, 0, 0, "the journal holds no measurement");
	}
	return TT_OK;
}

/* ------------------------------------------------------------------ numbers */

struct speedup {
	bool known, measured;
	double s, lo, hi;
};

/* The first entry of GEMM stage at index i or after, or NULL. */
static const struct rep_entry *stage_from(const struct report *r, int stage, size_t i)
{
	for (; i < r->n; i++)
		if (r->e[i].stage == stage)
			return &r->e[i];
	return NULL;
}

/* for_each_of_stage(e, r, stage) { ... }: e runs over the entries of GEMM stage, in order. */
#define for_each_of_stage(e, r, stage)                                 \
	for (const struct rep_entry *e = stage_from(r, stage, 0); e; \
	     e = stage_from(r, stage, (size_t)(e - (r)->e) + 1))

/* A candidate's role in its entry (the CSS class of its marks): chosen, fallback or other. */
static const char *role_of(const struct rep_entry *e, const struct rep_cand *c)
{
	return c->id == e->chosen ? "chosen" : c->id == e->fallback ? "fallback" : "other";
}

static bool ok(const struct rep_cand *c)
{
	return c && c->timed && c->status == PROF_OK && c->med_us > 0;
}

static struct speedup speedup_of(const struct rep_entry *e)
{
	struct speedup s = { 0 };
	const struct rep_cand *ch = find_cand(e, e->chosen), *fb = find_cand(e, e->fallback);
	if (ok(ch) && ok(fb)) {
		s.known = s.measured = true;
		s.s = fb->med_us / ch->med_us;
		if (e->chosen == e->fallback) {
			s.lo = s.hi = 1;
		} else {
			s.lo = ch->hi_us > 0 ? fb->lo_us / ch->hi_us : s.s;
			s.hi = ch->lo_us > 0 ? fb->hi_us / ch->lo_us : s.s;
		}
	} else if (ch && fb && ch->pred_us > 0 && fb->pred_us > 0) {
		s.known = true;
		s.s = s.lo = s.hi = fb->pred_us / ch->pred_us;
	} else if (e->chosen == e->fallback && e->chosen != -2) {
		s.known = true;
		s.s = s.lo = s.hi = 1;
	}
	return s;
}

/* The most the choice can lose to any candidate timed for the entry: its interval's top
 * against the lowest interval bottom; < 0 when unknown. Untimed candidates are not covered, nor
 * those a screen dropped after one sample (no interval: measure.h). */
static double regret_bound(const struct rep_entry *e)
{
	const struct rep_cand *ch = find_cand(e, e->chosen);
	if (!ok(ch))
		return -1;
	double best = ch->lo_us;
	for (size_t i = 0; i < e->nc; i++)
		if (ok(&e->c[i]) && strcmp(e->c[i].why, MEASURE_SCREENED_OUT) && e->c[i].lo_us > 0 &&
		    e->c[i].lo_us < best)
			best = e->c[i].lo_us;
	return best > 0 ? fmax(0, ch->hi_us / best - 1) : -1;
}

/* a point of the predicted-against-measured chart */
static bool fit_point(const struct rep_cand *c)
{
	return ok(c) && c->pred_us > 0;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct ranked {
	double v;
	size_t at;
};

static int by_value(const void *a, const void *b)
{
	return by_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

/* rank[i] of v[i] among v[0..n), 1-based, ties given their average rank; tmp holds n */
static void ranks(const double *v, size_t n, struct ranked *tmp, double *rank)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = (struct ranked){ v[i], i };
	qsort(tmp, n, sizeof *tmp, by_value);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && tmp[j + 1].v == tmp[i].v)
			j++;
		for (size_t k = i; k <= j; k++)
			rank[tmp[k].at] = (double)(i + j) / 2 + 1;
		i = j + 1;
	}
}

/* Spearman's rank correlation of x and y (n >= 2): Pearson's of their ranks; NAN when either
 * side is all tied */
static double spearman(const double *x, const double *y, size_t n)
{
	struct ranked *tmp = xmalloc(n * sizeof *tmp);
	double *rx = xmalloc(n * sizeof *rx), *ry = xmalloc(n * sizeof *ry);
	ranks(x, n, tmp, rx);
	ranks(y, n, tmp, ry);
	double mean = ((double)n + 1) / 2, sxy = 0, sxx = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		sxy += (rx[i] - mean) * (ry[i] - mean);
		sxx += (rx[i] - mean) * (rx[i] - mean);
		syy += (ry[i] - mean) * (ry[i] - mean);
	}
	free(tmp);
	free(rx);
	free(ry);
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

void report_fit(const struct report *r, int stage, long tokens, struct rep_fit *f)
{
	*f = (struct rep_fit){ 0, 0, NAN, NAN };
	size_t n = 0, cap = 0, nx = 0, capx = 0, capy = 0;
	double *ratio = NULL, *x = NULL, *y = NULL, rho_sum = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rep_entry *e = &r->e[i];
		if (e->stage != stage || (tokens >= 0 && e->tokens != tokens))
			continue;
		nx = 0;
		for (size_t k = 0; k < e->nc; k++) {
			const struct rep_cand *c = &e->c[k];
			if (!fit_point(c))
				continue;
			ALLOC_GROW(ratio, n + 1, cap);
			ratio[n++] = c->med_us / c->pred_us;
			ALLOC_GROW(x, nx + 1, capx);
			ALLOC_GROW(y, nx + 1, capy);
			x[nx] = c->pred_us;
			y[nx++] = c->med_us;
		}
		double rho = nx >= 3 ? spearman(x, y, nx) : NAN;
		if (!isnan(rho)) {
			rho_sum += rho;
			f->buckets++;
		}
	}
	f->points = n;
	if (n) {
		double lo, hi;
		measure_median_ci(ratio, n, &f->ratio, &lo, &hi);
	}
	if (f->buckets)
		f->spearman = rho_sum / (double)f->buckets;
	free(ratio);
	free(x);
	free(y);
}

static const char *kind_name(const struct rep_entry *e)
{
	if (e->out_of_budget)
		return "predicted (out of budget)";
	switch (e->kind) {
	case CHOICE_MEASURED: return "measured";
	case CHOICE_FALLBACK: return "fallback kept";
	case CHOICE_PREDICTED: return "predicted";
	default: return "undecided";
	}
}

/* ------------------------------------------------------------------ HTML */

static void esc(struct strbuf *o, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sb_adds(o, "&amp;"); break;
		case '<': sb_adds(o, "&lt;"); break;
		case '>': sb_adds(o, "&gt;"); break;
		case '"': sb_adds(o, "&quot;"); break;
		default: sb_addc(o, *s);
		}
	}
}

static void fmt_us(char *b, size_t n, double v)
{
	if (v < 0)
		snprintf(b, n, "–");
	else if (v < 10)
		snprintf(b, n, "%.3f", v);
	else if (v < 100)
		snprintf(b, n, "%.2f", v);
	else if (v < 1000)
		snprintf(b, n, "%.1f", v);
	else
		snprintf(b, n, "%.0f", v);
}

#define W 900.0
#define H 400.0
#define ML 78.0
#define MR 190.0
#define MT 30.0
#define MB 56.0

struct axis {
	double lo, hi; /* data range (log10 for log axes) */
	bool log;
};

static double ax(const struct axis *a, double v, double p0, double p1)
{
	double x = a->log ? log10(v) : v;
	double t = a->hi > a->lo ? (x - a->lo) / (a->hi - a->lo) : 0.5;
	return p0 + t * (p1 - p0);
}

static double px(const struct axis *a, double tokens)
{
	return ax(a, tokens, ML, W - MR);
}

static double py(const struct axis *a, double v)
{
	return ax(a, v, H - MB, MT);
}

static void x_axis(struct strbuf *o, const struct axis *xa, const long *buckets, size_t nb)
{
	sb_addf(o, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, H - MB,
		W - MR, H - MB);
	size_t step = nb > 12 ? 2 : 1;
	for (size_t i = 0; i < nb; i++) {
		bool pow2 = (buckets[i] & (buckets[i] - 1)) == 0;
		if (nb > 12 && !pow2 && i % step)
			continue;
		if (nb > 12 && !pow2)
			continue;
		double x = px(xa, (double)buckets[i]);
		sb_addf(o, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%ld</text>\n", x, H - MB,
			x, H - MB + 5, x, H - MB + 18, buckets[i]);
	}
	sb_addf(o, "<text class=\"al\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">token bucket "
		"(tokens, log scale)</text>\n", (ML + W - MR) / 2, H - 12);
}

/* The next 1-2-5 tick of a log axis inside its range into *v, false after the last; start
 * with *m = 0 (*e and *m keep the place). */
static bool log_tick(const struct axis *a, int *e, int *m, double *v)
{
	for (;;) {
		if (!*m)
			*e = (int)floor(a->lo) - 1, *m = 1;
		else if (*m == 5)
			++*e, *m = 1;
		else
			*m += *m == 1 ? 1 : 3;
		if (*e > (int)ceil(a->hi))
			return false;
		*v = *m * pow(10, *e);
		if (log10(*v) >= a->lo && log10(*v) <= a->hi)
			return true;
	}
}

static void y_axis_log(struct strbuf *o, const struct axis *ya, const char *label)
{
	sb_addf(o, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, MT, ML,
		H - MB);
	int e, m = 0;
	double v;
	while (log_tick(ya, &e, &m, &v)) {
		double y = py(ya, v);
		char b[32];
		fmt_us(b, sizeof b, v);
		sb_addf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", ML, y,
			W - MR, y, ML - 6, y + 4, b);
	}
	sb_addf(o, "<text class=\"al\" transform=\"rotate(-90)\" x=\"%.1f\" y=\"16\" "
		"text-anchor=\"middle\">%s</text>\n", -(MT + H - MB) / 2, label);
}

/* a log x axis of times (the predicted-against-measured chart), with its grid */
static void x_axis_log(struct strbuf *o, const struct axis *xa, const char *label)
{
	sb_addf(o, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, H - MB,
		W - MR, H - MB);
	int e, m = 0;
	double v;
	while (log_tick(xa, &e, &m, &v)) {
		double x = px(xa, v);
		char b[32];
		fmt_us(b, sizeof b, v);
		sb_addf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, MT, x,
			H - MB, x, H - MB, x, H - MB + 5, x, H - MB + 18, b);
	}
	sb_addf(o, "<text class=\"al\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		(ML + W - MR) / 2, H - 12, label);
}

static void legend(struct strbuf *o, int row, const char *cls, const char *shape, const char *text)
{
	double x = W - MR + 16, y = MT + 10 + row * 22;
	if (!strcmp(shape, "circle"))
		sb_addf(o, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>", cls, x + 6, y);
	else if (!strcmp(shape, "diamond"))
		sb_addf(o, "<polygon class=\"%s\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>", cls,
			x + 6, y - 5, x + 11, y, x + 6, y + 5, x + 1, y);
	else
		sb_addf(o, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", cls, x,
			y, x + 14, y);
	sb_addf(o, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 20, y + 4, text);
}

struct legend_row {
	const char *cls, *shape, *text;
	bool measured_only; /* shown only in a measured report */
};

/* A chart's legend, the end of its SVG and its caption "GEMM<stage>: <caption>". */
static void end_chart(struct strbuf *o, const struct legend_row *rows, size_t n, bool measured,
		      int stage, const char *caption)
{
	int row = 0;
	for (size_t i = 0; i < n; i++)
		if (measured || !rows[i].measured_only)
			legend(o, row++, rows[i].cls, rows[i].shape, rows[i].text);
	sb_adds(o, "</svg>\n");
	sb_addf(o, "<figcaption>GEMM%d: %s</figcaption>\n</figure>\n", stage, caption);
}

#define MAX_BUCKETS 512 /* a chart's token buckets at most */

/* One GEMM's token buckets, in the report's order (the first MAX_BUCKETS), and the x axis
 * over them (log scale; a single bucket gets half a decade either side). Returns how many. */
static size_t chart_buckets(const struct report *r, int stage, long *buckets, struct axis *xa)
{
	size_t nb = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].stage == stage && nb < MAX_BUCKETS)
			buckets[nb++] = r->e[i].tokens;
	if (!nb)
		return 0;
	*xa = (struct axis){ log10((double)buckets[0]), log10((double)buckets[nb - 1]), true };
	if (xa->hi <= xa->lo)
		xa->lo -= 0.5, xa->hi += 0.5;
	return nb;
}

/* A chart's start: the figure, its SVG, title "GEMM<stage>: <title>" and description; id
 * tells the chart's labels from the others'. */
static void begin_chart(struct strbuf *o, int id, int stage, const char *title, const char *desc)
{
	sb_addf(o, "<figure>\n<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"role=\"img\" aria-labelledby=\"c%dt c%dd\">\n<title id=\"c%dt\">GEMM%d: %s</title>\n"
		"<desc id=\"c%dd\">%s</desc>\n", W, H, W, H, id, id, id, stage, title, id, desc);
}

/* chart 1: every candidate's time against the bucket */
static void chart_times(struct strbuf *o, const struct report *r, int stage, int *uid)
{
	long buckets[MAX_BUCKETS];
	struct axis xa;
	size_t nb = chart_buckets(r, stage, buckets, &xa);
	double lo = INFINITY, hi = 0;
	for_each_of_stage(e, r, stage) {
		for (size_t k = 0; k < e->nc; k++) {
			const struct rep_cand *c = &e->c[k];
			double v[3] = { ok(c) ? c->med_us : -1, ok(c) ? c->lo_us : -1, c->pred_us };
			for (int j = 0; j < 3; j++)
				if (v[j] > 0) {
					lo = fmin(lo, v[j]);
					hi = fmax(hi, v[j]);
				}
		}
	}
	if (!nb || !(hi > 0))
		return;
	struct axis ya = { log10(lo) - 0.05, log10(hi) + 0.05, true };
	char *desc = xasprintf("%s The chosen tactic per bucket is joined by a blue line, "
			       "FlashInfer's fallback by a dashed red line. The table below holds every "
			       "value.", r->measured ? "Each circle is a measured median with its 95% "
			       "interval; diamonds are the heuristic's predictions." : "Heuristic only: "
			       "every point is a predicted time; nothing was measured.");
	begin_chart(o, (*uid)++, stage, "time per candidate by token bucket", desc);
	free(desc);
	y_axis_log(o, &ya, r->measured ? "time per GEMM (µs, log scale)" : "predicted time (µs, log scale)");
	x_axis(o, &xa, buckets, nb);
	/* other candidates first, the fallback and the chosen on top */
	struct strbuf chosen = STRBUF_INIT, fbk = STRBUF_INIT;
	for_each_of_stage(e, r, stage) {
		double x = px(&xa, (double)e->tokens);
		for (size_t k = 0; k < e->nc; k++) {
			const struct rep_cand *c = &e->c[k];
			const char *role = role_of(e, c);
			char m[32], l[32], h[32], p[32];
			fmt_us(m, sizeof m, c->med_us), fmt_us(l, sizeof l, c->lo_us);
			fmt_us(h, sizeof h, c->hi_us), fmt_us(p, sizeof p, c->pred_us);
			if (ok(c)) {
				double y = py(&ya, c->med_us);
				if (c->hi_us > c->lo_us && c->lo_us > 0)
					sb_addf(o, "<line class=\"mark ci %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
						"y2=\"%.1f\"/>", role, x, py(&ya, c->lo_us), x, py(&ya, c->hi_us));
				sb_addf(o, "<circle class=\"mark m %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"><title>"
					"GEMM%d %ld tokens, tactic %d (%s): %s µs [%s, %s], %d rounds</title></circle>\n",
					role, x, y, strcmp(role, "other") ? "4.5" : "3", stage, e->tokens, c->id, role,
					m, l, h, c->n);
			}
			/* predictions: of the candidates timed, the chosen and the fallback; in a
			 * heuristic-only report of the 8 best predicted too (the rest are in no table) */
			bool show = c->timed || c->id == e->chosen || c->id == e->fallback;
			if (!r->measured && !show) {
				int better = 0;
				for (size_t j = 0; j < e->nc; j++)
					better += e->c[j].pred_us > 0 && e->c[j].pred_us < c->pred_us;
				show = better < 8;
			}
			if (c->pred_us > 0 && show) {
				double y = py(&ya, c->pred_us);
				sb_addf(o, "<polygon class=\"mark p %s\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f "
					"%.1f,%.1f\"><title>GEMM%d %ld tokens, tactic %d (%s): predicted %s µs</title>"
					"</polygon>\n", role, x, y - 4, x + 4, y, x, y + 4, x - 4, y, stage, e->tokens,
					c->id, role, p);
			}
		}
		const struct rep_cand *ch = find_cand(e, e->chosen), *fb = find_cand(e, e->fallback);
		double cv = ok(ch) ? ch->med_us : ch && ch->pred_us > 0 ? ch->pred_us : -1;
		double fv = ok(fb) ? fb->med_us : fb && fb->pred_us > 0 ? fb->pred_us : -1;
		if (cv > 0)
			sb_addf(&chosen, "%c%.1f,%.1f", chosen.len ? 'L' : 'M', x, py(&ya, cv));
		if (fv > 0)
			sb_addf(&fbk, "%c%.1f,%.1f", fbk.len ? 'L' : 'M', x, py(&ya, fv));
	}
	if (fbk.len)
		sb_addf(o, "<path class=\"mark line fallback\" d=\"%s\"/>\n", fbk.buf);
	if (chosen.len)
		sb_addf(o, "<path class=\"mark line chosen\" d=\"%s\"/>\n", chosen.buf);
	sb_release(&chosen);
	sb_release(&fbk);
	static const struct legend_row rows[] = {
		{ "line chosen", "line", "chosen tactic", false },
		{ "line fallback", "line", "fallback (-1)", false },
		{ "m chosen", "circle", "chosen, measured", true },
		{ "m fallback", "circle", "fallback, measured", true },
		{ "m other", "circle", "other, measured", true },
		{ "p other", "diamond", "predicted (heuristic)", false },
	};
	end_chart(o, rows, ARRAY_SIZE(rows), r->measured, stage,
		  r->measured ? "measured and predicted time per candidate and token bucket."
			      : "predicted time per candidate and token bucket.");
}

/* chart 2: speed-up over the fallback, with its interval */
static void chart_speedup(struct strbuf *o, const struct report *r, int stage, int *uid)
{
	long buckets[MAX_BUCKETS];
	struct axis xa;
	size_t nb = chart_buckets(r, stage, buckets, &xa);
	double lo = 1, hi = 1;
	for_each_of_stage(e, r, stage) {
		struct speedup s = speedup_of(e);
		if (s.known) {
			lo = fmin(lo, s.lo);
			hi = fmax(hi, s.hi);
		}
	}
	if (!nb)
		return;
	double pad = (hi - lo) * 0.08 + 0.02;
	struct axis ya = { lo - pad, hi + pad, false };
	char *desc = xasprintf("The fallback's time divided by the chosen tactic's, per bucket%s; 1 "
			       "means no gain. The table below holds every value.", r->measured ?
			       ", with the interval the two measurements allow" : " (predicted)");
	begin_chart(o, (*uid)++, stage, "speed-up over FlashInfer's fallback by token bucket", desc);
	free(desc);
	sb_addf(o, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, MT, ML,
		H - MB);
	double span = ya.hi - ya.lo;
	/* at most about 20 grid lines, whatever the journal's times (a fuzzed journal gave a
	 * span of 1e300) */
	double step = span > 10 ? pow(10, ceil(log10(span / 10))) : span > 2 ? 0.5 : span > 0.5 ? 0.1
										       : 0.05;
	for (double v = ceil(ya.lo / step) * step; v <= ya.hi + 1e-9; v += step)
		sb_addf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text "
			"class=\"tl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.2f×</text>\n", ML, py(&ya, v),
			W - MR, py(&ya, v), ML - 6, py(&ya, v) + 4, v);
	sb_addf(o, "<line class=\"one\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML,
		py(&ya, 1), W - MR, py(&ya, 1));
	sb_addf(o, "<text class=\"al\" transform=\"rotate(-90)\" x=\"%.1f\" y=\"16\" text-anchor=\"middle\">"
		"speed-up over the fallback (×)</text>\n", -(MT + H - MB) / 2);
	x_axis(o, &xa, buckets, nb);
	for_each_of_stage(e, r, stage) {
		struct speedup s = speedup_of(e);
		if (!s.known)
			continue;
		double x = px(&xa, (double)e->tokens);
		const char *cls = !s.measured ? "p" : e->chosen == e->fallback ? "kept" : "m";
		if (s.hi > s.lo)
			sb_addf(o, "<line class=\"mark ci %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
				cls, x, py(&ya, s.lo), x, py(&ya, s.hi));
		sb_addf(o, "<circle class=\"mark su %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"><title>GEMM%d %ld "
			"tokens: %.3f× [%.3f, %.3f] (%s)</title></circle>\n", cls, x, py(&ya, s.s), stage,
			e->tokens, s.s, s.lo, s.hi, s.measured ? kind_name(e) : "predicted");
	}
	static const struct legend_row rows[] = {
		{ "su m", "circle", "measured gain", true },
		{ "su kept", "circle", "fallback kept", true },
		{ "ci m", "line", "interval", true },
		{ "su p", "circle", "predicted", false },
	};
	end_chart(o, rows, ARRAY_SIZE(rows), r->measured, stage,
		  "speed-up of the chosen tactic over the fallback.");
}

/* A data table's start: its caption (fmt, ...) and its column heads (cols, NULL-terminated). */
__attribute__((format(printf, 3, 4)))
static void begin_table(struct strbuf *o, const char *const *cols, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *caption = xvasprintf(fmt, ap);
	va_end(ap);
	sb_addf(o, "<table class=\"data\">\n<caption>%s</caption>\n<thead><tr>", caption);
	free(caption);
	for (; *cols; cols++)
		sb_addf(o, "<th scope=\"col\">%s</th>", *cols);
	sb_adds(o, "</tr></thead>\n<tbody>\n");
}

static void table_times(struct strbuf *o, const struct report *r, int stage)
{
	static const char *const cols[] = {
		"tokens", "chosen", "how", "chosen µs [interval]", "fallback µs [interval]",
		"predicted µs (chosen)", "candidates timed / failed / inexpressible", "best other timed",
		"regret bound", NULL,
	};
	begin_table(o, cols, "GEMM%d: the choice per token bucket (the values of the chart above)",
		    stage);
	for_each_of_stage(e, r, stage) {
		const struct rep_cand *ch = find_cand(e, e->chosen), *fb = find_cand(e, e->fallback);
		char a[32], b[32], c[32], f1[32], f2[32], f3[32], p[32];
		fmt_us(a, sizeof a, ok(ch) ? ch->med_us : -1), fmt_us(b, sizeof b, ok(ch) ? ch->lo_us : -1);
		fmt_us(c, sizeof c, ok(ch) ? ch->hi_us : -1);
		fmt_us(f1, sizeof f1, ok(fb) ? fb->med_us : -1), fmt_us(f2, sizeof f2, ok(fb) ? fb->lo_us : -1);
		fmt_us(f3, sizeof f3, ok(fb) ? fb->hi_us : -1);
		fmt_us(p, sizeof p, ch ? ch->pred_us : -1);
		size_t timed = 0, failed = 0, unsup = 0;
		const struct rep_cand *other = NULL;
		for (size_t k = 0; k < e->nc; k++) {
			const struct rep_cand *x = &e->c[k];
			timed += ok(x);
			failed += x->timed && x->status == PROF_FAILED;
			unsup += x->timed && x->status == PROF_UNSUPPORTED;
			if (ok(x) && x->id != e->chosen && (!other || x->med_us < other->med_us))
				other = x;
		}
		char best[64] = "–", reg[32] = "–";
		if (other)
			snprintf(best, sizeof best, "%d: %.2f", other->id, other->med_us);
		double rb = regret_bound(e);
		if (rb >= 0)
			snprintf(reg, sizeof reg, "%.2f%%", 100 * rb);
		sb_addf(o, "<tr><th scope=\"row\">%ld</th><td>%d</td><td>%s</td><td>%s [%s, %s]</td><td>%s [%s, "
			"%s]</td><td>%s</td><td>%zu / %zu / %zu</td><td>%s</td><td>%s</td></tr>\n", e->tokens,
			e->chosen, kind_name(e), a, b, c, f1, f2, f3, p, timed, failed, unsup, best, reg);
	}
	sb_adds(o, "</tbody>\n</table>\n");
}

static void table_speedup(struct strbuf *o, const struct report *r, int stage)
{
	static const char *const cols[] = { "tokens", "speed-up", "low", "high", "from", NULL };
	begin_table(o, cols, "GEMM%d: speed-up over the fallback (the values of the chart above)",
		    stage);
	for_each_of_stage(e, r, stage) {
		struct speedup s = speedup_of(e);
		if (s.known)
			sb_addf(o, "<tr><th scope=\"row\">%ld</th><td>%.3f×</td><td>%.3f×</td><td>%.3f×</td>"
				"<td>%s</td></tr>\n", e->tokens, s.s, s.lo, s.hi, s.measured ? "measured" : "predicted");
		else
			sb_addf(o, "<tr><th scope=\"row\">%ld</th><td colspan=\"3\">unknown (the chosen or the "
				"fallback has no time)</td><td>–</td></tr>\n", e->tokens);
	}
	sb_adds(o, "</tbody>\n</table>\n");
}

/* the figures of the predicted-against-measured chart of one stage or bucket, as text */
static void fit_text(const struct rep_fit *f, char *rho, size_t nrho, char *ratio, size_t nratio)
{
	if (isnan(f->spearman))
		snprintf(rho, nrho, "–");
	else
		snprintf(rho, nrho, "%.3f", f->spearman);
	if (isnan(f->ratio))
		snprintf(ratio, nratio, "–");
	else
		snprintf(ratio, nratio, "%.3f×", f->ratio);
}

/* chart 3: the heuristic's predicted time of every candidate against its measured median, the
 * figures of report_fit beside it and per bucket in a table under it; one line saying why
 * when there is nothing to draw */
static void chart_fit(struct strbuf *o, const struct report *r, int stage, int *uid)
{
	struct rep_fit f;
	report_fit(r, stage, -1, &f);
	if (!f.points) {
		bool timed = false;
		for (size_t i = 0; i < r->n; i++)
			for (size_t k = 0; k < r->e[i].nc; k++)
				timed |= r->e[i].stage == stage && ok(&r->e[i].c[k]);
		sb_addf(o, "<p class=\"nofit\">No chart: %s.</p>\n", !r->measured || !timed
			? "nothing was measured for this stage (heuristic only), so there is no measured "
			  "time to set against the predictions"
			: "no measured candidate of this stage has a prediction (the journal records "
			  "none)");
		return;
	}
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->e[i].nc; k++) {
			const struct rep_cand *c = &r->e[i].c[k];
			if (r->e[i].stage != stage || !fit_point(c))
				continue;
			lo = fmin(lo, fmin(c->pred_us, c->med_us));
			hi = fmax(hi, fmax(c->pred_us, c->med_us));
		}
	struct axis a = { log10(lo) - 0.05, log10(hi) + 0.05, true };
	begin_chart(o, (*uid)++, stage, "measured against predicted time per candidate",
		    "Each circle is a candidate of a token bucket: the heuristic's predicted time "
		    "across, its measured median up; on the dashed line y = x the prediction was "
		    "exact. The figures are beside the chart and per bucket in the table below.");
	y_axis_log(o, &a, "measured median (µs, log scale)");
	x_axis_log(o, &a, "predicted by the heuristic (µs, log scale)");
	double d0 = pow(10, a.lo), d1 = pow(10, a.hi);
	sb_addf(o, "<line class=\"one\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px(&a, d0),
		py(&a, d0), px(&a, d1), py(&a, d1));
	/* the other candidates first, the fallback and the chosen on top */
	for (int pass = 0; pass < 2; pass++)
		for_each_of_stage(e, r, stage) {
			for (size_t k = 0; k < e->nc; k++) {
				const struct rep_cand *c = &e->c[k];
				const char *role = role_of(e, c);
				bool other = !strcmp(role, "other");
				if (!fit_point(c) || other != (pass == 0))
					continue;
				char m[32], p[32];
				fmt_us(m, sizeof m, c->med_us), fmt_us(p, sizeof p, c->pred_us);
				sb_addf(o, "<circle class=\"mark sc %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"><title>GEMM%d "
					"%ld tokens, tactic %d (%s): predicted %s µs, measured %s µs</title></circle>\n",
					role, px(&a, c->pred_us), py(&a, c->med_us), pass ? "4" : "3", stage,
					e->tokens, c->id, role, p, m);
			}
		}
	char rho[32], ratio[32];
	fit_text(&f, rho, sizeof rho, ratio, sizeof ratio);
	const char *lines[5];
	char l0[64], l1[64], l2[64], l4[64];
	snprintf(l0, sizeof l0, "%zu points", f.points);
	snprintf(l1, sizeof l1, "Spearman ρ %s", rho);
	snprintf(l2, sizeof l2, "(mean of %zu buckets)", f.buckets);
	snprintf(l4, sizeof l4, "median %s", ratio);
	lines[0] = l0, lines[1] = l1, lines[2] = l2, lines[3] = "measured / predicted:", lines[4] = l4;
	for (int k = 0; k < 5; k++)
		sb_addf(o, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", W - MR + 16,
			MT + 14 + (5 + k) * 22, lines[k]);
	static const struct legend_row rows[] = {
		{ "sc chosen", "circle", "chosen tactic", true },
		{ "sc fallback", "circle", "fallback (-1)", true },
		{ "sc other", "circle", "other candidate", true },
		{ "one", "line", "y = x", true },
	};
	end_chart(o, rows, ARRAY_SIZE(rows), r->measured, stage,
		  "measured against predicted time per candidate and token bucket (log-log).");
	sb_addf(o, "<p class=\"fit\">GEMM%d: %zu candidates with both a prediction and a measurement. "
		"Spearman rank correlation of predicted against measured within a token bucket, the "
		"mean over the %zu buckets with at least 3 points: %s. Median of measured / predicted: "
		"%s.</p>\n", stage, f.points, f.buckets, rho, ratio);
	static const char *const cols[] = {
		"tokens", "points", "Spearman ρ", "median measured / predicted", NULL,
	};
	begin_table(o, cols, "GEMM%d: predicted against measured per token bucket (the figures of "
		    "the chart above)", stage);
	for_each_of_stage(e, r, stage) {
		struct rep_fit b;
		report_fit(r, stage, e->tokens, &b);
		fit_text(&b, rho, sizeof rho, ratio, sizeof ratio);
		sb_addf(o, "<tr><th scope=\"row\">%ld</th><td>%zu</td><td>%s</td><td>%s</td></tr>\n",
			e->tokens, b.points, rho, ratio);
	}
	sb_adds(o, "</tbody>\n</table>\n");
}

/* failed and inexpressible candidates, grouped by tactic and reason */
static void table_failures(struct strbuf *o, const struct report *r)
{
	struct grp {
		int stage, id, status;
		const char *why;
		struct strbuf buckets;
		size_t n;
	} *g = NULL;
	size_t ng = 0, cap = 0;
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->e[i].nc; k++) {
			const struct rep_cand *c = &r->e[i].c[k];
			if (!c->timed || c->status == PROF_OK)
				continue;
			size_t j = 0;
			while (j < ng && !(g[j].stage == r->e[i].stage && g[j].id == c->id &&
					   g[j].status == c->status && !strcmp(g[j].why, c->why)))
				j++;
			if (j == ng) {
				ALLOC_GROW(g, ng + 1, cap);
				g[ng] = (struct grp){ r->e[i].stage, c->id, c->status, c->why, STRBUF_INIT, 0 };
				ng++;
			}
			sb_addf(&g[j].buckets, "%s%ld", g[j].n++ ? ", " : "", r->e[i].tokens);
		}
	sb_adds(o, "<h2 id=\"failures\">Failed and inexpressible candidates</h2>\n");
	if (!ng) {
		sb_addf(o, "<p>%s</p>\n", r->measured ? "None: every candidate timed ran." :
			"None recorded: nothing was measured.");
		return;
	}
	char name[64];
	prov_backend_name(r->backend, name, sizeof name);
	sb_addf(o, "<p>A <em>failed</em> candidate crashed, hung or returned an error in the worker "
		"(tunetab went on without it); an <em>inexpressible</em> one %s on this GPU and was "
		"replaced by the heuristic's next.</p>\n", !strcmp(name, "proxy")
		? "has no cuBLASLt form for the proxy GEMM" : "is one the backend cannot run");
	static const char *const cols[] = { "GEMM", "tactic", "what", "reason", "token buckets", NULL };
	begin_table(o, cols, "Candidates that were not timed, by tactic and reason");
	for (size_t j = 0; j < ng; j++) {
		sb_addf(o, "<tr><td>%d</td><td>%d</td><td>%s</td><td>", g[j].stage, g[j].id,
			g[j].status == PROF_FAILED ? "failed" : "inexpressible");
		esc(o, g[j].why);
		sb_addf(o, "</td><td>%s</td></tr>\n", g[j].buckets.buf);
		sb_release(&g[j].buckets);
	}
	free(g);
	sb_adds(o, "</tbody>\n</table>\n");
}

static const char css[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1f24;"
	"max-width:1120px;margin:24px auto;padding:0 16px}\n"
	"h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid "
	"#d0d7de;padding-bottom:.2em}h3{font-size:1.05em;margin-top:1.4em}\n"
	".banner{padding:.6em .9em;border-radius:6px;margin:1em 0}.banner.m{background:#e8f1fb;border:1px "
	"solid #9cc3ef}.banner.p{background:#fff4e0;border:1px solid #f0c36d}\n"
	"table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:.86em}caption{text-align:left;"
	"font-weight:600;padding:.3em 0}th,td{border:1px solid #d0d7de;padding:.25em .5em;text-align:"
	"right;vertical-align:top}thead th{background:#f6f8fa}table.info td,table.info th{text-align:"
	"left}table.info td{font-family:ui-monospace,monospace;word-break:break-all}\n"
	"figure{margin:1em 0}figcaption{font-size:.85em;color:#57606a}svg.chart{max-width:100%;height:"
	"auto;background:#fff;border:1px solid #eaeef2}\n"
	".axis{stroke:#57606a;stroke-width:1}.tick{stroke:#57606a}.grid{stroke:#eaeef2}.one{stroke:#57606a;"
	"stroke-dasharray:4 3}.tl{font-size:11px;fill:#57606a}.al{font-size:12px;fill:#1b1f24}.lg{font-"
	"size:12px;fill:#1b1f24}\n"
	".m.other{fill:#8a8f98;fill-opacity:.55}.m.chosen{fill:#1f5fbf}.m.fallback{fill:#c0392b}"
	".ci{stroke:#8a8f98;stroke-opacity:.7}.ci.chosen,.ci.m{stroke:#1f5fbf}.ci.fallback{stroke:#c0392b}"
	".p{fill:none;stroke:#e08a00;stroke-width:1.4}.line{fill:none;stroke-width:2}.line.chosen{stroke:"
	"#1f5fbf}.line.fallback{stroke:#c0392b;stroke-dasharray:6 4}.su.m{fill:#1f5fbf}.su.kept{fill:"
	"#8a8f98}.su.p{fill:#fff;stroke:#e08a00;stroke-width:1.6}.sc.other{fill:#8a8f98;fill-opacity:.45}"
	".sc.chosen{fill:#1f5fbf}.sc.fallback{fill:#c0392b}\n"
	"@media print{body{margin:0;max-width:none;font-size:11px}svg.chart{border:none}figure,table"
	"{break-inside:avoid}.banner{border:1px solid #888}}\n";

/* What was timed, by backend (provenance.h): the proxy unless the journal names another. */
static void banner_measured(struct strbuf *o, const struct report *r)
{
	char name[64];
	prov_backend_name(r->backend, name, sizeof name);
	sb_adds(o, "<p class=\"banner m\"><strong>Measured.</strong> ");
	if (!strcmp(name, "flashinfer"))
		sb_adds(o, "Times are medians of FlashInfer's own CUTLASS fused-MoE kernels, each "
			"candidate tactic timed through FlashInfer's MoERunner, with 95% intervals; the "
			"heuristic's predictions are shown beside them.");
	else if (!strcmp(name, "fake"))
		sb_adds(o, "Times are synthetic: the fake backend (TUNETAB_FAKE_GPU=1, for tests) made "
			"them up from each candidate's shape and ran no GPU kernel, so they say nothing "
			"about any GPU; the heuristic's predictions are shown beside them.");
	else
		sb_adds(o, "Times are medians of interleaved rounds of tunetab's proxy GEMM (cuBLASLt "
			"with each candidate's tile and cluster, not FlashInfer's own kernels), with 95% "
			"intervals; the heuristic's predictions are shown beside them.");
	sb_adds(o, "</p>\n");
}

void report_write_html(const struct report *r, struct strbuf *o)
{
	sb_adds(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta "
		"name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>tunetab report: ");
	esc(o, r->title ? r->title : "tuning run");
	sb_addf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>tunetab report: ", css);
	esc(o, r->title ? r->title : "tuning run");
	sb_adds(o, "</h1>\n");
	if (r->measured)
		banner_measured(o, r);
	else
		sb_adds(o, "<p class=\"banner p\"><strong>Heuristic only: nothing was measured.</strong> "
			"Every time on this page is the Lua heuristic's prediction, and every speed-up is "
			"predicted too.</p>\n");
	sb_adds(o, "</header>\n<main>\n");
	/* summary */
	size_t meas = 0, kept = 0, pred = 0, timed = 0, failed = 0, unsup = 0;
	double lsum = 0, worst = -1;
	size_t nsu = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rep_entry *e = &r->e[i];
		meas += e->kind == CHOICE_MEASURED;
		kept += e->kind == CHOICE_FALLBACK;
		pred += e->kind != CHOICE_MEASURED && e->kind != CHOICE_FALLBACK;
		for (size_t k = 0; k < e->nc; k++) {
			timed += ok(&e->c[k]);
			failed += e->c[k].timed && e->c[k].status == PROF_FAILED;
			unsup += e->c[k].timed && e->c[k].status == PROF_UNSUPPORTED;
		}
		struct speedup s = speedup_of(e);
		if (s.known && s.s > 0) {
			lsum += log(s.s);
			nsu++;
		}
		worst = fmax(worst, regret_bound(e));
	}
	sb_addf(o, "<h2 id=\"summary\">Summary</h2>\n<p>%zu entries (GEMM stage × token bucket): %zu "
		"measured faster than the fallback, %zu kept the fallback, %zu predicted. %zu candidate "
		"timings, %zu failed, %zu inexpressible. Geometric-mean speed-up over the fallback: "
		"%.3f×%s.", r->n, meas, kept, pred, timed, failed, unsup, nsu ? exp(lsum / (double)nsu) : 1.0,
		r->measured ? "" : " (predicted)");
	if (worst >= 0)
		sb_addf(o, " Largest regret bound among the candidates timed: %.2f%% (untimed candidates "
			"are not covered).", 100 * worst);
	sb_adds(o, "</p>\n<table class=\"info\">\n<caption>Device, versions and the command that "
		"produced this report</caption>\n<tbody>\n");
	for (size_t i = 0; i + 1 < r->ninfo; i += 2) {
		sb_adds(o, "<tr><th scope=\"row\">");
		esc(o, r->info[i]);
		sb_adds(o, "</th><td>");
		esc(o, r->info[i + 1]);
		sb_adds(o, "</td></tr>\n");
	}
	sb_adds(o, "</tbody>\n</table>\n");
	int uid = 0;
	for (int stage = 1; stage <= 2; stage++) {
		bool any = false;
		for (size_t i = 0; i < r->n; i++)
			any |= r->e[i].stage == stage;
		if (!any)
			continue;
		sb_addf(o, "<h2 id=\"gemm%d\">GEMM%d</h2>\n<h3>Time per candidate</h3>\n", stage, stage);
		chart_times(o, r, stage, &uid);
		table_times(o, r, stage);
		sb_adds(o, "<h3>Speed-up over the fallback</h3>\n");
		chart_speedup(o, r, stage, &uid);
		table_speedup(o, r, stage);
		sb_adds(o, "<h3>Predicted against measured</h3>\n");
		chart_fit(o, r, stage, &uid);
	}
	table_failures(o, r);
	sb_adds(o, "</main>\n<footer><p>Written by tunetab. The regret bound of an entry is the most its "
		"choice can lose to any candidate timed for it: the top of the chosen one's interval "
		"against the lowest interval bottom.</p></footer>\n</body>\n</html>\n");
}
