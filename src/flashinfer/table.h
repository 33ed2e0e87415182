/* table.h: one model for FlashInfer tuning tables, whether read from a bundled module
 * (v…_trtllm_fused_moe_<DEVICE>.py, flashinfer-formats.md §1.2) or a JSON autotune cache
 * (§2), and the writers that reproduce FlashInfer's bytes. */
#ifndef TUNETAB_TABLE_H
#define TUNETAB_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "flashinfer/pylit.h"

/* Entries one table may hold (docs/guide.md, "Limits"); FlashInfer's own tables hold about 100. */
#define TABLE_MAX_ENTRIES 100000u

enum table_kind { TABLE_PY, TABLE_JSON };

struct table_entry {
	const char *key;      /* the key string exactly as stored */
	size_t key_len;
	int line, col;        /* of the key */
	int vline, vcol;      /* of the value */
	const struct pyv *value;   /* the whole value as read (py: tuple; json: array as tuple) */
	bool value_ok;        /* (runner, tactic): py a 2-tuple; json [runner, tactic, ...] */
	bool value_real;      /* json: a list holding a number with a fraction or an exponent
			       * (1.0): not read into value */
	long long runner_id;  /* py: slot 0 (an int) */
	const char *runner;   /* json: runner class name */
	const struct pyv *tactic;  /* int, or nested tuple */
	int dup_of;           /* index of an earlier entry with the same key, else -1 */
	const char *policy;   /* a generated entry's profiling policy (JSON text), or NULL */
	const char *selection; /* the selection record after the policy (JSON text): a generated
				* entry's, or a JSON entry's as read; NULL when none */
};

/* How a measured entry's tactic was chosen, as FlashInfer 0.7.4 saves it after the policy
 * (AutoTuner._selection_record, autotuner/autotuner.py:3378-3398): the chosen candidate's
 * time, the fastest other candidate's (< 0: none; above the chosen one's unless a rule kept a
 * slower tactic, then the margin is negative), and how many candidates have a time, the
 * chosen one included (0: no record). Microseconds, as tunetab measures; the record is in
 * milliseconds, as FlashInfer's profiler measures. */
struct table_selection {
	double time_us, runner_up_us;
	int candidates;
};

struct table_meta {
	const char *name;
	const char *value;    /* NULL when not a string */
	const char *json;     /* the value as compact JSON text */
	int line, col;
};

struct table {
	enum table_kind kind;
	char *path;
	struct table_entry *entries;
	size_t n, cap;
	/* py */
	bool has_best_configs;
	/* json */
	bool has_metadata, metadata_is_object;
	struct table_meta *meta;
	size_t n_meta, meta_alloc;
	void *records;        /* opaque JSON value of _records, or NULL */
	void *doc;            /* json: the document as read (entries' policy and selection
			       * elements are written back from it), or NULL */
	bool records_is_object;
	const char *generation; /* NULL when absent or not a string */
	bool has_generation;
	struct arena arena;
	struct py_module module;
	char *text;           /* the file's bytes (table_read), which the module tree uses */
};

/* Reads a table; the kind comes from the content ('{' first = JSON). Syntax and shape
 * errors that make the whole file unreadable are added to d (ids "syntax",
 * "best-configs", "json-top-level") and return TT_INVALID; entry-level problems are left
 * for the validator. Limits: 256 MiB input. */
int table_read(const char *path, struct table *t, struct diags *d);
/* text must outlive t (a module's strings point into it). */
int table_read_mem(const char *name, const char *text, size_t len, struct table *t,
		   struct diags *d);
void table_release(struct table *t);
/* Sets dup_of on every entry whose key appeared before (readers call it). */
void table_mark_duplicates(struct table *t);

/* Adds an entry (for generators); strings are copied into the table's arena. */
void table_add(struct table *t, const char *key, long long runner_id, const char *runner,
	       const struct pyv *tactic);
/* Adds an entry carrying a profiling policy and, when not NULL, a selection record (JSON text:
 * the value's third and fourth elements). */
void table_add_policy(struct table *t, const char *key, const char *runner,
		      const struct pyv *tactic, const char *policy, const char *selection);
/* The record of the candidate times_us[winner] among times_us[0..n), one time per candidate
 * timed; one that is not a finite number >= 0 (a candidate that failed) counts for nothing,
 * as FlashInfer's inf. A winner without such a time gives no record. */
void table_selection_of(const double *times_us, size_t n, size_t winner,
			struct table_selection *out);
/* The record as Python's json.dumps writes FlashInfer's dict, appended to out:
 * {"time_ms": 0.005372, "runner_up_ms": 0.005378, "margin": 0.001117, "candidates": 5}, each
 * time round(x, 6) in milliseconds, the margin round(runner_up / time - 1, 6), null where
 * there is no other candidate; nothing when s holds no record. */
void table_selection_json(const struct table_selection *s, struct strbuf *out);
/* Sorts entries by key in Python code-point order (the order FlashInfer writes). */
void table_sort(struct table *t);

/* The bundled module in the ruff/black layout of the shipped files (§1.2). */
void table_write_py(const struct table *t, struct strbuf *out);
/* The JSON cache as json.dump(indent=2) writes it: _metadata, _records, entries sorted,
 * then _generation when with_generation (§2.2). */
int table_write_json(const struct table *t, bool with_generation, struct strbuf *out);
/* j as Python's json.dumps writes it (ensure_ascii): indent < 0 with separators (",", ":"),
 * else indent=N; object keys sorted when sort_keys, else in their order. */
struct json_t;
void table_py_json(struct json_t *j, int indent, bool sort_keys, struct strbuf *out);
/* A JSON cache document (any _generation in it dropped) as FlashInfer's save_configs writes
 * it (§2.2, §2.5): _metadata, _records when not empty, the entries sorted by key, _generation
 * recomputed over them; json.dump(indent=2). */
void table_json_canonical(struct json_t *doc, struct strbuf *out);
/* Lowercase hex SHA-256 of the compact sort_keys JSON of everything but _generation. */
int table_generation(const struct table *t, char hex[65]);
/* The JSON half of table_read (table_json.c); table.c dispatches to it. */
int table_json_read(const char *name, const char *text, size_t len, struct table *t,
		    struct diags *d);
void table_json_release(struct table *t);

/* A tactic's JSON text ("5", "[8, 3]", "[[128, 8], [1, 1], true, false, \"sm100\", null]")
 * as the value FlashInfer's loader makes of it (lists become tuples, §2.4), in arena a.
 * -1 when the text is not JSON or holds a real. */
int table_json_tactic(const char *text, struct arena *a, struct pyv *out);
/* Sets a _metadata field (string value; adds it when missing). */
void table_set_meta(struct table *t, const char *name, const char *value);

#endif
