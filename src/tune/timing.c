/* timing.c: short profiling runs through the worker, a journal that survives SIGKILL,
 * and a choice that is never worse than the fallback and agrees from run to run. */
#include "tune/timing.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/journal.h"
#include "gpu/measure.h"
#include "base/util.h"

#define PROF_MAX 512 /* candidates of one stage, exhaustive mode included */

static const struct tactic *find_tactic(const struct tactic_list *l, int stage, int id)
{
	const struct tactic *c = stage == 1 ? l->g1 : l->g2;
	size_t n = stage == 1 ? l->n1 : l->n2;
	for (size_t i = 0; i < n; i++)
		if (c[i].id == id)
			return &c[i];
	return NULL;
}

static struct prof_cand to_cand(const struct tactic *t)
{
	struct prof_cand c;
	memset(&c, 0, sizeof c);
	c.id = t->id;
	c.tile_m = t->m;
	c.tile_n = t->n;
	c.cluster_m = t->cluster[0];
	c.cluster_n = t->cluster[1];
	c.stages = t->sm80_style ? t->stages : 0;
	c.swap = t->tokens_on_n;
	c.sm80 = t->sm80_style;
	return c;
}

/* Medians closer than this are not reproducible from GPU to GPU of one model, however tight
 * one run's intervals: on 2 x H200 a shard on GPU 1 reversed pairs the single run on GPU 0
 * had measured 0.4% to 1.85% apart with disjoint intervals (docs/benchmarks.md, fleet run).
 * It bounds the ties a run declares; the rule that decides an entry does not use it. */
#define TIE_TOLERANCE 0.02

/* Measured well enough to be chosen or declared a tie: timed, and not dropped by a screen
 * after one sample. */
static bool measured(const struct prof_result *r)
{
	return r->status == PROF_OK && !measure_screened_out(r);
}

/* How far apart the intervals of a and b lie; 0 when they overlap. */
static double gap(const struct prof_result *a, const struct prof_result *b)
{
	return fmax(0, fmax(a->lo_us - b->hi_us, b->lo_us - a->hi_us));
}

/* Every candidate another correct run may choose (docs/fleet.md "Provenance file"), a correct
 * run measuring each candidate within this run's interval, moved against the others by at most
 * TIE_TOLERANCE of the chosen median. Such a run keeps the fallback only if the chosen interval
 * comes within that of the fallback's. Otherwise it takes the candidate it finds fastest, or the
 * lowest id overlapping that one: one whose interval comes within TIE_TOLERANCE of the chosen
 * one's directly or through one other candidate's interval, the two gaps added, the fallback
 * being no such link; where this run kept the fallback, only directly (to be chosen, a
 * candidate must beat it). So a tie lies within TIE_TOLERANCE and one interval of the chosen
 * one, which is its own tie. */
static void note_ties(struct lookup_entry *e, const int *ids, const struct prof_result *r, size_t n,
		      const struct prof_result *chosen)
{
	double tol = TIE_TOLERANCE * chosen->median_us;
	bool chain = chosen->id != e->fallback;
	e->chosen_lo = chosen->lo_us;
	e->chosen_hi = chosen->hi_us;
	e->nties = 0;
	for (size_t i = 0; i < n && e->nties < LOOKUP_TOP_MAX + 1; i++) {
		if (!measured(&r[i]))
			continue;
		bool tie = gap(&r[i], chosen) <= tol;
		for (size_t j = 0; j < n && !tie && chain && ids[i] != e->fallback; j++)
			tie = measured(&r[j]) && ids[j] != e->fallback &&
			      gap(&r[i], &r[j]) + gap(&r[j], chosen) <= tol;
		if (tie)
			e->ties[e->nties++] = ids[i];
	}
	for (int a = 1; a < e->nties; a++) /* sorted, for stable output */
		for (int b = a; b > 0 && e->ties[b - 1] > e->ties[b]; b--) {
			int t = e->ties[b];
			e->ties[b] = e->ties[b - 1];
			e->ties[b - 1] = t;
		}
}

/* FlashInfer's selection record of the chosen r[at] (table_selection_of): against every
 * candidate timed, a screened-out one with its one sample included; a failed one (crashed,
 * hung, wrong, unsupported) has no time, as FlashInfer's inf. */
