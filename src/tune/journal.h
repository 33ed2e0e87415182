/* journal.h: the profiling journal `<module>.journal` that `generate --profile` keeps beside its
 * outputs, so that a run killed at any moment (SIGKILL) resumes where it stopped, and that
 * `tunetab report` reads. This module is the one place that writes or parses it.
 *
 * A text file, one record per line, only ever appended to; for one key the last record wins:
 *
 *   # tunetab journal v1 IDENTITY  first line: the run it is for ("key=value" pairs, below)
 *   # command TEXT                 the command line of every run that opened it
 *   # backend TEXT                 what timed the candidates, after each command line, e.g.
 *                                  "proxy cuBLASLt 13.1.0"; a journal without one is a proxy's
 *   M STAGE TOKENS ID STATUS MEDIAN LO HI N REASON  one candidate timed: enum prof_status,
 *                                  microseconds with 4 decimals, REASON "-" or its spaces as '_'
 *   P STAGE TOKENS ID US           the heuristic's predicted time for a candidate
 *   D STAGE TOKENS CHOSEN KIND FALLBACK OUT_OF_BUDGET  the decision: KIND of lookup_entry, 0 or 1
 *
 * The M lines of one entry are one write followed by fsync, so after SIGKILL the journal holds
 * whole entries; a torn last line (power loss) is ignored when read and cut off when the
 * journal is opened again. Lines of any other form (a time that is not a finite number
 * included) are ignored. */
#ifndef TUNETAB_JOURNAL_H
#define TUNETAB_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "flashinfer/lookup.h"
#include "gpu/gpu.h"
#include "base/util.h"

#define JOURNAL_MAX_BYTES (256u << 20) /* read at most this much (report, resume) */

/* --- names ---------------------------------------------------------------- */

/* The journal of a bundled module written to outdir: "OUTDIR/<module without .py>.journal".
 * Caller frees. */
char *journal_path(const char *outdir, const char *module);
/* The bundled module a journal belongs to: its base name with ".journal" made ".py".
 * Caller frees. */
char *journal_module(const char *path);

/* --- identity ------------------------------------------------------------- */

/* The identity is "key=value" pairs separated by one space, in the order they were added; a
 * value may hold spaces (a device name) but no newline (made a space). Appends one pair. */
void journal_identity_add(struct strbuf *id, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The value of key in an identity (a value ends where " word=" begins), or NULL. Caller frees. */
char *journal_identity_value(const char *identity, const char *key);

/* What decides a table, and so a journal's identity: a resume never mixes runs that differ in
 * any of these (generate fills it; this module alone knows the keys and their order). */
struct journal_run {
	const char *version, *device;
	const struct deployment *shape; /* the model, dtype, TP/EP and ranks, top-k, fused finalize
					 * (written only when off: older journals keep their
					 * identity) and largest bucket */
	const char *catalog;
	const char *keys;             /* generate --keys, or NULL */
	long top;                     /* --top (0: the default, 4; -1: all) */
	int method;
	long rounds;
	const char *heuristic;        /* --heuristic, or NULL for the default */
	const char *model_fit;        /* --model-fit, written only when set */
	bool profile;
	const char *backend;          /* the backend's short name when profiling, else NULL */
	const char *shard;            /* "I/N" in a journal's identity; NULL in the provenance's run id */
};
/* The identity of r. Caller frees. */
char *journal_identity(const struct journal_run *r);

/* The fields of an identity a reader shows (tunetab report), as written; NULL when absent or
 * "-". Release with journal_run_text_release. */
struct journal_run_text {
	char *version, *device, *model, *dtype, *tp, *ep, *max_tokens, *keys, *backend;
	char *tp_rank, *ep_rank, *top_k, *catalog, *heuristic;
};
void journal_run_read(const char *identity, struct journal_run_text *t);
void journal_run_text_release(struct journal_run_text *t);

/* --- writing (generate --profile) ------------------------------------------ */

struct journal_meas {
	int stage;
	long tokens;
	struct prof_result r;
};

struct journal {
	int fd;
	char *path;
	struct journal_meas *v;    /* every measurement replayed or appended, in order */
	size_t n, cap;
};

/* Opens path for appending. A journal for identity is replayed (*resumed counts its
 * measurements), as is one from before backends were named (no "backend=") when identity is
 * the same but for "backend=proxy"; any other file there (another identity, not a journal, a
 * torn first line) is moved aside to PATH.old and a new journal started with its header. A
 * torn last line is cut off. Then appends the "# command" and "# backend" lines (each left
 * out when NULL). Errors (TT_INTERNAL) go to d; journal_close releases j either way. */
int journal_open(struct journal *j, const char *path, const char *identity, const char *command,
		 const char *backend, size_t *resumed, struct diags *d);
/* The last measurement of candidate id for an entry, or NULL. */
const struct prof_result *journal_find(const struct journal *j, int stage, long tokens, int id);
/* Appends r[0..n) as M lines of one entry: one write, then fsync. */
int journal_add_measurements(struct journal *j, int stage, long tokens, const struct prof_result *r,
			     size_t n, struct diags *d);
/* Appends an entry's predictions (P, those known) and its decision (D) in one write. */
int journal_add_decision(struct journal *j, const struct lookup_entry *e, bool out_of_budget,
			 struct diags *d);
void journal_close(struct journal *j);

/* --- reading (tunetab report) ---------------------------------------------- */

enum journal_kind {
	JOURNAL_COMMAND,      /* text */
	JOURNAL_BACKEND,      /* text */
	JOURNAL_MEASUREMENT,  /* stage, tokens, m */
	JOURNAL_PREDICTION,   /* stage, tokens, id, pred_us */
	JOURNAL_DECISION,     /* stage, tokens, chosen, choice, fallback, out_of_budget */
};

struct journal_record {
	enum journal_kind kind;
	int line;                  /* 1-based */
	const char *text;          /* points into the reader's text */
	int stage;
	long tokens;
	struct prof_result m;
	int id;
	double pred_us;
	int chosen, choice, fallback;  /* choice: the kind of lookup_entry (CHOICE_*) */
	bool out_of_budget;
};

struct journal_reader {
	char *text;                /* the file, split into lines as they are read */
	char *at;                  /* the next line, NULL at the end */
	int line;
	const char *identity;      /* the header's identity (may be torn when the file is) */
};

/* Reads a journal whole (at most JOURNAL_MAX_BYTES). Errors carry the file (and line 1 when it
 * is not a journal): TT_INVALID for a missing, oversized or foreign file, TT_INTERNAL for other
 * I/O errors. On error r needs no journal_reader_close. */
int journal_reader_open(struct journal_reader *r, const char *path, struct diags *d);
/* The next record after the header; false at the end (a torn last line is not returned). */
bool journal_reader_next(struct journal_reader *r, struct journal_record *rec);
void journal_reader_close(struct journal_reader *r);

#endif
