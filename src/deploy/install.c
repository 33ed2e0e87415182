/* install.c: plan an install of a JSON autotune cache for every rank (install.h). */
#include "deploy/install.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "deployment/ranks.h"
#include "flashinfer/key.h"
#include "flashinfer/metadata.h"
#include "flashinfer/keydiff.h"
#include "flashinfer/table.h"
#include "base/util.h"
#include "base/version.h"
#include "deployment/python.h"
#include "flashinfer/fienv.h"

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

/* v's folder: its dir template with every rank variable 0. Caller frees; NULL with a
 * diagnostic. */
static char *rank0_dir(const struct consumer_version *v, consumer_var_fn var, void *ctx,
		       struct diags *d)
{
	struct rank_ctx x = { var, ctx, "0", "0", "0", "0" };
	return consumer_render(v, v->dir, rank_var, &x, d);
}

/* The tactic of a cache entry ([runner, tactic, ...]) as compact JSON. Caller frees. */
static char *tactic_text(json_t *e)
{
	json_t *t = json_is_array(e) ? json_array_get(e, 1) : e;
	char *s = t ? json_dumps(t, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	return s ? s : xstrdup("?");
}

static void push_conflict(struct install_conflict **v, size_t *n, size_t *alloc, const char *key,
			  json_t *ours, json_t *theirs)
{
	ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = (struct install_conflict){
		.key = xstrdup(key), .ours = tactic_text(ours), .theirs = tactic_text(theirs),
	};
}

static void free_conflicts(struct install_conflict *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].ours);
		free(v[i].theirs);
	}
	free(v);
}