static void note_selection(struct lookup_entry *e, const struct prof_result *r, size_t n,
			   const struct prof_result *chosen)
{
	double us[PROF_MAX];
	e->sel_min_us = e->sel_second_us = -1;
	for (size_t i = 0; i < n && i < PROF_MAX; i++) {
		us[i] = r[i].status == PROF_OK ? r[i].median_us : NAN;
		if (!(us[i] >= 0))
			continue;
		if (e->sel_min_us < 0 || us[i] < e->sel_min_us) {
			e->sel_second_us = e->sel_min_us;
			e->sel_min_us = us[i];
			e->sel_min_id = r[i].id;
		} else if (e->sel_second_us < 0 || us[i] < e->sel_second_us) {
			e->sel_second_us = us[i];
		}
	}
	table_selection_of(us, n < PROF_MAX ? n : PROF_MAX, (size_t)(chosen - r), &e->sel);
}

/* The rule: a candidate replaces the fallback only if its whole interval lies below the
 * fallback's; among those, the lowest median. Ties with the fallback go to the fallback, so
 * none is slower; what another run may choose instead is declared (note_ties). A candidate a
 * screen dropped after one sample (either cut) is neither chosen nor a tie (the fallback's one
 * sample still bounds the others). */
static void decide(struct lookup_entry *e, const int *ids, const struct prof_result *r, size_t n)
{
	const struct prof_result *fb = NULL;
	for (size_t i = 0; i < n; i++)
		if (ids[i] == e->fallback && r[i].status == PROF_OK)
			fb = &r[i];
	size_t nmeasured = 0;
	for (size_t i = 0; i < n; i++)
		nmeasured += r[i].status == PROF_OK;
	e->fallback_us = fb ? fb->median_us : -1;
	memset(&e->sel, 0, sizeof e->sel);
	if (!nmeasured) {
		e->kind = CHOICE_PREDICTED; /* keep the heuristic's choice */
		return;
	}
	const struct prof_result *best = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!measured(&r[i]) || ids[i] == e->fallback)
			continue;
		if (fb && !(r[i].hi_us < fb->lo_us))
			continue;
		if (!best || r[i].median_us < best->median_us)
			best = &r[i];
	}
	if (!best) {
		if (fb) {
			e->tactic = e->fallback;
			e->kind = CHOICE_FALLBACK;
			e->chosen_us = fb->median_us;
			note_ties(e, ids, r, n, fb);
			note_selection(e, r, n, fb);
		} else {
			e->kind = CHOICE_PREDICTED;
		}
		return;
	}
	/* the lowest median (a lower id among equal medians, by the scan's order): a candidate
	 * another run may find faster instead is declared a tie (note_ties), so the rule need not
	 * give anything away to agree; an earlier rule, the lower id among near-ties, cost up to
	 * TIE_TOLERANCE in every such entry (docs/benchmarks.md, FlashInfer's kernels) */
	const struct prof_result *pick = best;
	e->tactic = pick->id;
	e->chosen_us = pick->median_us;
	e->time_us = pick->median_us;
	e->kind = CHOICE_MEASURED;
	note_ties(e, ids, r, n, pick);
	note_selection(e, r, n, pick);
}

/* e's measured candidates, fastest first (lookup_entry.meas_id). */
static void note_measured(struct lookup_entry *e, const int *ids, const struct prof_result *r,
			  size_t n)
{
	e->nmeas = 0;
	for (size_t i = 0; i < n && e->nmeas < (int)ARRAY_SIZE(e->meas_id); i++) {
		if (!measured(&r[i]))
			continue;
		int j = e->nmeas++;
		for (; j > 0 && e->meas_us[j - 1] > r[i].median_us; j--) {
			e->meas_id[j] = e->meas_id[j - 1];
			e->meas_us[j] = e->meas_us[j - 1];
		}
		e->meas_id[j] = ids[i];
		e->meas_us[j] = r[i].median_us;
	}
}

/* What all worker threads share: the queue (next entry), the journal, the counts. */
struct run {
	pthread_mutex_t mu;
	struct lookup_list *p;
	const struct deployment *dep;
	const struct timing_opts *o;
	struct timing_stats *st;
	struct journal j;
	size_t next, done;
	double t0;
	int rc;            /* the first error stops every thread */
	struct diags *d;   /* the first error's diagnostics */
};

static bool same_tile(const struct tactic *a, const struct tactic *b)
{
	return a && b && a->m == b->m && a->n == b->n && a->tokens_on_n == b->tokens_on_n &&
	       a->sm80_style == b->sm80_style;
}

