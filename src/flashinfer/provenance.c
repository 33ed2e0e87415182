/* provenance.c: the provenance sidecar tunetab_provenance_<DEVICE>.json (docs/fleet.md,
 * "Provenance file"): built by generate, read strictly and written canonically with jansson. */
#include "flashinfer/provenance.h"

#include <dirent.h>

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "flashinfer/names.h"
#include "flashinfer/pylit.h"
#include "flashinfer/table.h"

#define PROV_MAX_BYTES (256u << 20) /* the same limit as a table (docs/guide.md, "Limits") */
#define PROV_DUMP_FLAGS (JSON_SORT_KEYS | JSON_REAL_PRECISION(PROV_REAL_DIGITS))

struct prov_run_builder {
	json_t *obj;
};

const char *prov_source_name(enum prov_source s)
{
	switch (s) {
	case PROV_MEASURED: return "measured";
	case PROV_FALLBACK: return "fallback";
	case PROV_PREDICTED: return "predicted";
	case PROV_DEFAULT: return "default";
	default: return "unknown";
	}
}

/* A time as the file holds it: PROV_REAL_DIGITS significant digits, so that what is read
 * back and written again gives the same bytes; < 0 (or NaN) is unknown. */
double prov_round_us(double v)
{
	if (!(v >= 0) || isinf(v))
		return -1;
	char buf[64];
	snprintf(buf, sizeof buf, "%.*g", PROV_REAL_DIGITS, v);
	return strtod(buf, NULL);
}

void prov_format_us(double v, char *buf, size_t n)
{
	if (v < 0)
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "%.*g", PROV_REAL_DIGITS, v);
}

const char *prov_backend_name(const char *backend, char *buf, size_t n)
{
	if (!backend || !*backend)
		backend = PROV_BACKEND_DEFAULT;
	snprintf(buf, n, "%.*s", (int)strcspn(backend, " \t"), backend);
	return buf;
}

/* A run's backend from its object (struct prov_run, "backend"); caller frees. */
static char *run_backend(const json_t *run)
{
	const char *b = json_string_value(json_object_get(run, "backend"));
	if (b && *b)
		return xstrdup(b);
	return json_is_false(json_object_get(run, "profiled")) ? NULL : xstrdup(PROV_BACKEND_DEFAULT);
}

/* --- building ------------------------------------------------------------ */

struct prov_run_builder *prov_run_new(void)
{
	struct prov_run_builder *b = xcalloc(1, sizeof *b);
	b->obj = json_object();
	if (!b->obj)
		oom();
	return b;
}

static void run_set(struct prov_run_builder *b, const char *name, json_t *v)
{
	/* jansson refuses invalid UTF-8 (json_string returns NULL): stored as null */
	json_object_set_new(b->obj, name, v ? v : json_null());
}

void prov_run_str(struct prov_run_builder *b, const char *name, const char *value)
{
	run_set(b, name, value ? json_string(value) : json_null());
}

void prov_run_int(struct prov_run_builder *b, const char *name, long long value)
{
	run_set(b, name, json_integer((json_int_t)value));
}

void prov_run_bool(struct prov_run_builder *b, const char *name, bool value)
{
	run_set(b, name, json_boolean(value));
}

static char *dump_compact(const json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | PROV_DUMP_FLAGS | JSON_ENCODE_ANY);
	if (!s)
		oom();
	char *r = xstrdup(s);
	free(s);
	return r;
}

/* takes ownership of backend and json */
static size_t push_run(struct provenance *p, const char *id, int index, int count,
		       const char *source, char *backend, char *json)
{
	ALLOC_GROW(p->runs, p->nruns + 1, p->runs_alloc);
	struct prov_run *r = &p->runs[p->nruns];
	r->id = xstrdup(id);
	r->shard_index = index;
	r->shard_count = count;
	r->shard_source = source ? xstrdup(source) : NULL;
	r->backend = backend;
	r->json = json;
	return p->nruns++;
}