int install_merge(const struct consumer_version *v, consumer_var_fn var, void *ctx,
		 const struct server_rank *ranks, size_t nranks, json_t *ours, json_t *env_meta,
		 bool replace, struct install_result *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	struct rank_ctx x = { .var = var, .ctx = ctx };
	snprintf(x.tp_rank, sizeof x.tp_rank, "0");
	snprintf(x.pp_rank, sizeof x.pp_rank, "0");
	snprintf(x.dp_rank, sizeof x.dp_rank, "0");
	snprintf(x.world_rank, sizeof x.world_rank, "0");
	if (!(r->dir = rank0_dir(v, var, ctx, d)))
		return TT_USAGE;
	json_t *merged = json_object(), *first = NULL;
	const char *ours_fi = json_string_value(json_object_get(json_object_get(ours, "_metadata"),
								 "flashinfer_version"));
	int rc = TT_OK;
	r->paths = xcalloc(nranks ? nranks : 1, sizeof *r->paths);
	r->exists = xcalloc(nranks ? nranks : 1, sizeof *r->exists);
	for (size_t ri = 0; ri < nranks && !rc; ri++) {
		const struct server_rank *sr = &ranks[ri];
		snprintf(x.tp_rank, sizeof x.tp_rank, "%ld", sr->tp_rank);
		snprintf(x.pp_rank, sizeof x.pp_rank, "%ld", sr->pp_rank);
		snprintf(x.dp_rank, sizeof x.dp_rank, "%ld", sr->dp_rank);
		snprintf(x.world_rank, sizeof x.world_rank, "%ld", sr->world_rank);
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
		/* the first file stamped for another FlashInfer than ours */
		const char *fi = json_string_value(json_object_get(
			json_object_get(theirs, "_metadata"), "flashinfer_version"));
		if (!r->other_fi[0] && fi && strcmp(fi, "*") && ours_fi && strcmp(fi, ours_fi))
			snprintf(r->other_fi, sizeof r->other_fi, "%s", fi);
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
	/* the existing files' keys: merged holds their union so far */
	r->theirs_keys = install_entry_keys(merged, &r->ntheirs);
	size_t before = 0;
	const char *key;
	json_t *val;
	json_object_foreach(merged, key, val)
		before += key[0] != '_';
	json_object_foreach(ours, key, val) {
		json_t *have = json_object_get(merged, key);
		if (key[0] == '_') { /* _metadata, _records: theirs stay; _generation is redone */
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
		push_conflict(&r->conflicts, &r->nconflicts, &r->conflicts_alloc, key, val, have);
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
	} else if (!env_meta && saved && mine) {
		/* no environment to judge by: the version ours is for is the server's, and a
		 * file stamped for another is ignored whole there */
		const char *b = json_string_value(json_object_get(mine, "flashinfer_version"));
		int level = b && strcmp(b, "*") ? fi_meta_level(fi_meta_field_json(
				json_is_object(saved) ? json_object_get(saved, "flashinfer_version") : NULL, b))
						: 0;
		if (level > 0) {
			r->meta_mismatch = level;
			snprintf(r->meta_field, sizeof r->meta_field, "flashinfer_version");
			json_object_set(merged, "_metadata", mine);
		}
	}
	/* as FlashInfer's save_configs writes it: its order, and a _generation of this content
	 * (the files' own one is stale after the merge) */
	struct strbuf sb = STRBUF_INIT;
	table_json_canonical(merged, &sb);
	json_decref(merged);
	r->len = sb.len;
	r->bytes = sb_detach(&sb);
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
	install_keys_free(r->theirs_keys, r->ntheirs);
	free_conflicts(r->conflicts, r->nconflicts);
	memset(r, 0, sizeof *r);
}

int install_keys_fused_finalize(json_t *cache, const struct fi_rules *rules)
{
	struct arena a = ARENA_INIT;
	int seen = -2; /* none yet */
	const char *key;
	json_t *val;
	json_object_foreach(cache, key, val) {
		if (key[0] == '_')
			continue;
		const struct pyv *t = key_parse_any(key, strlen(key), &a);
		struct moe_key k;
		int v = t && !key_decode(t, &k) ? key_fused_finalize(rules, &k) : -1;
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

/* The manifest of `manifest`'s store as FlashInfer writes it (cache_schema added; caller
 * decrefs), and the store's folder under root (*dir, caller frees), named by its env hash
 * (hash): sha256 of json.dumps(manifest, sort_keys=True, separators=(",", ":")). */
static json_t *store_manifest(const struct consumer_store *st, const char *root, json_t *manifest,
			      char hash[65], char **dir)
{
	json_t *m = json_deep_copy(manifest);
	json_object_set_new(m, "cache_schema", json_string(st->cache_schema));
	struct strbuf canon = STRBUF_INIT;
	table_py_json(m, -1, true, &canon);
	sha256_hex(canon.buf, canon.len, st->env_hash_hex, hash);
	sb_release(&canon);
	/* the store's dir template has one variable, {env_hash} */
	const char *at = strstr(st->dir, "{env_hash}");
	*dir = at ? xasprintf("%s/%.*s%s%s", root, (int)(at - st->dir), st->dir, hash, at + 10)
		  : xasprintf("%s/%s", root, st->dir);
	return m;
}

int install_store_plan(const struct consumer_store *st, const char *root, json_t *manifest,
		       json_t *ours, bool replace, struct install_store *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	char hash[65];
	json_t *m = store_manifest(st, root, manifest, hash, &r->dir);
	const char *k;
	json_t *x;
	json_object_foreach(m, k, x)
		if (!json_is_string(x)) {
			json_decref(m);
			return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "the environment's "
					  "metadata holds a value that is not a string");
		}
	r->env_hash = xstrdup(hash);
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
			push_conflict(&r->conflicts, &r->nconflicts, &r->conflicts_alloc, key, val,
				      tt ? tt : theirs);
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
	free_conflicts(r->conflicts, r->nconflicts);
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
		int level = fi_meta_level(fi_meta_field_json(sv, json_string_value(cur)));
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

/* --- tunetab install as calls ---------------------------------------------------------- */

static void set_var(struct install_job *j, const char *name, const char *value)
{
	j->var_names[j->nvars] = name;
	j->var_values[j->nvars++] = value;
}

static const char *get_var(void *vp, const char *name)
{
	struct install_job *j = vp;
	for (size_t i = 0; i < j->nvars; i++)
		if (!strcmp(j->var_names[i], name))
			return j->var_values[i];
	return NULL;
}

/* skip ops as the consumer joins them: sorted, comma-separated. Caller frees. */
static char *sorted_list(const char *s)
{
	char *copy = xstrdup(s ? s : ""), *save = NULL;
	char *items[64];
	size_t n = 0;
	for (char *t = strtok_r(copy, ",", &save); t && n < 64; t = strtok_r(NULL, ",", &save))
		items[n++] = t;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(items[j - 1], items[j]) > 0; j--) {
			char *t = items[j];
			items[j] = items[j - 1];
			items[j - 1] = t;
		}
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s", "");
	for (size_t i = 0; i < n; i++)
		sb_addf(&sb, "%s%s", i ? "," : "", items[i]);
	free(copy);
	return sb_detach(&sb);
}

/* FlashInfer's workspace arch for an SM (jit/env.py + compilation_context.py): "90a". */
static void fi_arch_of(long sm, char *out, size_t n)
{
	if (sm >= 90 && sm != 120)
		snprintf(out, n, "%lda", sm);
	else if (sm == 120)
		snprintf(out, n, "120f");
	else
		snprintf(out, n, "%ld", sm);
}

/* Path relative to the data root, for messages ("configs/consumers/sglang.yaml"). */
static const char *rel_path(const char *data_root, const char *path)
{
	size_t n = strlen(data_root);
	return !strncmp(path, data_root, n) && path[n] == '/' ? path + n + 1 : path;
}

static int usage_error(struct install_job *j, struct diags *d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int usage_error(struct install_job *j, struct diags *d, const char *fmt, ...)
{
	(void)d; /* the command prints it with its usage line, after d */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->usage, sizeof j->usage, fmt, ap);
	va_end(ap);
	return TT_USAGE;
}

char *install_finalize_env(const struct install_job *j)
{
	const struct consumer *cons = j->cons;
	int ff = j->rules ? install_keys_fused_finalize(j->ours, j->rules) : -1;
	if (!cons->fused_finalize_env || ff < 0)
		return NULL;
	if (ff == (int)cons->fused_finalize_default)
		return xasprintf("%s unset or %d (the cache's keys are for use_fused_finalize %s, "
				 "the server's default)", cons->fused_finalize_env, ff, ff ? "on" : "off");
	return xasprintf("%s=%d (the cache's keys are for use_fused_finalize %s; without it the "
			 "server asks for %s and no key hits; or generate with --fused-finalize %s)",
			 cons->fused_finalize_env, ff, ff ? "on" : "off",
			 cons->fused_finalize_default ? "on" : "off", ff ? "off" : "on");
}

/* The cache (a JSON object), this environment's FlashInfer and the version targeted. */
static int read_sources(const struct install_request *q, struct install_job *j, struct diags *d)
{
	json_error_t err;
	j->ours = q->cache ? json_deep_copy(q->cache) : json_load_file(q->from, 0, &err);
	if (!json_is_object(j->ours))
		return j->ours ? diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s:1:1: not a JSON "
					    "object: not a FlashInfer autotune cache", q->from)
			       : diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s:%d:%d: %s", q->from,
					    err.line > 0 ? err.line : 1, err.column > 0 ? err.column : 1,
					    err.text);
	j->meta = json_incref(json_object_get(j->ours, "_metadata")); /* the table's own */
	const char *meta_fi = json_string_value(json_object_get(j->meta, "flashinfer_version"));
	if (meta_fi && !strcmp(meta_fi, "*"))
		meta_fi = NULL;

	/* this environment as FlashInfer sees it: its version, the _metadata it stamps */
	const char *pyfrom = NULL;
	if (!q->python && getenv("TUNETAB_TEST_IGNORE_INSTALLED")) /* tests: not this machine's */
		snprintf(j->why, sizeof j->why, "TUNETAB_TEST_IGNORE_INSTALLED is set");
	else if ((j->python = python_find(q->python, &pyfrom, j->why, sizeof j->why)))
		j->fienv = fienv_flashinfer(j->python, j->why, sizeof j->why);
	j->env_meta = json_object_get(j->fienv, "metadata");
	const char *env_fi = json_string_value(json_object_get(j->fienv, "version"));
	if (j->env_meta)
		snprintf(j->env_from, sizeof j->env_from, "%s (%s)", j->python, pyfrom);
	if (!q->flashinfer && env_fi && meta_fi && strcmp(env_fi, meta_fi))
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s holds keys for FlashInfer %s, "
				  "but this environment imports FlashInfer %s (%s): keys of another version "
				  "do not hit; generate for it (tunetab generate --flashinfer %s ...) or give "
				  "--flashinfer", q->from, meta_fi, env_fi, j->python, env_fi);
	j->flashinfer = q->flashinfer ? q->flashinfer : env_fi ? env_fi : meta_fi;
	if (!j->flashinfer)
		return usage_error(j, d, "%s names no FlashInfer version and none is installed here: "
				   "give --flashinfer (the version the server imports)", q->from);
	/* it picks the rule, the store and a folder name: it must be a version */
	struct fi_version fv;
	if (j->flashinfer != q->flashinfer && version_parse(j->flashinfer, &fv))
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s%s is '%s', not a FlashInfer "
				  "version: give --flashinfer (the version the server imports)",
				  j->flashinfer == env_fi ? "" : q->from,
				  j->flashinfer == env_fi ? "this environment's flashinfer.__version__"
							  : ": _metadata.flashinfer_version", j->flashinfer);
	return TT_OK;
}