/* The heuristic's best unused candidate, preferring a CTA tile (shape, orientation, SM80 style)
 * that none of cover[0..ncover) has: candidates that differ only in cluster shape or stage
 * count time nearly alike, so the heuristic's top four are often one point of the space four
 * times over. -1 when none is left. */
static int next_candidate(const struct lookup_list *p, const struct lookup_entry *e, bool *used,
			  const int *cover, size_t ncover)
{
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < e->ntop; k++) {
			if (used[k] || e->top[k] == e->fallback)
				continue;
			const struct tactic *t = find_tactic(&p->list, e->stage, e->top[k]);
			bool covered = false;
			for (size_t c = 0; pass == 0 && c < ncover && !covered; c++)
				covered = same_tile(t, find_tactic(&p->list, e->stage, cover[c]));
			if (covered)
				continue;
			used[k] = true;
			return e->top[k];
		}
	return -1;
}

/* A screen leaves out a candidate more than PRUNE_FACTOR times slower than the best at one of
 * the two next smaller buckets of the same GEMM (the nearer one where it was timed): a tactic's
 * rank moves little from one bucket to the next. Against FlashInfer's real kernels on the H200
 * (docs/benchmarks.md: the oracles of three deployments, 126 entries) this would have lost no
 * entry's best and saves a quarter to a half of a screen's GPU time; judged against any smaller
 * bucket instead it would have lost up to 9% (small and large buckets want other tiles), so a
 * left-out candidate is screened again every third bucket. Needs the smaller buckets measured
 * first, as one worker does (buckets run in ascending order); else every candidate is screened. */
#define PRUNE_FACTOR 2.0
#define PRUNE_REACH 2 /* buckets below that may judge */

static size_t prune(struct run *R, const struct lookup_entry *e, int *ids, size_t *n)
{
	long below[PRUNE_REACH]; /* the next smaller buckets, nearest first */
	for (int g = 0; g < PRUNE_REACH; g++) {
		below[g] = -1;
		for (size_t i = 0; i < R->p->n; i++) {
			const struct lookup_entry *x = &R->p->v[i];
			long under = g ? below[g - 1] : e->tokens;
			if (x->stage == e->stage && x->tokens < under && x->tokens > below[g])
				below[g] = x->tokens;
		}
	}
	size_t kept = 0, left = 0;
	pthread_mutex_lock(&R->mu);
	double best[PRUNE_REACH] = { 0 };
	for (int g = 0; g < PRUNE_REACH; g++)
		for (size_t k = 0; below[g] >= 0 && k < *n; k++) {
			const struct prof_result *r = journal_find(&R->j, e->stage, below[g], ids[k]);
			if (r && r->status == PROF_OK && r->median_us > 0 &&
			    (!best[g] || r->median_us < best[g]))
				best[g] = r->median_us;
		}
	for (size_t k = 0; k < *n; k++) {
		bool slow = false;
		for (int g = 0; g < PRUNE_REACH && below[g] >= 0; g++) {
			const struct prof_result *r = journal_find(&R->j, e->stage, below[g], ids[k]);
			if (!r)
				continue; /* not timed there: ask the bucket below */
			slow = r->status == PROF_OK && best[g] > 0 && r->median_us > PRUNE_FACTOR * best[g];
			break;
		}
		/* the fallback is always timed: no entry may be slower than it */
		if (slow && ids[k] != e->fallback) {
			left++;
			continue;
		}
		ids[kept++] = ids[k];
	}
	pthread_mutex_unlock(&R->mu);
	*n = kept;
	return left;
}

/* The candidates an entry times first: every dispatchable one (exhaustive, or a screen, which
 * takes them in the heuristic's order so that a worker sizing its samples by the first one
 * sizes them by a fast one), else the heuristic's top K. Returns how many are in ids. */
static size_t first_candidates(const struct run *R, const struct lookup_entry *e, int top_k,
			       bool *used, int *ids)
{
	const struct timing_opts *o = R->o;
	const struct lookup_list *p = R->p;
	size_t n = 0;
	if (o->top_k < 0 || o->screen) {
		/* every dispatchable candidate; a screen takes them in the heuristic's order, so a
		 * worker that sizes its samples by the first one sizes them by a fast one */
		const struct tactic *cl = e->stage == 1 ? p->list.g1 : p->list.g2;
		size_t cn = e->stage == 1 ? p->list.n1 : p->list.n2;
		for (int k = 0; o->screen && k < e->ntop && n < PROF_MAX - 1; k++)
			ids[n++] = e->top[k];
		for (size_t k = 0; k < cn && n < PROF_MAX - 1; k++) {
			bool have = false;
			for (size_t j = 0; j < n && !have; j++)
				have = ids[j] == cl[k].id;
			if (cl[k].dispatchable && !have)
				ids[n++] = cl[k].id;
		}
	} else {
		for (int id; (int)n < top_k && (id = next_candidate(p, e, used, ids, n)) >= 0;)
			ids[n++] = id;
	}
	return n;
}

