/* validate.h: every rule FlashInfer applies to a tuning table, for one target version and
 * device (flashinfer-formats.md §1, §2, §3, §7; cutlass-moe-tactics.md §1, §3). Fills
 * diagnostics; never prints. */
#ifndef TUNETAB_VALIDATE_H
#define TUNETAB_VALIDATE_H

#include <stdbool.h>

#include "data/catalog.h"
#include "data/device.h"
#include "base/diag.h"
#include "data/firules.h"
#include "data/opdefs.h"
#include "flashinfer/table.h"
#include "base/util.h"

struct validate_data {
	const struct device_set *devices;
	const struct catalog_set *catalogs;
	const struct firules_set *rules;
	const struct op_set *ops;   /* configs/ops: keys of the other ops (NULL: unknown ops) */
};

struct validate_opts {
	const char *flashinfer; /* NULL: JSON _metadata.flashinfer_version, else the provenance's,
				 * else the newest */
	const char *provenance_version; /* from the tunetab provenance file beside it, or NULL */
	const char *device;     /* NULL: from the file name, else JSON _metadata.gpu */
	int dtype;              /* enum dtype, or -1 to infer per entry */
};

struct validate_result {
	const struct fi_rules *rules;
	char version[48];
	const char *version_from;   /* "--flashinfer", "_metadata.flashinfer_version", "tunetab
				     * provenance", "newest known" */
	const struct device_profile *device;
	char device_name[256];      /* "" when unknown */
	const char *device_from;    /* "--device", "file name", "_metadata.gpu", NULL */
	bool never_loaded;
	size_t entries;
};

/* Where an entry was found: a JSON cache (load_configs: an entry saved without a profiling
 * policy counts as its op's policy_unset) or FlashInfer's managed store (an entry file without
 * one has None, which never equals: autotune_cache.py:339-345). */
enum policy_source { POLICY_FILE, POLICY_STORE };

/* Whether FlashInfer `rules`, in tune mode (autotune(True): SGLang's start-up tuning; the
 * managed store's mode="tune"), uses an entry of op that it found by its key: only when the
 * entry's profiling policy equals the one op requests, compared as Python compares the tuples
 * (1 == 1.0 == True); otherwise it profiles that shape again (0.7.4 autotuner/autotuner.py:
 * 2394-2400, 2469-2477). stored: the policy as JSON text (the value's 3rd element, an entry
 * file's profiling_policy), NULL when the entry has none. Versions whose values carry no
 * policy (entry_value pair, before 0.7.1) compare nothing: true. The one home of this rule:
 * validate's op-policy check and the lookup plan (deploy/plan) both ask it. */
bool validate_policy_used(const struct fi_rules *rules, const struct op_def *op,
			  const char *stored, enum policy_source from);

/* One description line per check id, in the order docs/commands/validate.md lists them. */
struct check_info {
	const char *id;
	const char *what;
};
extern const struct check_info validate_checks[];

/* Validates t. Returns TT_OK, or TT_USAGE for a bad --flashinfer (not a version, or one that
 * predates tuning tables). A --device no known GPU reports is no usage error: the name is
 * checked as given, with an 'unknown-device' warning in d. */
int validate_table(const struct validate_data *data, const struct table *t,
		   const struct validate_opts *o, struct validate_result *r, struct diags *d);

/* Checks a tunetab provenance file and the tables beside it that it names: the same keys,
 * the same tactics. Errors go to d; returns TT_OK, or the status of an unreadable file. */
int validate_provenance(const char *path, size_t *entries, struct diags *d);

/* ---- a validate run: many files against one or every known version (`tunetab validate`) ---- */

enum validate_format { VALIDATE_TEXT, VALIDATE_JSON, VALIDATE_GITHUB, VALIDATE_JUNIT };

/* The names of the formats, as a usage message lists them: "text, json, github, junit". */
extern const char validate_format_list[];
/* Sets *f to the format called name; returns 0, or -1 when no format has that name. */
int validate_format_parse(const char *name, enum validate_format *f);

struct validate_files {
	char **v;
	size_t n, cap;
};

/* Appends the tables the arguments name to out: a file stands for itself; a folder for every
 * *.py and *.json under it (tunetab's provenance files among them), not hidden, in byte order
 * of their paths; symbolic links are not followed into folders (a fleet tree, docs/fleet.md).
 * Returns TT_OK, or TT_INVALID (a folder with no tables) / TT_INTERNAL (unreadable) with a
 * diagnostic whose file is the argument. A folder of the files that holds an interrupted
 * generate's, merge's or install's undo log (tableset.h) gets a warning in d. */
int validate_collect(char *const *args, size_t n, struct validate_files *out, struct diags *d);
void validate_files_release(struct validate_files *f);

struct validate_request {
	const struct validate_data *data;
	const struct validate_files *files;
	struct validate_opts opts; /* opts.flashinfer "all": every known version, by its release */
	bool strict;               /* warnings fail a file as errors do */
};

/* One file checked against one version. */
struct validate_check {
	const char *path;          /* the request's string */
	const char *release;       /* the version's release under --flashinfer all, else NULL */
	bool provenance;           /* a tunetab provenance file, checked against the tables it names */
	size_t provenance_entries;
	int status;                /* TT_OK, or the status of a file that could not be read */
	bool checked;              /* a table read and checked: r is filled */
	struct validate_result r;
	struct diags d;
	size_t errors, warnings, notes;
	bool failed;               /* errors, or warnings under strict */
};

struct validate_report {
	struct validate_check *v;  /* in order: per version, per file */
	size_t n;
	size_t files;              /* distinct files */
	size_t failed, errors, warnings, notes; /* over every check */
	bool strict;               /* the request's */
	int status;                /* the exit status: TT_OK, TT_INVALID (a check failed),
				    * TT_INTERNAL (a file could not be read for a reason other than
				    * its content), or TT_USAGE: a bad --flashinfer; the run
				    * stopped at the last check, whose diagnostics say why */
};

/* Checks every file of req, reading provenance files beside tables for the version and dtype
 * they were generated for. Fills out (release with validate_report_release); returns its
 * status. */
int validate_run(const struct validate_request *req, struct validate_report *out);
void validate_report_release(struct validate_report *r);

/* The report as JSON lines: one object per finding {"file", "line", "col", "severity",
 * "check", "message"}, then one {"summary": {...}} (docs/commands/validate.md), with or
 * without findings. Text that is not UTF-8 has U+FFFD in place of its bad bytes. */
void validate_write_json(const struct validate_report *r, struct strbuf *out);

/* The report as a JUnit XML document (one test case per check, errors as its failure,
 * warnings and notes as its output), well-formed XML 1.0: characters XML forbids are
 * written as visible escapes (\x01), never as character references. */
void validate_write_junit(const struct validate_report *r, struct strbuf *out);

/* Bytes about to be written as a table, checked with these rules first (generate and merge
 * write nothing that does not pass). */
/* Reads buf (len bytes) as the table file `name` (the name the file-name checks and the
 * diagnostics see) and validates it with data and o. What the read and the checks find goes
 * to d. Returns TT_OK when the bytes pass (no error added to d); else the read's or validate's code,
 * or TT_INVALID when only the checks failed. */
int validate_bytes(const struct validate_data *data, const char *name, const char *buf,
		   size_t len, const struct validate_opts *o, struct diags *d);


#endif