/* The _metadata our entries carry: this environment's, "*" for each field, or the table's. */
static int stamp_metadata(const struct install_request *q, struct install_job *j, struct diags *d)
{
	const char *mode = q->metadata;
	const char *meta_gpu = json_string_value(json_object_get(j->meta, "gpu"));
	if (mode && !strcmp(mode, "env") && !j->env_meta)
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "--metadata env: cannot read this "
				  "environment's FlashInfer metadata: %s",
				  j->why[0] ? j->why : "no FlashInfer found");
	if ((!mode || !strcmp(mode, "env")) && j->env_meta) {
		json_t *m = json_deep_copy(j->env_meta);
		const char *g = json_string_value(json_object_get(m, "gpu"));
		if ((!g || !strcmp(g, "unknown")) && meta_gpu) /* no GPU here: the table's own */
			json_object_set_new(m, "gpu", json_string(meta_gpu));
		json_object_set_new(j->ours, "_metadata", m);
	} else if (mode && !strcmp(mode, "wildcard")) {
		json_t *m = json_object();
		const char *k;
		json_t *x;
		json_object_foreach(j->meta, k, x)
			json_object_set_new(m, k, json_string("*"));
		json_object_set_new(j->ours, "_metadata", m);
	} else if (!mode && !q->check) {
		j->meta_as_is = true;
	}
	/* kept as the table says: FlashInfer compares flashinfer_version exactly, so a table
	 * stamped for another version is ignored whole where the server imports this one */
	const char *kept = json_string_value(json_object_get(json_object_get(j->ours, "_metadata"),
							     "flashinfer_version"));
	if (!q->check && kept && strcmp(kept, "*") && strcmp(kept, j->flashinfer))
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s's _metadata says FlashInfer "
				  "%s, and the server imports %s: FlashInfer %s ignores the whole file "
				  "(a hard mismatch); generate the table for %s (tunetab generate "
				  "--flashinfer %s ...), or give --metadata wildcard", q->from, kept,
				  j->flashinfer, j->flashinfer, j->flashinfer, j->flashinfer);
	return TT_OK;
}

