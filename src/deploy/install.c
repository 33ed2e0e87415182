/* install.c: plan an install of a JSON autotune cache for every rank (install.h). */
#include "deploy/install.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "flashinfer/key.h"
#include "flashinfer/table.h"
#include "base/util.h"

/* The rank variables over the caller's. */
struct rank_ctx {
	consumer_var_fn var;
	void *ctx;
	char tp_rank[16], pp_rank[16], dp_rank[16], world_rank[16];
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
	if (!strcmp(name, "world_rank"))
		return x->world_rank;
	return x->var(x->ctx, name);
}

/* The tactic of a cache entry ([runner, tactic, ...]) as compact JSON. Caller frees. */
static char *tactic_text(json_t *e)
{
	json_t *t = json_is_array(e) ? json_array_get(e, 1) : e;
	char *s = t ? json_dumps(t, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	return s ? s : xstrdup("?");
}

static void push_conflict(struct install_conflict **v, size_t *n, const char *key, json_t *ours,
			  json_t *theirs)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = (struct install_conflict){
		.key = xstrdup(key), .ours = tactic_text(ours), .theirs = tactic_text(theirs),
	};
}

static void add_conflict(struct install_result *r, const char *key, json_t *ours, json_t *theirs)
{
	push_conflict(&r->conflicts, &r->nconflicts, key, ours, theirs);
}

int install_plan(const struct consumer_version *v, consumer_var_fn var, void *ctx, int tp, int pp,
		 int dp, json_t *ours, json_t *env_meta, bool replace, struct install_result *r,
		 struct diags *d)
{
	memset(r, 0, sizeof *r);
	struct rank_ctx x = { .var = var, .ctx = ctx };
	snprintf(x.tp_rank, sizeof x.tp_rank, "0");
	snprintf(x.pp_rank, sizeof x.pp_rank, "0");
	snprintf(x.dp_rank, sizeof x.dp_rank, "0");
	snprintf(x.world_rank, sizeof x.world_rank, "0");
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
				snprintf(x.world_rank, sizeof x.world_rank, "%d", pi * tp + ti);
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
	/* _metadata FlashInfer would reject in this environment: ours instead */
	json_t *saved = json_object_get(merged, "_metadata"), *mine = json_object_get(ours, "_metadata");
	const char *field;
	if (env_meta && saved && mine && (r->meta_mismatch = install_meta_mismatch(saved, env_meta, &field))) {
		snprintf(r->meta_field, sizeof r->meta_field, "%s", field);
		json_object_set(merged, "_metadata", mine);
	}
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

/* --- FlashInfer's managed store ------------------------------------------ */

/* The key's structural form as FlashInfer's _encode_key_fields writes it: tuples as
 * {"__tuple__": [...]}, torch dtypes as {"__dtype__": "bfloat16"}; NULL when the key holds
 * something it cannot encode. */
static json_t *key_fields(const struct pyv *v)
{
	switch (v->kind) {
	case PV_INT: return json_integer(v->i);
	case PV_STR: return json_stringn(v->s, v->len);
	case PV_TRUE: return json_true();
	case PV_FALSE: return json_false();
	case PV_NONE: return json_null();
	case PV_NAME:
		if (v->len > 6 && !strncmp(v->s, "torch.", 6)) {
			json_t *o = json_object();
			json_object_set_new(o, "__dtype__", json_stringn(v->s + 6, v->len - 6));
			return o;
		}
		return NULL;
	case PV_TUPLE:
	case PV_LIST: {
		json_t *a = json_array();
		for (size_t i = 0; i < v->n; i++) {
			json_t *x = key_fields(&v->items[i]);
			if (!x) {
				json_decref(a);
				return NULL;
			}
			json_array_append_new(a, x);
		}
		if (v->kind == PV_LIST)
			return a;
		json_t *o = json_object();
		json_object_set_new(o, "__tuple__", a);
		return o;
	}
	default: return NULL;
	}
}

/* Whether path exists, and its text (NULL when it does not or cannot be read). */
static char *read_if_there(const char *path, bool *exists)
{
	char *text = NULL;
	size_t len;
	int e = read_file(path, 0, &text, &len);
	*exists = e != ENOENT;
	return e ? NULL : text;
}

/* j as FlashInfer's json.dump(obj, f, indent=2, sort_keys=True) writes it. Caller frees. */
static char *py_dump_sorted(json_t *j)
{
	struct strbuf sb = STRBUF_INIT;
	table_py_json(j, 2, true, &sb);
	return sb_detach(&sb);
}

int install_store_plan(const struct consumer_store *st, const char *root, json_t *manifest,
		       json_t *ours, bool replace, struct install_store *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	json_t *m = json_deep_copy(manifest);
	json_object_set_new(m, "cache_schema", json_string(st->cache_schema));
	const char *k;
	json_t *x;
	json_object_foreach(m, k, x)
		if (!json_is_string(x)) {
			json_decref(m);
			return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "the environment's "
					  "metadata holds a value that is not a string");
		}
	/* the env hash: sha256 of json.dumps(manifest, sort_keys=True, separators=(",", ":")) */
	struct strbuf canon = STRBUF_INIT;
	table_py_json(m, -1, true, &canon);
	char hash[65];
	sha256_hex(canon.buf, canon.len, st->env_hash_hex, hash);
	sb_release(&canon);
	r->env_hash = xstrdup(hash);
	/* the store's dir template has one variable, {env_hash} */
	const char *at = strstr(st->dir, "{env_hash}");
	r->dir = at ? xasprintf("%s/%.*s%s%s", root, (int)(at - st->dir), st->dir, hash, at + 10)
		    : xasprintf("%s/%s", root, st->dir);
	r->manifest_path = xasprintf("%s/manifest.json", r->dir);
	r->manifest = py_dump_sorted(m);
	json_decref(m);
	free(read_if_there(r->manifest_path, &r->manifest_exists));
	json_t *policy = json_loads(st->entry_policy, 0, NULL);
	struct arena a = ARENA_INIT;
	size_t n = json_object_size(ours);
	r->paths = xcalloc(n ? n : 1, sizeof *r->paths);
	r->contents = xcalloc(n ? n : 1, sizeof *r->contents);
	r->exists = xcalloc(n ? n : 1, sizeof *r->exists);
	const char *key;
	json_t *val;
	json_object_foreach(ours, key, val) {
		if (key[0] == '_')
			continue;
		char eh[65];
		sha256_hex(key, strlen(key), st->entry_hash_hex, eh);
		json_t *e = json_object();
		json_object_set_new(e, "key", json_string(key));
		json_object_set(e, "runner", json_array_get(val, 0));
		json_object_set(e, "tactic", json_array_get(val, 1));
		json_t *pol = json_array_get(val, 2);
		json_object_set(e, "profiling_policy", json_is_array(pol) ? pol : policy);
		const struct pyv *t = key_parse_canonical(key, strlen(key), &a);
		json_t *kf = t ? key_fields(t) : NULL;
		if (kf)
			json_object_set_new(e, "key_fields", kf);
		else
			r->unencodable++;
		size_t i = r->n++;
		r->paths[i] = xasprintf("%s/entries/%s.json", r->dir, eh);
		char *there = read_if_there(r->paths[i], &r->exists[i]);
		json_t *theirs = there ? json_loads(there, 0, NULL) : NULL;
		free(there);
		json_t *tt = json_object_get(theirs, "tactic");
		bool same_key = json_is_object(theirs) &&
				!strcmp(json_string_value(json_object_get(theirs, "key")) ?
					json_string_value(json_object_get(theirs, "key")) : "", key);
		if (!r->exists[i]) {
			r->added++;
		} else if (same_key && tt && json_equal(tt, json_array_get(val, 1))) {
			r->same++;
		} else {
			push_conflict(&r->conflicts, &r->nconflicts, key, val, tt ? tt : theirs);
			if (replace) {
				r->replaced++;
			} else {
				r->kept_theirs++;
				json_decref(e);
				json_decref(theirs);
				r->contents[i] = NULL; /* left as it is */
				continue;
			}
		}
		r->contents[i] = py_dump_sorted(e);
		json_decref(e);
		json_decref(theirs);
	}
	arena_release(&a);
	json_decref(policy);
	/* entry files of this environment that are not ours */
	char *edir = xasprintf("%s/entries", r->dir);
	DIR *dh = opendir(edir);
	for (struct dirent *de; dh && (de = readdir(dh));) {
		if (!str_ends(de->d_name, ".json"))
			continue;
		bool ours_too = false;
		for (size_t i = 0; i < r->n && !ours_too; i++)
			ours_too = !strcmp(strrchr(r->paths[i], '/') + 1, de->d_name);
		r->theirs_only += !ours_too;
	}
	if (dh)
		closedir(dh);
	free(edir);
	return TT_OK;
}

