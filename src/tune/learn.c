/* learn.c: the heuristic's free parameters fitted to measured journals (learn.h). */
#include "tune/learn.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "base/version.h"
#include "data/device.h"
#include "data/model.h"
#include "data/ranking.h"
#include "flashinfer/table.h"
#include "tune/generate.h"
#include "tune/journal.h"

/* One key's measurements: the last median of each candidate timed (journal.h: last wins). */
struct lmeas {
	int id;
	double us;
};

struct lentry {
	int stage;
	long tokens;
	struct lmeas *m;
	size_t n, alloc;
};

struct ljournal {
	const char *path;
	char *label;
	struct journal_run_text id;
	char *identity;            /* the journal's, as written (journal.h) */
	struct generate_request rq;
	struct lentry *e;
	size_t ne, alloc;
	bool held;
};

/* The journal's measurements of one key, or NULL. */
static struct lentry *find_entry(const struct ljournal *j, int stage, long tokens)
{
	for (size_t i = 0; i < j->ne; i++)
		if (j->e[i].stage == stage && j->e[i].tokens == tokens)
			return &j->e[i];
	return NULL;
}

static struct lentry *entry_of(struct ljournal *j, int stage, long tokens)
{
	struct lentry *found = find_entry(j, stage, tokens);
	if (found)
		return found;
	ALLOC_GROW(j->e, j->ne + 1, j->alloc);
	struct lentry *e = &j->e[j->ne++];
	memset(e, 0, sizeof *e);
	e->stage = stage;
	e->tokens = tokens;
	return e;
}

static void add_median(struct ljournal *j, int stage, long tokens, int id, double us)
{
	struct lentry *e = entry_of(j, stage, tokens);
	for (size_t k = 0; k < e->n; k++)
		if (e->m[k].id == id) {
			e->m[k].us = us;
			return;
		}
	ALLOC_GROW(e->m, e->n + 1, e->alloc);
	e->m[e->n++] = (struct lmeas){ id, us };
}

static long num_of(const char *s, long def)
{
	long v;
	return s && !parse_long(s, &v) ? v : def;
}

/* What every request learn ranks with has: generate's defaults, quiet (no profiling, no
 * output), the datasheet model (learn fits from its defaults, never from a fit found for the
 * GPU, which generate uses by default). */
static void request_defaults(struct generate_request *q)
{
	generate_request_defaults(q);
	q->quiet = true;
	q->model_fit = "datasheet";
}

/* The deployment a journal's identity names, as generate's request (no profiling, no output). */
static int journal_request(struct ljournal *j, struct diags *d)
{
	const struct journal_run_text *t = &j->id;
	if (!t->version || !t->device || !t->model || !t->dtype)
		return diag_error(d, TT_INVALID, "learn", j->path, 1, 1, "not a tunetab journal "
				  "header: version, device, model and dtype are needed");
	if (t->keys)
		return diag_error(d, TT_INVALID, "learn", j->path, 1, 1, "a journal of `generate "
				  "--keys` names no deployment: learn needs one made with --model");
	struct generate_request *q = &j->rq;
	memset(q, 0, sizeof *q);
	q->device = t->device;
	q->model = t->model;
	q->dtype = t->dtype;
	q->flashinfer = t->version;
	request_defaults(q);
	struct deployment *r = &q->runner;
	r->tp = num_of(t->tp, 1);
	r->ep = num_of(t->ep, 1);
	r->tp_rank = num_of(t->tp_rank, 0);
	r->ep_rank = num_of(t->ep_rank, 0);
	r->top_k = num_of(t->top_k, 0);
	r->max_tokens = (unsigned)num_of(t->max_tokens, 0);
	char *ff = journal_identity_value(j->identity, "fused_finalize"); /* written when off */
	r->fused_finalize = !(ff && !strcmp(ff, "0"));
	free(ff);
	j->label = xasprintf("%s %s TP %ld EP %ld", t->model, t->dtype, r->tp, r->ep);
	return TT_OK;
}

static int load_journal(struct ljournal *j, struct diags *d)
{
	struct journal_reader jr;
	int rc = journal_reader_open(&jr, j->path, d);
	if (rc)
		return rc;
	journal_run_read(jr.identity, &j->id);
	j->identity = xstrdup(jr.identity);
	struct journal_record x;
	while (journal_reader_next(&jr, &x))
		if (x.kind == JOURNAL_MEASUREMENT && x.m.status == PROF_OK && x.m.median_us > 0 &&
		    isfinite(x.m.median_us))
			add_median(j, x.stage, x.tokens, x.m.id, x.m.median_us);
	journal_reader_close(&jr);
	rc = journal_request(j, d);
	if (!rc && !j->ne)
		rc = diag_error(d, TT_INVALID, "learn", j->path, 0, 0, "the journal holds no "
				"measured candidate");
	return rc;
}

static void journal_release(struct ljournal *j)
{
	for (size_t i = 0; i < j->ne; i++)
		free(j->e[i].m);
	free(j->e);
	free(j->label);
	journal_run_text_release(&j->id);
	free(j->identity);
}

