/* table_json.c: the JSON autotune cache (flashinfer-formats.md §2): read with jansson,
 * written byte for byte as Python's json.dump(indent=2) writes it, and _generation as the
 * SHA-256 (libcrypto) of the compact sort_keys form. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flashinfer/table.h"
#include "base/util.h"

/* Positions of the top-level keys (jansson keeps none): a light scan of the text. */
struct keypos {
	char *key;
	size_t len;
	int line, col;
};

static void scan_positions(const char *text, size_t len, struct keypos **out, size_t *n)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	int depth = 0, line = 1, col = 1, expect_key = 0;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (c == '"') {
			size_t st = i;
			int sl = line, sc = col;
			for (i++, col++; i < len && text[i] != '"'; i++, col++) {
				if (text[i] == '\\')
					i++, col++;
				else if (text[i] == '\n')
					line++, col = 0;
			}
			if (depth == 1 && expect_key && i < len) {
				json_error_t err;
				json_t *s = json_loadb(text + st, i + 1 - st, JSON_DECODE_ANY, &err);
				if (s && json_is_string(s)) {
					ALLOC_GROW(*out, *n + 1, cap);
					(*out)[*n].len = json_string_length(s);
					(*out)[*n].key = xstrndup(json_string_value(s), (*out)[*n].len);
					(*out)[*n].line = sl;
					(*out)[*n].col = sc;
					(*n)++;
				}
				json_decref(s);
				expect_key = 0;
			}
			col++;
			continue;
		}
		if (c == '\n') {
			line++;
			col = 1;
			continue;
		}
		if (((unsigned char)c & 0xC0) != 0x80)
			col++;
		if (c == '{' || c == '[') {
			depth++;
			expect_key = depth == 1 && c == '{';
		} else if (c == '}' || c == ']') {
			depth--;
		} else if (c == ',' && depth == 1) {
			expect_key = 1;
		}
	}
}

/* JSON value -> pyv (arrays become tuples, as FlashInfer's loader makes them, §2.4). */
static int to_pyv(json_t *j, struct pyv *v, struct arena *a)
{
	memset(v, 0, sizeof *v);
	switch (json_typeof(j)) {
	case JSON_INTEGER: v->kind = PV_INT; v->i = json_integer_value(j); return 0;
	case JSON_TRUE: v->kind = PV_TRUE; return 0;
	case JSON_FALSE: v->kind = PV_FALSE; return 0;
	case JSON_NULL: v->kind = PV_NONE; return 0;
	case JSON_STRING:
		v->kind = PV_STR;
		v->len = json_string_length(j);
		v->s = arena_strndup(a, json_string_value(j), v->len);
		return 0;
	case JSON_ARRAY: {
		v->kind = PV_TUPLE;
		v->n = json_array_size(j);
		v->items = v->n ? arena_alloc(a, v->n * sizeof *v->items) : NULL;
		for (size_t i = 0; i < v->n; i++)
			if (to_pyv(json_array_get(j, i), &v->items[i], a))
				return -1;
		return 0;
	}
	case JSON_OBJECT: {
		/* 0.7.4's selection record; never a tactic */
		v->kind = PV_DICT;
		v->n = json_object_size(j);
		v->items = v->n ? arena_alloc(a, 2 * v->n * sizeof *v->items) : NULL;
		const char *k;
		json_t *x;
		size_t i = 0;
		json_object_foreach(j, k, x) {
			v->items[2 * i].kind = PV_STR;
			v->items[2 * i].len = strlen(k);
			v->items[2 * i].s = arena_strndup(a, k, v->items[2 * i].len);
			if (to_pyv(x, &v->items[2 * i + 1], a))
				v->items[2 * i + 1].kind = PV_NONE; /* reals inside a record */
			i++;
		}
		return 0;
	}
	default:
		return -1; /* reals are no tactic */
	}
}

int table_json_tactic(const char *text, struct arena *a, struct pyv *out)
{
	json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
	int rc = j && !json_is_object(j) ? to_pyv(j, out, a) : -1;
	json_decref(j);
	return rc;
}