/* The job for one entry's candidates. The proxy GEMM: one batched GEMM over the local experts
 * with the tokens each gets from uniform top-k routing over all experts (as FlashInfer's
 * profiler routes: lookup_tokens_per_expert); below one token per expert, one GEMM of one
 * token per local routed row. The flashinfer backend runs the MoE layer itself, from the
 * fields after method. */
struct prof_shape timing_shape(const struct deployment *dep, const struct timing_opts *o,
			       const struct lookup_entry *e, int top_k)
{
	double lambda = lookup_tokens_per_expert(e, dep->top_k);
	struct prof_shape s = {
		.dtype = dep->dt->name,
		.batch = lambda >= 1 ? e->experts : (long)fmax(1, round(lambda * (double)e->experts)),
		.tokens = lambda >= 1 ? (long)round(lambda) : 1,
		.features = e->features,
		.k = e->k,
		.rounds = o->rounds,
		.reps = o->screen ? 1 : o->reps,
		.method = o->method,
		.keep = o->screen ? top_k : 0,
		.stage = e->stage,
		.bucket = e->tokens,
		.hidden = e->stage == 1 ? e->k : e->features, /* a --keys run has no model */
		.inter = e->inter,
		.experts = e->experts,
		.top_k = dep->top_k,
		.tp = dep->tp,
		.tp_rank = dep->tp_rank,
		.ep = dep->ep,
		.ep_rank = dep->ep_rank,
		.activation = (int)dep->activation,
		.biases = dep->biases,
		.fused_finalize = dep->fused_finalize,
		.key = e->key,
		.key_fields = o->key_fields,
		.runner = o->runner,
	};
	return s;
}

static struct prof_shape entry_shape(const struct run *R, const struct lookup_entry *e, int top_k)
{
	return timing_shape(R->dep, R->o, e, top_k);
}

/* The correctness gate (timing_opts.gate): the measured candidates, fastest first, are
 * checked by the worker until one computes the right answer; a wrong one becomes a failed
 * candidate (journalled, so a resumed run does not choose it either) and decide() never
 * picks it. */
static int gate_candidates(struct run *R, struct worker *w, struct lookup_entry *e, const int *ids,
			   struct prof_result *res, size_t n, int top_k, struct diags *d)
{
	const struct lookup_list *p = R->p;
	size_t order[PROF_MAX], k = 0;
	for (size_t i = 0; i < n; i++)
		if (measured(&res[i])) {
			size_t j = k++;
			for (; j > 0 && res[order[j - 1]].median_us > res[i].median_us; j--)
				order[j] = order[j - 1];
			order[j] = i;
		}
	if (!k)
		return TT_OK;
	struct prof_cand c[PROF_MAX];
	for (size_t j = 0; j < k; j++)
		c[j] = to_cand(find_tactic(&p->list, e->stage, ids[order[j]]));
	struct prof_shape s = entry_shape(R, e, top_k);
	struct gate_result g[PROF_MAX];
	size_t got = 0;
	double t0 = monotonic_s();
	const struct dtype_gate *b = R->dep->dt->gate;
	double bounds[2] = { b ? b->tactic : 0, b ? b->reference : 0 };
	int rc = worker_gate(w, &s, c, k, bounds, g, &got, d);
	if (rc)
		return rc;
	pthread_mutex_lock(&R->mu);
	struct timing_stats *st = R->st;
	st->gate_seconds += monotonic_s() - t0;
	st->gate_checked += got;
	for (size_t j = 0; j < got; j++) {
		if (g[j].verdict == GATE_UNCHECKED) {
			st->gate_unchecked++;
			if (!st->unchecked_why[0])
				snprintf(st->unchecked_why, sizeof st->unchecked_why, "%s", g[j].why);
		}
		if (g[j].verdict != GATE_BAD)
			continue;
		for (size_t i = 0; i < n; i++)
			if (ids[i] == g[j].id) {
				res[i].status = PROF_FAILED;
				snprintf(res[i].why, sizeof res[i].why, "wrong output: max abs %.3g, %.3g of "
					 "the reference's largest", g[j].max_abs, g[j].rel);
				if ((rc = journal_add_measurements(&R->j, e->stage, e->tokens, &res[i], 1, d)))
					break;
			}
		if (e->nwrong < LOOKUP_TOP_MAX)
			e->wrong[e->nwrong++] = g[j].id;
		st->wrong = xrealloc(st->wrong, (st->nwrong + 1) * sizeof *st->wrong);
		st->wrong[st->nwrong++] = (struct gate_wrong){ e->stage, e->tokens, g[j].id,
							      g[j].max_abs, g[j].rel };
	}
	pthread_mutex_unlock(&R->mu);
	return rc;
}

