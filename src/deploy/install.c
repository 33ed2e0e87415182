/* install.c: plan an install of a JSON autotune cache for every rank (install.h). */
#include "deploy/install.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deployment/ranks.h"
#include "flashinfer/key.h"
#include "flashinfer/keydiff.h"
#include "flashinfer/provenance.h"
#include "base/arena.h"
#include "base/util.h"
#include "base/version.h"
#include "deployment/python.h"

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

static void add_bad(struct install_result *r, size_t index, bool folder, int line, int col,
		    const char *what)
{
	r->bad = xrealloc(r->bad, (r->nbad + 1) * sizeof *r->bad);
	struct install_bad *b = &r->bad[r->nbad++];
	*b = (struct install_bad){ .index = index, .folder = folder, .line = line, .col = col };
	snprintf(b->what, sizeof b->what, "%s", what);
}

int install_merge(const struct consumer_version *v, consumer_var_fn var, void *ctx,
		 const struct server_rank *ranks, size_t nranks, const struct fi_cache *ours,
		 const struct fi_meta *env_meta, bool replace, char *const *drop, size_t ndrop,
		 struct install_result *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	struct rank_ctx x = { .var = var, .ctx = ctx };
	snprintf(x.tp_rank, sizeof x.tp_rank, "0");
	snprintf(x.pp_rank, sizeof x.pp_rank, "0");
	snprintf(x.dp_rank, sizeof x.dp_rank, "0");
	snprintf(x.world_rank, sizeof x.world_rank, "0");
	if (!(r->dir = rank0_dir(v, var, ctx, d)))
		return TT_USAGE;
	struct fi_cache *merged = fi_cache_new(), *first = NULL;
	const char *ours_fi = fi_meta_str(fi_cache_meta(ours), "flashinfer_version");
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
		struct stat st;
		if (!stat(path, &st) && !S_ISREG(st.st_mode)) { /* never opened (#48) */
			r->existing++;
			r->exists[r->npaths - 1] = true;
			char what[160];
			snprintf(what, sizeof what, "%s where the rank file should be", S_ISDIR(st.st_mode)
				 ? "a folder" : path_strerror(path, E_NOT_REGULAR));
			add_bad(r, r->npaths - 1, S_ISDIR(st.st_mode), 0, 0, what);
			continue;
		}
		FILE *f = fopen_read(path);
		if (!f) {
			if (errno != ENOENT && errno != ENOTDIR)
				rc = diag_error(d, TT_INTERNAL, "io", path, 0, 0, "cannot read: %s",
						path_strerror(path, errno));
			continue;
		}
		struct fi_cache_error err;
		struct fi_cache *theirs = fi_cache_loadf(f, &err);
		fclose(f);
		r->existing++;
		r->exists[r->npaths - 1] = true;
		if (!theirs) { /* the server cannot load it: merged as empty, replaced when written */
			add_bad(r, r->npaths - 1, false, err.line, err.col, err.not_object
				? "not a JSON object" : err.text);
			continue;
		}
		/* the ranks' files become one: the first file's entry wins */
		fi_cache_absorb(merged, theirs);
		/* the first file stamped for another FlashInfer than ours */
		const char *fi = fi_meta_str(fi_cache_meta(theirs), "flashinfer_version");
		if (!r->other_fi[0] && fi && strcmp(fi, "*") && ours_fi && strcmp(fi, ours_fi))
			snprintf(r->other_fi, sizeof r->other_fi, "%s", fi);
		if (!first) {
			first = theirs;
			continue;
		}
		r->differ |= !fi_cache_equal(first, theirs);
		fi_cache_free(theirs);
	}
	fi_cache_free(first);
	if (rc) {
		fi_cache_free(merged);
		return rc;
	}
	/* their entries of the keys ours leaves to the server, where they hold the fallback */
	for (size_t i = 0; i < ndrop; i++) {
		long long t;
		if (!fi_cache_tactic(merged, drop[i], &t) && t == -1 && fi_cache_remove(merged, drop[i]))
			r->dropped++;
	}
	/* the existing files' keys: merged holds their union so far */
	r->theirs_keys = fi_cache_keys(merged, &r->ntheirs);
	struct fi_merge *m = &r->merge;
	fi_cache_merge(merged, ours, replace, m);
	r->theirs_only = r->ntheirs - m->same - m->kept_theirs - m->replaced;
	/* _metadata FlashInfer would reject in this environment: ours instead */
	const struct fi_meta *saved = fi_cache_meta(merged), *mine = fi_cache_meta(ours);
	const char *field;
	if (env_meta && saved && mine && (r->meta_mismatch = fi_meta_mismatch(saved, env_meta, &field))) {
		snprintf(r->meta_field, sizeof r->meta_field, "%s", field);
		fi_cache_set_meta(merged, fi_meta_copy(mine));
	} else if (!env_meta && saved && mine) {
		/* no environment to judge by: the version ours is for is the server's, and a
		 * file stamped for another is ignored whole there */
		const char *b = fi_meta_str(mine, "flashinfer_version");
		int level = b && strcmp(b, "*") ? fi_meta_level(fi_meta_judge(saved, "flashinfer_version", b))
						: 0;
		if (level > 0) {
			r->meta_mismatch = level;
			snprintf(r->meta_field, sizeof r->meta_field, "flashinfer_version");
			fi_cache_set_meta(merged, fi_meta_copy(mine));
		}
	}
	/* as FlashInfer's save_configs writes it: its order, and a _generation of this content
	 * (the files' own one is stale after the merge) */
	struct strbuf sb = STRBUF_INIT;
	fi_cache_canonical(merged, &sb);
	fi_cache_free(merged);
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
	free(r->bad);
	free(r->bytes);
	free_strings(r->theirs_keys, r->ntheirs);
	fi_conflicts_free(r->merge.conflicts, r->merge.nconflicts);
	memset(r, 0, sizeof *r);
}