/* The keys' flag, the SM, and the templates' variables. */
static int resolve_target(const struct install_request *q, const struct device_set *devices,
			  const struct firules_set *all_rules, struct install_job *j, struct diags *d)
{
	/* the version's key rules, to read what the cache's keys say (its flag) */
	struct fi_version fv;
	bool newer;
	const struct fi_rules *rules = version_parse(j->flashinfer, &fv) ? NULL
					 : firules_find(all_rules, &fv, &newer);
	j->rules = rules;
	j->sm = q->sm;
	if (!j->sm) {
		const char *meta_gpu = json_string_value(json_object_get(j->meta, "gpu"));
		const struct device_profile *p = meta_gpu ? device_find(devices, meta_gpu) : NULL;
		if (!p)
			return usage_error(j, d, "%s names no known GPU (_metadata.gpu): give --sm", q->from);
		j->sm = device_sm(p);
	}
	const char *ws = json_string_value(json_object_get(j->fienv, "workspace_dir"));
	if (ws && strrchr(ws, '/'))
		snprintf(j->arch, sizeof j->arch, "%s", strrchr(ws, '/') + 1);
	else
		fi_arch_of(j->sm, j->arch, sizeof j->arch);
	j->torch_dtype = strncmp(q->flags.torch_dtype, "torch.", 6) ? xasprintf("torch.%s", q->flags.torch_dtype)
							      : xstrdup(q->flags.torch_dtype);
	j->skip_sorted = sorted_list(q->flags.skip_ops);
	long nums[5] = { j->sm, q->flags.tp, q->flags.pp, q->flags.attn_dp, q->flags.ep };
	for (int i = 0; i < 5; i++)
		snprintf(j->num[i], sizeof j->num[i], "%ld", nums[i]);
	set_var(j, "flashinfer", j->flashinfer);
	set_var(j, "fi_arch", j->arch);
	set_var(j, "sm", j->num[0]);
	set_var(j, "model_path", q->flags.model_path);
	set_var(j, "torch_dtype", j->torch_dtype);
	set_var(j, "quantization", q->flags.quantization);
	set_var(j, "moe_runner_backend", q->flags.backend);
	set_var(j, "tp", j->num[1]);
	set_var(j, "pp", j->num[2]);
	set_var(j, "attn_dp", j->num[3]);
	set_var(j, "moe_ep", j->num[4]);
	set_var(j, "hf_config_class", q->flags.hf_config_class);
	set_var(j, "skip_ops", j->skip_sorted);
	/* the server tunes at start (and so reads the cache) with these backends on this SM */
	bool tunes = j->cons->tuning_backends_count == 0;
	for (unsigned i = 0; i < j->cons->tuning_backends_count; i++)
		tunes |= !strcmp(j->cons->tuning_backends[i], q->flags.backend);
	j->tunes = tunes && j->sm >= (long)j->cons->min_sm;
	j->backend = q->flags.backend;
	return TT_OK;
}

