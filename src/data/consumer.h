/* consumer.h: where a serving stack reads FlashInfer's autotune JSON cache, as data
 * (configs/consumers/<id>.yaml): per consumer version a cache folder and file name built from
 * templates, and the hashed key some of them put in the folder name. Fills structs and
 * diagnostics; never prints. */
#ifndef TUNETAB_CONSUMER_H
#define TUNETAB_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* One candidate for the cache root: a template whose ${VAR} parts are environment variables;
 * the first candidate whose variables are all set and non-empty is the root. */
struct consumer_root {
	char *path;
	bool expand;                /* a leading ~/ is the home folder (Python's expanduser) */
};

/* FlashInfer's managed store (flashinfer.yaml's managed_store), used by a consumer version for
 * deployments of at most max_ranks ranks with FlashInfer flashinfer_min and up. */
struct consumer_managed {
	unsigned max_ranks;
	char *flashinfer_min;
	char *read;
	struct consumer_root *root;
	unsigned root_count;
};

struct consumer_version {
	char *min, *below;          /* the consumer versions this applies to; below may be NULL */
	char *read;                 /* where the rule was read (release and source file) */
	struct consumer_root *root; /* rank files' root, first match wins */
	unsigned root_count;
	char *dir, *file;           /* templates: {variable} */
	unsigned key_hex;           /* hex digits of sha256 kept for {key} */
	char *key_join;
	char **key_parts;           /* templates joined with key_join, then hashed */
	unsigned key_parts_count;
	bool key_found;             /* {key} is not computed: the name of the folder the server's
				     * first start made (key_hex hex digits) */
	char *key_log;              /* the server's log line that names its cache file */
	bool skips_tuning_when_loaded; /* when every rank's file loads, the server runs no tuning
				     * pass: an entry is used whatever its profiling policy
				     * (otherwise lookups run in FlashInfer's tune mode, which
				     * profiles an entry of another policy again) */
	struct consumer_managed *managed; /* NULL: always rank files */
};

/* FlashInfer's managed store layout (flashinfer.yaml): <root>/<dir>/manifest.json and
 * <root>/<dir>/entries/<sha256(key)[:entry_hash_hex]>.json, {env_hash} = sha256 of the
 * canonical manifest JSON, env_hash_hex digits. */
struct consumer_store {
	char *dir;
	unsigned env_hash_hex, entry_hash_hex;
	char *cache_schema;
	char *entry_policy;         /* JSON array: the profiling policy entries carry */
};

/* One option of the launch command install's flags describe: "option value", left out where
 * value renders as one of omit; without a value the option alone, left out where `when`
 * renders as one of omit. */
struct consumer_word {
	char *option;
	char *value, *when;
	char **omit;
	unsigned omit_count;
};

struct consumer {
	char *id, *name;
	char **tuning_backends;     /* the server tunes at start (and reads the cache) for these */
	unsigned tuning_backends_count;
	unsigned min_sm;            /* and on this SM and up (90 = 9.0) */
	char *tuning_note;          /* when the server tunes, in words */
	char *fused_finalize_env;   /* the variable that sets the server's use_fused_finalize */
	bool fused_finalize_default; /* its value when the variable is unset */
	char *attn_dp;              /* the server has attention DP (install's --attn-dp): where its
				     * rules are read (N divides TP; no DP replicas beside it), or
				     * NULL: it has none */
	struct consumer_version *versions;
	unsigned versions_count;
	struct consumer_store *managed_store; /* flashinfer.yaml only */
	char **flags_command;       /* install's flags as a launch command: these words (templates) */
	unsigned flags_command_count;
	struct consumer_word *flags_options; /* then these options */
	unsigned flags_options_count;
	char *path;                 /* the YAML file */
};

/* Loads configs/consumers/<id>.yaml under data_root. A template naming a variable tunetab
 * does not fill is an error at its file:line:col. TT_INVALID for an unknown id (with the
 * known ones) or a bad file. */
int consumer_load(const char *data_root, const char *id, struct consumer **out, struct diags *d);
void consumer_free(struct consumer *c);

/* The rule for consumer version `version`, or with version NULL the newest. NULL when none
 * applies. */
const struct consumer_version *consumer_pick(const struct consumer *c, const char *version);

/* A variable's value for the templates: NULL when it has none. */
typedef const char *(*consumer_var_fn)(void *ctx, const char *name);

/* The root: the first of roots whose ${VAR}s are all set (rendered with var), with
 * ~/ expanded where asked. Variables and HOME are the server's environment, envvar(ctx,
 * NAME) (NULL: tunetab's own, getenv). *env receives the first candidate's variable (the one
 * to set, for messages). Caller frees; NULL with a diagnostic when none applies. */
char *consumer_root(const struct consumer_root *roots, unsigned n, consumer_var_fn var,
		    consumer_var_fn envvar, void *ctx, const char **env, struct diags *d);

/* The variable the user sets to choose the root: the first ${VAR} of the first candidate
 * (NULL when it names none). Static storage. */
const char *consumer_root_env(const struct consumer_root *roots, unsigned n);

/* The managed store of v for a deployment of `ranks` ranks on FlashInfer fi, or NULL. */
const struct consumer_managed *consumer_managed_for(const struct consumer_version *v,
						     unsigned ranks, const char *fi);

/* Renders a template; {key} is the sha256 key of v's key_parts. Caller frees. NULL (with a
 * diagnostic) when a variable has no value. */
char *consumer_render(const struct consumer_version *v, const char *tmpl, consumer_var_fn var,
		      void *ctx, struct diags *d);

/* The launch command install's flags describe (flags_command, then flags_options rendered
 * with var), as *n words (caller frees each and the array); NULL with *n 0 when the consumer
 * has none, or with a diagnostic when a variable has no value. */
char **consumer_flags_words(const struct consumer *c, consumer_var_fn var, void *ctx, size_t *n,
			    struct diags *d);

/* The variables a template may name. */
extern const char *const consumer_vars[];

#endif