/* --- FlashInfer's managed store ------------------------------------------ */

/* Whether path exists, and its text (NULL when it does not or cannot be read). */
static char *read_if_there(const char *path, bool *exists)
{
	char *text = NULL;
	size_t len;
	int e = read_file(path, 0, &text, &len);
	*exists = e != ENOENT;
	return e ? NULL : text;
}

/* The folder under root of the store whose env hash is hash. Caller frees. */
static char *store_dir(const struct consumer_store *st, const char *root, const char *hash)
{
	/* the store's dir template has one variable, {env_hash} */
	const char *at = strstr(st->dir, "{env_hash}");
	return at ? xasprintf("%s/%.*s%s%s", root, (int)(at - st->dir), st->dir, hash, at + 10)
		  : xasprintf("%s/%s", root, st->dir);
}

int install_store_plan(const struct consumer_store *st, const char *root,
		       const struct fi_meta *manifest, const struct fi_cache *ours, bool replace,
		       struct install_store *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	char hash[65], *text;
	int bad = fi_store_manifest(manifest, st->cache_schema, st->env_hash_hex, hash, &text);
	r->dir = store_dir(st, root, hash);
	if (bad) {
		free(text);
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "the environment's "
				  "metadata holds a value that is not a string");
	}
	r->env_hash = xstrdup(hash);
	r->manifest_path = xasprintf("%s/manifest.json", r->dir);
	r->manifest = text;
	free(read_if_there(r->manifest_path, &r->manifest_exists));
	size_t n;
	char **keys = fi_cache_keys(ours, &n);
	r->paths = xcalloc(n ? n : 1, sizeof *r->paths);
	r->contents = xcalloc(n ? n : 1, sizeof *r->contents);
	r->exists = xcalloc(n ? n : 1, sizeof *r->exists);
	for (size_t k = 0; k < n; k++) {
		const char *key = keys[k];
		char eh[65];
		sha256_hex(key, strlen(key), st->entry_hash_hex, eh);
		bool encodable;
		char *content = fi_store_entry(ours, key, st->entry_policy, &encodable);
		r->unencodable += !encodable;
		size_t i = r->n++;
		r->paths[i] = xasprintf("%s/entries/%s.json", r->dir, eh);
		char *there = read_if_there(r->paths[i], &r->exists[i]);
		struct fi_merge *m = &r->merge;
		struct fi_conflict x;
		if (!r->exists[i]) {
			m->added++;
		} else if (fi_store_entry_same(ours, key, there, &x)) {
			m->same++;
		} else {
			ALLOC_GROW(m->conflicts, m->nconflicts + 1, m->conflicts_alloc);
			m->conflicts[m->nconflicts++] = x;
			if (replace) {
				m->replaced++;
			} else {
				m->kept_theirs++;
				free(content);
				content = NULL; /* left as it is */
			}
		}
		free(there);
		r->contents[i] = content;
	}
	free_strings(keys, n);
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
	fi_conflicts_free(r->merge.conflicts, r->merge.nconflicts);
	memset(r, 0, sizeof *r);
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