/* The journal install_write keeps in the folder of the files it writes. Caller frees. */
static char *journal_in(const char *dir)
{
	return xasprintf("%s/.tunetab-install.journal", dir);
}

/* Before the plan reads dir: the journal of an install killed mid-write is rolled back, so
 * the plan merges into the files as they were; where nothing may be written it is only
 * reported. */
static int recover_folder(const struct install_request *q, struct install_job *j,
			  const char *dir, struct diags *d)
{
	char *journal = journal_in(dir);
	int rc = TT_OK, found = 0;
	size_t n = 0;
	if (q->check || q->dry_run) {
		if ((j->interrupted = !access(journal, F_OK)))
			diags_add(d, SEV_WARNING, "install", NULL, 0, 0, "an interrupted install left "
				  "'%s': the folder may be mixed; run the install again to restore it",
				  journal);
	} else {
		int e = file_set_recover(journal, &found, &n);
		if (e)
			rc = diag_error(d, TT_INTERNAL, "install", NULL, 0, 0, "cannot restore '%s' from "
					"the journal of an interrupted install '%s': %s", dir, journal,
					e == EBADMSG ? "not a journal this tunetab reads" : strerror(e));
		else if (found)
			diags_add(d, SEV_WARNING, "install", NULL, 0, 0, "restored '%s' to its state before "
				  "an interrupted install (%zu file%s)", dir, n, n == 1 ? "" : "s");
	}
	free(journal);
	return rc;
}

/* One rank on a FlashInfer with the managed store: its entry files. */
static int plan_store(const struct install_request *q, const char *data_root,
		      struct install_job *j, struct diags *d)
{
	const struct consumer_managed *mg = j->managed;
	int rc = consumer_load(data_root, "flashinfer", &j->fi_cons, d);
	if (rc)
		return rc;
	if (!j->fi_cons->managed_store)
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s has no managed_store",
				  rel_path(data_root, j->fi_cons->path));
	if (!j->env_meta)
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s with one rank reads "
				  "FlashInfer's managed store (%s), named by this environment's exact "
				  "_metadata, and tunetab cannot read it: %s; run where the server runs (or "
				  "give --python), or name a JSON file with --cache-file", j->cons->name,
				  mg->read, j->why[0] ? j->why : "no FlashInfer found");
	j->root = q->cache_dir ? xstrdup(q->cache_dir)
			       : consumer_root(mg->root, mg->root_count, get_var, j, &j->root_env, d);
	j->root_env = consumer_root_env(mg->root, mg->root_count);
	if (!j->root)
		return TT_USAGE; /* consumer_root said why */
	if (q->metadata && strcmp(q->metadata, "env"))
		return usage_error(j, d, "the managed store wants this environment's exact _metadata: "
				   "--metadata %s does not apply", q->metadata);
	char hash[65], *dir;
	json_t *meta = json_object_get(j->ours, "_metadata");
	json_decref(store_manifest(j->fi_cons->managed_store, j->root, meta, hash, &dir));
	rc = recover_folder(q, j, dir, d);
	free(dir);
	if (rc)
		return rc;
	return install_store_plan(j->fi_cons->managed_store, j->root,
				  json_object_get(j->ours, "_metadata"), j->ours, q->replace, &j->store, d);
}