size_t prov_add_run(struct provenance *p, struct prov_run_builder *b, const char *id,
		    int shard_index, int shard_count, const char *shard_source)
{
	json_object_set_new(b->obj, "id", json_string(id));
	if (shard_count <= 1 && !shard_source) {
		json_object_set_new(b->obj, "shard", json_null());
		shard_index = 0;
		shard_count = 1;
	} else {
		json_t *s = json_object();
		json_object_set_new(s, "count", json_integer(shard_count));
		json_object_set_new(s, "index", json_integer(shard_index));
		json_object_set_new(s, "source", shard_source ? json_string(shard_source) : json_null());
		json_object_set_new(b->obj, "shard", s);
	}
	char *json = dump_compact(b->obj);
	char *backend = run_backend(b->obj);
	json_decref(b->obj);
	free(b);
	return push_run(p, id, shard_index, shard_count, shard_source, backend, json);
}

size_t prov_copy_run(struct provenance *p, const struct prov_run *r)
{
	return push_run(p, r->id, r->shard_index, r->shard_count, r->shard_source,
			r->backend ? xstrdup(r->backend) : NULL, xstrdup(r->json));
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int *sorted_copy(const int *v, size_t n)
{
	if (!n)
		return NULL;
	int *x = xmalloc(n * sizeof *x);
	memcpy(x, v, n * sizeof *x);
	qsort(x, n, sizeof *x, cmp_int);
	return x;
}

static json_t *id_list(const int *v, size_t n)
{
	int *sorted = sorted_copy(v, n);
	json_t *t = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(t, json_integer(sorted[k]));
	free(sorted);
	return t;
}

void prov_add_entry(struct provenance *p, const struct prov_entry *e)
{
	ALLOC_GROW(p->entries, p->n + 1, p->entries_alloc);
	struct prov_entry *x = &p->entries[p->n++];
	*x = *e;
	x->key = xstrdup(e->key);
	x->tactic = xstrdup(e->tactic);
	x->time_us = prov_round_us(e->time_us);
	x->lo_us = prov_round_us(e->lo_us);
	x->hi_us = prov_round_us(e->hi_us);
	x->fallback_us = prov_round_us(e->fallback_us);
	x->ties = sorted_copy(e->ties, e->nties);
	x->wrong = sorted_copy(e->wrong, e->nwrong);
	x->layer = NULL;
	if (e->layer) {
		json_t *j = json_loads(e->layer, 0, NULL);
		x->layer = j ? dump_compact(j) : NULL;
		json_decref(j);
	}
}

void prov_release(struct provenance *p)
{
	free(p->tunetab_version);
	free(p->flashinfer_version);
	free(p->device);
	free(p->py_file);
	free(p->json_file);
	free(p->ops_json);
	for (size_t i = 0; i < p->nruns; i++) {
		free(p->runs[i].id);
		free(p->runs[i].shard_source);
		free(p->runs[i].backend);
		free(p->runs[i].json);
	}
	free(p->runs);
	for (size_t i = 0; i < p->n; i++) {
		free(p->entries[i].key);
		free(p->entries[i].tactic);
		free(p->entries[i].ties);
		free(p->entries[i].wrong);
		free(p->entries[i].layer);
	}
	free(p->entries);
	memset(p, 0, sizeof *p);
}

/* --- writing ------------------------------------------------------------- */

static int cmp_run_json(const void *a, const void *b, void *ctx)
{
	const struct provenance *p = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(p->runs[x].json, p->runs[y].json);
	return c ? c : (x > y) - (x < y);
}

/* insertion-free merge sort with a context (qsort_r is not C11) */
static void sort_idx(size_t *v, size_t n, int (*cmp)(const void *, const void *, void *), void *ctx)
{
	if (n < 2)
		return;
	size_t *tmp = xmalloc(n * sizeof *tmp);
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = cmp(&v[j], &v[i], ctx) < 0 ? v[j++] : v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, n * sizeof *v);
	}
	free(tmp);
}

static json_t *time_json(double v)
{
	return v >= 0 ? json_real(prov_round_us(v)) : json_null();
}

