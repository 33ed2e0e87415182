/* pairs.c: each bucket's tactic pair chosen with the whole layer as the judge (pairs.h). */
#include "tune/pairs.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

int pairs_draws(long tokens)
{
	return tokens <= 64 ? 8 : tokens <= 512 ? 2 : 1;
}

int pairs_reps(long tokens)
{
	return tokens <= 256 ? 10 : 3;
}

static struct lookup_entry *entry_at(struct lookup_list *p, int stage, long tokens)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].stage == stage && p->v[i].tokens == tokens)
			return &p->v[i];
	return NULL;
}

static bool decided(const struct lookup_entry *e)
{
	return e && e->nmeas > 0 && (e->kind == CHOICE_MEASURED || e->kind == CHOICE_FALLBACK);
}

static void add_id(int *v, size_t *n, size_t cap, int id)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i] == id)
			return;
	if (*n < cap)
		v[(*n)++] = id;
}

/* The measured bucket whose tokens are nearest (in ratio) to want, among stage's decided
 * entries. */
static const struct lookup_entry *nearest(struct lookup_list *p, int stage, double want)
{
	const struct lookup_entry *best = NULL;
	for (size_t i = 0; i < p->n; i++) {
		const struct lookup_entry *e = &p->v[i];
		if (e->stage != stage || !decided(e))
			continue;
		if (!best || fabs(log((double)e->tokens / want)) < fabs(log((double)best->tokens / want)))
			best = e;
	}
	return best;
}

/* A GEMM's candidates at e's bucket (pairs.h). */
static size_t candidates(struct lookup_list *p, const struct lookup_entry *e,
			 const struct routing *loads, const struct deployment *dep, int *ids,
			 size_t cap)
{
	size_t n = 0;
	add_id(ids, &n, cap, e->tactic);
	for (int k = 0; k < e->nmeas && n < PAIRS_TOP; k++)
		add_id(ids, &n, cap, e->meas_id[k]);
	for (size_t l = 1; l < loads->n; l++) {
		double peak = routing_peak(&loads->v[l], dep->ep, dep->ep_rank);
		const struct lookup_entry *m = nearest(p, e->stage, (double)e->tokens * peak);
		if (m)
			add_id(ids, &n, cap, m->tactic);
	}
	return n;
}

static double entry_us(const struct lookup_entry *e, int id)
{
	for (int k = 0; k < e->nmeas; k++)
		if (e->meas_id[k] == id)
			return e->meas_us[k];
	return -1;
}

/* e takes tactic id from the pair choice. */
static void take(struct lookup_entry *e, int id)
{
	e->paired = true;
	e->per_gemm = e->tactic;
	if (id == e->tactic)
		return;
	e->tactic = id;
	e->kind = id == e->fallback ? CHOICE_FALLBACK : CHOICE_MEASURED;
	e->chosen_us = e->time_us = entry_us(e, id);
	e->chosen_lo = e->chosen_hi = -1;
	e->nties = 0; /* the layer decided, not the per-GEMM intervals */
	/* FlashInfer's selection record of the new winner: its time against the fastest other
	 * candidate's, so a pair that is not the per-GEMM fastest shows a negative margin, as
	 * FlashInfer's own near-tie rule does; none where its time at this bucket is unknown */
	if (e->sel.candidates > 0 && e->chosen_us >= 0) {
		e->sel.time_us = e->chosen_us;
		e->sel.runner_up_us = id == e->sel_min_id ? e->sel_second_us : e->sel_min_us;
	} else {
		memset(&e->sel, 0, sizeof e->sel);
		e->sel.runner_up_us = -1;
	}
}

static int time_bucket(struct worker *w, struct lookup_list *p, const struct deployment *dep,
		       const struct timing_opts *o, struct pairs_result *res,
		       struct lookup_entry *e1, struct lookup_entry *e2, struct diags *d)
{
	enum { CAP = PAIRS_TOP + ROBUST_LOADS_MAX };
	int c1[CAP], c2[CAP];
	size_t n1 = candidates(p, e1, &res->loads, dep, c1, CAP);
	size_t n2 = candidates(p, e2, &res->loads, dep, c2, CAP);
	struct pairs_bucket b = { .tokens = e1->tokens, .per_gemm = { e1->tactic, e2->tactic } };
	b.n = n1 * n2;
	b.pairs = xcalloc(b.n ? b.n : 1, sizeof *b.pairs);
	struct layer_pair *lp = xcalloc(b.n ? b.n : 1, sizeof *lp);
	for (size_t i = 0; i < n1; i++)
		for (size_t j = 0; j < n2; j++) {
			struct robust_pair *x = &b.pairs[i * n2 + j];
			x->g1 = lp[i * n2 + j].g1 = c1[i];
			x->g2 = lp[i * n2 + j].g2 = c2[j];
			x->per_gemm = c1[i] == e1->tactic && c2[j] == e2->tactic;
			for (size_t l = 0; l < ROBUST_LOADS_MAX; l++)
				x->us[l] = -1;
		}
	struct layer_result *out = xcalloc(b.n ? b.n : 1, sizeof *out);
	struct prof_shape s = timing_shape(dep, o, e1, 0);
	double t0 = monotonic_s();
	int rc = TT_OK;
	for (size_t l = 0; l < res->loads.n && !rc; l++) {
		const struct routing_load_def *ld = &res->loads.v[l];
		char *pop = routing_popularity(ld);
		struct layer_load load = { .name = ld->name, .popularity = pop,
					   .draws = pairs_draws(e1->tokens), .reps = pairs_reps(e1->tokens),
					   .rounds = PAIRS_ROUNDS, .seed = PAIRS_SEED + (int)l };
		rc = worker_layer(w, &s, &load, lp, b.n, out, d);
		free(pop);
		for (size_t i = 0; i < b.n && !rc; i++) {
			if (out[i].status == PROF_OK) {
				b.pairs[i].us[l] = out[i].us;
				res->timed++;
			} else if (out[i].status == PROF_UNSUPPORTED && !res->why[0]) {
				snprintf(res->why, sizeof res->why, "%s", out[i].why);
			}
		}
	}
	b.seconds = monotonic_s() - t0;
	free(out);
	free(lp);
	if (!rc) {
		robust_choose(b.pairs, b.n, res->loads.n, &b.choice);
		if (b.choice.index >= 0) {
			const struct robust_pair *x = &b.pairs[b.choice.index];
			res->changed += !x->per_gemm;
			take(e1, x->g1);
			take(e2, x->g2);
			res->why[0] = '\0';
		}
		res->v = xrealloc(res->v, (res->n + 1) * sizeof *res->v);
		res->v[res->n++] = b;
	} else {
		free(b.pairs);
	}
	return rc;
}