/* Times one entry's candidates on one worker and decides it. Called without the lock. */
static int time_entry(struct run *R, struct worker *w, struct lookup_entry *e, struct diags *d)
{
	const struct timing_opts *o = R->o;
	struct lookup_list *p = R->p;
	int rc = TT_OK;
	int top_k = o->top_k > 0 ? o->top_k : 4;
	int ids[PROF_MAX];
	bool used[LOOKUP_TOP_MAX] = { false };
	size_t n = first_candidates(R, e, top_k, used, ids);
	size_t pruned = o->screen ? prune(R, e, ids, &n) : 0;
	bool have_fb = false;
	for (size_t k = 0; k < n; k++)
		have_fb |= ids[k] == e->fallback;
	const struct tactic *fbt = find_tactic(&p->list, e->stage, e->fallback);
	if (!have_fb && fbt && fbt->dispatchable)
		ids[n++] = e->fallback;
	struct prof_result res[PROF_MAX];
	size_t have = 0; /* res[0..have) are known */
	bool out_of_budget = false;
	size_t timed = 0;
	for (;;) {
		struct prof_cand todo[PROF_MAX];
		int todo_at[PROF_MAX];
		size_t ntodo = 0, start = have;
		pthread_mutex_lock(&R->mu);
		for (size_t k = have; k < n; k++) {
			const struct prof_result *old = journal_find(&R->j, e->stage, e->tokens, ids[k]);
			if (old) {
				res[k] = *old;
				continue;
			}
			todo[ntodo] = to_cand(find_tactic(&p->list, e->stage, ids[k]));
			todo_at[ntodo++] = (int)k;
		}
		pthread_mutex_unlock(&R->mu);
		have = n;
		if (ntodo && o->budget_s > 0 && monotonic_s() - R->t0 > o->budget_s) {
			if (start == 0)
				out_of_budget = true; /* nothing timed: the heuristic's choice */
			else
				n = start; /* decide on the first round alone */
			break;
		}
		if (ntodo) {
			struct prof_shape s = entry_shape(R, e, top_k);
			struct prof_result got[PROF_MAX];
			if ((rc = worker_profile(w, &s, todo, ntodo, got, d)))
				return rc;
			for (size_t k = 0; k < ntodo; k++)
				res[todo_at[k]] = got[k];
			pthread_mutex_lock(&R->mu);
			rc = journal_add_measurements(&R->j, e->stage, e->tokens, got, ntodo, d);
			pthread_mutex_unlock(&R->mu);
			if (rc)
				return rc;
			timed += ntodo;
		}
		/* --top N means N candidates the proxy could time: the heuristic's next ones
		 * replace those it cannot express, so a stage is never left to the fallback
		 * alone because its favourites have no cuBLASLt form */
		if (o->top_k < 0 || o->screen)
			break;
		int ok = 0, timed_ids[PROF_MAX];
		for (size_t k = 0; k < n; k++)
			if (res[k].status == PROF_OK && ids[k] != e->fallback)
				timed_ids[ok++] = ids[k];
		size_t added = 0;
		for (int id; ok + (int)added < top_k && n < PROF_MAX &&
			     (id = next_candidate(p, e, used, timed_ids, (size_t)ok + added)) >= 0;) {
			ids[n++] = id;
			timed_ids[ok + (int)added] = id;
			added++;
		}
		if (!added)
			break;
	}
	size_t failed = 0, unsupported = 0;
	if (out_of_budget) {
		e->kind = CHOICE_PREDICTED;
	} else {
		/* the gate first: a tactic it finds wrong counts as failed */
		if (o->gate && w->python &&
		    (rc = gate_candidates(R, w, e, ids, res, n, top_k, d)))
			return rc;
		for (size_t k = 0; k < n; k++) {
			failed += res[k].status == PROF_FAILED;
			unsupported += res[k].status == PROF_UNSUPPORTED;
		}
		e->failed = (int)failed;
		decide(e, ids, res, n);
		note_measured(e, ids, res, n);
	}
	pthread_mutex_lock(&R->mu);
	/* what the report needs besides the timings: the heuristic's predictions and the
	 * decision (journal.h); a re-run appends them again, the last wins */
	rc = journal_add_decision(&R->j, e, out_of_budget, d);
	struct timing_stats *st = R->st;
	st->timed += timed;
	st->pruned += pruned;
	st->failed_candidates += failed;
	st->unsupported += unsupported;
	if (e->kind == CHOICE_MEASURED)
		st->measured_entries++;
	else if (e->kind == CHOICE_FALLBACK)
		st->fallback_kept++;
	else
		st->predicted_entries++;
	R->done++;
	if (o->on_entry) {
		double el = monotonic_s() - R->t0;
		struct timing_event ev = {
			.e = e, .ids = ids, .res = res, .n = out_of_budget ? 0 : n, .done = R->done,
			.total = p->n, .worker = w->device,
			.eta_s = el / (double)R->done * (double)(p->n - R->done),
		};
		o->on_entry(o->ctx, &ev);
	}
	pthread_mutex_unlock(&R->mu);
	return rc;
}