/* One JSON file per rank (or the one file named). */
static int plan_files(const struct install_request *q, struct install_job *j, struct diags *d)
{
	int tp = (int)q->flags.tp, pp = (int)q->flags.pp, dp = (int)q->flags.dp;
	if (q->cache_file) {
		j->own_dir = xstrdup(q->cache_file);
		*strrchr(j->own_dir, '/') = '\0';
		if (!j->v->dir || !j->v->key_found) { /* the file your code names */
			j->own_rule = *j->v;
			j->own_rule.dir = j->own_dir;
			j->own_rule.file = (char *)(strrchr(q->cache_file, '/') + 1);
			j->own_rule.key_found = false;
			j->own_rule.key_parts_count = 0;
			j->v = &j->own_rule;
			j->own_file = true;
			tp = pp = dp = 1;
		} else { /* the rank file the server logged: its folder is <root>/<key> */
			const char *b = strrchr(j->own_dir, '/');
			j->key = xstrdup(b ? b + 1 : j->own_dir);
			j->root = b ? xstrndup(j->own_dir, (size_t)(b - j->own_dir)) : xstrdup(".");
		}
	}
	const struct consumer_version *v = j->v;
	if (!v->dir)
		return usage_error(j, d, "%s %s keeps no cache file of its own here: give --cache-file "
				   "(the path your code passes to autotune(cache=...)); tunetab generate "
				   "--into-flashinfer writes the bundled module", j->cons->name,
				   j->flashinfer);
	if (!j->root && !q->cache_file)
		j->root = q->cache_dir ? xstrdup(q->cache_dir)
				       : consumer_root(v->root, v->root_count, get_var, j, &j->root_env, d);
	if (!j->root_env)
		j->root_env = consumer_root_env(v->root, v->root_count);
	if (!j->root && !j->own_file)
		return TT_USAGE; /* consumer_root said why */
	set_var(j, "root", j->root ? j->root : j->own_dir);
	size_t nkeys;
	if (v->key_found && !j->key &&
	    !(j->key = install_find_key(j->root, v->key_hex, &nkeys, j->folders, sizeof j->folders))) {
		j->nfolders = nkeys;
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s names its cache folder by a "
				  "hash of its whole config, which only %s computes; %s: start %s once "
				  "with this deployment (it logs '%s<path>'), then give that path with "
				  "--cache-file", j->cons->name, j->cons->name,
				  nkeys ? "several folders are there" : "none is there yet",
				  j->cons->name, v->key_log ? v->key_log : "");
	}
	if (j->key)
		set_var(j, "key", j->key);
	/* a variable given no value (model path, config class) stays NULL: rendering a
	 * template that needs it fails, naming it */
	char *dir = rank0_dir(v, get_var, j, d);
	int rc = dir ? recover_folder(q, j, dir, d) : TT_USAGE;
	free(dir);
	if (!rc) {
		struct rank_layout l = { .tp = tp, .pp = pp, .dp = dp,
					 .attn_dp = j->own_file ? 1 : q->flags.attn_dp };
		struct server_rank *ranks;
		size_t n = ranks_lay_out(&l, &ranks);
		rc = install_merge(v, get_var, j, ranks, n, j->ours, j->env_meta, q->replace, &j->res, d);
		free(ranks);
	}
	if (rc == TT_USAGE)
		usage_error(j, d, "%s needs that value: --model-path (as the server is started), "
			    "--hf-config-class (the model config's class, e.g. Qwen3MoeConfig)",
			    j->cons->name);
	return rc;
}

int install_prepare(const struct install_request *q, const char *data_root,
		    const struct device_set *devices, const struct firules_set *rules,
		    struct install_job *j, struct diags *d)
{
	memset(j, 0, sizeof *j);
	/* the versions asked for pick rules by order: anything else is a usage error */
	struct fi_version fv;
	if (q->consumer_version && version_parse(q->consumer_version, &fv))
		return usage_error(j, d, "--consumer-version wants a version such as 0.5.2, not '%s'",
				   q->consumer_version);
	if (q->flashinfer && version_parse(q->flashinfer, &fv))
		return usage_error(j, d, "--flashinfer wants a FlashInfer version such as 0.6.18, not "
				   "'%s'", q->flashinfer);
	int rc = consumer_load(data_root, q->consumer, &j->cons, d);
	if (rc)
		return rc;
	if (!(j->v = consumer_pick(j->cons, q->consumer_version)))
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s: no rule for %s %s in %s",
				  q->consumer, j->cons->name, q->consumer_version,
				  rel_path(data_root, j->cons->path));
	if ((rc = read_sources(q, j, d)) || (rc = stamp_metadata(q, j, d)) ||
	    (rc = resolve_target(q, devices, rules, j, d)))
		return rc;
	/* one rank on a FlashInfer with the managed store: there, unless a file is named */
	j->managed = q->cache_file ? NULL
				   : consumer_managed_for(j->v, (unsigned)(q->flags.tp * q->flags.pp * q->flags.dp),
							  j->flashinfer);
	return j->managed ? plan_store(q, data_root, j, d) : plan_files(q, j, d);
}

