/* timing.h: measured tables. For each GEMM stage and token bucket the heuristic's top K
 * and the version's fallback are timed in the worker by its measurement backend (today
 * tunetab's proxy GEMM, or the fake backend's synthetic timings); a candidate
 * replaces the fallback only if it beats it beyond the confidence interval. Every
 * measurement is appended to a journal (journal.h) so an interrupted run resumes. */
#ifndef TUNETAB_TIMING_H
#define TUNETAB_TIMING_H

#include <stdbool.h>

#include "flashinfer/lookup.h"
#include "tune/worker.h"

/* One decided entry, for the caller's progress line or log (timing.c never prints). */
struct timing_event {
	const struct lookup_entry *e;
	const int *ids;                    /* the candidates timed, ... */
	const struct prof_result *res;     /* ... and their results (n == 0: out of budget) */
	size_t n;
	size_t done, total;
	int worker;                        /* the GPU that measured it */
	double eta_s;
};

struct timing_opts {
	int top_k;             /* candidates timed per entry besides the fallback (default 4);
				* < 0: every dispatchable candidate of the stage (exhaustive) */
	int method;            /* 0 tunetab's measurement, 1 FlashInfer's (for comparisons) */
	bool screen;           /* every dispatchable candidate gets one sample, the top_k fastest
				* go on to the rounds after two cuts (measure.h; the flashinfer
				* backend's default); those more than 2x slower than the best a
				* bucket below are left out (pruned) */
	double budget_s;       /* stop measuring after this long (<= 0: no budget) */
	int rounds, reps;
	const char *journal;   /* path */
	const char *identity;  /* what the journal is for; a different one starts afresh */
	const char *command;   /* the command line, recorded for the report (may be NULL) */
	const char *backend;   /* what times the candidates, one line for journal and report,
				* e.g. "proxy cuBLASLt 13.1.0" (may be NULL) */
	const char *key_fields; /* the key's extras fields, comma-separated (prof_shape.key_fields) */
	const char *runner;     /* the runner's arguments where the key has none (prof_shape.runner) */
	bool gate;             /* the flashinfer backend: a tactic must compute the right answer to be
				* chosen (worker_gate); one that does not is a failed candidate */
	/* called under a lock after each entry (may be NULL) */
	void (*on_entry)(void *ctx, const struct timing_event *ev);
	void *ctx;
};

struct timing_stats {
	size_t measured_entries, predicted_entries, fallback_kept, resumed, failed_candidates;
	size_t unsupported;    /* candidates the proxy cannot express */
	size_t timed;          /* candidate timings taken in this run */
	size_t pruned;         /* candidates a screen left out: far slower a bucket below */
	double seconds;
	/* the correctness gate: candidates checked, found wrong (each in wrong[]), entries whose
	 * check could not be made (the first reason in unchecked_why) */
	size_t gate_checked, gate_unchecked;
	struct gate_wrong { int stage; long tokens; int id; double max_abs, rel; } *wrong;
	size_t nwrong;
	char unchecked_why[320];
	double gate_seconds;
};

/* The worker's job for entry e's candidates (top_k: a screen's keep). */
struct prof_shape timing_shape(const struct deployment *dep, const struct timing_opts *o,
			       const struct lookup_entry *e, int top_k);

/* w[0..nw) are workers on GPUs of the same model; each takes the next entry off one queue. */
int timing_run(struct worker *w, size_t nw, struct lookup_list *p, const struct deployment *dep,
		 const struct timing_opts *o, struct timing_stats *st, struct diags *d);

#endif