void prov_write(const struct provenance *p, struct strbuf *out)
{
	/* runs in the order of their canonical JSON; identical runs written once */
	size_t *order = xmalloc((p->nruns ? p->nruns : 1) * sizeof *order);
	size_t *map = xmalloc((p->nruns ? p->nruns : 1) * sizeof *map);
	for (size_t i = 0; i < p->nruns; i++)
		order[i] = i;
	sort_idx(order, p->nruns, cmp_run_json, (void *)p);
	json_t *runs = json_array();
	size_t nout = 0;
	for (size_t i = 0; i < p->nruns; i++) {
		const struct prov_run *r = &p->runs[order[i]];
		if (i && !strcmp(r->json, p->runs[order[i - 1]].json)) {
			map[order[i]] = nout - 1;
			continue;
		}
		json_error_t err;
		json_t *o = json_loads(r->json, 0, &err);
		json_array_append_new(runs, o ? o : json_null());
		map[order[i]] = nout++;
	}
	json_t *entries = json_object();
	for (size_t i = 0; i < p->n; i++) {
		const struct prov_entry *e = &p->entries[i];
		json_t *o = json_object();
		json_object_set_new(o, "tactic", json_string(e->tactic));
		json_object_set_new(o, "source", json_string(prov_source_name(e->source)));
		json_object_set_new(o, "run", json_integer(e->run < p->nruns ? (json_int_t)map[e->run]
									    : (json_int_t)e->run));
		json_object_set_new(o, "time_us", time_json(e->time_us));
		json_object_set_new(o, "lo_us", time_json(e->lo_us));
		json_object_set_new(o, "hi_us", time_json(e->hi_us));
		json_object_set_new(o, "fallback_us", time_json(e->fallback_us));
		json_object_set_new(o, "ties", id_list(e->ties, e->nties));
		if (e->nwrong) /* absent without: files from before stay the same */
			json_object_set_new(o, "wrong", id_list(e->wrong, e->nwrong));
		json_t *layer = e->layer ? json_loads(e->layer, 0, NULL) : NULL;
		if (layer)
			json_object_set_new(o, "layer", layer);
		json_object_set_new(entries, e->key, o);
	}
	json_t *files = json_object();
	if (p->py_file)
		json_object_set_new(files, "py", json_string(p->py_file));
	if (p->json_file)
		json_object_set_new(files, "json", json_string(p->json_file));
	json_t *doc = json_object();
	json_object_set_new(doc, "format", json_integer(PROV_FORMAT));
	json_object_set_new(doc, "device", json_string(p->device ? p->device : ""));
	json_object_set_new(doc, "flashinfer_version",
			    json_string(p->flashinfer_version ? p->flashinfer_version : ""));
	json_object_set_new(doc, "tunetab_version",
			    p->tunetab_version ? json_string(p->tunetab_version) : json_null());
	json_object_set_new(doc, "files", files);
	json_object_set_new(doc, "runs", runs);
	json_object_set_new(doc, "entries", entries);
	json_t *ops = p->ops_json ? json_loads(p->ops_json, 0, NULL) : NULL;
	if (ops)
		json_object_set_new(doc, "ops", ops);
	/* two-space indent, keys in code-point order (jansson compares key bytes) */
	char *s = json_dumps(doc, JSON_INDENT(2) | PROV_DUMP_FLAGS);
	if (!s)
		oom();
	sb_adds(out, s);
	sb_addc(out, '\n');
	free(s);
	json_decref(doc);
	free(order);
	free(map);
}

/* --- reading ------------------------------------------------------------- */

/* Where a value sits in the text: jansson keeps no positions, so a semantic error looks its
 * value up again by path (object keys; NULL key = array index). Only on the error path. */
struct jstep {
	const char *key;
	size_t index;
};

struct cursor {
	const char *s;
	size_t i, n;
	int line, col;
};

static void adv(struct cursor *c)
{
	if (c->i >= c->n)
		return;
	unsigned char ch = (unsigned char)c->s[c->i++];
	if (ch == '\n') {
		c->line++;
		c->col = 1;
	} else if ((ch & 0xC0) != 0x80) {
		c->col++; /* columns count characters, as jansson's do */
	}
}

