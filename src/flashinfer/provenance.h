/* provenance.h: what tunetab knows about the entries of a table it wrote, in a sidecar file
 * `tunetab_provenance_<DEVICE>.json` next to the table (docs/fleet.md, "Provenance file").
 * FlashInfer never reads it; `tunetab merge` does: it says which device and FlashInfer version
 * a table is for, which run (and shard of a run) produced it, and for every key whether the
 * tactic was measured (with its time and interval) or predicted by the heuristic. */
#ifndef TUNETAB_PROVENANCE_H
#define TUNETAB_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/util.h"

#define PROV_FORMAT 1
/* Times are written with this many significant digits ("%.10g": 10.95 stays 10.95) and rounded
 * to them when read or added, so reading a file and writing it again gives the same bytes. */
#define PROV_REAL_DIGITS 10

enum prov_source {
	PROV_MEASURED,  /* a candidate beat the fallback beyond the interval: time_us is its median */
	PROV_FALLBACK,  /* measured, and nothing beat the fallback: time_us is the fallback's */
	PROV_PREDICTED, /* the heuristic's choice, not measured: time_us is its prediction or < 0 */
	PROV_UNKNOWN,   /* a table with no provenance (e.g. FlashInfer's own cache) */
	PROV_DEFAULT,   /* the op's fallback tactic (-1) stored unmeasured, so the server does not
			 * profile the key at start (an op tunetab has no catalog or no GPU for) */
};

struct prov_entry {
	char *key;            /* the key string exactly as in the table */
	char *tactic;         /* the tactic as a Python literal: "5", "(8, 34)" */
	enum prov_source source;
	double time_us, lo_us, hi_us;   /* < 0: unknown */
	double fallback_us;   /* the fallback's measured median, < 0: not measured */
	int *ties;            /* candidate ids another run may choose (sorted; docs/fleet.md) */
	size_t nties;
	int *wrong;           /* ids the correctness gate found computing a wrong answer (sorted;
			       * written only when there are any) */
	size_t nwrong;
	size_t run;           /* index into provenance.runs */
	char *layer;          /* the bucket's pair choice with the whole layer as the judge
			       * (tune/pairs.h pairs_bucket_json), canonical compact JSON; NULL:
			       * none (written only when there is one) */
};

/* The measurement backend of a run is named by one line whose first word is its short name:
 * "proxy cuBLASLt 13.1.0" (tunetab's cuBLASLt proxy GEMM), "flashinfer 0.7.4 (torch
 * 2.11.0+cu130)" (FlashInfer's own kernels), "fake" (TUNETAB_FAKE_GPU=1, synthetic timings).
 * Runs, files and journals from before backends were named say none: theirs was the proxy. */
#define PROV_BACKEND_DEFAULT "proxy"
/* The short name of a backend line (its first word) in buf; NULL or "" gives the default. */
const char *prov_backend_name(const char *backend, char *buf, size_t n);

/* One `generate` run (or one shard of it). */
struct prov_run {
	char *id;             /* 16 hex digits; the same for every shard of one run */
	int shard_index, shard_count;   /* 0 and 1 when not sharded */
	char *shard_source;   /* "--shard", "SLURM_PROCID/SLURM_NTASKS", ...; NULL when not sharded */
	char *backend;        /* its "backend"; when it has none: PROV_BACKEND_DEFAULT, or NULL
			       * when it says it measured nothing ("profiled": false) */
	char *json;           /* the whole run object as canonical compact JSON (sort_keys) */
};

struct provenance {
	char *tunetab_version;
	char *flashinfer_version;
	char *device;         /* exact device name, e.g. "NVIDIA H200" */
	char *py_file, *json_file;   /* basenames of the tables it describes, NULL when not written */
	struct prov_run *runs;     /* grown by prov_add_run/prov_copy_run only */
	size_t nruns, runs_alloc;
	struct prov_entry *entries; /* grown by prov_add_entry only */
	size_t n, entries_alloc;
	/* the ops besides the CUTLASS MoE the server tunes at start (issue #39), as a JSON list:
	 * [{"op", "runner", "covered": "measured"|"predicted"|"default"|"not covered", "why",
	 * "keys", "calls": [{the worker's job fields}]}]; NULL when none */
	char *ops_json;
};

/* A run object under construction (generate fills it field by field). */
struct prov_run_builder;
struct prov_run_builder *prov_run_new(void);
void prov_run_str(struct prov_run_builder *b, const char *name, const char *value); /* NULL -> null */
void prov_run_int(struct prov_run_builder *b, const char *name, long long value);
void prov_run_bool(struct prov_run_builder *b, const char *name, bool value);
/* Adds the run to p (computing its canonical JSON; "id", "shard" are set from the arguments)
 * and frees b. Returns the run's index. Its backend is the "backend" string set in b, as when
 * read. */
size_t prov_add_run(struct provenance *p, struct prov_run_builder *b, const char *id,
		    int shard_index, int shard_count, const char *shard_source);

/* Adds a copy of a run read from another provenance (tunetab merge). Returns its index. */
size_t prov_copy_run(struct provenance *p, const struct prov_run *r);

/* Adds an entry (strings and ties copied). */
void prov_add_entry(struct provenance *p, const struct prov_entry *e);

/* Reads a sidecar strictly: unknown keys, wrong types, a run index outside 'runs', a tactic
 * that is not a Python literal are errors (file:line:col of the value). Limits: 256 MiB,
 * TABLE_MAX_ENTRIES entries and runs. Tactics are stored in their canonical repr spelling.
 * On error p is left empty. */
int prov_read(const char *path, struct provenance *p, struct diags *d);
/* The provenance file beside a table (or journal): in the folder of path, the
 * tunetab_provenance_*.json whose files.py or files.json is `name` (a basename). Fills *p and
 * returns 0 (*where, if not NULL, gets its path: caller frees), or -1 when none that reads
 * names it. */
int prov_find_beside(const char *path, const char *name, struct provenance *p, char **where);
/* The indices of p's entries sorted by key (byte order); caller frees. */
size_t *prov_key_index(const struct provenance *p);
/* The entry holding key[0..len) through that index, or -1. */
long prov_find_key(const struct provenance *p, const size_t *index, const char *key, size_t len);
/* Canonical bytes: runs sorted by their JSON (identical runs once, entries remapped), entries
 * by key (code-point order), two-space indent, trailing newline. The same provenance always
 * gives the same bytes. */
void prov_write(const struct provenance *p, struct strbuf *out);
void prov_release(struct provenance *p);

const char *prov_source_name(enum prov_source s);

/* v rounded to PROV_REAL_DIGITS significant digits; < 0 (or NaN) gives -1 (unknown). */
double prov_round_us(double v);
/* A time as the file writes it ("10.95"), or "?" when unknown. */
void prov_format_us(double v, char *buf, size_t n);

#endif
