/* routing.h: the routing loads the whole MoE layer is timed under when a table's (GEMM1,
 * GEMM2) tactic pairs are chosen for skewed routing too (issue #49; docs/guide.md "Routing
 * loads"). A load is a popularity per expert of every rank, from which the worker draws each
 * token's top-k distinct experts:
 *   balanced   uniform over every rank's experts, as FlashInfer's own profiler routes (the
 *              measured rank gets about tokens x top-k / EP picks);
 *   hot-S      Zipf popularity 1 / i^S, the measured rank holding the most popular experts
 *              (the rank that sets an EP layer's latency), for each S of ROUTING_HOT;
 *   FILE       a per-expert histogram (`--routing FILE`, format below), its hottest rank's
 *              experts put on the measured rank; it replaces the hot family.
 * Histogram format: plain text, one `EXPERT COUNT` pair a line (EXPERT an integer from 0 to
 * the experts of every rank - 1, each at most once; COUNT a non-negative number: picks, or
 * any weight), `#` starts a comment, blank lines are ignored; experts not listed count 0; at
 * least top-k experts must have a count above 0 (a token picks top-k distinct ones). */
#ifndef TUNETAB_ROUTING_H
#define TUNETAB_ROUTING_H

#include <stddef.h>

#include "base/diag.h"

/* The hot family's Zipf exponents: a mild skew (the hot rank gets about 2.5x the mean load
 * at EP 8) and a strong one (issue #49's measurements: 0.5 and 1.2). */
#define ROUTING_HOT { 0.5, 1.2 }

struct routing_load_def {
	char name[64];        /* "balanced", "hot-1.2", the file's base name */
	double *weights;      /* per expert of every rank; NULL: uniform */
	size_t n;
};

struct routing {
	struct routing_load_def *v; /* v[0] is balanced */
	size_t n;
};

/* balanced and the hot family for a layer of experts_total experts split over ep ranks, the
 * measured one ep_rank. */
void routing_defaults(struct routing *r, long experts_total, long ep, long ep_rank);

/* balanced and the histogram in path (errors with file:line:col, TT_INVALID; a file that
 * cannot be read: its path error). */
int routing_read(struct routing *r, const char *path, long experts_total, long ep, long ep_rank,
		 long top_k, struct diags *d);

/* The load's popularity as the worker takes it ("w,w,...", %.6g each), NULL for uniform;
 * caller frees. */
char *routing_popularity(const struct routing_load_def *l);

/* The share of the picks the measured rank's hottest expert gets over the mean expert's
 * (1 for uniform routing): how many more rows it sees than under balanced routing. */
double routing_peak(const struct routing_load_def *l, long ep, long ep_rank);

void routing_release(struct routing *r);

#endif