int table_json_read(const char *name, const char *text, size_t len, struct table *t,
		    struct diags *d)
{
	t->kind = TABLE_JSON;
	json_error_t err;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	int dups = 0;
	if (!root && strstr(err.text, "duplicate object key")) {
		diags_add(d, SEV_WARNING, "duplicate-key", name, err.line, err.column,
			  "%s: Python's json keeps the last value", err.text);
		dups = 1;
		root = json_loadb(text, len, 0, &err);
	}
	if (!root)
		return diag_error(d, TT_INVALID, "syntax", name, err.line, err.column,
				  "JSON syntax error: %s", err.text);
	if (!json_is_object(root)) {
		int rc = diag_error(d, TT_INVALID, "json-top-level", name, 1, 1,
				    "the top level is a %s, not an object: FlashInfer's load_configs "
				    "raises AttributeError (formats §2.6)",
				    json_is_array(root) ? "list" : "scalar");
		json_decref(root);
		return rc;
	}
	if (json_object_size(root) > TABLE_MAX_ENTRIES) {
		int rc = diag_error(d, TT_INVALID, "size", name, 1, 1, "the top level has %zu keys, "
				    "more than the %u entries tunetab reads", json_object_size(root),
				    TABLE_MAX_ENTRIES);
		json_decref(root);
		return rc;
	}
	struct keypos *pos;
	size_t npos;
	scan_positions(text, len, &pos, &npos);
	const char *k;
	json_t *v;
	size_t pi = 0;
	json_object_foreach(root, k, v) {
		int line = 0, col = 0;
		size_t klen = strlen(k);
		for (size_t j = 0; j < npos; j++) {
			size_t q = (pi + j) % npos;
			if (pos[q].len == klen && !memcmp(pos[q].key, k, klen)) {
				line = pos[q].line;
				col = pos[q].col;
				pi = q + 1;
				break;
			}
		}
		if (strcmp(k, "_metadata") == 0 && json_is_null(v))
			continue; /* FlashInfer reads null as no _metadata (cachefile.c fi_cache_meta) */
		if (strcmp(k, "_metadata") == 0) {
			t->has_metadata = true;
			t->metadata_is_object = json_is_object(v);
			const char *mk;
			json_t *mv;
			if (json_is_object(v)) {
				t->meta_alloc = json_object_size(v) + 1;
				t->meta = xcalloc(t->meta_alloc, sizeof *t->meta);
				json_object_foreach(v, mk, mv) {
					struct table_meta *m = &t->meta[t->n_meta++];
					m->name = arena_strndup(&t->arena, mk, strlen(mk));
					if (json_is_string(mv))
						m->value = arena_strndup(&t->arena, json_string_value(mv),
									 json_string_length(mv));
					char *c = json_dumps(mv, JSON_COMPACT | JSON_ENCODE_ANY);
					m->json = arena_strndup(&t->arena, c ? c : "null", c ? strlen(c) : 4);
					free(c);
					m->line = line;
					m->col = col;
				}
			}
			continue;
		}
		if (strcmp(k, "_records") == 0) {
			t->records = json_incref(v);
			t->records_is_object = json_is_object(v);
			continue;
		}
		if (strcmp(k, "_generation") == 0) {
			t->has_generation = true;
			if (json_is_string(v))
				t->generation = arena_strndup(&t->arena, json_string_value(v),
							      json_string_length(v));
			continue;
		}
		struct table_entry e = { 0 };
		e.key_len = klen;
		e.key = arena_strndup(&t->arena, k, klen);
		e.line = e.vline = line;
		e.col = e.vcol = col;
		e.dup_of = -1;
		struct pyv *pv = arena_alloc(&t->arena, sizeof *pv);
		e.value_real = json_is_array(v) && json_is_real(json_array_get(v, 1));
		if (to_pyv(v, pv, &t->arena) == 0) {
			e.value = pv;
			/* [runner, tactic], with 0.7.1+'s profiling policy and selection record
			 * after them (formats §2.4) */
			if (pv->kind == PV_TUPLE && pv->n >= 2 && pv->items[0].kind == PV_STR) {
				e.value_ok = true;
				e.runner = pv->items[0].s;
				e.tactic = &pv->items[1];
			}
			/* the record's reals as they read (%.17g: the same doubles) */
			json_t *rec = json_array_get(v, 3);
			char *rt = json_is_object(rec) ? json_dumps(rec, JSON_COMPACT |
							    JSON_REAL_PRECISION(17)) : NULL;
			if (rt)
				e.selection = arena_strndup(&t->arena, rt, strlen(rt));
			free(rt);
		}
		ALLOC_GROW(t->entries, t->n + 1, t->cap);
		t->entries[t->n++] = e;
	}
	for (size_t j = 0; j < npos; j++)
		free(pos[j].key);
	free(pos);
	(void)dups;
	t->doc = root;
	return TT_OK;
}