static bool is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static void skip_ws(struct cursor *c)
{
	while (c->i < c->n && is_ws(c->s[c->i]))
		adv(c);
}

/* Skips a string at c (on its '"'); returns its decoded text (caller frees) when want. */
static char *skip_string(struct cursor *c, bool want)
{
	size_t st = c->i;
	adv(c);
	while (c->i < c->n && c->s[c->i] != '"') {
		if (c->s[c->i] == '\\')
			adv(c);
		adv(c);
	}
	adv(c);
	if (!want)
		return NULL;
	json_error_t err;
	json_t *v = json_loadb(c->s + st, c->i - st, JSON_DECODE_ANY, &err);
	char *r = v && json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
	json_decref(v);
	return r;
}

static void skip_value(struct cursor *c)
{
	int depth = 0;
	do {
		skip_ws(c);
		if (c->i >= c->n)
			return;
		char ch = c->s[c->i];
		if (ch == '"')
			skip_string(c, false);
		else if (ch == '{' || ch == '[')
			depth++, adv(c);
		else if (ch == '}' || ch == ']')
			depth--, adv(c);
		else if (depth == 0 && (ch == ',' || ch == ':'))
			return;
		else
			adv(c);
	} while (depth > 0 || (c->i < c->n && c->s[c->i] != ',' && c->s[c->i] != '}' &&
			       c->s[c->i] != ']'));
}

/* Position of the value at path (of the key instead when want_key); 0 when not found. */
static void locate(const char *text, size_t len, const struct jstep *path, size_t depth,
		   bool want_key, int *line, int *col)
{
	struct cursor c = { text, 0, len, 1, 1 };
	*line = *col = 0;
	for (size_t d = 0; d < depth; d++) {
		skip_ws(&c);
		if (c.i >= c.n)
			return;
		char open = c.s[c.i];
		if ((open != '{' || !path[d].key) && (open != '[' || path[d].key))
			return;
		adv(&c);
		bool found = false;
		for (size_t idx = 0; !found; idx++) {
			skip_ws(&c);
			if (c.i >= c.n || c.s[c.i] == '}' || c.s[c.i] == ']')
				return;
			int kl = c.line, kc = c.col;
			if (open == '{') {
				char *k = skip_string(&c, true);
				found = k && !strcmp(k, path[d].key);
				free(k);
				skip_ws(&c);
				adv(&c); /* ':' */
			} else {
				found = idx == path[d].index;
			}
			skip_ws(&c);
			if (found) {
				if (d + 1 == depth) {
					*line = want_key && open == '{' ? kl : c.line;
					*col = want_key && open == '{' ? kc : c.col;
				}
				break;
			}
			skip_value(&c);
			skip_ws(&c);
			if (c.i < c.n && c.s[c.i] == ',')
				adv(&c);
		}
	}
}

struct rd {
	const char *path, *text;
	size_t len;
	struct diags *d;
};

__attribute__((format(printf, 5, 6)))
static int bad(const struct rd *r, const struct jstep *path, size_t depth, bool at_key,
	       const char *fmt, ...)
{
	int line = 0, col = 0;
	if (depth)
		locate(r->text, r->len, path, depth, at_key, &line, &col);
	else
		line = col = 1;
	va_list ap;
	va_start(ap, fmt);
	diags_vadd(r->d, SEV_ERROR, "provenance", r->path, line, col, NULL, fmt, ap);
	va_end(ap);
	return TT_INVALID;
}

static const char *jtype(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "a list";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

static bool known_key(const char *k, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(k, *names))
			return true;
	return false;
}

/* Every key of o must be one of names; required ones must be there. */
static int check_keys(const struct rd *r, const json_t *o, struct jstep *path, size_t depth,
		      const char *what, const char *const *names, const char *const *required)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)o, k, v) {
		if (!known_key(k, names)) {
			path[depth].key = k;
			return bad(r, path, depth + 1, true, "unknown key '%s' in %s", k, what);
		}
	}
	for (; required && *required; required++)
		if (!json_object_get(o, *required))
			return bad(r, path, depth, false, "%s has no '%s'", what, *required);
	return TT_OK;
}

