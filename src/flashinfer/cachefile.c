/* cachefile.c: FlashInfer's JSON autotune cache as a document, and its managed store's files
 * (cachefile.h). */
#include "flashinfer/cachefile.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "flashinfer/key.h"
#include "flashinfer/table.h"

/* A struct fi_cache (and a struct fi_meta, metadata.c) is the JSON value itself. */
static json_t *doc_json(const struct fi_cache *c)
{
	return (json_t *)c;
}

static json_t *meta_json(const struct fi_meta *m)
{
	return (json_t *)m;
}

/* The document parsed (NULL: err says why), as a cache or NULL with *e filled. */
static struct fi_cache *as_cache(json_t *j, const json_error_t *err, struct fi_cache_error *e)
{
	if (json_is_object(j))
		return (struct fi_cache *)j;
	if (e) {
		e->not_object = j != NULL;
		e->line = j || err->line < 1 ? 1 : err->line;
		e->col = j || err->column < 1 ? 1 : err->column;
		snprintf(e->text, sizeof e->text, "%s", j ? "not a JSON object" : err->text);
	}
	json_decref(j);
	return NULL;
}

/* A UTF-8 byte order mark first: Python's json.loads refuses it ("Unexpected UTF-8 BOM",
 * json/__init__.py), so FlashInfer's load_configs raises on such a file; jansson's own
 * message would quote the mark's bytes. */
static bool bom(const char *buf, size_t len, struct fi_cache_error *e)
{
	if (len < 3 || memcmp(buf, "\xef\xbb\xbf", 3))
		return false;
	if (e)
		*e = (struct fi_cache_error){ .line = 1, .col = 1,
					      .text = "a UTF-8 byte order mark first, which "
						      "Python's json refuses" };
	return true;
}

struct fi_cache *fi_cache_parse(const char *buf, size_t len, struct fi_cache_error *e)
{
	if (bom(buf, len, e))
		return NULL;
	json_error_t err;
	json_t *j = json_loadb(buf, len, 0, &err);
	return as_cache(j, &err, e);
}

struct fi_cache *fi_cache_load(const char *path, struct fi_cache_error *e)
{
	char *buf;
	size_t len;
	int rerr = read_file(path, 0, &buf, &len);
	if (rerr) { /* never opened where it is not a regular file (#48) */
		json_error_t err = { .line = 1, .column = 1 };
		snprintf(err.text, sizeof err.text, "cannot read: %s", path_strerror(path, rerr));
		return as_cache(NULL, &err, e);
	}
	struct fi_cache *c = fi_cache_parse(buf, len, e);
	free(buf);
	return c;
}

struct fi_cache *fi_cache_loadf(FILE *f, struct fi_cache_error *e)
{
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sb_add(&sb, chunk, n);
	if (ferror(f)) {
		sb_release(&sb);
		json_error_t err;
		return as_cache(json_loadf(f, 0, &err), &err, e); /* its message */
	}
	struct fi_cache *c = fi_cache_parse(sb.buf ? sb.buf : "", sb.len, e);
	sb_release(&sb);
	return c;
}

struct fi_cache *fi_cache_new(void)
{
	return (struct fi_cache *)json_object();
}

struct fi_cache *fi_cache_copy(const struct fi_cache *c)
{
	return (struct fi_cache *)json_deep_copy(doc_json(c));
}

void fi_cache_free(struct fi_cache *c)
{
	json_decref(doc_json(c));
}

bool fi_cache_equal(const struct fi_cache *a, const struct fi_cache *b)
{
	return json_equal(doc_json(a), doc_json(b));
}

const struct fi_meta *fi_cache_meta(const struct fi_cache *c)
{
	/* "_metadata": null is no _metadata: FlashInfer pops it with a None default and checks
	 * only when it is not None (0.7.4 autotuner.py:4878-4887; 0.6.18 the same) */
	json_t *m = json_object_get(doc_json(c), "_metadata");
	return json_is_null(m) ? NULL : (const struct fi_meta *)m;
}

void fi_cache_set_meta(struct fi_cache *c, struct fi_meta *m)
{
	json_object_set_new(doc_json(c), "_metadata", meta_json(m));
}

char **fi_cache_keys(const struct fi_cache *c, size_t *n)
{
	char **v = xcalloc(json_object_size(doc_json(c)) + 1, sizeof *v);
	*n = 0;
	const char *key;
	json_t *val;
	json_object_foreach(doc_json(c), key, val)
		if (key[0] != '_')
			v[(*n)++] = xstrdup(key);
	return v;
}

