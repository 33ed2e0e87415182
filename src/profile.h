/* profile.h: measured tables. For each GEMM stage and token bucket the heuristic's top K
 * and the version's fallback are timed with the proxy GEMM in the worker; a candidate
 * replaces the fallback only if it beats it beyond the confidence interval. Every
 * measurement is appended to a journal (fsync) so an interrupted run resumes. */
#ifndef TUNETAB_PROFILE_H
#define TUNETAB_PROFILE_H

#include <stdbool.h>

#include "gen.h"
#include "worker.h"

struct profile_opts {
	int top_k;             /* candidates timed per entry besides the fallback (default 4);
				* < 0: every dispatchable candidate of the stage (exhaustive) */
	int method;            /* 0 tunetab's measurement, 1 FlashInfer's (for comparisons) */
	double budget_s;       /* stop measuring after this long (<= 0: no budget) */
	int rounds, reps;
	const char *journal;   /* path */
	const char *identity;  /* what the journal is for; a different one starts afresh */
	bool progress;         /* a progress line on stderr */
	bool verbose;
};

struct profile_stats {
	size_t measured_entries, predicted_entries, fallback_kept, resumed, failed_candidates;
	size_t unsupported;    /* candidates the proxy cannot express */
	size_t timed;          /* candidate timings taken in this run */
	double seconds;
};

int profile_plan(struct worker *w, struct gen_plan *p, const struct gen_deploy *dep,
		 const struct profile_opts *o, struct profile_stats *st, struct diags *d);

#endif
