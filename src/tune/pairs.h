/* pairs.h: the layer as the judge (issue #49). After the per-GEMM profiles (timing.h), each
 * token bucket's (GEMM1, GEMM2) tactic pair is chosen by timing FlashInfer's whole MoE call
 * (cutlass_fused_moe: routing, GEMM1, activation, GEMM2, finalize) in the flashinfer worker
 * (LAYER), captured in one CUDA graph over several router draws, under each routing load
 * (routing.h), and taking the pair with the least worst-case regret over the loads (robust.h).
 * docs/guide.md "Routing loads" is the user's account.
 *
 * Candidates per bucket (the budget: at most (PAIRS_TOP + hot loads)^2 pairs):
 *   each GEMM's PAIRS_TOP fastest measured tactics at the bucket (its per-GEMM choice first)
 *   and, for each skewed load, its per-GEMM choice at the bucket whose balanced rows per
 *   expert are nearest the rows the measured rank's hottest expert gets under that load (the
 *   tactic that is fast for that many rows); every GEMM1 with every GEMM2.
 * Each pair is timed under each load: PAIRS_ROUNDS rounds, every pair once a round in a
 * shuffled order, each a graph of pairs_draws(bucket) calls replayed pairs_reps(bucket)
 * times; the median of the rounds. */
#ifndef TUNETAB_PAIRS_H
#define TUNETAB_PAIRS_H

#include <stdbool.h>
#include <stddef.h>

#include "flashinfer/lookup.h"
#include "tune/robust.h"
#include "tune/routing.h"
#include "tune/timing.h"
#include "tune/worker.h"

#define PAIRS_TOP 3
#define PAIRS_ROUNDS 3
#define PAIRS_SEED 4321

/* Router draws in one graph and its replays per round at a bucket: small buckets vary most
 * from draw to draw (8 draws up to 64 tokens, 2 up to 512, then 1). */
int pairs_draws(long tokens);
int pairs_reps(long tokens);

struct pairs_bucket {
	long tokens;
	int per_gemm[2];           /* the per-GEMM profiles' GEMM1 and GEMM2 tactics */
	struct robust_pair *pairs; /* the candidates and their times under each load */
	size_t n;
	struct robust_choice choice;
	double seconds;
};

struct pairs_result {
	struct routing loads;      /* the loads timed, v[0] balanced */
	struct pairs_bucket *v;    /* one per bucket with both stages measured */
	size_t n;
	size_t changed;            /* buckets whose pair is not the per-GEMM one */
	size_t timed;              /* pair timings taken */
	double seconds;
	char why[400];             /* set when no pair could be timed: why (the per-GEMM choices
				    * stand) */
};

/* Chooses the pairs of p's measured buckets on worker w (the flashinfer backend's) under the
 * loads (moved into res->loads), and sets each paired entry's tactic (lookup_entry.paired).
 * o: the profile's options (the job's key fields). */
int pairs_run(struct worker *w, struct lookup_list *p, const struct deployment *dep,
	      const struct timing_opts *o, struct routing *loads, struct pairs_result *res,
	      struct diags *d);

/* The geomean regret (fraction) of the chosen pairs under load l, and the per-GEMM pairs'
 * (either < 0 when no bucket counts l). */
void pairs_summary(const struct pairs_result *res, size_t l, double *chosen, double *per_gemm);

/* A bucket's record as canonical JSON (provenance's "layer" of its entries):
 * {"loads": [...], "pairs": [[g1, g2, [us per load, null: not measured]], ...],
 *  "chosen": [g1, g2], "per_gemm": [g1, g2], "regret": [per load, null: does not count]}. */
char *pairs_bucket_json(const struct pairs_result *res, const struct pairs_bucket *b);

void pairs_release(struct pairs_result *res);

#endif