bool fi_cache_entry_policy(const struct fi_cache *c, const char *key, char **policy)
{
	json_t *val = c ? json_object_get(doc_json(c), key) : NULL;
	json_t *pol = json_is_array(val) ? json_array_get(val, 2) : NULL;
	*policy = pol ? json_dumps(pol, JSON_ENCODE_ANY) : NULL;
	return val != NULL;
}

void fi_cache_set_entry(struct fi_cache *c, const char *key, const char *runner, long long tactic)
{
	json_object_set_new(doc_json(c), key, json_pack("[sI]", runner, (json_int_t)tactic));
}

bool fi_cache_remove(struct fi_cache *c, const char *key)
{
	return key[0] != '_' && !json_object_del(doc_json(c), key);
}

size_t fi_cache_count(const struct fi_cache *c)
{
	size_t n = 0;
	const char *key;
	json_t *val;
	json_object_foreach(doc_json(c), key, val)
		n += key[0] != '_';
	return n;
}

int fi_cache_tactic(const struct fi_cache *c, const char *key, long long *t)
{
	json_t *e = key[0] != '_' ? json_object_get(doc_json(c), key) : NULL;
	json_t *v = json_is_array(e) ? json_array_get(e, 1) : NULL;
	if (!v)
		return -1;
	if (!json_is_integer(v))
		return 1;
	*t = (long long)json_integer_value(v);
	return 0;
}