int learn_read_journal(const char *path, struct diags *d)
{
	struct ljournal j;
	memset(&j, 0, sizeof j);
	j.path = path;
	int rc = load_journal(&j, d);
	journal_release(&j);
	return rc;
}

/* ---------------------------------------------------------------- rankings (learn.h) */

/* One table key a deployment looks up, with the table's tactic for it. */
struct rkey {
	const char *key;        /* the lookup list's copy */
	size_t at;              /* its index in the deployment's lookup list */
	int tactic;
};

/* One deployment of a ranking file. */
struct lrank {
	char *label;
	struct generate_request rq;
	struct rkey *k;
	size_t nk;
	bool held;
};

struct lrankings {
	struct ranking **files;
	struct table *tables;
	size_t nfiles;
	struct lrank *v;
	size_t n, alloc;
	struct lookup_list *lists;  /* the keys of each v[i] (they own the key strings) */
};

/* The table's tactic of entry e (an int id), or an error located at its value. */
static int table_tactic(const struct table *t, const struct table_entry *e, int *id,
			struct diags *d)
{
	if (!e->value_ok || !e->tactic || e->tactic->kind != PV_INT || e->tactic->i < -1 ||
	    e->tactic->i > 1000000)
		return diag_error(d, TT_INVALID, "learn", t->path, e->tactic ? e->tactic->line : e->vline,
				  e->tactic ? e->tactic->col : e->vcol, "the tactic is "
				  "not a tactic id (learn reads tables whose tactics are integers: "
				  "FlashInfer's cutlass MoE before 0.5.3)");
	*id = (int)e->tactic->i;
	return TT_OK;
}

/* Whether the file's `only` selects the key. */
static bool ranking_selects(const struct ranking *f, const struct table_entry *e)
{
	if (!f->only_count)
		return true;
	for (unsigned i = 0; i < f->only_count; i++) {
		size_t n = strlen(f->only[i]);
		for (size_t k = 0; k + n <= e->key_len; k++)
			if (!memcmp(e->key + k, f->only[i], n))
				return true;
	}
	return false;
}

/* A ranking file and its table, the tactics of the selected keys checked. */
static int ranking_open(const char *path, struct ranking **f, struct table *t, struct diags *d)
{
	memset(t, 0, sizeof *t);
	int rc = ranking_load(path, f, d);
	size_t errors = diags_count(d, SEV_ERROR);
	if (!rc)
		rc = table_read((*f)->table_path, t, d);
	if (!rc && diags_count(d, SEV_ERROR) > errors)
		rc = TT_INVALID; /* a key that is not a str */
	for (size_t i = 0; !rc && i < t->n; i++) {
		int id;
		if (ranking_selects(*f, &t->entries[i]))
			rc = table_tactic(t, &t->entries[i], &id, d);
	}
	return rc;
}

int learn_read_ranking(const char *path, struct diags *d)
{
	struct ranking *f = NULL;
	struct table t;
	int rc = ranking_open(path, &f, &t, d);
	table_release(&t);
	ranking_free(f);
	return rc;
}

static bool label_has(const char *label, const char *needle);

/* Files the deployment label under held-out (its label holds the --holdout text) or
 * training; true when held out. */
