/* install.c: plan an install of a JSON autotune cache for every rank (install.h). */
#include "install.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "key.h"
#include "util.h"

/* The rank variables over the caller's. */
struct rank_ctx {
	consumer_var_fn var;
	void *ctx;
	char tp_rank[16], pp_rank[16], dp_rank[16];
};

static const char *rank_var(void *vp, const char *name)
{
	struct rank_ctx *x = vp;
	if (!strcmp(name, "tp_rank"))
		return x->tp_rank;
	if (!strcmp(name, "pp_rank"))
		return x->pp_rank;
	if (!strcmp(name, "dp_rank"))
		return x->dp_rank;
	return x->var(x->ctx, name);
}

/* The tactic of a cache entry ([runner, tactic, ...]) as compact JSON. Caller frees. */
static char *tactic_text(json_t *e)
{
	json_t *t = json_is_array(e) ? json_array_get(e, 1) : e;
	char *s = t ? json_dumps(t, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	return s ? s : xstrdup("?");
}

static void add_conflict(struct install_result *r, const char *key, json_t *ours, json_t *theirs)
{
	r->conflicts = xrealloc(r->conflicts, (r->nconflicts + 1) * sizeof *r->conflicts);
	r->conflicts[r->nconflicts++] = (struct install_conflict){
		.key = xstrdup(key), .ours = tactic_text(ours), .theirs = tactic_text(theirs),
	};
}

int install_plan(const struct consumer_version *v, consumer_var_fn var, void *ctx, int tp, int pp,
		 int dp, json_t *ours, bool replace, struct install_result *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	struct rank_ctx x = { .var = var, .ctx = ctx };
	snprintf(x.tp_rank, sizeof x.tp_rank, "0");
	snprintf(x.pp_rank, sizeof x.pp_rank, "0");
	snprintf(x.dp_rank, sizeof x.dp_rank, "0");
	if (!(r->dir = consumer_render(v, v->dir, rank_var, &x, d)))
		return TT_USAGE;
	json_t *merged = json_object(), *first = NULL;
	int rc = TT_OK;
	r->paths = xcalloc((size_t)tp * pp * dp, sizeof *r->paths);
	r->exists = xcalloc((size_t)tp * pp * dp, sizeof *r->exists);
	for (int di = 0; di < dp && !rc; di++)
		for (int pi = 0; pi < pp && !rc; pi++)
			for (int ti = 0; ti < tp && !rc; ti++) {
				snprintf(x.tp_rank, sizeof x.tp_rank, "%d", ti);
				snprintf(x.pp_rank, sizeof x.pp_rank, "%d", pi);
				snprintf(x.dp_rank, sizeof x.dp_rank, "%d", di);
				char *name = consumer_render(v, v->file, rank_var, &x, d);
				if (!name) {
					rc = TT_USAGE;
					break;
				}
				char *path = xasprintf("%s/%s", r->dir, name);
				free(name);
				r->paths[r->npaths++] = path;
				json_error_t err;
				FILE *f = fopen(path, "r");
				if (!f) {
					if (errno != ENOENT)
						rc = diag_error(d, TT_INTERNAL, "io", path, 0, 0, "cannot read: %s",
								strerror(errno));
					continue;
				}
				json_t *theirs = json_loadf(f, 0, &err);
				fclose(f);
				r->existing++;
				r->exists[r->npaths - 1] = true;
				if (!json_is_object(theirs)) {
					rc = diag_error(d, TT_INVALID, "install", path,
							theirs || err.line < 1 ? 1 : err.line,
							theirs || err.column < 1 ? 1 : err.column, "%s",
							theirs ? "not a JSON object: not a FlashInfer autotune "
							"cache" : err.text);
					json_decref(theirs);
					break;
				}
				/* the ranks' files become one: the first file's entry wins */
				const char *key;
				json_t *val;
				json_object_foreach(theirs, key, val)
					if (!json_object_get(merged, key))
						json_object_set(merged, key, val);
				if (!first)
					first = json_incref(theirs);
				else if (!json_equal(first, theirs))
					r->differ = true;
				json_decref(theirs);
			}
	json_decref(first);
	if (rc) {
		json_decref(merged);
		return rc;
	}
	size_t before = 0;
	const char *key;
	json_t *val;
	json_object_foreach(merged, key, val)
		before += key[0] != '_';
	json_object_foreach(ours, key, val) {
		json_t *have = json_object_get(merged, key);
		if (key[0] == '_') { /* _metadata, _generation: theirs stay */
			if (!have)
				json_object_set(merged, key, val);
			continue;
		}
		if (!have) {
			json_object_set(merged, key, val);
			r->added++;
			continue;
		}
		char *a = tactic_text(val), *b = tactic_text(have);
		bool same = !strcmp(a, b);
		free(a);
		free(b);
		if (same) {
			r->same++;
			continue;
		}
		add_conflict(r, key, val, have);
		if (replace) {
			json_object_set(merged, key, val);
			r->replaced++;
		} else {
			r->kept_theirs++;
		}
	}
	r->theirs_only = before - r->same - r->kept_theirs - r->replaced;
	r->bytes = json_dumps(merged, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(merged);
	if (!r->bytes)
		return diag_error(d, TT_INTERNAL, "install", NULL, 0, 0, "cannot encode the cache");
	r->len = strlen(r->bytes);
	return TT_OK;
}

void install_result_release(struct install_result *r)
{
	free(r->dir);
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i]);
	free(r->paths);
	free(r->exists);
	free(r->bytes);
	for (size_t i = 0; i < r->nconflicts; i++) {
		free(r->conflicts[i].key);
		free(r->conflicts[i].ours);
		free(r->conflicts[i].theirs);
	}
	free(r->conflicts);
	memset(r, 0, sizeof *r);
}

int install_keys_fused_finalize(json_t *cache, const struct fi_schema *schema)
{
	struct arena a = ARENA_INIT;
	int seen = -2; /* none yet */
	const char *key;
	json_t *val;
	json_object_foreach(cache, key, val) {
		if (key[0] == '_')
			continue;
		const struct pyv *t = key_parse_canonical(key, strlen(key), &a);
		if (!t) {
			struct diags quiet = DIAGS_INIT;
			t = key_parse(key, strlen(key), &a, NULL, 0, 0, &quiet);
			diags_release(&quiet);
		}
		struct moe_key k;
		int v = t && !key_decode(t, &k) ? key_fused_finalize(schema, &k) : -1;
		if (v < 0 || (seen != -2 && seen != v)) {
			seen = -1;
			break;
		}
		seen = v;
	}
	arena_release(&a);
	return seen == -2 ? -1 : seen;
}