struct thread_arg {
	struct run *R;
	struct worker *w;
	struct diags d;
	int rc;
};

/* One per worker: takes the next entry off the shared queue until it is empty or a thread
 * failed. Which GPU measures an entry does not change the rule that decides it. */
static void *worker_thread(void *arg)
{
	struct thread_arg *a = arg;
	struct run *R = a->R;
	for (;;) {
		pthread_mutex_lock(&R->mu);
		size_t i = R->next;
		bool stop = R->rc || i >= R->p->n;
		if (!stop)
			R->next++;
		pthread_mutex_unlock(&R->mu);
		if (stop)
			break;
		int rc = time_entry(R, a->w, &R->p->v[i], &a->d);
		if (rc) {
			a->rc = rc;
			pthread_mutex_lock(&R->mu);
			if (!R->rc)
				R->rc = rc;
			pthread_mutex_unlock(&R->mu);
			break;
		}
	}
	return NULL;
}

int timing_run(struct worker *w, size_t nw, struct lookup_list *p, const struct deployment *dep,
		 const struct timing_opts *o, struct timing_stats *st, struct diags *d)
{
	memset(st, 0, sizeof *st);
	struct run R = { .p = p, .dep = dep, .o = o, .st = st, .d = d };
	int rc = journal_open(&R.j, o->journal, o->identity, o->command, o->backend, &st->resumed, d);
	if (rc) {
		journal_close(&R.j);
		return rc;
	}
	pthread_mutex_init(&R.mu, NULL);
	R.t0 = monotonic_s();
	struct thread_arg *a = xcalloc(nw, sizeof *a);
	pthread_t *th = xcalloc(nw, sizeof *th);
	bool *threaded = xcalloc(nw, sizeof *threaded);
	for (size_t k = 0; k < nw; k++) {
		a[k] = (struct thread_arg){ .R = &R, .w = &w[k], .d = DIAGS_INIT };
		/* one GPU needs no thread; a thread that cannot start leaves its GPU idle */
		threaded[k] = nw > 1 && !pthread_create(&th[k], NULL, worker_thread, &a[k]);
	}
	if (nw == 1)
		worker_thread(&a[0]);
	for (size_t k = 0; k < nw; k++)
		if (threaded[k])
			pthread_join(th[k], NULL);
	free(threaded);
	for (size_t k = 0; k < nw; k++) {
		if (a[k].rc && !rc) {
			rc = a[k].rc;
			for (size_t i = 0; i < a[k].d.n; i++) {
				const struct diag *x = &a[k].d.v[i];
				diags_add(d, x->sev, x->id, x->file, x->line, x->col, "%s", x->msg);
			}
		}
		diags_release(&a[k].d);
	}
	free(a);
	free(th);
	pthread_mutex_destroy(&R.mu);
	st->seconds = monotonic_s() - R.t0;
	journal_close(&R.j);
	return rc;
}