void install_job_release(struct install_job *j)
{
	install_result_release(&j->res);
	install_store_release(&j->store);
	json_decref(j->ours);
	json_decref(j->meta);
	json_decref(j->fienv);
	consumer_free(j->cons);
	consumer_free(j->fi_cons);
	free(j->root);
	free(j->key);
	free(j->python);
	free(j->skip_sorted);
	free(j->torch_dtype);
	free(j->own_dir);
	memset(j, 0, sizeof *j);
}

/* Stages path (its folder made first) into set. */
static int stage(struct file_set *set, const char *path, const char *content)
{
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	int e = mkdir_p(dir);
	free(dir);
	return e ? e : file_set_stage(set, path, content, strlen(content), 0644);
}

int install_write(const struct install_job *j, struct diags *d)
{
	const struct install_store *st = &j->store;
	const struct install_result *r = &j->res;
	const char *dir = j->managed ? st->dir : r->dir;
	struct file_set set = { 0 };
	char *journal = journal_in(dir);
	file_set_journal(&set, journal);
	free(journal);
	int e = j->managed && !st->manifest_exists ? stage(&set, st->manifest_path, st->manifest) : 0;
	size_t n = j->managed ? st->n : r->npaths;
	for (size_t i = 0; i < n && !e; i++) {
		const char *c = j->managed ? st->contents[i] : r->bytes; /* NULL: left as it is */
		if (c)
			e = stage(&set, j->managed ? st->paths[i] : r->paths[i], c);
	}
	if (!e)
		e = file_set_commit(&set);
	file_set_abort(&set);
	if (e)
		return diag_error(d, TT_INTERNAL, "install", NULL, 0, 0, "cannot write the cache in '%s': %s",
				  dir, strerror(e));
	return TT_OK;
}

/* --- a server's lookups against what it reads ------------------------------------------ */

static void add_cause(struct install_cause *c, size_t *n, const struct keydiff *kd)
{
	for (size_t k = 0; k < kd->n; k++) {
		size_t i = 0;
		while (i < *n && strcmp(c[i].field, kd->f[k].field))
			i++;
		if (i == *n) {
			if (*n == INSTALL_CAUSES_MAX)
				continue;
			c[i].field = kd->f[k].field;
			c[i].count = 0;
			snprintf(c[i].want, sizeof c[i].want, "%s", kd->f[k].want);
			snprintf(c[i].have, sizeof c[i].have, "%s", kd->f[k].have);
			(*n)++;
		}
		c[i].count++;
	}
}

size_t install_missing(const struct fi_rules *rules, const char *const *want, size_t nwant,
		       const char *const *have, size_t nhave, struct install_cause *causes,
		       size_t *n, size_t *unmatched)
{
	const char **sorted = xcalloc(nhave ? nhave : 1, sizeof *sorted);
	if (nhave) {
		memcpy(sorted, have, nhave * sizeof *have);
		qsort(sorted, nhave, sizeof *sorted, str_ptr_cmp);
	}
	size_t missing = 0;
	for (size_t i = 0; i < nwant; i++) {
		if (bsearch(&want[i], sorted, nhave, sizeof *sorted, str_ptr_cmp))
			continue;
		missing++;
		struct keydiff kd;
		keydiff(rules, want[i], have, nhave, &kd);
		if (!kd.nearest)
			(*unmatched)++;
		else
			add_cause(causes, n, &kd);
	}
	free(sorted);
	return missing;
}

char **install_entry_keys(json_t *cache, size_t *n)
{
	char **v = xcalloc(json_object_size(cache) + 1, sizeof *v);
	*n = 0;
	const char *key;
	json_t *val;
	json_object_foreach(cache, key, val)
		if (key[0] != '_')
			v[(*n)++] = xstrdup(key);
	return v;
}

