/* table.c: the table model, the bundled-module reader (pprint or ruff/black layout) and the
 * module writer in the ruff/black layout of FlashInfer's shipped files (formats §1.2). */
#include "flashinfer/table.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define TABLE_MAX_BYTES (256u << 20)
#define BLACK_LINE_LENGTH 88


static void add_entry(struct table *t, size_t *alloc, const struct table_entry *e)
{
	ALLOC_GROW(t->entries, t->n + 1, *alloc);
	t->entries[t->n++] = *e;
}

/* Marks repeated keys; Python's dict keeps the last value (formats §1.2). A hash table:
 * keys share long prefixes, so sorting them was the slow part of reading big tables. */
void table_mark_duplicates(struct table *t)
{
	size_t n = t->n, cap = 64;
	while (cap < 2 * n)
		cap *= 2;
	size_t *slot = xcalloc(cap, sizeof *slot);
	for (size_t i = 0; i < n; i++) {
		struct table_entry *e = &t->entries[i];
		e->dup_of = -1;
		uint64_t h = hash_bytes(e->key, e->key_len);
		for (h &= cap - 1;; h = (h + 1) & (cap - 1)) {
			if (!slot[h]) {
				slot[h] = i + 1;
				break;
			}
			const struct table_entry *o = &t->entries[slot[h] - 1];
			if (o->key_len == e->key_len && !memcmp(o->key, e->key, e->key_len)) {
				e->dup_of = (int)(slot[h] - 1);
				break;
			}
		}
	}
	free(slot);
}

static int read_py(const char *name, const char *text, size_t len, struct table *t,
		   struct diags *d)
{
	t->kind = TABLE_PY;
	int rc = pylit_parse_module(text, len, name, &t->module, d);
	if (rc)
		return rc;
	const struct py_assign *bc = NULL;
	for (size_t i = 0; i < t->module.n; i++)
		if (strcmp(t->module.assigns[i].name, "best_configs") == 0)
			bc = &t->module.assigns[i]; /* the last assignment wins, as in Python */
	if (!bc)
		return diag_error(d, TT_INVALID, "best-configs", name, 1, 1,
				  "no 'best_configs' assignment: FlashInfer treats the module as having "
				  "no configs (formats §1.2)");
	t->has_best_configs = true;
	if (bc->value->kind != PV_DICT)
		return diag_error(d, TT_INVALID, "best-configs", name, bc->value->line,
				  bc->value->col, "'best_configs' is a %s, not a dict",
				  pyv_kind_name(bc->value->kind));
	const struct pyv *dict = bc->value;
	if (dict->n > TABLE_MAX_ENTRIES)
		return diag_error(d, TT_INVALID, "size", name, bc->value->line, bc->value->col,
				  "'best_configs' has %zu entries, more than the %u tunetab reads",
				  dict->n, TABLE_MAX_ENTRIES);
	for (size_t i = 0; i < dict->n; i++) {
		const struct pyv *k = &dict->items[2 * i], *v = &dict->items[2 * i + 1];
		struct table_entry e = { 0 };
		e.line = k->line;
		e.col = k->col;
		e.vline = v->line;
		e.vcol = v->col;
		e.value = v;
		e.dup_of = -1;
		if (k->kind == PV_STR) {
			e.key = k->s;
			e.key_len = k->len;
		} else {
			struct strbuf sb = STRBUF_INIT;
			pyv_repr(k, &sb);
			e.key = arena_strndup(&t->arena, sb.buf, sb.len);
			e.key_len = sb.len;
			sb_release(&sb);
			diags_add(d, SEV_ERROR, "key-type", name, k->line, k->col,
				  "key %s is a %s, not a str: FlashInfer looks keys up as strings", e.key,
				  pyv_kind_name(k->kind));
		}
		if (v->kind == PV_TUPLE && v->n == 2 && v->items[0].kind == PV_INT) {
			e.value_ok = true;
			e.runner_id = v->items[0].i;
			e.tactic = &v->items[1];
		}
		add_entry(t, &t->cap, &e);
	}
	table_mark_duplicates(t);
	return TT_OK;
}

int table_read_mem(const char *name, const char *text, size_t len, struct table *t,
		   struct diags *d)
{
	memset(t, 0, sizeof *t);
	t->path = xstrdup(name);
	size_t i = 0;
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		i = 3;
	while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
		i++;
	if (i < len && (text[i] == '{' || text[i] == '['))
		return table_json_read(name, text, len, t, d);
	return read_py(name, text, len, t, d);
}

int table_read(const char *path, struct table *t, struct diags *d)
{
	memset(t, 0, sizeof *t);
	char *text;
	size_t len;
	int err = read_file_diag(path, TABLE_MAX_BYTES, &text, &len, d);
	if (err)
		return err;
	int rc = table_read_mem(path, text, len, t, d);
	t->text = text; /* the module's strings point into it */
	return rc;
}

void table_release(struct table *t)
{
	table_json_release(t);
	py_module_release(&t->module);
	arena_release(&t->arena);
	free(t->entries);
	free(t->meta);
	free(t->path);
	free(t->text);
	memset(t, 0, sizeof *t);
}

