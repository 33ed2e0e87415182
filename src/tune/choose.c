/* choose.c: the heuristic's choice of a tactic for every key, and a shard's part of the work
 * list (docs/fleet.md "Shards"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune/choose.h"
#include "tune/fleet.h"
#include "base/util.h"

/* What profiling an entry costs, in ms, from its shape and candidate count alone, never from
 * the GPU's own numbers: processes on GPUs with other clocks must still compute the same
 * split. Each candidate costs about the same: a fixed part (the proxy's algorithm search,
 * graph capture; about 8 ms on an H200) and its rounds, each a replay of at least 0.3 ms (the
 * worker batches short GEMMs up to that) or of the GEMM at a nominal 1 PFLOP/s and 3 TB/s.
 * Checked against per-job timings of single-GPU runs on an H200 (docs/benchmarks.md). */
static double entry_cost(const struct lookup_entry *e, const struct deployment *dep, int rounds,
			 int ncand)
{
	double rows = (double)e->tokens * (double)(dep->top_k > 0 ? dep->top_k : 1);
	double flops = 2.0 * rows * (double)e->features * (double)e->k;
	double wbytes = (double)e->experts * (double)e->features * (double)e->k *
			(dep->dt ? (double)dep->dt->weight_bits : 16.0) / 8.0;
	double gemm_ms = fmax(flops / 1e15, wbytes / 3e12) * 1e3;
	return (double)ncand * (8.0 + (double)(rounds > 0 ? rounds : 15) * fmax(0.3, gemm_ms));
}

void choose_shard(struct lookup_list *p, const struct deployment *dep, int rounds, int top,
		    int index, int count)
{
	if (count <= 1)
		return;
	double *cost = xcalloc(p->n ? p->n : 1, sizeof *cost);
	int *owner = xcalloc(p->n ? p->n : 1, sizeof *owner);
	for (size_t i = 0; i < p->n; i++) {
		const struct lookup_entry *e = &p->v[i];
		int ncand = (top > 0 ? top : 4) + 1; /* the top N and the fallback */
		if (top < 0) { /* exhaustive: every dispatchable candidate of the stage */
			const struct tactic *c = e->stage == 1 ? p->list.g1 : p->list.g2;
			size_t cn = e->stage == 1 ? p->list.n1 : p->list.n2;
			ncand = 0;
			for (size_t k = 0; k < cn; k++)
				ncand += c[k].dispatchable;
		}
		cost[i] = entry_cost(e, dep, rounds, ncand > 0 ? ncand : 1);
	}
	fleet_assign(cost, p->n, count, owner);
	size_t kept = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (owner[i] == index)
			p->v[kept++] = p->v[i];
		else
			free(p->v[i].key);
	}
	p->n = kept;
	free(cost);
	free(owner);
}

int choose_tactics(struct script *sc, const struct catalog *cat, const struct deployment *dep,
	       struct lookup_list *p, struct diags *d)
{
	int rc = catalog_expand_finalize(cat, dep->fused_finalize, &p->list, d);
	if (rc)
		return rc;
	script_forget_candidates(sc); /* a fresh list, maybe at a freed one's address */
	p->have_list = true;
	size_t maxn = p->list.n1 > p->list.n2 ? p->list.n1 : p->list.n2;
	struct script_rank *ranks = xcalloc(maxn ? maxn : 1, sizeof *ranks);
	for (size_t i = 0; i < p->n && !rc; i++) {
		struct lookup_entry *e = &p->v[i];
		const struct tactic *c = e->stage == 1 ? p->list.g1 : p->list.g2;
		size_t n = e->stage == 1 ? p->list.n1 : p->list.n2;
		e->fallback = c[0].id; /* -1 means the first entry of the stage (tactics §1.1) */
		if (cat->tactic_ignored) {
			/* nothing to choose: the runner sets its own config whatever is stored */
			e->tactic = e->fallback;
			e->ranked = 0;
			e->ntop = 0;
			e->fallback_us = e->chosen_us = e->chosen_lo = e->chosen_hi = -1;
			continue;
		}
		size_t nr;
		rc = script_rank(sc, e->stage, e->tokens, e->features, e->k, c, n, e->fallback, ranks,
				 &nr, d);
		if (rc)
			break;
		e->ranked = (int)nr;
		e->tactic = -2;
		e->ntop = 0;
		e->fallback_us = e->chosen_us = e->chosen_lo = e->chosen_hi = -1;
		for (size_t r = 0; r < nr; r++) {
			const struct tactic *t = NULL;
			for (size_t j = 0; j < n; j++)
				if (c[j].id == ranks[r].id)
					t = &c[j];
			if (!t->dispatchable ||
			    (cat->shape_filter && !catalog_tactic_fits(t, e->features, e->k))) {
				/* FlashInfer's own tuner never offers a tile that does not fit */
				e->skipped_first |= r == 0;
				continue;
			}
			if (e->tactic == -2) {
				e->tactic = t->id;
				e->time_us = ranks[r].time_us;
			}
			if (e->ntop < LOOKUP_TOP_MAX) {
				e->top[e->ntop] = t->id;
				e->top_time[e->ntop] = ranks[r].time_us;
				e->ntop++;
			}
		}
		if (e->tactic == -2) {
			/* nothing ranked and dispatchable: keep FlashInfer's own fallback */
			e->tactic = e->fallback;
		}
	}
	(void)dep;
	free(ranks);
	return rc;
}