static bool file_label(struct learn_result *r, const char *label, const char *holdout)
{
	bool held = holdout && label_has(label, holdout);
	char ***list = held ? &r->held : &r->train;
	size_t *n = held ? &r->nheld : &r->ntrain;
	*list = xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[(*n)++] = xstrdup(label);
	return held;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The file's deployments as generate's requests, each labelled; all of one GPU (r->device). */
static int ranking_add(struct tt_data *data, const char *path, const char *holdout,
		       struct lrankings *K, struct learn_result *r, struct diags *d)
{
	K->files = xrealloc(K->files, (K->nfiles + 1) * sizeof *K->files);
	K->tables = xrealloc(K->tables, (K->nfiles + 1) * sizeof *K->tables);
	struct ranking **fp = &K->files[K->nfiles];
	struct table *t = &K->tables[K->nfiles++];
	*fp = NULL;
	int rc = ranking_open(path, fp, t, d);
	if (rc)
		return rc;
	const struct ranking *f = *fp;
	const struct device_profile *dev = device_find(&data->devices, f->device);
	struct fi_version ver;
	if (!dev)
		return ranking_error_at(d, f, "ranking.device", "unknown device '%s' (tunetab devices "
					"lists them)", f->device);
	if (version_parse(f->flashinfer, &ver))
		return ranking_error_at(d, f, "ranking.flashinfer", "'%s' is not a FlashInfer release "
					"such as 0.4.0", f->flashinfer);
	if (!r->device)
		r->device = xstrdup(dev->name);
	else if (strcmp(r->device, dev->name))
		return ranking_error_at(d, f, "ranking.device", "'%s', the others are of '%s': a fit "
					"is for one GPU", dev->name, r->device);
	for (unsigned i = 0; i < f->deployments_count; i++) {
		const struct ranking_deployment *x = &f->deployments[i];
		const struct model_profile *m = model_find(&data->models, x->model);
		if (!m) {
			char yp[64];
			snprintf(yp, sizeof yp, "ranking.deployments[%u].model", i);
			return ranking_error_at(d, f, yp, "unknown model '%s' (tunetab models lists "
						"them)", x->model);
		}
		ALLOC_GROW(K->v, K->n + 1, K->alloc);
		struct lrank *k = &K->v[K->n++];
		memset(k, 0, sizeof *k);
		struct generate_request *q = &k->rq;
		q->device = dev->name;
		q->model = x->model;
		q->dtype = dtype_name(x->dtype);
		q->flashinfer = f->flashinfer;
		request_defaults(q);
		q->runner.tp = x->tp ? *x->tp : 1;
		q->runner.ep = x->ep ? *x->ep : 1;
		q->runner.tp_rank = x->tp_rank ? *x->tp_rank : 0;
		q->runner.ep_rank = x->ep_rank ? *x->ep_rank : 0;
		q->runner.top_k = x->top_k ? *x->top_k : 0;
		q->runner.max_tokens = x->max_tokens ? (unsigned)*x->max_tokens : 0;
		q->experts = x->experts ? *x->experts : 0;
		char experts[32] = "";
		if (q->experts)
			snprintf(experts, sizeof experts, " E%ld", q->experts);
		k->label = xasprintf("%s%s %s TP %ld EP %ld, ranking %s of %s", m->name, experts,
				     q->dtype, q->runner.tp, q->runner.ep, base_name(path), base_name(f->table_path));
		k->held = file_label(r, k->label, holdout);
	}
	return TT_OK;
}

/* Each ranking deployment's keys matched to the table's (the last of a repeated key, as
 * Python's dict keeps it); counts the selected table keys none looks up. */
static int rankings_match(struct generate_session *S, struct lrankings *K,
			  struct learn_result *r, struct diags *d)
{
	K->lists = xcalloc(K->n + 1, sizeof *K->lists);
	size_t first = 0; /* the first deployment of file fi */
	for (size_t fi = 0; fi < K->nfiles; fi++) {
		const struct ranking *f = K->files[fi];
		const struct table *t = &K->tables[fi];
		size_t nd = f->deployments_count;
		for (size_t i = first; i < first + nd; i++) {
			int rc = generate_rank(&K->v[i].rq, S, NULL, 0, NULL, 0, &K->lists[i], d);
			if (rc) {
				char yp[48];
				snprintf(yp, sizeof yp, "ranking.deployments[%zu]", i - first);
				return ranking_error_at(d, f, yp, "cannot rank this deployment (the "
							"error above)");
			}
		}
		for (size_t e = 0; e < t->n; e++) {
			const struct table_entry *te = &t->entries[e];
			if (!ranking_selects(f, te))
				continue;
			r->rank_keys += te->dup_of < 0;
			bool found = false;
			for (size_t i = first; i < first + nd; i++) {
				struct lrank *k = &K->v[i];
				const struct lookup_list *L = &K->lists[i];
				for (size_t j = 0; j < L->n; j++) {
					const char *key = L->v[j].key;
					if (strlen(key) != te->key_len || memcmp(key, te->key, te->key_len))
						continue;
					found = true;
					int id;
					int rc = table_tactic(t, te, &id, d);
					if (rc)
						return rc;
					size_t at = 0;
					while (at < k->nk && k->k[at].key != key)
						at++;
					if (at == k->nk) {
						k->k = xrealloc(k->k, (k->nk + 1) * sizeof *k->k);
						k->nk++;
					}
					k->k[at] = (struct rkey){ key, j, id };
					break;
				}
			}
			r->rank_unmatched += !found && te->dup_of < 0;
		}
		for (size_t i = first; i < first + nd; i++)
			if (!K->v[i].nk) {
				char yp[48];
				snprintf(yp, sizeof yp, "ranking.deployments[%zu]", i - first);
				return ranking_error_at(d, f, yp, "the table holds none of the keys this "
							"deployment looks up (is it the table's FlashInfer "
							"release and device?)");
			}
		first += nd;
	}
	return TT_OK;
}

static void rankings_release(struct lrankings *K)
{
	for (size_t i = 0; i < K->n; i++) {
		free(K->v[i].label);
		free(K->v[i].k);
		if (K->lists)
			lookup_list_release(&K->lists[i]);
	}
	for (size_t i = 0; i < K->nfiles; i++) {
		table_release(&K->tables[i]);
		ranking_free(K->files[i]);
	}
	free(K->lists);
	free(K->v);
	free(K->files);
	free(K->tables);
	memset(K, 0, sizeof *K);
}

/* What the heuristic picks with this parameter vector, judged against the measurements. */
struct judge {
	struct generate_session *S;
	struct ljournal *j;
	size_t nj;
	const struct script_param *p;
	size_t np;
	enum learn_loss loss;
	const struct fit_group *groups;  /* the measured neighbours, once built; NULL while searching */
	size_t ngroups;
	struct learn_picks *picks;       /* when set, every judged entry's first ids go there */
	struct lrank *rk;       /* ranking deployments */
	size_t nrk;
};

/* The entry's share of the time loss (learn.h "Method"): the weighted spread of
 * log(predicted / measured) over the candidates both ranked and measured, around its weighted
 * mean (the model's absolute level does not matter for ranking). A candidate's weight falls by
 * e for every LEARN_TIME_TAU of log-slowdown against the entry's best, measured or predicted,
 * whichever is nearer: the candidates that compete for the pick count most, and so does one the
 * model wrongly believes competitive. */
#define LEARN_TIME_TAU 0.2
static double entry_time_loss(const struct lookup_entry *e, const struct lentry *m, double best)
{
	double pbest = 0;
	for (int r = 0; r < e->ntop; r++)
		if (e->top_time[r] > 0 && (pbest <= 0 || e->top_time[r] < pbest))
			pbest = e->top_time[r];
	double sw = 0, swr = 0, swrr = 0;
	for (int r = 0; r < e->ntop; r++) {
		if (e->top_time[r] <= 0)
			continue;
		for (size_t k = 0; k < m->n; k++)
			if (m->m[k].id == e->top[r]) {
				double res = log(e->top_time[r] / m->m[k].us);
				double near = fmin(log(m->m[k].us / best), log(e->top_time[r] / pbest));
				double w = exp(-near / LEARN_TIME_TAU);
				sw += w;
				swr += w * res;
				swrr += w * res * res;
				break;
			}
	}
	if (sw <= 0)
		return 0;
	double mean = swr / sw;
	return fmax(0, swrr / sw - mean * mean);
}

/* The parameter vector x as the script's named values (caller frees). */
static struct script_value *fit_values(const struct judge *J, const double *x)
{
	struct script_value *fit = xcalloc(J->np + 1, sizeof *fit);
	for (size_t k = 0; k < J->np; k++)
		fit[k] = (struct script_value){ J->p[k].name, x[k] };
	return fit;
}

static int score_journal(const struct judge *J, struct ljournal *j, const double *x,
			 struct learn_score *s, double *sum_log, double *max_log, struct diags *d)
{
	struct script_value *fit = fit_values(J, x);
	struct lookup_list list;
	int rc = generate_rank(&j->rq, J->S, fit, J->np, J->groups, J->ngroups, &list, d);
	free(fit);
	if (rc)
		return rc;
	for (size_t i = 0; i < list.n; i++) {
		const struct lookup_entry *e = &list.v[i];
		const struct lentry *m = find_entry(j, e->stage, e->tokens);
		if (!m || !m->n || !e->ntop)
			continue;
		size_t best = 0;
		for (size_t k = 1; k < m->n; k++)
			if (m->m[k].us < m->m[best].us)
				best = k;
		double picked = -1;
		for (int r = 0; r < e->ntop && picked < 0; r++)
			for (size_t k = 0; k < m->n; k++)
				if (m->m[k].id == e->top[r]) {
					picked = m->m[k].us;
					s->unmeasured += r > 0;
					break;
				}
		if (picked < 0)
			continue;
		/* a profiled --top 4 run: the fastest measured of the first four it times */
		double fastest4 = -1;
		for (int r = 0; r < e->ntop && r < 4; r++) {
			if (e->top[r] == m->m[best].id)
				s->recall4++;
			for (size_t k = 0; k < m->n; k++)
				if (m->m[k].id == e->top[r] && (fastest4 < 0 || m->m[k].us < fastest4))
					fastest4 = m->m[k].us;
		}
		double l4 = fastest4 > 0 ? log(fastest4 / m->m[best].us) : log(picked / m->m[best].us);
		s->top4_sum_log += l4;
		s->top4_max_log = fmax(s->top4_max_log, l4);
		if (J->picks) {
			ALLOC_GROW(J->picks->v, J->picks->n + 1, J->picks->alloc);
			struct learn_pick *pk = &J->picks->v[J->picks->n++];
			memset(pk, 0, sizeof *pk);
			pk->deployment = xstrdup(j->label);
			pk->stage = e->stage;
			pk->tokens = e->tokens;
			for (int r = 0; r < e->ntop && pk->ntop < LEARN_PICK_TOP; r++)
				pk->top[pk->ntop++] = e->top[r];
		}
		double l = log(picked / m->m[best].us);
		*sum_log += l;
		if (l > *max_log)
			*max_log = l;
		s->entries++;
		s->time_loss += entry_time_loss(e, m, m->m[best].us);
	}
	lookup_list_release(&list);
	return TT_OK;
}

/* The ranking entries of one deployment (learn.h "Rankings"): agreement counted, each miss's
 * loss added to *sum and kept in *max. */
static int score_ranking(const struct judge *J, const struct lrank *k, const double *x,
			 struct learn_score *s, double *sum, double *max, struct diags *d)
{
	struct script_value *fit = fit_values(J, x);
	struct lookup_list list;
	int rc = generate_rank(&k->rq, J->S, fit, J->np, NULL, 0, &list, d);
	free(fit);
	if (rc)
		return rc;
	for (size_t i = 0; i < k->nk; i++) {
		const struct rkey *q = &k->k[i];
		const struct lookup_entry *e = NULL;
		if (q->at < list.n && !strcmp(list.v[q->at].key, q->key))
			e = &list.v[q->at];
		for (size_t j = 0; j < list.n && !e; j++)
			if (!strcmp(list.v[j].key, q->key))
				e = &list.v[j];
		if (!e)
			continue; /* the keys do not depend on the params: not reached */
		s->ranked++;
		if (e->tactic == q->tactic) {
			s->agree++;
			continue;
		}
		int r = 0;
		while (r < e->ntop && e->top[r] != q->tactic)
			r++;
		s->rank_unranked += r == e->ntop;
		*sum += LEARN_RANK_MISS;
		*max = fmax(*max, LEARN_RANK_MISS);
	}
	lookup_list_release(&list);
	return TT_OK;
}

/* The score of x on the journals with held == which; the loss the search minimizes. */
static int judge(const struct judge *J, bool which, const double *x, struct learn_score *s,
		 double *loss, struct diags *d)
{
	memset(s, 0, sizeof *s);
	double sum_log = 0, max_log = 0;
	for (size_t i = 0; i < J->nj; i++) {
		if (J->j[i].held != which || !J->j[i].path) /* no path: a ranking file */
			continue;
		int rc = score_journal(J, &J->j[i], x, s, &sum_log, &max_log, d);
		if (rc)
			return rc;
	}
	double rank_sum = 0, rank_max = 0;
	for (size_t i = 0; i < J->nrk; i++) {
		int rc = J->rk[i].held != which ? TT_OK
						: score_ranking(J, &J->rk[i], x, s, &rank_sum, &rank_max, d);
		if (rc)
			return rc;
	}
	double mean = s->entries ? sum_log / (double)s->entries : 0;
	s->geo_regret = exp(mean) - 1;
	s->max_regret = exp(max_log) - 1;
	s->top4_geo_regret = s->entries ? exp(s->top4_sum_log / (double)s->entries) - 1 : 0;
	s->top4_max_regret = exp(s->top4_max_log) - 1;
	if (loss)
		*loss = J->loss == LEARN_LOSS_TIME ? (s->entries ? s->time_loss / (double)s->entries : 0)
						   : mean + 0.1 * max_log;
	if (loss && s->ranked && J->loss != LEARN_LOSS_TIME) /* Rankings: both kinds of entry */
		*loss = (sum_log + rank_sum) / (double)(s->entries + s->ranked) +
			0.1 * fmax(max_log, rank_max);
	return TT_OK;
}

/* Coordinate search (learn.h "Method") from the defaults; x receives the fit. */
static int search(const struct judge *J, int sweeps, double *x, struct diags *d)
{
	struct learn_score s;
	double loss;
	int rc = judge(J, false, x, &s, &loss, d);
	for (int sw = 0; !rc && sw < sweeps; sw++) {
		for (size_t k = 0; !rc && k < J->np; k++) {
			const struct script_param *p = &J->p[k];
			double step = (p->max - p->min) / 10.0 / (double)(1 << sw), keep = x[k];
			static const int moves[] = { -2, -1, 1, 2 };
			for (size_t m = 0; !rc && m < 4; m++) {
				double v = fmin(p->max, fmax(p->min, keep + moves[m] * step)), l;
				if (v == x[k])
					continue;
				double was = x[k];
				x[k] = v;
				rc = judge(J, false, x, &s, &l, d);
				if (!rc && l < loss - 1e-12)
					loss = l;
				else
					x[k] = was;
			}
		}
	}
	return rc;
}

/* Measurements by configuration, as a fit carries them (data/modelfit.h). */
struct groups {
	struct fit_group *v;
	size_t n, alloc;
};

static void groups_release(struct groups *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].config);
		free(g->v[i].points);
	}
	free(g->v);
	memset(g, 0, sizeof *g);
}

