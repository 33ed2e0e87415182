/* install.h: a JSON autotune cache put where a consumer (configs/consumers/) reads it, for
 * every rank: the files, their merged content and the conflicts, computed here; the command
 * writes them (as one set) and prints. */
#ifndef TUNETAB_INSTALL_H
#define TUNETAB_INSTALL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "consumer.h"
#include "diag.h"

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
};

/* Plans the install of `ours` (a JSON autotune cache, _metadata and entries) for a
 * deployment of tp x pp x dp ranks: renders v's folder and per-rank file names with var (the
 * rank variables are filled here), reads the rank files already there (all of them, so every
 * rank gets the same content: SGLang drops files that differ), merges: an entry we do not
 * have is kept, ours is added, a key whose tactic differs keeps theirs unless replace. The
 * existing files' _metadata is kept when there is one. TT_INVALID for an existing file that
 * is not a JSON object (named with its line and column). */
int install_plan(const struct consumer_version *v, consumer_var_fn var, void *ctx, int tp, int pp,
		 int dp, json_t *ours, bool replace, struct install_result *r, struct diags *d);
void install_result_release(struct install_result *r);

struct fi_schema;
/* The use_fused_finalize the cache's keys were built for, read as schema (the FlashInfer
 * version's key rules) reads them (key_fused_finalize): 1 all True, 0 all False, -1 mixed,
 * undecodable or keys without the field. */
int install_keys_fused_finalize(json_t *cache, const struct fi_schema *schema);

#endif