void table_add(struct table *t, const char *key, long long runner_id, const char *runner,
	       const struct pyv *tactic)
{
	struct table_entry e = { 0 };
	e.key_len = strlen(key);
	e.key = arena_strndup(&t->arena, key, e.key_len);
	e.value_ok = true;
	e.runner_id = runner_id;
	e.runner = runner ? arena_strndup(&t->arena, runner, strlen(runner)) : NULL;
	e.tactic = pyv_clone(&t->arena, tactic);
	e.dup_of = -1;
	add_entry(t, &t->cap, &e);
}

void table_add_policy(struct table *t, const char *key, const char *runner,
		      const struct pyv *tactic, const char *policy, const char *selection)
{
	table_add(t, key, 0, runner, tactic);
	struct table_entry *e = &t->entries[t->n - 1];
	e->policy = arena_strndup(&t->arena, policy, strlen(policy));
	if (selection)
		e->selection = arena_strndup(&t->arena, selection, strlen(selection));
}

static int cmp_entry(const void *a, const void *b)
{
	const struct table_entry *x = a, *y = b;
	size_t ml = x->key_len < y->key_len ? x->key_len : y->key_len;
	int c = memcmp(x->key, y->key, ml);
	return c ? c : (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

void table_sort(struct table *t)
{
	/* UTF-8 byte order is code-point order, which is how Python sorts str keys */
	if (t->n > 1)
		qsort(t->entries, t->n, sizeof *t->entries, cmp_entry);
}

/* A str literal as black normalises it: double quotes unless that needs more escapes. */
static void black_str(const char *s, size_t len, struct strbuf *out)
{
	struct strbuf r = STRBUF_INIT;
	py_str_repr(s, len, &r);
	/* r is Python's repr: quoted with ' unless the text has ' and no " */
	size_t sq = 0, dq = 0;
	for (size_t i = 0; i < len; i++) {
		sq += s[i] == '\'';
		dq += s[i] == '"';
	}
	char want = dq > sq ? '\'' : '"';
	if (r.buf[0] == want) {
		sb_add(out, r.buf, r.len);
	} else {
		/* requote: unescape the old quote, escape the new one */
		char old = r.buf[0];
		sb_addc(out, want);
		for (size_t i = 1; i + 1 < r.len; i++) {
			char c = r.buf[i];
			if (c == '\\' && i + 2 < r.len && r.buf[i + 1] == old) {
				sb_addc(out, old);
				i++;
			} else if (c == '\\') {
				sb_addc(out, c);
				sb_addc(out, r.buf[++i]);
			} else if (c == want) {
				sb_addc(out, '\\');
				sb_addc(out, c);
			} else {
				sb_addc(out, c);
			}
		}
		sb_addc(out, want);
	}
	sb_release(&r);
}

/* One value in black's layout at the given indent, followed by `suffix`. */
static void black_value(const struct pyv *v, int indent, const char *prefix, const char *suffix,
			struct strbuf *out)
{
	struct strbuf flat = STRBUF_INIT;
	pyv_repr(v, &flat);
	size_t width = (size_t)indent + strlen(prefix) + flat.len + strlen(suffix);
	int container = (v->kind == PV_TUPLE || v->kind == PV_LIST) && v->n > 0;
	if (width <= BLACK_LINE_LENGTH || !container) {
		sb_addf(out, "%*s%s%s%s\n", indent, "", prefix, flat.buf, suffix);
	} else {
		/* explode: one element per line, magic trailing comma */
		sb_addf(out, "%*s%s%c\n", indent, "", prefix, v->kind == PV_TUPLE ? '(' : '[');
		for (size_t i = 0; i < v->n; i++)
			black_value(&v->items[i], indent + 4, "", ",", out);
		sb_addf(out, "%*s%c%s\n", indent, "", v->kind == PV_TUPLE ? ')' : ']', suffix);
	}
	sb_release(&flat);
}

void table_write_py(const struct table *t, struct strbuf *out)
{
	if (t->n == 0) {
		sb_adds(out, "best_configs = {}\n");
		return;
	}
	struct strbuf line = STRBUF_INIT;
	/* one line when the whole dict fits (black), else one entry per line */
	sb_adds(&line, "best_configs = {");
	/* entries with no (runner, tactic) value are left out, as the JSON writer does */
	size_t written = 0;
	for (size_t i = 0; i < t->n && line.len <= BLACK_LINE_LENGTH; i++) {
		const struct table_entry *e = &t->entries[i];
		if (!e->tactic)
			continue;
		if (written++)
			sb_adds(&line, ", ");
		black_str(e->key, e->key_len, &line);
		sb_addf(&line, ": (%lld, ", e->runner_id);
		pyv_repr(e->tactic, &line);
		sb_addc(&line, ')');
	}
	sb_addc(&line, '}');
	if (line.len <= BLACK_LINE_LENGTH) {
		sb_add(out, line.buf, line.len);
		sb_addc(out, '\n');
	} else {
		sb_adds(out, "best_configs = {\n");
		for (size_t i = 0; i < t->n; i++) {
			const struct table_entry *e = &t->entries[i];
			if (!e->tactic)
				continue;
			struct pyv items[2] = { { .kind = PV_INT, .i = e->runner_id }, *e->tactic };
			struct pyv value = { .kind = PV_TUPLE, .items = items, .n = 2 };
			sb_reset(&line);
			black_str(e->key, e->key_len, &line);
			sb_adds(&line, ": ");
			black_value(&value, 4, line.buf, ",", out);
		}
		sb_adds(out, "}\n");
	}
	sb_release(&line);
}