static void groups_add(struct groups *gs, unsigned stage, const char *config,
		       const struct fit_point *p)
{
	struct fit_group *g = NULL;
	for (size_t i = 0; i < gs->n && !g; i++)
		if (gs->v[i].stage == stage && !strcmp(gs->v[i].config, config))
			g = &gs->v[i];
	if (!g) {
		ALLOC_GROW(gs->v, gs->n + 1, gs->alloc);
		g = &gs->v[gs->n++];
		memset(g, 0, sizeof *g);
		g->stage = stage;
		g->config = xstrdup(config);
	}
	size_t n = g->points_count, galloc = n; /* grows one by one: sizes are small */
	ALLOC_GROW(g->points, n + 1, galloc);
	g->points[n] = *p;
	g->points_count++;
}

/* Every group of each of per[0..n) but per[skip], in order (skip n: none). */
static void groups_merge(struct groups *out, const struct groups *per, size_t n, size_t skip)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; i != skip && k < per[i].n; k++)
			for (unsigned q = 0; q < per[i].v[k].points_count; q++)
				groups_add(out, per[i].v[k].stage, per[i].v[k].config,
					   &per[i].v[k].points[q]);
}

/* One journal's measurements (data/modelfit.h): every measured candidate of every entry,
 * where its GEMM was and how much slower than the entry's fastest it ran. */