static int get_str(const struct rd *r, const json_t *o, const char *name, struct jstep *path,
		   size_t depth, bool nullable, bool nonempty, char **out)
{
	json_t *v = json_object_get(o, name);
	*out = NULL;
	if (!v || (nullable && json_is_null(v)))
		return TT_OK;
	path[depth].key = name;
	if (!json_is_string(v))
		return bad(r, path, depth + 1, false, "'%s' must be a string%s, not %s", name,
			   nullable ? " or null" : "", jtype(v));
	if (nonempty && !json_string_length(v))
		return bad(r, path, depth + 1, false, "'%s' must not be empty", name);
	*out = xstrdup(json_string_value(v));
	return TT_OK;
}

static int get_time(const struct rd *r, const json_t *o, const char *name, struct jstep *path,
		    size_t depth, double *out)
{
	json_t *v = json_object_get(o, name);
	*out = -1;
	if (!v || json_is_null(v))
		return TT_OK;
	path[depth].key = name;
	if (!json_is_number(v))
		return bad(r, path, depth + 1, false, "'%s' must be a number of microseconds "
			   "or null, not %s", name, jtype(v));
	double x = json_number_value(v);
	if (x < 0)
		return bad(r, path, depth + 1, false, "'%s' is negative (%g): a time is >= 0, "
			   "or null when unknown", name, x);
	*out = prov_round_us(x);
	return TT_OK;
}

static int read_files(const struct rd *r, const json_t *files, struct provenance *p)
{
	static const char *const names[] = { "py", "json", NULL };
	struct jstep path[3] = { { "files", 0 } };
	if (!json_is_object(files))
		return bad(r, path, 1, false, "'files' must be an object, not %s", jtype(files));
	int rc = check_keys(r, files, path, 1, "'files'", names, NULL);
	if (!rc)
		rc = get_str(r, files, "py", path, 1, true, true, &p->py_file);
	if (!rc)
		rc = get_str(r, files, "json", path, 1, true, true, &p->json_file);
	for (int i = 0; !rc && i < 2; i++) {
		const char *f = i ? p->json_file : p->py_file;
		/* a name beside the provenance file, never a path */
		if (f && (strchr(f, '/') || !strcmp(f, ".") || !strcmp(f, ".."))) {
			path[1].key = i ? "json" : "py";
			rc = bad(r, path, 2, false, "'files.%s' must be a file name beside the "
				 "provenance file, not the path '%s'", path[1].key, f);
		}
	}
	return rc;
}

static int read_run(const struct rd *r, json_t *run, size_t idx, struct provenance *p)
{
	struct jstep path[4] = { { "runs", 0 }, { NULL, idx } };
	if (!json_is_object(run))
		return bad(r, path, 2, false, "runs[%zu] must be an object, not %s", idx,
			   jtype(run));
	char what[48];
	snprintf(what, sizeof what, "runs[%zu]", idx);
	static const char *const required[] = { "id", "shard", NULL };
	/* a run's other fields are free-form (what generate records); these two are read */
	for (const char *const *q = required; *q; q++)
		if (!json_object_get(run, *q))
			return bad(r, path, 2, false, "%s has no '%s'", what, *q);
	char *id = NULL, *backend = NULL;
	int rc = get_str(r, run, "id", path, 2, false, true, &id);
	if (!rc) /* read, unlike the other facts: merge compares it (docs/fleet.md "Merge") */
		rc = get_str(r, run, "backend", path, 2, true, true, &backend);
	free(backend);
	if (rc) {
		free(id);
		return rc;
	}
	json_t *shard = json_object_get(run, "shard");
	int index = 0, count = 1;
	char *source = NULL;
	path[2].key = "shard";
	if (!json_is_null(shard)) {
		static const char *const snames[] = { "count", "index", "source", NULL };
		snprintf(what, sizeof what, "runs[%zu].shard", idx);
		if (!json_is_object(shard))
			rc = bad(r, path, 3, false, "%s must be an object or null, not %s", what,
				 jtype(shard));
		if (!rc)
			rc = check_keys(r, shard, path, 3, what, snames, snames);
		json_t *c = json_object_get(shard, "count"), *i = json_object_get(shard, "index");
		if (!rc && (!json_is_integer(c) || json_integer_value(c) < 1 ||
			    json_integer_value(c) > INT_MAX)) {
			path[3].key = "count";
			rc = bad(r, path, 4, false, "%s.count must be an integer >= 1", what);
		}
		if (!rc && (!json_is_integer(i) || json_integer_value(i) < 0 ||
			    json_integer_value(i) >= json_integer_value(c))) {
			path[3].key = "index";
			rc = bad(r, path, 4, false, "%s.index must be an integer from 0 to "
				 "count - 1 (%lld)", what, (long long)json_integer_value(c) - 1);
		}
		if (!rc)
			rc = get_str(r, shard, "source", path, 3, true, true, &source);
		if (!rc) {
			index = (int)json_integer_value(i);
			count = (int)json_integer_value(c);
		}
	}
	if (!rc)
		push_run(p, id, index, count, source, run_backend(run), dump_compact(run));
	free(id);
	free(source);
	return rc;
}