void install_keys_free(char **keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

/* A folder beside the server's that holds a file of the rank-0 name. */
static void consider_folder(struct install_diagnosis *g, const char *dir, const char *file,
			    const char *why, const char *const *want, size_t nwant,
			    const struct fi_rules *rules)
{
	char *path = xasprintf("%s/%s", dir, file);
	json_t *doc = json_load_file(path, 0, NULL); /* unreadable: no keys */
	free(path);
	size_t n;
	char **keys = install_entry_keys(doc, &n);
	json_decref(doc);
	if (!n) {
		install_keys_free(keys, n);
		return;
	}
	g->folders = xrealloc(g->folders, (g->nfolders + 1) * sizeof *g->folders);
	struct install_folder *f = &g->folders[g->nfolders++];
	memset(f, 0, sizeof *f);
	f->dir = xstrdup(dir);
	f->why = xstrdup(why);
	size_t unmatched = 0;
	f->hits = nwant - install_missing(rules, want, nwant, (const char *const *)keys, n,
					  f->causes, &f->ncauses, &unmatched);
	install_keys_free(keys, n);
}

/* Other key folders beside dir, and the same key under other FlashInfer versions
 * (SGLang's <root>/flashinfer/autotune/<flashinfer>/sm<NN>/<key>). */
static void scan_folders(struct install_diagnosis *g, const char *dir, const char *file,
			 const char *version, const char *const *want, size_t nwant,
			 const struct fi_rules *rules)
{
	char *parent = xstrdup(dir);
	char *slash = strrchr(parent, '/');
	if (!slash) {
		free(parent);
		return;
	}
	*slash = '\0';
	const char *key = dir + (slash + 1 - parent);
	DIR *dh = opendir(parent);
	struct dirent *de;
	while (dh && (de = readdir(dh))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, key))
			continue;
		char *sib = xasprintf("%s/%s", parent, de->d_name);
		consider_folder(g, sib, file, "another deployment's folder (another cache key)", want,
				nwant, rules);
		free(sib);
	}
	if (dh)
		closedir(dh);
	/* .../<flashinfer>/<sm>/<key>: the version two levels above the key */
	char *sm = strrchr(parent, '/');
	if (sm) {
		*sm = '\0';
		char *verdir = strrchr(parent, '/');
		if (verdir && !strcmp(verdir + 1, version)) {
			*verdir = '\0';
			dh = opendir(parent);
			while (dh && (de = readdir(dh))) {
				if (de->d_name[0] == '.' || !strcmp(de->d_name, version))
					continue;
				char *other = xasprintf("%s/%s/%s/%s", parent, de->d_name, sm + 1, key);
				char *why = xasprintf("the folder of FlashInfer %s, which the server does "
						      "not import (it imports %s)", de->d_name, version);
				consider_folder(g, other, file, why, want, nwant, rules);
				free(why);
				free(other);
			}
			if (dh)
				closedir(dh);
		}
	}
	free(parent);
}

void install_diagnose(const struct install_job *j, const char *const *want, size_t nwant,
		      const struct fi_rules *rules, struct install_diagnosis *g)
{
	memset(g, 0, sizeof *g);
	g->wanted = nwant;
	if (j->managed) {
		g->hits = j->store.same + j->store.nconflicts;
		return;
	}
	const struct install_result *r = &j->res;
	size_t missing = install_missing(rules, want, nwant, (const char *const *)r->theirs_keys,
					 r->ntheirs, g->causes, &g->ncauses, &g->unmatched);
	g->hits = nwant - missing;
	/* the files' own version, where no environment was read to judge their _metadata */
	if (r->other_fi[0] && strcmp(r->other_fi, j->flashinfer))
		snprintf(g->meta_fi, sizeof g->meta_fi, "%s", r->other_fi);
	if (!r->existing && r->npaths) {
		const char *file = strrchr(r->paths[0], '/');
		scan_folders(g, r->dir, file ? file + 1 : r->paths[0], j->flashinfer, want, nwant, rules);
	}
}

void install_diagnosis_release(struct install_diagnosis *g)
{
	for (size_t i = 0; i < g->nfolders; i++) {
		free(g->folders[i].dir);
		free(g->folders[i].why);
	}
	free(g->folders);
	memset(g, 0, sizeof *g);
}