static int journal_points(const struct judge *J, const struct ljournal *j,
			  const struct script_value *fit, struct groups *out, struct diags *d)
{
	struct lookup_list list;
	int rc = generate_rank(&j->rq, J->S, fit, J->np, NULL, 0, &list, d);
	if (rc)
		return rc;
	for (size_t q = 0; q < list.n; q++) {
		const struct lookup_entry *e = &list.v[q];
		const struct lentry *m = find_entry(j, e->stage, e->tokens);
		if (!m || !m->n || e->experts <= 0 || e->top_k <= 0 || !list.have_list)
			continue;
		double best = m->m[0].us;
		for (size_t k = 1; k < m->n; k++)
			best = fmin(best, m->m[k].us);
		for (size_t k = 0; k < m->n; k++) {
			const struct tactic *t = tactic_lookup(&list.list, e->stage, m->m[k].id, false);
			if (!t)
				continue;
			char config[256];
			tactic_config(t, config, sizeof config);
			struct fit_point p = {
				.l = lookup_tokens_per_expert(e, 0),
				.f = (double)e->features, .k = (double)e->k, .b = e->weight_bits,
				.r = log(m->m[k].us / best) };
			groups_add(out, (unsigned)e->stage, config, &p);
		}
	}
	lookup_list_release(&list);
	return TT_OK;
}