void install_store_release(struct install_store *r)
{
	free(r->dir);
	free(r->env_hash);
	free(r->manifest_path);
	free(r->manifest);
	for (size_t i = 0; i < r->n; i++) {
		free(r->paths[i]);
		free(r->contents[i]);
	}
	free(r->paths);
	free(r->contents);
	free(r->exists);
	for (size_t i = 0; i < r->nconflicts; i++) {
		free(r->conflicts[i].key);
		free(r->conflicts[i].ours);
		free(r->conflicts[i].theirs);
	}
	free(r->conflicts);
	memset(r, 0, sizeof *r);
}

int install_meta_mismatch(json_t *saved, json_t *current, const char **field)
{
	int worst = 0;
	const char *k;
	json_t *cur;
	*field = NULL;
	json_object_foreach(current, k, cur) {
		json_t *sv = json_is_object(saved) ? json_object_get(saved, k) : NULL;
		const char *s = json_string_value(sv);
		if (s && (!strcmp(s, "*") || (json_string_value(cur) && !strcmp(s, json_string_value(cur)))))
			continue;
		int level = !sv || json_is_null(sv) || (s && (!strcmp(s, "unknown") || !strcmp(s, "None")))
				    ? 1 : 2;
		if (level > worst) {
			worst = level;
			*field = k;
		}
	}
	return worst;
}

char *install_find_key(const char *root, unsigned hex, size_t *n, char *list, size_t listn)
{
	*n = 0;
	list[0] = '\0';
	DIR *dh = opendir(root);
	char *found = NULL;
	for (struct dirent *de; dh && (de = readdir(dh));) {
		if (strlen(de->d_name) != hex || strspn(de->d_name, "0123456789abcdef") != hex)
			continue;
		(*n)++;
		size_t l = strlen(list);
		snprintf(list + l, listn - l, "%s%s", l ? ", " : "", de->d_name);
		free(found);
		found = xstrdup(de->d_name);
	}
	if (dh)
		closedir(dh);
	if (*n != 1) {
		free(found);
		return NULL;
	}
	return found;
}