/* An entry's optional list of tactic ids ("ties", "wrong"); absent or null: none. */
static int get_ids(const struct rd *r, json_t *e, const char *name, struct jstep *path, int **out,
		   size_t *n)
{
	json_t *v = json_object_get(e, name);
	path[2].key = name;
	*out = NULL;
	*n = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return bad(r, path, 3, false, "'%s' must be a list of tactic ids, not %s", name,
			   jtype(v));
	size_t k = json_array_size(v);
	int *ids = k ? xmalloc(k * sizeof *ids) : NULL;
	for (size_t i = 0; i < k; i++) {
		json_t *t = json_array_get(v, i);
		if (!json_is_integer(t) || json_integer_value(t) < INT_MIN ||
		    json_integer_value(t) > INT_MAX) {
			free(ids);
			path[3].key = NULL;
			path[3].index = i;
			return bad(r, path, 4, false, "'%s' must hold tactic ids (integers), not %s",
				   name, jtype(t));
		}
		ids[i] = (int)json_integer_value(t);
	}
	*out = ids;
	*n = k;
	return 0;
}

static int read_entry(const struct rd *r, const char *key, json_t *e, struct provenance *p,
		      struct arena *a)
{
	static const char *const names[] = { "tactic", "source", "run", "time_us", "lo_us",
					     "hi_us", "fallback_us", "ties", "wrong", "layer",
					     NULL };
	static const char *const required[] = { "tactic", "source", "run", NULL };
	struct jstep path[4] = { { "entries", 0 }, { key, 0 } };
	if (!json_is_object(e))
		return bad(r, path, 2, false, "the entry of key %s must be an object, not %s",
			   key, jtype(e));
	int rc = check_keys(r, e, path, 2, "the entry", names, required);
	if (rc)
		return rc;
	struct prov_entry x = { 0 };
	json_t *v = json_object_get(e, "tactic");
	path[2].key = "tactic";
	if (!json_is_string(v))
		return bad(r, path, 3, false, "'tactic' must be a string holding a Python "
			   "literal such as \"5\", not %s", jtype(v));
	/* canonical spelling: the repr of the parsed literal, as tables print it */
	struct diags pd = DIAGS_INIT;
	arena_reset(a);
	const struct pyv *tv = pylit_parse_expr(json_string_value(v), json_string_length(v), a,
						r->path, 0, 0, &pd);
	bool tactic_ok = tv && (tv->kind == PV_INT || tv->kind == PV_TUPLE || tv->kind == PV_LIST);
	diags_release(&pd);
	if (!tactic_ok)
		return bad(r, path, 3, false, "'tactic' \"%s\" is not a tactic literal (an int "
			   "or a tuple, e.g. \"5\" or \"(8, 34)\")", json_string_value(v));
	struct strbuf sb = STRBUF_INIT;
	pyv_repr(tv, &sb);
	v = json_object_get(e, "source");
	path[2].key = "source";
	const char *s = json_is_string(v) ? json_string_value(v) : "";
	if (!strcmp(s, "measured"))
		x.source = PROV_MEASURED;
	else if (!strcmp(s, "fallback"))
		x.source = PROV_FALLBACK;
	else if (!strcmp(s, "predicted"))
		x.source = PROV_PREDICTED;
	else if (!strcmp(s, "default"))
		x.source = PROV_DEFAULT;
	else
		rc = bad(r, path, 3, false, "'source' must be \"measured\", \"fallback\", "
			 "\"predicted\" or \"default\", not %s%s%s", json_is_string(v) ? "'" : jtype(v),
			 json_is_string(v) ? s : "", json_is_string(v) ? "'" : "");
	v = json_object_get(e, "run");
	path[2].key = "run";
	if (!rc && (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    (size_t)json_integer_value(v) >= p->nruns))
		rc = bad(r, path, 3, false, "'run' must index 'runs' (0 to %lld here), not %s",
			 (long long)p->nruns - 1, json_is_integer(v) ? "a number outside it" : jtype(v));
	if (!rc)
		x.run = (size_t)json_integer_value(v);
	if (!rc)
		rc = get_time(r, e, "time_us", path, 2, &x.time_us);
	if (!rc)
		rc = get_time(r, e, "lo_us", path, 2, &x.lo_us);
	if (!rc)
		rc = get_time(r, e, "hi_us", path, 2, &x.hi_us);
	if (!rc)
		rc = get_time(r, e, "fallback_us", path, 2, &x.fallback_us);
	if (!rc)
		rc = get_ids(r, e, "ties", path, &x.ties, &x.nties);
	if (!rc)
		rc = get_ids(r, e, "wrong", path, &x.wrong, &x.nwrong);
	v = json_object_get(e, "layer");
	path[2].key = "layer";
	if (!rc && v && !json_is_object(v))
		rc = bad(r, path, 3, false, "'layer' must be an object (the bucket's tactic pairs "
			 "timed as a layer), not %s", jtype(v));
	char *layer = !rc && v ? dump_compact(v) : NULL;
	x.layer = layer;
	if (!rc) {
		x.key = (char *)key;
		x.tactic = sb.buf;
		prov_add_entry(p, &x);
	}
	free(x.ties);
	free(x.wrong);
	free(layer);
	sb_release(&sb);
	return rc;
}