/* The measured neighbours of the training journals, and the neighbour width (the param
 * LEARN_WIDTH_PARAM, when the heuristic declares it) chosen by leave-one-training-deployment-
 * out: for each width of LEARN_WIDTHS, each training journal is judged with the neighbours of
 * the others; the width with the least regret loss over all of them wins (the first on a tie).
 * The held-out journals play no part. */
static const double LEARN_WIDTHS[] = { 0.5, 0.71, 1, 1.41, 2 };
#define LEARN_WIDTH_PARAM "neighbour_width"

static int build_neighbours(struct judge *J, double *x, struct learn_result *r, struct diags *d)
{
	struct script_value *fit = fit_values(J, x);
	struct groups *per = xcalloc(J->nj + 1, sizeof *per);
	int rc = TT_OK;
	size_t ntrain = 0, kw = J->np;
	for (size_t i = 0; i < J->nj && !rc; i++)
		if (!J->j[i].held && J->j[i].path) { /* no path: a ranking file, no times */
			rc = journal_points(J, &J->j[i], fit, &per[i], d);
			ntrain++;
		}
	for (size_t k = 0; k < J->np; k++)
		if (!strcmp(J->p[k].name, LEARN_WIDTH_PARAM))
			kw = k;
	if (!rc && kw < J->np && ntrain > 1) {
		enum { NW = sizeof LEARN_WIDTHS / sizeof *LEARN_WIDTHS };
		struct learn_score s[NW];
		double sum_log[NW] = { 0 }, max_log[NW] = { 0 }, keep = x[kw];
		memset(s, 0, sizeof s);
		/* each training journal against the others' neighbours, merged once for every width */
		for (size_t i = 0; i < J->nj && !rc; i++) {
			if (J->j[i].held || !J->j[i].path)
				continue;
			struct groups others = { 0 };
			groups_merge(&others, per, J->nj, i);
			J->groups = others.v;
			J->ngroups = others.n;
			for (size_t w = 0; w < NW && !rc; w++) {
				x[kw] = fmin(J->p[kw].max, fmax(J->p[kw].min, LEARN_WIDTHS[w]));
				rc = score_journal(J, &J->j[i], x, &s[w], &sum_log[w], &max_log[w], d);
			}
			J->groups = NULL;
			J->ngroups = 0;
			groups_release(&others);
		}
		double best_loss = INFINITY, best_w = keep;
		for (size_t w = 0; w < NW && !rc; w++) {
			double loss = s[w].entries ? sum_log[w] / (double)s[w].entries + 0.1 * max_log[w]
						   : INFINITY;
			if (loss < best_loss - 1e-12) {
				best_loss = loss;
				best_w = fmin(J->p[kw].max, fmax(J->p[kw].min, LEARN_WIDTHS[w]));
			}
		}
		x[kw] = best_w;
	}
	struct groups all = { 0 };
	if (!rc)
		groups_merge(&all, per, J->nj, J->nj);
	r->measured = all.v;
	r->nmeasured = all.n;
	for (size_t i = 0; i < J->nj; i++)
		groups_release(&per[i]);
	free(per);
	free(fit);
	return rc;
}

static bool label_has(const char *label, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = label; *p; p++)
		if (!strncasecmp(p, needle, n))
			return true;
	return false;
}