void table_json_release(struct table *t)
{
	if (t->records)
		json_decref((json_t *)t->records);
	if (t->doc)
		json_decref((json_t *)t->doc);
	t->records = t->doc = NULL;
}

void table_set_meta(struct table *t, const char *name, const char *value)
{
	t->has_metadata = t->metadata_is_object = true;
	for (size_t i = 0; i < t->n_meta; i++)
		if (strcmp(t->meta[i].name, name) == 0) {
			t->meta[i].value = arena_strndup(&t->arena, value, strlen(value));
			t->meta[i].json = NULL;
			return;
		}
	ALLOC_GROW(t->meta, t->n_meta + 1, t->meta_alloc);
	struct table_meta *m = &t->meta[t->n_meta++];
	memset(m, 0, sizeof *m);
	m->name = arena_strndup(&t->arena, name, strlen(name));
	m->value = arena_strndup(&t->arena, value, strlen(value));
}

/* --- Python-compatible emitter ---------------------------------------------- */

/* A float as Python's json.dumps writes it (float.__repr__): the shortest digits that read
 * back as the same double, positional for decimal exponents -4 to 15 (with ".0" when
 * integral), else d.ddde+XX; "NaN", "Infinity" for what JSON has no spelling of. */
static void emit_float(double x, struct strbuf *out)
{
	if (isnan(x) || isinf(x)) {
		sb_adds(out, isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity");
		return;
	}
	char e[40];
	for (int p = 0; p <= 17; p++) { /* d.ddd...e±XX with p digits after the point */
		snprintf(e, sizeof e, "%.*e", p, x);
		if (strtod(e, NULL) == x)
			break;
	}
	char *ex = strchr(e, 'e');
	int exp10 = atoi(ex + 1);
	*ex = '\0';
	char digits[24];
	size_t nd = 0;
	bool neg = e[0] == '-';
	for (const char *q = e + neg; *q; q++)
		if (*q != '.')
			digits[nd++] = *q;
	digits[nd] = '\0';
	if (neg)
		sb_addc(out, '-');
	if (exp10 < -4 || exp10 >= 16) {
		sb_addc(out, digits[0]);
		if (nd > 1) {
			sb_addc(out, '.');
			sb_adds(out, digits + 1);
		}
		sb_addf(out, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
	} else if (exp10 < 0) {
		sb_adds(out, "0.");
		for (int i = -1; i > exp10; i--)
			sb_addc(out, '0');
		sb_adds(out, digits);
	} else {
		for (int i = 0; i <= exp10; i++)
			sb_addc(out, i < (int)nd ? digits[i] : '0');
		sb_addc(out, '.');
		sb_adds(out, (int)nd > exp10 + 1 ? digits + exp10 + 1 : "0");
	}
}

/* Python's round(x, 6): the decimal nearest the double's exact value, halves to even (what
 * glibc's printf does in the default rounding mode, as CPython's dtoa does), read back. */
static double py_round6(double x)
{
	char b[400];
	snprintf(b, sizeof b, "%.6f", x);
	return strtod(b, NULL);
}

static bool time_ok(double us)
{
	return isfinite(us) && us >= 0;
}

void table_selection_of(const double *times_us, size_t n, size_t winner,
			struct table_selection *out)
{
	memset(out, 0, sizeof *out);
	out->runner_up_us = -1;
	if (winner >= n || !time_ok(times_us[winner]))
		return;
	out->time_us = times_us[winner];
	out->candidates = 1;
	for (size_t i = 0; i < n; i++) {
		if (i == winner || !time_ok(times_us[i]))
			continue;
		out->candidates++;
		if (out->runner_up_us < 0 || times_us[i] < out->runner_up_us)
			out->runner_up_us = times_us[i];
	}
}

void table_selection_json(const struct table_selection *s, struct strbuf *out)
{
	if (s->candidates < 1)
		return;
	double t = s->time_us / 1000.0, ru = s->runner_up_us / 1000.0;
	bool have_ru = s->runner_up_us >= 0;
	sb_adds(out, "{\"time_ms\": ");
	emit_float(py_round6(t), out);
	sb_adds(out, ", \"runner_up_ms\": ");
	if (have_ru)
		emit_float(py_round6(ru), out);
	else
		sb_adds(out, "null");
	sb_adds(out, ", \"margin\": ");
	if (have_ru && t > 0)
		emit_float(py_round6(ru / t - 1.0), out);
	else
		sb_adds(out, "null");
	sb_addf(out, ", \"candidates\": %d}", s->candidates);
}

/* json.dumps(ensure_ascii=True) string escaping. */
static void emit_str(const char *s, size_t len, struct strbuf *out)
{
	sb_addc(out, '"');
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		unsigned cp = *p++;
		if (cp >= 0x80) {
			int n = cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : 1;
			cp &= 0x3F >> n;
			while (n-- && p < end)
				cp = (cp << 6) | (*p++ & 0x3F);
		}
		switch (cp) {
		case '"': sb_adds(out, "\\\""); break;
		case '\\': sb_adds(out, "\\\\"); break;
		case '\n': sb_adds(out, "\\n"); break;
		case '\r': sb_adds(out, "\\r"); break;
		case '\t': sb_adds(out, "\\t"); break;
		case '\b': sb_adds(out, "\\b"); break;
		case '\f': sb_adds(out, "\\f"); break;
		default:
			if (cp >= 0x20 && cp < 0x7F) {
				sb_addc(out, (char)cp);
			} else if (cp < 0x10000) {
				sb_addf(out, "\\u%04x", cp);
			} else {
				cp -= 0x10000;
				sb_addf(out, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
			}
		}
	}
	sb_addc(out, '"');
}

static void newline(struct strbuf *out, int indent, int level)
{
	if (indent < 0)
		return;
	sb_addc(out, '\n');
	for (int i = 0; i < indent * level; i++)
		sb_addc(out, ' ');
}

/* Object keys with their lengths: a key read from a module may hold NUL bytes. */
struct json_key {
	const char *s;
	size_t len;
	json_t *v;
};

static int cmp_keys(const void *a, const void *b)
{
	const struct json_key *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* indent < 0: compact (',' ':'); else indent=N with ', '→',' + newline and ': '. */
static void emit_json(json_t *j, int indent, int level, int sort, struct strbuf *out)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		size_t n = json_object_size(j);
		if (!n) {
			sb_adds(out, "{}");
			return;
		}
		struct json_key *keys = xmalloc(n * sizeof *keys);
		size_t i = 0;
		for (void *it = json_object_iter(j); it && i < n; it = json_object_iter_next(j, it))
			keys[i++] = (struct json_key){ json_object_iter_key(it),
						       json_object_iter_key_len(it),
						       json_object_iter_value(it) };
		n = i;
		if (sort)
			qsort(keys, n, sizeof *keys, cmp_keys);
		sb_addc(out, '{');
		for (i = 0; i < n; i++) {
			if (i)
				sb_addc(out, ',');
			newline(out, indent, level + 1);
			emit_str(keys[i].s, keys[i].len, out);
			sb_adds(out, indent < 0 ? ":" : ": ");
			emit_json(keys[i].v, indent, level + 1, sort, out);
		}
		newline(out, indent, level);
		sb_addc(out, '}');
		free(keys);
		return;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(j);
		if (!n) {
			sb_adds(out, "[]");
			return;
		}
		sb_addc(out, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				sb_addc(out, ',');
			newline(out, indent, level + 1);
			emit_json(json_array_get(j, i), indent, level + 1, sort, out);
		}
		newline(out, indent, level);
		sb_addc(out, ']');
		return;
	}
	case JSON_STRING:
		emit_str(json_string_value(j), json_string_length(j), out);
		return;
	case JSON_INTEGER: sb_addf(out, "%lld", (long long)json_integer_value(j)); return;
	case JSON_TRUE: sb_adds(out, "true"); return;
	case JSON_FALSE: sb_adds(out, "false"); return;
	case JSON_NULL: sb_adds(out, "null"); return;
	case JSON_REAL:
		emit_float(json_real_value(j), out);
		return;
	}
}