static int read_doc(const struct rd *r, json_t *root, struct provenance *p)
{
	static const char *const names[] = { "format", "device", "flashinfer_version",
					     "tunetab_version", "files", "runs", "entries", "ops", NULL };
	static const char *const required[] = { "format", "device", "flashinfer_version",
						"tunetab_version", "files", "runs", "entries", NULL };
	struct jstep path[2] = { { NULL, 0 }, { NULL, 0 } };
	if (!json_is_object(root))
		return bad(r, path, 0, false, "the top level must be an object, not %s",
			   jtype(root));
	int rc = check_keys(r, root, path, 0, "the top level", names, required);
	if (rc)
		return rc;
	json_t *v = json_object_get(root, "format");
	path[0].key = "format";
	if (!json_is_integer(v) || json_integer_value(v) != PROV_FORMAT)
		return bad(r, path, 1, false, "'format' is %s%s: this tunetab reads format %d",
			   json_is_integer(v) ? "" : jtype(v),
			   json_is_integer(v) ? "not 1" : "", PROV_FORMAT);
	if ((rc = get_str(r, root, "device", path, 0, false, true, &p->device)) ||
	    (rc = get_str(r, root, "flashinfer_version", path, 0, false, true,
			  &p->flashinfer_version)) ||
	    (rc = get_str(r, root, "tunetab_version", path, 0, true, false, &p->tunetab_version)) ||
	    (rc = read_files(r, json_object_get(root, "files"), p)))
		return rc;
	json_t *runs = json_object_get(root, "runs");
	path[0].key = "runs";
	if (!json_is_array(runs))
		return bad(r, path, 1, false, "'runs' must be a list, not %s", jtype(runs));
	if (json_array_size(runs) > TABLE_MAX_ENTRIES)
		return bad(r, path, 1, false, "'runs' has %zu runs, more than the %u tunetab "
			   "reads", json_array_size(runs), TABLE_MAX_ENTRIES);
	for (size_t i = 0; i < json_array_size(runs); i++)
		if ((rc = read_run(r, json_array_get(runs, i), i, p)))
			return rc;
	json_t *entries = json_object_get(root, "entries");
	path[0].key = "entries";
	if (!json_is_object(entries))
		return bad(r, path, 1, false, "'entries' must be an object, not %s",
			   jtype(entries));
	if (json_object_size(entries) > TABLE_MAX_ENTRIES)
		return bad(r, path, 1, false, "'entries' has %zu entries, more than the %u "
			   "tunetab reads", json_object_size(entries), TABLE_MAX_ENTRIES);
	struct arena a = ARENA_INIT;
	const char *k;
	json_object_foreach(entries, k, v) {
		if ((rc = read_entry(r, k, v, p, &a)))
			break;
	}
	arena_release(&a);
	json_t *ops = json_object_get(root, "ops");
	path[0].key = "ops";
	if (!rc && ops && !json_is_array(ops))
		return bad(r, path, 1, false, "'ops' must be a list, not %s", jtype(ops));
	if (!rc && ops) {
		p->ops_json = json_dumps(ops, JSON_COMPACT | JSON_SORT_KEYS);
		if (!p->ops_json)
			oom();
	}
	return rc;
}