static int open_params(struct tt_data *data, const struct learn_request *rq, struct learn_result *r,
		       struct diags *d)
{
	char *path = rq->heuristic ? xstrdup(rq->heuristic)
				   : xasprintf("%s/scripts/heuristics/default.lua", data->root);
	struct script_limits lim = { .mem_bytes = 64u << 20, .instructions = 100000000ULL };
	struct script *sc;
	int rc = script_open(&sc, data->root, path, &lim, d);
	free(path);
	if (rc)
		return rc;
	const struct script_param *p;
	r->nparams = script_params(sc, &p);
	r->heuristic = xstrdup(script_heuristic_name(sc));
	r->params = xcalloc(r->nparams + 1, sizeof *r->params);
	r->fitted = xcalloc(r->nparams + 1, sizeof *r->fitted);
	for (size_t k = 0; k < r->nparams; k++) {
		r->params[k] = p[k];
		r->params[k].name = xstrdup(p[k].name);
		r->fitted[k] = p[k].def;
	}
	script_close(sc);
	if (!r->nparams)
		return diag_error(d, TT_INVALID, "learn", NULL, 0, 0, "heuristic '%s' declares no "
				  "params (tunetab.heuristic{ params = ... }): nothing to fit", r->heuristic);
	return TT_OK;
}

/* The journals loaded and split; all of one GPU. */
static int load_all(struct tt_data *data, const struct learn_request *rq, struct ljournal *js,
		    struct lrankings *K, struct learn_result *r, struct diags *d)
{
	int rc = TT_OK;
	for (size_t i = 0; i < rq->njournals && !rc; i++) {
		if (ranking_file_is(rq->journals[i])) {
			rc = ranking_add(data, rq->journals[i], rq->holdout, K, r, d);
			continue;
		}
		js[i].path = rq->journals[i];
		if ((rc = load_journal(&js[i], d)))
			break;
		if (!r->device)
			r->device = xstrdup(js[i].id.device);
		else if (strcmp(r->device, js[i].id.device))
			rc = diag_error(d, TT_INVALID, "learn", js[i].path, 1, 1, "measured on '%s', the "
					"others on '%s': a fit is for one GPU", js[i].id.device, r->device);
		js[i].held = file_label(r, js[i].label, rq->holdout);
	}
	if (!rc && !r->ntrain)
		rc = diag_error(d, TT_USAGE, DIAG_SHOW_USAGE, NULL, 0, 0, "--holdout '%s' leaves no "
				"journal to fit", rq->holdout);
	if (!rc && rq->holdout && !r->nheld)
		rc = diag_error(d, TT_USAGE, DIAG_SHOW_USAGE, NULL, 0, 0, "--holdout '%s' matches no "
				"journal's deployment", rq->holdout);
	const struct device_profile *p = r->device ? device_find(&data->devices, r->device) : NULL;
	r->sm = p ? device_sm(p) : 0;
	return rc;
}

int learn_run(struct tt_data *data, const struct learn_request *rq, struct learn_result *r,
	      struct diags *d)
{
	memset(r, 0, sizeof *r);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct ljournal *js = xcalloc(rq->njournals + 1, sizeof *js);
	struct generate_session S;
	memset(&S, 0, sizeof S);
	int rc = generate_session_init(&S, data, NULL, d);
	struct lrankings K;
	memset(&K, 0, sizeof K);
	if (!rc)
		rc = open_params(data, rq, r, d);
	if (!rc)
		rc = load_all(data, rq, js, &K, r, d);
	if (!rc && K.n)
		rc = rankings_match(&S, &K, r, d);
	struct judge J = { .S = &S, .j = js, .nj = rq->njournals, .p = r->params, .np = r->nparams,
			   .loss = LEARN_LOSS_REGRET, .rk = K.v, .nrk = K.n };
	double *def = xcalloc(r->nparams + 1, sizeof *def);
	for (size_t k = 0; k < r->nparams; k++)
		def[k] = r->params[k].def;
	if (!rc)
		rc = judge(&J, false, def, &r->train_default, NULL, d);
	int sweeps = rq->sweeps > 0 ? rq->sweeps : 6;
	r->loss = K.nfiles < rq->njournals ? rq->loss : LEARN_LOSS_REGRET; /* rankings: no times */
	if (!rc && r->loss != LEARN_LOSS_REGRET) {
		J.loss = LEARN_LOSS_TIME;
		rc = search(&J, sweeps, r->fitted, d);
	}
	if (!rc && rq->loss != LEARN_LOSS_TIME) {
		/* the regret search starts from the better of the time fit and the defaults, so the
		 * fit is never worse than the defaults on its own set (Method) */
		struct learn_score s;
		double l_fit, l_def;
		J.loss = LEARN_LOSS_REGRET;
		rc = judge(&J, false, r->fitted, &s, &l_fit, d);
		if (!rc)
			rc = judge(&J, false, def, &s, &l_def, d);
		if (!rc && l_def < l_fit)
			memcpy(r->fitted, def, r->nparams * sizeof *def);
		if (!rc)
			rc = search(&J, sweeps, r->fitted, d);
	}
	if (!rc)
		rc = judge(&J, false, r->fitted, &r->train_fit, NULL, d);
	if (!rc && r->nheld)
		rc = judge(&J, true, def, &r->held_default, NULL, d);
	if (!rc && r->nheld)
		rc = judge(&J, true, r->fitted, &r->held_params, NULL, d);
	if (!rc)
		rc = build_neighbours(&J, r->fitted, r, d);
	J.groups = r->measured;
	J.ngroups = r->nmeasured;
	J.picks = &r->held_picks;
	if (!rc && r->nheld)
		rc = judge(&J, true, r->fitted, &r->held_fit, NULL, d);
	J.picks = NULL;
	free(def);
	for (size_t i = 0; i < rq->njournals; i++)
		journal_release(&js[i]);
	free(js);
	rankings_release(&K);
	generate_session_release(&S);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return rc;
}