int pairs_run(struct worker *w, struct lookup_list *p, const struct deployment *dep,
	      const struct timing_opts *o, struct routing *loads, struct pairs_result *res,
	      struct diags *d)
{
	memset(res, 0, sizeof *res);
	res->loads = *loads;
	memset(loads, 0, sizeof *loads);
	if (res->loads.n > ROBUST_LOADS_MAX)
		res->loads.n = ROBUST_LOADS_MAX;
	double t0 = monotonic_s();
	int rc = TT_OK;
	size_t none = 0;
	for (size_t i = 0; i < p->n && !rc; i++) {
		struct lookup_entry *e1 = &p->v[i];
		if (e1->stage != 1 || !decided(e1))
			continue;
		struct lookup_entry *e2 = entry_at(p, 2, e1->tokens);
		if (!decided(e2))
			continue;
		rc = time_bucket(w, p, dep, o, res, e1, e2, d);
		none += !rc && res->v[res->n - 1].choice.index < 0;
	}
	if (!none)
		res->why[0] = '\0';
	res->seconds = monotonic_s() - t0;
	return rc;
}

void pairs_summary(const struct pairs_result *res, size_t l, double *chosen, double *per_gemm)
{
	double lc = 0, lp = 0;
	size_t nc = 0, np = 0;
	for (size_t i = 0; i < res->n; i++) {
		const struct pairs_bucket *b = &res->v[i];
		if (b->choice.index < 0 || l >= ROBUST_LOADS_MAX || !b->choice.counts[l])
			continue;
		lc += log1p(b->choice.regret[l]);
		nc++;
		for (size_t k = 0; k < b->n; k++) {
			double r = robust_regret(&b->pairs[k], &b->choice, l);
			if (b->pairs[k].per_gemm && r >= 0) {
				lp += log1p(r);
				np++;
			}
		}
	}
	*chosen = nc ? expm1(lc / (double)nc) : -1;
	*per_gemm = np ? expm1(lp / (double)np) : -1;
}

static json_t *us_json(double us)
{
	return us >= 0 && isfinite(us) ? json_real(round(us * 1e4) / 1e4) : json_null();
}

char *pairs_bucket_json(const struct pairs_result *res, const struct pairs_bucket *b)
{
	json_t *o = json_object(), *loads = json_array(), *pairs = json_array(), *reg = json_array();
	for (size_t l = 0; l < res->loads.n; l++) {
		json_array_append_new(loads, json_string(res->loads.v[l].name));
		double r = b->choice.index >= 0 ? b->choice.regret[l] : -1;
		json_array_append_new(reg, r >= 0 ? json_real(round(r * 1e6) / 1e6) : json_null());
	}
	for (size_t i = 0; i < b->n; i++) {
		json_t *t = json_array();
		for (size_t l = 0; l < res->loads.n; l++)
			json_array_append_new(t, us_json(b->pairs[i].us[l]));
		json_array_append_new(pairs, json_pack("[i, i, o]", b->pairs[i].g1, b->pairs[i].g2, t));
	}
	json_object_set_new(o, "loads", loads);
	json_object_set_new(o, "pairs", pairs);
	json_object_set_new(o, "per_gemm", json_pack("[i, i]", b->per_gemm[0], b->per_gemm[1]));
	json_object_set_new(o, "chosen", b->choice.index >= 0
				   ? json_pack("[i, i]", b->pairs[b->choice.index].g1,
					       b->pairs[b->choice.index].g2)
				   : json_null());
	json_object_set_new(o, "regret", reg);
	char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
	json_decref(o);
	return s;
}

void pairs_release(struct pairs_result *res)
{
	for (size_t i = 0; i < res->n; i++)
		free(res->v[i].pairs);
	free(res->v);
	routing_release(&res->loads);
	memset(res, 0, sizeof *res);
}