static json_t *pyv_to_json(const struct pyv *v)
{
	switch (v->kind) {
	case PV_INT: return json_integer(v->i);
	case PV_TRUE: return json_true();
	case PV_FALSE: return json_false();
	case PV_NONE: return json_null();
	case PV_STR:
	case PV_NAME: return json_stringn(v->s, v->len);
	default: {
		json_t *a = json_array();
		for (size_t i = 0; i < v->n; i++)
			json_array_append_new(a, pyv_to_json(&v->items[i]));
		return a;
	}
	}
}

/* The document without _generation; keys of entries in the table's order. */
static json_t *build_doc(const struct table *t)
{
	json_t *doc = json_object();
	json_t *meta = json_object();
	for (size_t i = 0; i < t->n_meta; i++) {
		const struct table_meta *m = &t->meta[i];
		json_t *v = NULL;
		if (m->value)
			v = json_string(m->value);
		else if (m->json)
			v = json_loads(m->json, JSON_DECODE_ANY, NULL);
		json_object_set_new(meta, m->name, v ? v : json_null());
	}
	json_object_set_new(doc, "_metadata", meta);
	if (t->records && !(json_is_object((json_t *)t->records) &&
			     json_object_size((json_t *)t->records) == 0))
		json_object_set(doc, "_records", (json_t *)t->records);
	for (size_t i = 0; i < t->n; i++) {
		const struct table_entry *e = &t->entries[i];
		if (!e->tactic)
			continue;
		json_t *val = json_array();
		json_array_append_new(val, json_string(e->runner ? e->runner : "MoERunner"));
		json_array_append_new(val, pyv_to_json(e->tactic));
		/* a read entry's policy and selection record stay as read (they are in
		 * _generation) */
		json_t *orig = t->doc && e->value && e->tactic == &e->value->items[1]
				       ? json_object_getn((json_t *)t->doc, e->key, e->key_len) : NULL;
		for (size_t k = 2; k < json_array_size(orig); k++)
			json_array_append(val, json_array_get(orig, k));
		json_t *policy = !orig && e->policy ? json_loads(e->policy, 0, NULL) : NULL;
		if (policy)
			json_array_append_new(val, policy);
		json_t *sel = policy && e->selection ? json_loads(e->selection, 0, NULL) : NULL;
		if (sel)
			json_array_append_new(val, sel);
		json_object_setn_new(doc, e->key, e->key_len, val);
	}
	return doc;
}