/* A variable of the server's environment: the launch command's last NAME=VALUE word before
 * the command itself (after an optional `env`), else tunetab's own (getenv). */
static const char *launch_word(const struct install_job *j, const char *name)
{
	const struct serve_request *q = j->server;
	const char *found = NULL;
	size_t len = strlen(name), i = q && q->nwords && !strcmp(q->words[0], "env") ? 1 : 0;
	for (; q && i < q->nwords; i++) {
		const char *w = q->words[i], *eq = strchr(w, '=');
		if (!eq || eq == w || strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					      "0123456789_") != (size_t)(eq - w))
			break;
		if ((size_t)(eq - w) == len && !strncmp(w, name, len))
			found = eq + 1;
	}
	return found;
}

static const char *server_env(void *vp, const char *name)
{
	const char *w = launch_word(vp, name);
	return w ? w : getenv(name);
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
	int ff = j->rules ? fi_cache_fused_finalize(j->ours, j->rules) : -1;
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

/* The table's entries its provenance says nobody measured (install_untuned): left out of
 * j->ours unless q->write_fallbacks. A table with no provenance beside it keeps them all
 * (FlashInfer's own saved cache: measured by the tuner that saved it). */
static void leave_untuned(const struct install_request *q, struct install_job *j)
{
	struct install_untuned *u = &j->untuned;
	const char *file = q->cache ? q->table_file : q->from;
	const char *base = file ? strrchr(file, '/') : NULL;
	struct provenance pv;
	size_t nkeys;
	char **keys = fi_cache_keys(j->ours, &nkeys);
	if (!file || prov_find_beside(file, base ? base + 1 : file, &pv, NULL)) {
		for (size_t i = 0; file && i < nkeys; i++) {
			long long t;
			u->unknown += !fi_cache_tactic(j->ours, keys[i], &t) && t == -1;
		}
		free_strings(keys, nkeys);
		return;
	}
	size_t *ix = prov_key_index(&pv);
	struct arena a = ARENA_INIT;
	u->keys = xcalloc(nkeys + 1, sizeof *u->keys);
	u->kept = q->write_fallbacks;
	for (size_t i = 0; i < nkeys; i++) {
		long at = prov_find_key(&pv, ix, keys[i], strlen(keys[i]));
		long long t;
		if (at < 0 || pv.entries[at].source != PROV_DEFAULT ||
		    fi_cache_tactic(j->ours, keys[i], &t) || t != -1)
			continue;
		const struct pyv *tuple = key_parse_any(keys[i], strlen(keys[i]), &a);
		struct moe_key k;
		const char *op = "?", *runner = "?";
		if (tuple && !key_decode(tuple, &k))
			op = k.op, runner = k.runner;
		size_t o = 0;
		while (o < u->nops && (strcmp(u->ops[o].op, op) || strcmp(u->ops[o].runner, runner)))
			o++;
		if (o == u->nops && o < INSTALL_UNTUNED_OPS) {
			snprintf(u->ops[o].op, sizeof u->ops[o].op, "%s", op);
			snprintf(u->ops[o].runner, sizeof u->ops[o].runner, "%s", runner);
			u->nops++;
		}
		if (o < u->nops)
			u->ops[o].n++;
		if (!u->kept)
			fi_cache_remove(j->ours, keys[i]);
		u->keys[u->n++] = keys[i];
		keys[i] = NULL;
	}
	qsort(u->keys, u->n, sizeof *u->keys, str_ptr_cmp);
	arena_release(&a);
	free_strings(keys, nkeys);
	free(ix);
	prov_release(&pv);
}

/* The cache (a JSON object), this environment's FlashInfer and the version targeted. */
static int read_sources(const struct install_request *q, struct install_job *j, struct diags *d)
{
	struct fi_cache_error err = { 0 };
	j->ours = q->cache ? fi_cache_copy(q->cache) : fi_cache_load(q->from, &err);
	if (!j->ours)
		return err.not_object ? diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s:1:1: not a "
						   "JSON object: not a FlashInfer autotune cache", q->from)
				      : diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s:%d:%d: %s",
						   q->from, err.line, err.col, err.text);
	leave_untuned(q, j);
	j->meta = fi_meta_copy(fi_cache_meta(j->ours)); /* the table's own */
	const char *meta_fi = fi_meta_str(j->meta, "flashinfer_version");
	if (meta_fi && !strcmp(meta_fi, "*"))
		meta_fi = NULL;

	/* this environment as FlashInfer sees it: its version, the _metadata it stamps */
	const char *pyfrom = NULL;
	if (!q->server.python && getenv("TUNETAB_TEST_IGNORE_INSTALLED")) /* tests: not this machine's */
		snprintf(j->why, sizeof j->why, "TUNETAB_TEST_IGNORE_INSTALLED is set");
	else if ((j->python = python_find(q->server.python, &pyfrom, j->why, sizeof j->why)))
		fienv_flashinfer(j->python, &j->fienv, j->why, sizeof j->why);
	j->env_meta = j->fienv.metadata;
	const char *env_fi = j->fienv.version;
	if (j->env_meta)
		snprintf(j->env_from, sizeof j->env_from, "%s (%s)", j->python, pyfrom);
	if (!q->server.flashinfer && env_fi && meta_fi && strcmp(env_fi, meta_fi))
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s holds keys for FlashInfer %s, "
				  "but this environment imports FlashInfer %s (%s): keys of another version "
				  "do not hit; generate for it (tunetab generate --flashinfer %s ...) or give "
				  "--flashinfer", q->from, meta_fi, env_fi, j->python, env_fi);
	j->flashinfer = q->server.flashinfer ? q->server.flashinfer : env_fi ? env_fi : meta_fi;
	if (!j->flashinfer)
		return usage_error(j, d, "%s names no FlashInfer version and none is installed here: "
				   "give --flashinfer (the version the server imports)", q->from);
	/* it picks the rule, the store and a folder name: it must be a version */
	struct fi_version fv;
	if (j->flashinfer != q->server.flashinfer && version_parse(j->flashinfer, &fv))
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
	const char *meta_gpu = fi_meta_str(j->meta, "gpu");
	if (mode && !strcmp(mode, "env") && !j->env_meta)
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "--stamp env: cannot read this "
				  "environment's FlashInfer metadata: %s",
				  j->why[0] ? j->why : "no FlashInfer found");
	bool env_stamp = (!mode || !strcmp(mode, "env")) && j->env_meta;
	if (env_stamp) {
		struct fi_meta *m = fi_meta_copy(j->env_meta);
		const char *g = fi_meta_str(m, "gpu");
		if ((!g || !strcmp(g, "unknown")) && meta_gpu) /* no GPU here: the table's own */
			fi_meta_set(m, "gpu", meta_gpu);
		fi_cache_set_meta(j->ours, m);
	} else if (mode && !strcmp(mode, "wildcard")) {
		fi_cache_set_meta(j->ours, fi_meta_wildcard(j->meta));
	} else if (!mode && !q->check) {
		j->meta_as_is = true;
	}
	/* kept as the table says: FlashInfer compares flashinfer_version exactly, so a table
	 * stamped for another version is ignored whole where the server imports this one */
	const char *kept = fi_meta_str(fi_cache_meta(j->ours), "flashinfer_version");
	if (!q->check && kept && strcmp(kept, "*") && strcmp(kept, j->flashinfer) && env_stamp)
		/* this environment's stamp: --flashinfer names another version than its Python's */
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "--flashinfer %s, but %s "
				  "imports FlashInfer %s, whose _metadata install stamps "
				  "(flashinfer_version %s): FlashInfer %s ignores a file stamped for "
				  "another version (a hard mismatch); give --python with the server's "
				  "interpreter, leave out --flashinfer to install for %s, or give "
				  "--stamp wildcard", j->flashinfer, j->python, kept, kept,
				  j->flashinfer, kept);
	if (!q->check && kept && strcmp(kept, "*") && strcmp(kept, j->flashinfer))
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s's _metadata says FlashInfer "
				  "%s, and the server imports %s: FlashInfer %s ignores the whole file "
				  "(a hard mismatch); generate the table for %s (tunetab generate "
				  "--flashinfer %s ...), or give --stamp wildcard", q->from, kept,
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
	j->sm = q->server.sm;
	if (!j->sm) {
		const char *meta_gpu = fi_meta_str(j->meta, "gpu");
		const struct device_profile *p = meta_gpu ? device_find(devices, meta_gpu) : NULL;
		if (!p)
			return usage_error(j, d, "%s names no known GPU (_metadata.gpu): give --sm", q->from);
		j->sm = device_sm(p);
	}
	const char *ws = j->fienv.workspace_dir;
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

