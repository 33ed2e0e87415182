/* report.h: what a run measured and chose, as one static HTML page (inline SVG charts and
 * CSS, no script, no external asset): per GEMM stage the time of every candidate against the
 * token bucket, the chosen tactic, the speed-up over the fallback with its interval, the
 * regret bound, the heuristic's predicted time of each candidate against its measured one (a
 * log-log scatter per stage, with how well the predictions rank and scale the measurements),
 * failed and inexpressible candidates, and the command and versions. Built from a profiling
 * journal (and the provenance file beside it) or from a heuristic-only plan. */
#ifndef TUNETAB_REPORT_H
#define TUNETAB_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "flashinfer/lookup.h"
#include "base/util.h"

struct rep_cand {
	int id;
	double pred_us;                 /* the heuristic's prediction, < 0 unknown */
	bool timed;                     /* the journal has a result for it */
	int status;                     /* enum prof_status */
	double med_us, lo_us, hi_us;
	int n;
	char why[128];
};

struct rep_entry {
	int stage;
	long tokens;
	int chosen, fallback;
	int kind;                       /* CHOICE_* of flashinfer/lookup.h; -1 unknown (no decision recorded) */
	bool out_of_budget;
	struct rep_cand *c;
	size_t nc, cap;
};

struct report {
	bool measured;                  /* false: heuristic only (predicted times) */
	char *backend;                  /* measured: what timed the candidates, e.g. "proxy
					 * cuBLASLt 13.1.0" (provenance.h, "backend") */
	char *title;
	char **info;                    /* label, value, label, value, ... */
	size_t ninfo, capinfo;
	struct rep_entry *e;
	size_t n, cap;
};

/* From a journal `generate --profile` wrote (and the provenance file beside it, if any).
 * Errors (unreadable, not a tunetab journal) carry the file and line; on error r is left
 * empty (report_release harmless, not needed). */
int report_from_journal(const char *path, struct report *r, struct diags *d);
/* From a plan that was only ranked (heuristic-only generate). */
void report_from_plan(const struct lookup_list *p, struct report *r);
/* Adds a line to the summary table (copied). */
void report_info(struct report *r, const char *label, const char *value);
void report_set_title(struct report *r, const char *title);

/* How the heuristic's predictions compare with the measurements, over the candidates that have
 * both a prediction (> 0) and a successful measurement (PROF_OK, median > 0). */
struct rep_fit {
	size_t points;                  /* such candidates */
	size_t buckets;                 /* token buckets whose rank correlation is counted: those
					 * with >= 3 points, neither side all tied */
	double spearman;                /* mean over those buckets of Spearman's rank correlation
					 * of predicted against measured (ties take their average
					 * rank); NAN when there is none */
	double ratio;                   /* median of measured / predicted; NAN when no point */
};
/* The figures of one GEMM stage over all its token buckets (tokens < 0), or of one bucket. */
void report_fit(const struct report *r, int stage, long tokens, struct rep_fit *f);

void report_write_html(const struct report *r, struct strbuf *out);
void report_release(struct report *r);

#endif
