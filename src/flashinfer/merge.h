/* merge.h: `tunetab merge`: tables (bundled modules, JSON caches) and provenance files for one
 * device and FlashInfer version put back together (docs/fleet.md, "Merge"): identity checks,
 * the union of entries with conflicts settled by fixed rules, shard completeness, JSON
 * _metadata and _records, and outputs that are byte-identical for any order of the inputs.
 * Fills diagnostics (errors, and notes the user should see); never prints. */
#ifndef TUNETAB_MERGE_H
#define TUNETAB_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "flashinfer/provenance.h"
#include "flashinfer/pylit.h"
#include "base/util.h"
#include "flashinfer/validate.h"

struct merge_opts {
	const char *out;             /* OUT: "X.py" or "X.json" (that one file), else a folder */
	char *const *inputs;         /* IN...: tables, provenance files, folders */
	size_t ninputs;
	const char *format;          /* "py", "json", "both"; NULL: OUT's, else what the inputs had */
	const char *flashinfer;      /* --flashinfer: supplies the version when no input says it */
	const char *device;          /* --device: supplies the device when no input says it */
	bool partial;                /* --partial: merge runs with missing shards (a note each) */
	const char *tunetab_version; /* stamped into the merged provenance */
};

/* The rules of docs/fleet.md "Merge", in order. */
enum merge_rule {
	MERGE_RULE_SOURCE = 1, /* measured (or fallback) > predicted > no provenance */
	MERGE_RULE_TIME = 2,   /* the lower time_us (a known time beats none) */
	MERGE_RULE_TACTIC = 3, /* the lower tactic, in Python literal order */
};

/* One tactic a conflict saw for a key, with the best provenance any input gave it. */
struct merge_side {
	char *tactic;           /* Python literal, e.g. "5" */
	enum prov_source source;
	double time_us;         /* < 0: unknown */
	char **inputs;          /* the tables that hold this tactic for the key, sorted */
	size_t ninputs, inputs_alloc;
};

struct merge_conflict {
	char *key;
	enum merge_rule rule;   /* the rule that settled it */
	char *why;              /* e.g. "measured beats predicted", "lower time" */
	struct merge_side *sides; /* sides[0] was kept; the rest in the rules' order */
	size_t nsides, sides_alloc;
};

struct merge_output {
	char *path;             /* where cmd_merge writes it */
	struct strbuf bytes;
};

struct merge_result {
	char *device, *version;  /* the identity every input shares */
	char **files;            /* every input file read (tables and provenance), sorted */
	size_t nfiles, files_alloc;
	size_t ntables;          /* tables among them */
	size_t entries;          /* in the merged table */
	struct merge_conflict *conflicts; /* sorted by key */
	size_t nconflicts, conflicts_alloc;
	char *outdir;            /* the folder to create before writing; NULL for one file */
	struct merge_output *outputs; /* module, JSON cache, provenance (those that apply) */
	size_t noutputs, outputs_alloc;
};

/* Reads the inputs, checks identity and shards, merges, builds every output's bytes and checks
 * the tables with the validate rules of the version. Writes nothing, but first rolls back the
 * set a merge or generate killed mid-commit left in an OUT folder (tableset.h, a warning in
 * d); an input whose folder holds such an undo log is refused. Returns TT_OK or the
 * exit status (TT_INVALID: invalid input, identity mismatch, missing shard, or a merged table
 * that does not validate; TT_USAGE: a bad option or nothing says the device/version;
 * TT_INTERNAL: I/O). Errors and notes go to d. */
int merge_run(const struct validate_data *data, const struct merge_opts *o,
	      struct merge_result *r, struct diags *d);
/* Writes r's outputs, creating r->outdir first, as one set (util.h file_set: temporary files,
 * fsync, renames; in a folder under an undo log, tableset.h): all or none. *nwritten
 * counts those written. TT_OK, or TT_INTERNAL with the reason in d. */
int merge_write(const struct merge_result *r, size_t *nwritten, struct diags *d);
void merge_result_release(struct merge_result *r);

/* Python literal order of two tactics: numbers numerically, then strings, then tuples (and
 * lists) element-wise; the spelling breaks ties, so the order is total. */
int merge_tactic_cmp(const struct pyv *a, const struct pyv *b);

#endif
