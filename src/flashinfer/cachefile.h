/* cachefile.h: FlashInfer's JSON autotune cache as a document (flashinfer-formats.md §2): a
 * file read with its error's line and column, its entry keys and _metadata, the merge of
 * another cache's entries (conflicts as compact JSON), the bytes FlashInfer's save_configs
 * writes, placeholders for the keys a server looks up, and the same entries as FlashInfer's
 * managed store keeps them (one file per key, under a manifest). The one home of these
 * documents outside the table reader: callers see an opaque type, never JSON values. */
#ifndef TUNETAB_FI_CACHEFILE_H
#define TUNETAB_FI_CACHEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/util.h"
#include "flashinfer/metadata.h"

/* A JSON autotune cache: an object of entries ("<key>": [runner, tactic, ...]) and fields
 * whose name starts with '_' (_metadata, _records, _generation). */
struct fi_cache;

/* Why bytes are not a cache: line and column (from 1) and the parser's message, or
 * not_object with text "not a JSON object" (then 1:1). */
struct fi_cache_error {
	int line, col;
	bool not_object;
	char text[160];
};

/* Parses a cache from bytes, a file or an open stream; NULL with *e filled (e may be NULL)
 * when it is not JSON or not an object (a file that cannot be opened: the message says so,
 * at 1:1). Free with fi_cache_free. */
struct fi_cache *fi_cache_parse(const char *buf, size_t len, struct fi_cache_error *e);
struct fi_cache *fi_cache_load(const char *path, struct fi_cache_error *e);
struct fi_cache *fi_cache_loadf(FILE *f, struct fi_cache_error *e);
/* An empty cache, and a deep copy of c. */
struct fi_cache *fi_cache_new(void);
struct fi_cache *fi_cache_copy(const struct fi_cache *c);
void fi_cache_free(struct fi_cache *c);

/* Whether a and b hold equal fields (order aside). */
bool fi_cache_equal(const struct fi_cache *a, const struct fi_cache *b);
/* Its _metadata as saved (any JSON value, see metadata.h), or NULL when it has none; valid
 * until c's _metadata is set. */
const struct fi_meta *fi_cache_meta(const struct fi_cache *c);
/* Sets (replaces) c's _metadata; takes ownership of m. */
void fi_cache_set_meta(struct fi_cache *c, struct fi_meta *m);
/* The entry keys (not the '_' fields) in document order, each a copy (*n of them; the array
 * is never NULL; c NULL: none); free with free_strings (base/util.h). */
char **fi_cache_keys(const struct fi_cache *c, size_t *n);
/* Whether c holds key; *policy gets its value's profiling policy (the 3rd element) as JSON
 * text, or NULL when it has none (caller frees). */
bool fi_cache_entry_policy(const struct fi_cache *c, const char *key, char **policy);
/* Sets key's entry to [runner, tactic] (a placeholder: a key looked up, no tactic measured). */
void fi_cache_set_entry(struct fi_cache *c, const char *key, const char *runner, long long tactic);
/* Removes key's entry; false when c has none. */
bool fi_cache_remove(struct fi_cache *c, const char *key);
/* How many entries c holds (its '_' fields aside). */
size_t fi_cache_count(const struct fi_cache *c);
/* key's tactic: 0 with *t set when it is an integer (-1: FlashInfer's fallback, the runner's
 * default), 1 when it is something else (a tuple of a runner's own), -1 when c has no such
 * entry (or the entry has no tactic). */
int fi_cache_tactic(const struct fi_cache *c, const char *key, long long *t);

/* The use_fused_finalize c's keys were built for, read as rules (the FlashInfer version's
 * key rules) read them (key_fused_finalize): 1 all True, 0 all False, -1 mixed,
 * undecodable or keys without the field. */
struct fi_rules;
int fi_cache_fused_finalize(const struct fi_cache *c, const struct fi_rules *rules);

/* The document as FlashInfer's save_configs writes it (table_json_canonical: its order, a
 * _generation of this content), and as compact JSON (caller frees). */
void fi_cache_canonical(const struct fi_cache *c, struct strbuf *out);
char *fi_cache_compact(const struct fi_cache *c);

/* --- merging caches ------------------------------------------------------------------------ */

/* A key two caches hold with different tactics, each as compact JSON (or with the same
 * tactic and other profiling policies: "TACTIC with policy [...]" / "with no policy"). */
struct fi_conflict {
	char *key;
	char *ours, *theirs;
};

void fi_conflicts_free(struct fi_conflict *v, size_t n);

/* What fi_cache_merge did with ours' entries: new, equal, conflicts replaced or kept. */
struct fi_merge {
	size_t added, same, kept_theirs, replaced;
	struct fi_conflict *conflicts;  /* caller frees (fi_conflicts_free) */
	size_t nconflicts, conflicts_alloc;
};

/* Adds every field of from that into lacks (several files made one: the first one's wins). */
void fi_cache_absorb(struct fi_cache *into, const struct fi_cache *from);
/* ours into `into`: an entry it lacks is added, one with another tactic (or, where ours
 * carries a profiling policy, another policy) is a conflict, which keeps into's unless
 * replace; a '_' field of ours only where into has none. *m counts. */
void fi_cache_merge(struct fi_cache *into, const struct fi_cache *ours, bool replace,
		    struct fi_merge *m);

/* --- FlashInfer's managed store: a manifest and one entry file per key ------------------- */

/* The manifest of the store of the environment whose _metadata is meta, cache_schema added:
 * hash gets its env hash (the first hash_hex hex digits of the sha256 of its canonical JSON,
 * Python's json.dumps(sort_keys=True, separators=(",", ":"))), *text (when text is not
 * NULL; caller frees) the file as FlashInfer writes it (json.dump(indent=2, sort_keys=True)).
 * -1 (hash and text made all the same) when a field's value is not a string. */
int fi_store_manifest(const struct fi_meta *meta, const char *cache_schema, unsigned hash_hex,
		      char hash[65], char **text);
/* The entry file of c's key as FlashInfer writes it: {"key", "key_fields", "profiling_policy",
 * "runner", "tactic"}, the entry's own policy or `policy` (JSON text); *key_fields false when
 * the key holds what _encode_key_fields cannot encode (written without it: served, not
 * preloaded). Caller frees. */
char *fi_store_entry(const struct fi_cache *c, const char *key, const char *policy,
		     bool *key_fields);
/* The key the entry file `there` (its text) is for, or NULL when it names none; *policy its
 * profiling_policy as JSON text, NULL when it has no list there (caller frees both). */
char *fi_store_entry_key(const char *there, char **policy);
/* Whether the entry file `there` (its text) holds key with c's tactic for it (and, where c's
 * entry carries a profiling policy, that policy); when not, *x gets the conflict (theirs "?"
 * when the file holds no tactic; free its strings). */
bool fi_store_entry_same(const struct fi_cache *c, const char *key, const char *there,
			 struct fi_conflict *x);

#endif