void table_py_json(json_t *j, int indent, bool sort_keys, struct strbuf *out)
{
	emit_json(j, indent, 0, sort_keys, out);
}

void table_json_canonical(json_t *doc, struct strbuf *out)
{
	json_t *o = json_object();
	json_t *meta = json_object_get(doc, "_metadata"), *rec = json_object_get(doc, "_records");
	if (meta)
		json_object_set(o, "_metadata", meta);
	if (rec && !(json_is_object(rec) && json_object_size(rec) == 0))
		json_object_set(o, "_records", rec);
	size_t n = 0;
	const char **keys = xcalloc(json_object_size(doc) + 1, sizeof *keys);
	const char *k;
	json_t *v;
	json_object_foreach(doc, k, v)
		if (strcmp(k, "_metadata") && strcmp(k, "_records") && strcmp(k, "_generation"))
			keys[n++] = k;
	qsort(keys, n, sizeof *keys, str_ptr_cmp); /* UTF-8 byte order is code-point order */
	for (size_t i = 0; i < n; i++)
		json_object_set(o, keys[i], json_object_get(doc, keys[i]));
	free(keys);
	struct strbuf c = STRBUF_INIT;
	emit_json(o, -1, 0, 1, &c);
	char hex[65];
	sha256_hex(c.buf, c.len, 64, hex);
	sb_release(&c);
	json_object_set_new(o, "_generation", json_string(hex));
	emit_json(o, 2, 0, 0, out);
	json_decref(o);
}

int table_generation(const struct table *t, char hex[65])
{
	json_t *doc = build_doc(t);
	struct strbuf sb = STRBUF_INIT;
	emit_json(doc, -1, 0, 1, &sb);
	json_decref(doc);
	int rc = sha256_hex(sb.buf, sb.len, 64, hex);
	sb_release(&sb);
	return rc;
}

int table_write_json(const struct table *t, bool with_generation, struct strbuf *out)
{
	json_t *doc = build_doc(t);
	if (with_generation) {
		char hex[65];
		if (table_generation(t, hex)) {
			json_decref(doc);
			return -1;
		}
		json_object_set_new(doc, "_generation", json_string(hex));
	}
	emit_json(doc, 2, 0, 0, out);
	json_decref(doc);
	return 0;
}
