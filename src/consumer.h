/* consumer.h: where a serving stack reads FlashInfer's autotune JSON cache, as data
 * (configs/consumers/<id>.yaml): per consumer version a cache folder and file name built from
 * templates, and the hashed key some of them put in the folder name. Fills structs and
 * diagnostics; never prints. */
#ifndef TUNETAB_CONSUMER_H
#define TUNETAB_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

struct consumer_version {
	char *min, *below;          /* the consumer versions this applies to; below may be NULL */
	char *read;                 /* where the rule was read (release and source file) */
	char *root_env, *root_default;
	char *dir, *file;           /* templates: {variable} */
	unsigned key_hex;           /* hex digits of sha256 kept for {key} */
	char *key_join;
	char **key_parts;           /* templates joined with key_join, then hashed */
	unsigned key_parts_count;
};

struct consumer {
	char *id, *name;
	char **tuning_backends;     /* the server tunes at start (and reads the cache) for these */
	unsigned tuning_backends_count;
	unsigned min_sm;            /* and on this SM and up (90 = 9.0) */
	char *fused_finalize_env;   /* the variable that sets the server's use_fused_finalize */
	bool fused_finalize_default; /* its value when the variable is unset */
	struct consumer_version *versions;
	unsigned versions_count;
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

/* Renders a template; {key} is the sha256 key of v's key_parts. Caller frees. NULL (with a
 * diagnostic) when a variable has no value. */
char *consumer_render(const struct consumer_version *v, const char *tmpl, consumer_var_fn var,
		      void *ctx, struct diags *d);

/* The variables a template may name. */
extern const char *const consumer_vars[];

#endif