/* The undo log install_write keeps in the folder of the files it writes. Caller frees. */
static char *undo_path_in(const char *dir)
{
	return file_set_undo_path(dir, "install"); /* ".tunetab-install.journal" */
}

/* Before the plan reads dir: the undo log of an install killed mid-write is rolled back, so
 * the plan merges into the files as they were; where nothing may be written it is only
 * reported. */
static int recover_folder(const struct install_request *q, struct install_job *j,
			  const char *dir, struct diags *d)
{
	char *undo = undo_path_in(dir);
	int rc = TT_OK, found = 0;
	size_t n = 0;
	if (q->check || q->dry_run) {
		if ((j->interrupted = !access(undo, F_OK)))
			diags_add(d, SEV_WARNING, "install", NULL, 0, 0, "an interrupted install left "
				  "'%s': the folder may be mixed; run the install again to restore it",
				  undo);
	} else {
		int e = file_set_recover(undo, &found, &n);
		if (e)
			rc = diag_error(d, TT_INTERNAL, "install", NULL, 0, 0, "cannot restore '%s' from "
					"the journal of an interrupted install '%s': %s", dir, undo,
					e == EBADMSG ? "not a journal this tunetab reads" : path_strerror(undo, e));
		else if (found)
			diags_add(d, SEV_WARNING, "install", NULL, 0, 0, "restored '%s' to its state before "
				  "an interrupted install (%zu file%s)", dir, n, n == 1 ? "" : "s");
	}
	free(undo);
	return rc;
}