static void yaml_str(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_addc(sb, '\\');
		sb_addc(sb, (unsigned char)*s < 0x20 ? ' ' : *s);
	}
	sb_addc(sb, '"');
}

char *learn_yaml(const struct learn_result *r)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "# tunetab model fit: the heuristic's free parameters fitted by `tunetab learn`\n"
		     "# to measured journals (learn.h), and those journals' measurements.\n"
		     "model_fit:\n  heuristic: ");
	yaml_str(&sb, r->heuristic);
	sb_adds(&sb, "\n  device: ");
	yaml_str(&sb, r->device);
	size_t npts = 0;
	for (size_t i = 0; i < r->nmeasured; i++)
		npts += r->measured[i].points_count;
	sb_addf(&sb, "\n  sm: %u\n  method: \"%s; train regret geomean %.4f max %.4f (defaults "
		     "%.4f, %.4f); %zu measured neighbours", r->sm,
		r->loss == LEARN_LOSS_TIME ? "coordinate search on the time loss (learn.h)"
		: r->loss == LEARN_LOSS_REGRET ? "coordinate search on mean(log(1+regret)) + 0.1 "
						 "max(log(1+regret)) (learn.h)"
		: "coordinate search on the time loss, then on mean(log(1+regret)) + 0.1 "
		  "max(log(1+regret)) (learn.h)",
		r->train_fit.geo_regret, r->train_fit.max_regret, r->train_default.geo_regret,
		r->train_default.max_regret, npts);
	if (r->train_fit.ranked)
		sb_addf(&sb, "; ranking tables (a miss weighs %g): agreement %zu/%zu (defaults %zu/%zu)",
			LEARN_RANK_MISS, r->train_fit.agree, r->train_fit.ranked,
			r->train_default.agree, r->train_default.ranked);
	sb_adds(&sb, "\"\n  trained_on:\n");
	for (size_t i = 0; i < r->ntrain; i++) {
		sb_adds(&sb, "    - ");
		yaml_str(&sb, r->train[i]);
		sb_addc(&sb, '\n');
	}
	sb_adds(&sb, "  params:\n");
	for (size_t k = 0; k < r->nparams; k++)
		sb_addf(&sb, "    - {name: %s, value: %.6g}\n", r->params[k].name, r->fitted[k]);
	if (r->nmeasured)
		sb_adds(&sb, "  # the measurements, by candidate configuration: l = tokens x top_k / all "
			     "experts,\n  # f, k = the GEMM's output features and reduction, b = weight bits,"
			     "\n  # r = log(time / the entry's fastest)\n  measured:\n");
	for (size_t i = 0; i < r->nmeasured; i++) {
		const struct fit_group *g = &r->measured[i];
		sb_adds(&sb, "    - config: ");
		yaml_str(&sb, g->config);
		sb_addf(&sb, "\n      stage: %u\n      points:\n", g->stage);
		for (unsigned k = 0; k < g->points_count; k++) {
			const struct fit_point *p = &g->points[k];
			sb_addf(&sb, "        - {l: %.6g, f: %.0f, k: %.0f, b: %.0f, r: %.5f}\n", p->l,
				p->f, p->k, p->b, p->r);
		}
	}
	return sb_detach(&sb);
}

void learn_result_release(struct learn_result *r)
{
	for (size_t k = 0; k < r->nparams; k++)
		free(r->params[k].name);
	free(r->params);
	free(r->fitted);
	for (size_t i = 0; i < r->ntrain; i++)
		free(r->train[i]);
	for (size_t i = 0; i < r->nheld; i++)
		free(r->held[i]);
	free(r->train);
	free(r->held);
	for (size_t i = 0; i < r->nmeasured; i++) {
		free(r->measured[i].config);
		free(r->measured[i].points);
	}
	free(r->measured);
	for (size_t i = 0; i < r->held_picks.n; i++)
		free(r->held_picks.v[i].deployment);
	free(r->held_picks.v);
	free(r->device);
	free(r->heuristic);
	memset(r, 0, sizeof *r);
}