int fi_cache_fused_finalize(const struct fi_cache *c, const struct fi_rules *rules)
{
	struct arena a = ARENA_INIT;
	int seen = -2; /* none yet */
	const char *key;
	json_t *val;
	json_object_foreach(doc_json(c), key, val) {
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

void fi_cache_canonical(const struct fi_cache *c, struct strbuf *out)
{
	table_json_canonical(doc_json(c), out);
}

char *fi_cache_compact(const struct fi_cache *c)
{
	return json_dumps(doc_json(c), JSON_COMPACT);
}

/* --- merging caches ------------------------------------------------------------------------ */

/* The tactic of a cache entry ([runner, tactic, ...]; anything else as it is) as compact
 * JSON, "?" when there is none. Caller frees. */
static char *tactic_text(json_t *e)
{
	json_t *t = json_is_array(e) ? json_array_get(e, 1) : e;
	char *s = t ? json_dumps(t, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	return s ? s : xstrdup("?");
}

static struct fi_conflict conflict(const char *key, json_t *ours, json_t *theirs)
{
	return (struct fi_conflict){
		.key = xstrdup(key), .ours = tactic_text(ours), .theirs = tactic_text(theirs),
	};
}

/* The tactic and the profiling policy after it ("-1 with [...]", "-1 with no policy"). */
static char *tactic_policy_text(json_t *e)
{
	char *t = tactic_text(e);
	json_t *pol = json_is_array(e) ? json_array_get(e, 2) : NULL;
	char *p = pol ? json_dumps(pol, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	char *s = xasprintf("%s with %s%s", t, p ? "policy " : "no policy", p ? p : "");
	free(t);
	free(p);
	return s;
}

/* A key both hold with the same tactic but other profiling policies. */
static struct fi_conflict policy_conflict(const char *key, json_t *ours, json_t *theirs)
{
	return (struct fi_conflict){
		.key = xstrdup(key), .ours = tactic_policy_text(ours),
		.theirs = tactic_policy_text(theirs),
	};
}

void fi_conflicts_free(struct fi_conflict *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].ours);
		free(v[i].theirs);
	}
	free(v);
}

void fi_cache_absorb(struct fi_cache *into, const struct fi_cache *from)
{
	json_t *to = doc_json(into);
	const char *key;
	json_t *val;
	json_object_foreach(doc_json(from), key, val)
		if (!json_object_get(to, key))
			json_object_set(to, key, val);
}

void fi_cache_merge(struct fi_cache *into, const struct fi_cache *ours, bool replace,
		    struct fi_merge *m)
{
	memset(m, 0, sizeof *m);
	json_t *to = doc_json(into);
	const char *key;
	json_t *val;
	json_object_foreach(doc_json(ours), key, val) {
		json_t *have = json_object_get(to, key);
		if (key[0] == '_') { /* _metadata, _records: theirs stay; _generation is redone */
			if (!have)
				json_object_set(to, key, val);
			continue;
		}
		if (!have) {
			json_object_set(to, key, val);
			m->added++;
			continue;
		}
		char *a = tactic_text(val), *b = tactic_text(have);
		bool same = !strcmp(a, b);
		free(a);
		free(b);
		/* ours' profiling policy, where it has one, is the op's: another one there is
		 * profiled again by a server tuning at start (validate_policy_used) */
		json_t *pol = json_is_array(val) ? json_array_get(val, 2) : NULL;
		json_t *their_pol = json_is_array(have) ? json_array_get(have, 2) : NULL;
		bool same_policy = !pol || (their_pol && json_equal(pol, their_pol));
		if (same && same_policy) {
			m->same++;
			continue;
		}
		ALLOC_GROW(m->conflicts, m->nconflicts + 1, m->conflicts_alloc);
		m->conflicts[m->nconflicts++] = same ? policy_conflict(key, val, have)
						     : conflict(key, val, have);
		if (replace) {
			json_object_set(to, key, val);
			m->replaced++;
		} else {
			m->kept_theirs++;
		}
	}
}

/* --- FlashInfer's managed store ------------------------------------------------------------ */

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

/* j as FlashInfer's json.dump(obj, f, indent=2, sort_keys=True) writes it. Caller frees. */
static char *py_dump_sorted(json_t *j)
{
	struct strbuf sb = STRBUF_INIT;
	table_py_json(j, 2, true, &sb);
	return sb_detach(&sb);
}

int fi_store_manifest(const struct fi_meta *meta, const char *cache_schema, unsigned hash_hex,
		      char hash[65], char **text)
{
	json_t *m = json_deep_copy(meta_json(meta));
	json_object_set_new(m, "cache_schema", json_string(cache_schema));
	struct strbuf canon = STRBUF_INIT;
	table_py_json(m, -1, true, &canon);
	sha256_hex(canon.buf, canon.len, hash_hex, hash);
	sb_release(&canon);
	int rc = 0;
	const char *k;
	json_t *x;
	json_object_foreach(m, k, x)
		if (!json_is_string(x))
			rc = -1;
	if (text)
		*text = py_dump_sorted(m);
	json_decref(m);
	return rc;
}

char *fi_store_entry(const struct fi_cache *c, const char *key, const char *policy,
		     bool *encodable)
{
	json_t *val = json_object_get(doc_json(c), key);
	json_t *e = json_object();
	json_object_set_new(e, "key", json_string(key));
	json_object_set(e, "runner", json_array_get(val, 0));
	json_object_set(e, "tactic", json_array_get(val, 1));
	json_t *pol = json_array_get(val, 2);
	if (json_is_array(pol))
		json_object_set(e, "profiling_policy", pol);
	else
		json_object_set_new(e, "profiling_policy", json_loads(policy, 0, NULL));
	struct arena a = ARENA_INIT;
	const struct pyv *t = key_parse_canonical(key, strlen(key), &a);
	json_t *kf = t ? key_fields(t) : NULL;
	arena_release(&a);
	*encodable = kf != NULL;
	if (kf)
		json_object_set_new(e, "key_fields", kf);
	char *text = py_dump_sorted(e);
	json_decref(e);
	return text;
}

char *fi_store_entry_key(const char *there, char **policy)
{
	json_t *e = json_loads(there, 0, NULL);
	const char *k = json_string_value(json_object_get(e, "key"));
	json_t *pol = json_object_get(e, "profiling_policy");
	char *key = k ? xstrdup(k) : NULL;
	*policy = key && json_is_array(pol) ? json_dumps(pol, 0) : NULL;
	json_decref(e);
	return key;
}

bool fi_store_entry_same(const struct fi_cache *c, const char *key, const char *there,
			 struct fi_conflict *x)
{
	json_t *val = json_object_get(doc_json(c), key);
	json_t *theirs = json_loads(there, 0, NULL);
	json_t *tt = json_object_get(theirs, "tactic");
	const char *tk = json_string_value(json_object_get(theirs, "key"));
	bool same = json_is_object(theirs) && !strcmp(tk ? tk : "", key) && tt &&
		    json_equal(tt, json_array_get(val, 1));
	/* ours' profiling policy, where it has one, is the op's (as fi_cache_merge) */
	json_t *pol = json_is_array(val) ? json_array_get(val, 2) : NULL;
	json_t *their_pol = json_object_get(theirs, "profiling_policy");
	bool same_policy = !pol || (their_pol && json_equal(pol, their_pol));
	if (same && !same_policy) {
		json_t *t = json_pack("[sOO]", "", tt, their_pol ? their_pol : json_null());
		if (!their_pol)
			json_array_remove(t, 2);
		*x = policy_conflict(key, val, t);
		json_decref(t);
	} else if (!same) {
		*x = conflict(key, val, tt ? tt : theirs);
	}
	json_decref(theirs);
	return same && same_policy;
}