/* The root: --cache-dir, else the consumer's rule in the server's environment. --cache-dir
 * where the launch command sets the rule's variable to another folder is a usage error: the
 * server reads that one. */
static int root_of(const struct install_request *q, struct install_job *j,
		   const struct consumer_root *roots, unsigned n, struct diags *d)
{
	if (!q->cache_dir) {
		j->root = consumer_root(roots, n, get_var, server_env, j, &j->root_env, d);
		return j->root ? TT_OK : TT_USAGE; /* consumer_root said why */
	}
	const char *var = consumer_root_env(roots, n), *w = var ? launch_word(j, var) : NULL;
	if (w && *w && strcmp(w, q->cache_dir))
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "--cache-dir %s, but the "
				  "launch command sets %s=%s: the server reads that folder (drop "
				  "--cache-dir, or the word)", q->cache_dir, var, w);
	j->root = xstrdup(q->cache_dir);
	return TT_OK;
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
	rc = root_of(q, j, mg->root, mg->root_count, d);
	j->root_env = consumer_root_env(mg->root, mg->root_count);
	if (rc)
		return rc;
	if (q->metadata && strcmp(q->metadata, "env"))
		return usage_error(j, d, "the managed store wants this environment's exact _metadata: "
				   "--stamp %s does not apply", q->metadata);
	const struct consumer_store *st = j->fi_cons->managed_store;
	const struct fi_meta *meta = fi_cache_meta(j->ours);
	char hash[65];
	fi_store_manifest(meta, st->cache_schema, st->env_hash_hex, hash, NULL);
	char *dir = store_dir(st, j->root, hash);
	rc = recover_folder(q, j, dir, d);
	free(dir);
	if (rc)
		return rc;
	return install_store_plan(st, j->root, meta, j->ours, q->replace, &j->store, d);
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
	int root_rc = !j->root && !q->cache_file ? root_of(q, j, v->root, v->root_count, d) : TT_OK;
	if (!j->root_env)
		j->root_env = consumer_root_env(v->root, v->root_count);
	if (root_rc || (!j->root && !j->own_file))
		return root_rc ? root_rc : TT_USAGE;
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
		const struct install_untuned *u = &j->untuned;
		rc = install_merge(v, get_var, j, ranks, n, j->ours, j->env_meta, q->replace, u->keys,
				   u->kept ? 0 : u->n, &j->res, d);
		free(ranks);
	}
	for (size_t i = 0; !rc && !q->check && i < j->res.nbad; i++) {
		const struct install_bad *b = &j->res.bad[i];
		const char *path = j->res.paths[b->index];
		if (q->replace) /* written anew with the others: say so */
			diags_add(d, SEV_NOTE, "install", path, b->line, b->col, "%s%s: the server "
				  "cannot load it; written anew", b->folder ? "" : "not a FlashInfer "
				  "autotune cache: ", b->what);
		else
			rc = diag_error(d, TT_INVALID, "install", path, b->line, b->col, "%s%s: the "
					"server cannot load it; --replace writes it anew",
					b->folder ? "" : "not a FlashInfer autotune cache: ", b->what);
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
	j->server = &q->server;
	/* the versions asked for pick rules by order: anything else is a usage error */
	struct fi_version fv;
	if (q->server.consumer_version && version_parse(q->server.consumer_version, &fv))
		return usage_error(j, d, "--consumer-version wants a version such as 0.5.2, not '%s'",
				   q->server.consumer_version);
	if (q->server.flashinfer && version_parse(q->server.flashinfer, &fv))
		return usage_error(j, d, "--flashinfer wants a FlashInfer version such as 0.6.18, not "
				   "'%s'", q->server.flashinfer);
	int rc = consumer_load(data_root, q->server.consumer, &j->cons, d);
	if (rc)
		return rc;
	if (!(j->v = consumer_pick(j->cons, q->server.consumer_version)))
		return diag_error(d, TT_INVALID, "install", NULL, 0, 0, "%s: no rule for %s %s in %s",
				  q->server.consumer, j->cons->name, q->server.consumer_version,
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
	free_strings(j->untuned.keys, j->untuned.n);
	fi_cache_free(j->ours);
	fi_meta_free(j->meta);
	fienv_fi_release(&j->fienv);
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

/* A folder where a rank file goes, out of the way: removed when empty, else renamed to the
 * first free "<path>.moved-by-tunetab[.N]" (*aside, caller frees; NULL when removed). 0 or
 * errno. */
static int clear_folder(const char *path, char **aside)
{
	*aside = NULL;
	if (!rmdir(path))
		return 0;
	if (errno != ENOTEMPTY && errno != EEXIST)
		return errno;
	struct stat st;
	for (int i = 0; i < 1000; i++) {
		char *to = i ? xasprintf("%s.moved-by-tunetab.%d", path, i)
			     : xasprintf("%s.moved-by-tunetab", path);
		if (lstat(to, &st) && errno == ENOENT) {
			if (rename(path, to)) {
				int e = errno;
				free(to);
				return e;
			}
			*aside = to;
			return 0;
		}
		free(to);
	}
	return EEXIST;
}

/* The folders clear_folder moved, put back (the set was not written). */
static void restore_folders(const struct install_result *r, char **aside, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *path = r->paths[r->bad[i].index];
		if (!r->bad[i].folder)
			continue;
		if (aside[i])
			rename(aside[i], path);
		else
			mkdir(path, 0777);
	}
}

int install_write(const struct install_job *j, struct diags *d)
{
	const struct install_store *st = &j->store;
	const struct install_result *r = &j->res;
	const char *dir = j->managed ? st->dir : r->dir;
	struct file_set set = { 0 };
	char *undo = undo_path_in(dir);
	file_set_undo(&set, undo);
	free(undo);
	int e = j->managed && !st->manifest_exists ? stage(&set, st->manifest_path, st->manifest) : 0;
	size_t n = j->managed ? st->n : r->npaths;
	for (size_t i = 0; i < n && !e; i++) {
		const char *c = j->managed ? st->contents[i] : r->bytes; /* NULL: left as it is */
		if (c)
			e = stage(&set, j->managed ? st->paths[i] : r->paths[i], c);
	}
	/* a folder where a rank file goes cannot be renamed over: out of the way first */
	size_t nb = j->managed ? 0 : r->nbad, cleared = 0;
	char **aside = xcalloc(nb + 1, sizeof *aside);
	for (; !e && cleared < nb; cleared++)
		if (r->bad[cleared].folder && (e = clear_folder(r->paths[r->bad[cleared].index],
								&aside[cleared])))
			break;
	if (!e)
		e = file_set_commit(&set);
	file_set_abort(&set);
	if (e)
		restore_folders(r, aside, cleared);
	for (size_t i = 0; !e && i < nb; i++)
		if (r->bad[i].folder)
			diags_add(d, SEV_NOTE, "install", NULL, 0, 0, aside[i] ? "moved the folder '%s' "
				  "(where the rank file goes, with files in it) to '%s'" : "removed the "
				  "empty folder '%s' (where the rank file goes)%s",
				  r->paths[r->bad[i].index], aside[i] ? aside[i] : "");
	for (size_t i = 0; i < nb; i++)
		free(aside[i]);
	free(aside);
	if (e)
		return diag_error(d, e == ENOTDIR ? TT_INVALID : TT_INTERNAL, "install", NULL, 0, 0,
				  "cannot write the cache in '%s': %s", dir, path_strerror(dir, e));
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

/* A folder beside the server's that holds a file of the rank-0 name. */
static void consider_folder(struct install_diagnosis *g, const char *dir, const char *file,
			    const char *why, const char *const *want, size_t nwant,
			    const struct fi_rules *rules)
{
	char *path = xasprintf("%s/%s", dir, file);
	struct fi_cache *doc = fi_cache_load(path, NULL); /* unreadable: no keys */
	free(path);
	size_t n;
	char **keys = fi_cache_keys(doc, &n);
	fi_cache_free(doc);
	if (!n) {
		free_strings(keys, n);
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
	free_strings(keys, n);
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
		g->hits = j->store.merge.same + j->store.merge.nconflicts;
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