int prov_read(const char *path, struct provenance *p, struct diags *d)
{
	memset(p, 0, sizeof *p);
	char *text;
	size_t len;
	int err = read_file_diag(path, PROV_MAX_BYTES, &text, &len, d);
	if (err)
		return err;
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	int rc;
	if (!root) {
		rc = diag_error(d, TT_INVALID, "syntax", path, jerr.line > 0 ? jerr.line : 1,
				jerr.column > 0 ? jerr.column : 1, "JSON syntax error: %s", jerr.text);
	} else {
		struct rd r = { path, text, len, d };
		rc = read_doc(&r, root, p);
		json_decref(root);
	}
	free(text);
	if (rc)
		prov_release(p);
	return rc;
}

int prov_find_beside(const char *path, const char *name, struct provenance *p, char **where)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	int found = -1;
	DIR *dh = opendir(dir);
	struct dirent *de;
	while (dh && found && (de = readdir(dh))) {
		if (!names_is_provenance(de->d_name))
			continue;
		char *pp = xasprintf("%s/%s", dir, de->d_name);
		struct diags d = DIAGS_INIT;
		if (prov_read(pp, p, &d) == TT_OK) {
			if ((p->py_file && !strcmp(p->py_file, name)) || (p->json_file && !strcmp(p->json_file, name))) {
				found = 0;
				if (where)
					*where = xstrdup(pp);
			} else {
				prov_release(p);
			}
		}
		diags_release(&d);
		free(pp);
	}
	if (dh)
		closedir(dh);
	free(dir);
	return found;
}

static const struct provenance *index_of; /* qsort has no context argument in C11 */

static int cmp_index_key(const void *a, const void *b)
{
	return strcmp(index_of->entries[*(const size_t *)a].key, index_of->entries[*(const size_t *)b].key);
}

size_t *prov_key_index(const struct provenance *p)
{
	size_t *ix = xmalloc((p->n ? p->n : 1) * sizeof *ix);
	for (size_t i = 0; i < p->n; i++)
		ix[i] = i;
	index_of = p;
	if (p->n > 1)
		qsort(ix, p->n, sizeof *ix, cmp_index_key);
	return ix;
}

long prov_find_key(const struct provenance *p, const size_t *index, const char *key, size_t len)
{
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *k = p->entries[index[mid]].key;
		size_t kn = strlen(k), m = kn < len ? kn : len;
		int c = m ? memcmp(k, key, m) : 0;
		if (!c)
			c = (kn > len) - (kn < len);
		if (!c)
			return (long)index[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}
