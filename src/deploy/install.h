/* install.h: a JSON autotune cache put where a consumer (configs/consumers/) reads it, for
 * every rank: the files, their merged content and the conflicts, computed here; the command
 * writes them (as one set) and prints. */
#ifndef TUNETAB_INSTALL_H
#define TUNETAB_INSTALL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "data/consumer.h"
#include "base/diag.h"

struct install_conflict {
	char *key;
	char *ours, *theirs; /* the tactics, as compact JSON */
};

struct install_result {
	char *dir;           /* the folder of the rank files */
	char **paths;        /* one per rank: tp_rank fastest, then pp_rank, then dp_rank */
	size_t npaths, existing; /* rank files already there */
	bool *exists;        /* per path */
	bool differ;         /* the existing rank files' contents are not all equal */
	char *bytes;         /* the content every rank file gets */
	size_t len;
	size_t added, same, kept_theirs, replaced; /* our entries: new, equal, conflicts */
	size_t theirs_only;  /* entries of the existing files we do not have */
	struct install_conflict *conflicts;
	size_t nconflicts;
	char meta_field[64];  /* the existing files' _metadata field that differs from env_meta
			       * ("" when none or not checked) */
	int meta_mismatch;    /* 0 none, 1 soft, 2 hard: then ours replaces their _metadata
			       * (their entries are kept) */
};

/* How FlashInfer judges saved _metadata against the current one (load_configs,
 * _classify_metadata_mismatches): 0 every field equal or "*", 1 soft (missing, null,
 * "unknown", "None"), 2 hard (another value). *field gets the first field that differs. */
int install_meta_mismatch(json_t *saved, json_t *current, const char **field);

/* Plans the install of `ours` (a JSON autotune cache, _metadata and entries) for a
 * deployment of tp x pp x dp ranks: renders v's folder and per-rank file names with var (the
 * rank variables are filled here), reads the rank files already there (all of them, so every
 * rank gets the same content: SGLang drops files that differ), merges: an entry we do not
 * have is kept, ours is added, a key whose tactic differs keeps theirs unless replace. The
 * existing files' _metadata is kept when there is one. TT_INVALID for an existing file that
 * is not a JSON object (named with its line and column). */
int install_plan(const struct consumer_version *v, consumer_var_fn var, void *ctx, int tp, int pp,
		 int dp, json_t *ours, json_t *env_meta, bool replace, struct install_result *r,
		 struct diags *d);
void install_result_release(struct install_result *r);

/* FlashInfer's managed store for one environment (consumer_store): its manifest, and one
 * entry file per key of the cache. */
struct install_store {
	char *dir;                 /* <root>/<store dir with env_hash> */
	char *env_hash;
	char *manifest_path, *manifest; /* the manifest file and its content */
	bool manifest_exists;
	char **paths, **contents;  /* one entry file per key */
	bool *exists;
	size_t n;
	size_t added, same, kept_theirs, replaced;
	size_t theirs_only;        /* entry files there that are not keys of ours */
	struct install_conflict *conflicts;
	size_t nconflicts;
	size_t unencodable;        /* entries written without key_fields (served, not preloaded) */
};

/* Plans the store under root for manifest (the environment's metadata, exactly as FlashInfer
 * stamps it; cache_schema is added): env hash = sha256 of the canonical manifest JSON
 * (Python's json.dumps(sort_keys=True, separators=(",", ":"))), entries named by sha256 of
 * their key, each {"key", "key_fields", "profiling_policy", "runner", "tactic"}. An entry file
 * already there with another tactic is kept unless replace. */
int install_store_plan(const struct consumer_store *st, const char *root, json_t *manifest,
		       json_t *ours, bool replace, struct install_store *r, struct diags *d);
void install_store_release(struct install_store *r);

/* The folder under root named by `hex` hex digits: the one a server's first start made (a
 * key tunetab cannot compute, consumer_version.key_found). Its name (caller frees), or NULL
 * when there are none or several: *n counts them, list names them (comma-separated). */
char *install_find_key(const char *root, unsigned hex, size_t *n, char *list, size_t listn);

struct fi_schema;
/* The use_fused_finalize the cache's keys were built for, read as schema (the FlashInfer
 * version's key rules) reads them (key_fused_finalize): 1 all True, 0 all False, -1 mixed,
 * undecodable or keys without the field. */
int install_keys_fused_finalize(json_t *cache, const struct fi_schema *schema);

#endif
