/* lookup.c: the keys FlashInfer looks up for a deployment (flashinfer-formats.md §3). */
#include "flashinfer/lookup.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flashinfer/key.h"
#include "flashinfer/pylit.h"
#include "base/util.h"

static void push_entry(struct lookup_list *p, const struct lookup_entry *e)
{
	ALLOC_GROW(p->v, p->n + 1, p->alloc);
	p->v[p->n++] = *e;
}

static void pv_int(struct pyv *v, long long x)
{
	memset(v, 0, sizeof *v);
	v->kind = PV_INT;
	v->i = x;
}

static void pv_str(struct pyv *v, const char *s)
{
	memset(v, 0, sizeof *v);
	v->kind = PV_STR;
	v->s = s;
	v->len = strlen(s);
}

static void pv_tuple(struct pyv *v, struct pyv *items, size_t n)
{
	memset(v, 0, sizeof *v);
	v->kind = PV_TUPLE;
	v->items = items;
	v->n = n;
}

/* $variables an extras source may name (schemas/flashinfer, key.extras_fields). */
static int extras_value(const char *field, const char *src, const struct deployment *dep,
			struct pyv *v, struct diags *d)
{
	memset(v, 0, sizeof *v);
	if (!strcmp(src, "True") || !strcmp(src, "False")) {
		v->kind = src[0] == 'T' ? PV_TRUE : PV_FALSE;
		return 0;
	}
	if (src[0] != '$') {
		long x;
		if (parse_long(src, &x))
			return diag_error(d, TT_INTERNAL, "data", NULL, 0, 0, "extras source '%s' is "
					  "neither a literal nor a $variable", src);
		pv_int(v, x);
		return 0;
	}
	const char *n = src + 1;
	if (!strcmp(n, "act_torch") || !strcmp(n, "weight_torch") || !strcmp(n, "out_torch")) {
		v->kind = PV_NAME;
		v->s = !strcmp(n, "act_torch") ? (dep->iv ? dep->iv->torch : dep->dt->act_torch)
		       : !strcmp(n, "weight_torch") ? dep->wv->torch
		       : dep->out_torch ? dep->out_torch
		       : dep->dtype == DT_FP16 ? "torch.float16" : "torch.bfloat16";
		v->len = strlen(v->s);
		return 0;
	}
	static const struct { const char *name; size_t off; } longs[] = {
		{ "top_k", offsetof(struct deployment, top_k) }, { "tp", offsetof(struct deployment, tp) },
		{ "tp_rank", offsetof(struct deployment, tp_rank) }, { "ep", offsetof(struct deployment, ep) },
		{ "ep_rank", offsetof(struct deployment, ep_rank) },
	};
	for (size_t i = 0; i < ARRAY_SIZE(longs); i++)
		if (!strcmp(n, longs[i].name)) {
			pv_int(v, *(const long *)((const char *)dep + longs[i].off));
			return 0;
		}
	if (!strcmp(n, "flag")) {
		/* the field's own name among the dtype's flags (configs/dtypes.yaml) */
		v->kind = dtype_has_flag(dep->dt, field) ? PV_TRUE : PV_FALSE;
		return 0;
	}
	if (!strcmp(n, "fused_finalize")) {
		v->kind = dep->fused_finalize ? PV_TRUE : PV_FALSE;
		return 0;
	}
	if (!strcmp(n, "pdl")) {
		v->kind = dep->sm >= 90 ? PV_TRUE : PV_FALSE; /* device_support_pdl() */
		return 0;
	}
	if (!strcmp(n, "activation_type")) {
		pv_int(v, (long long)dep->activation);
		return 0;
	}
	return diag_error(d, TT_INTERNAL, "data", NULL, 0, 0, "unknown extras variable '%s'", src);
}

/* The first n extras fields of s evaluated for dep (*out: n values, caller frees). */
static int extras_of(const struct fi_rules *s, const struct deployment *dep, size_t n,
		     struct pyv **out, struct diags *d)
{
	struct pyv *v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		const struct fr_field *f = &s->key.extras_fields[i];
		if (!f->source) {
			free(v);
			return diag_error(d, TT_INTERNAL, "data", s->path, 0, 0, "extras field '%s' has "
					  "no source: tunetab cannot build this version's keys", f->name);
		}
		if (extras_value(f->name, f->source, dep, &v[i], d)) {
			free(v);
			return TT_INTERNAL;
		}
	}
	*out = v;
	return TT_OK;
}

int lookup_runner_args(const struct fi_rules *newest, const struct deployment *dep,
		       struct strbuf *names, struct strbuf *values, struct diags *d)
{
	size_t n = newest->key.extras_fields_count;
	struct pyv *v, tuple;
	if (newest->key.extras != EXTRAS_FIELDS || !n)
		return diag_error(d, TT_INTERNAL, "data", newest->path, 0, 0, "the newest schema's "
				  "key names no MoERunner arguments (key.extras_fields)");
	if (extras_of(newest, dep, n, &v, d))
		return TT_INTERNAL;
	sb_reset(names);
	for (size_t i = 0; i < n; i++)
		sb_addf(names, "%s%s", i ? "," : "", newest->key.extras_fields[i].name);
	pv_tuple(&tuple, v, n);
	sb_reset(values);
	pyv_repr(&tuple, values);
	free(v);
	return TT_OK;
}

/* The key string str((op, runner, profile[, extras])) for one stage and bucket. */
static int build_key(const struct fi_rules *s, const struct fr_op *op, const struct deployment *dep,
		     long tokens, long experts, long inter, struct strbuf *out, struct diags *d)
{
	long hidden = dtype_align(dep->dt, dep->hidden); /* the padded weights (dtypes.yaml align) */
	long n1 = model_activation_gated(dep->activation) ? 2 * inter : inter;
	struct pyv in[2], w1[3], b1[2], w2[3], b2[2], shapes[5], top[4];
	pv_int(&in[0], tokens);
	pv_int(&in[1], hidden / (dep->iv ? dep->iv->pack : dep->dt->act_pack));
	pv_int(&w1[0], experts);
	pv_int(&w1[1], n1);
	pv_int(&w1[2], hidden / dep->wv->pack);
	pv_int(&w2[0], experts);
	pv_int(&w2[1], hidden);
	pv_int(&w2[2], inter / dep->wv->pack);
	pv_tuple(&shapes[0], in, 2);
	pv_tuple(&shapes[1], w1, 3);
	pv_tuple(&shapes[3], w2, 3);
	if (dep->biases) {
		/* biased experts (gpt-oss): [E, N1] and [E, hidden] bias tensors */
		pv_int(&b1[0], experts);
		pv_int(&b1[1], n1);
		pv_int(&b2[0], experts);
		pv_int(&b2[1], hidden);
		pv_tuple(&shapes[2], b1, 2);
		pv_tuple(&shapes[4], b2, 2);
	} else {
		/* None inputs key as (0,) (formats §1.3) */
		pv_int(&b1[0], 0);
		pv_int(&b2[0], 0);
		pv_tuple(&shapes[2], b1, 1);
		pv_tuple(&shapes[4], b2, 1);
	}
	pv_str(&top[0], op->op);
	pv_str(&top[1], op->runners[0]);
	pv_tuple(&top[2], shapes, 5);
	struct pyv *extras = NULL;
	size_t n = 3;
	if (s->key.tuple == 4) {
		size_t ne = s->key.extras == EXTRAS_EMPTY ? 0 : s->key.extras_fields_count;
		if (extras_of(s, dep, ne, &extras, d))
			return TT_INTERNAL;
		pv_tuple(&top[3], extras, ne);
		n = 4;
	}
	struct pyv key;
	pv_tuple(&key, top, n);
	sb_reset(out);
	pyv_repr(&key, out);
	free(extras);
	return TT_OK;
}

double lookup_tokens_per_expert(const struct lookup_entry *e, long top_k)
{
	long k = e->top_k > 0 ? e->top_k : top_k;
	long all = e->experts_total > 0 ? e->experts_total : e->experts;
	return k > 0 && all > 0 ? (double)e->tokens * (double)k / (double)all : 0;
}

int lookup_deploy(const struct fi_rules *s, const struct deployment *dep, struct lookup_list *p,
		    struct diags *d)
{
	memset(p, 0, sizeof *p);
	if (dep->experts_total % dep->ep)
		return diag_error(d, TT_INVALID, "usage", NULL, 0, 0, "%ld experts do not split over "
				  "EP %ld", dep->experts_total, dep->ep);
	if (dep->inter_total % dep->tp)
		return diag_error(d, TT_INVALID, "usage", NULL, 0, 0, "intermediate size %ld does not "
				  "split over TP %ld", dep->inter_total, dep->tp);
	/* hidden and the rank's intermediate as the serving stack pads them for this dtype */
	long experts = dep->experts_total / dep->ep;
	long inter = dtype_align(dep->dt, dep->inter_total / dep->tp);
	long hidden = dtype_align(dep->dt, dep->hidden);
	if (hidden % dep->dt->act_pack || hidden % dep->wv->pack || inter % dep->wv->pack)
		return diag_error(d, TT_INVALID, "usage", NULL, 0, 0, "hidden %ld or intermediate %ld "
				  "per rank is not a multiple of the %s packing (%u per %s)",
				  hidden, inter, dep->dt->name, dep->wv->pack, dep->wv->torch);
	unsigned *buckets;
	size_t nb = firules_buckets(s, dep->max_tokens, &buckets);
	struct strbuf key = STRBUF_INIT;
	int rc = TT_OK;
	for (unsigned o = 0; o < s->key.ops_count && !rc; o++) {
		const struct fr_op *op = &s->key.ops[o];
		if (op->stage != 1 && op->stage != 2)
			continue;
		for (size_t b = 0; b < nb && !rc; b++) {
			rc = build_key(s, op, dep, (long)buckets[b], experts, inter, &key, d);
			if (rc)
				break;
			struct lookup_entry e = { 0 };
			e.stage = (int)op->stage;
			e.tokens = (long)buckets[b];
			e.key = xstrdup(key.buf);
			e.experts = experts;
			e.experts_total = dep->experts_total;
			e.inter = inter;
			e.top_k = dep->top_k;
			e.weight_bits = (int)dep->dt->weight_bits;
			long n1 = model_activation_gated(dep->activation) ? 2 * inter : inter;
			e.features = op->stage == 1 ? n1 : hidden;
			e.k = op->stage == 1 ? hidden : inter;
			e.time_us = -1;
			push_entry(p, &e);
		}
	}
	sb_release(&key);
	free(buckets);
	return rc;
}

static const struct fr_op *stage_op(const struct fi_rules *s, int stage)
{
	for (unsigned o = 0; o < s->key.ops_count; o++)
		if ((int)s->key.ops[o].stage == stage)
			return &s->key.ops[o];
	return NULL;
}

int lookup_all_ranks(const struct fi_rules *s, const struct deployment *dep, struct lookup_list *p,
		       bool tp_all, bool ep_all, struct diags *d)
{
	size_t base = p->n;
	struct strbuf key = STRBUF_INIT;
	int rc = TT_OK;
	for (long tr = 0; tr < (tp_all ? dep->tp : 1) && !rc; tr++)
		for (long er = 0; er < (ep_all ? dep->ep : 1) && !rc; er++) {
			struct deployment r = *dep;
			r.tp_rank = tp_all ? tr : dep->tp_rank;
			r.ep_rank = ep_all ? er : dep->ep_rank;
			if (r.tp_rank == dep->tp_rank && r.ep_rank == dep->ep_rank)
				continue;
			for (size_t i = 0; i < base && !rc; i++) {
				const struct fr_op *op = stage_op(s, p->v[i].stage);
				if (!op)
					continue;
				if ((rc = build_key(s, op, &r, p->v[i].tokens, p->v[i].experts,
						    p->v[i].inter, &key, d)))
					break;
				if (!strcmp(key.buf, p->v[i].key))
					continue; /* this version's key holds no rank */
				struct lookup_entry e = p->v[i];
				e.key = xstrdup(key.buf);
				push_entry(p, &e);
			}
		}
	sb_release(&key);
	return rc;
}

const char *const keys_runner_fields[KR_COUNT] = {
	[KR_FINALIZE] = "use_fused_finalize", [KR_TOP_K] = "top_k", [KR_TP] = "tp_size",
	[KR_EP] = "ep_size", [KR_ACTIVATION] = "activation_type",
};

int lookup_keys_file(const struct fi_rules *s, const char *path, const struct deployment *dep,
		  const struct dtype_set *dtypes, struct lookup_list *p, struct diags *d)
{
	memset(p, 0, sizeof *p);
	for (int f = 0; f < KR_COUNT; f++)
		p->runner[f] = KEYS_ABSENT;
	char *text;
	size_t len;
	int err = read_file(path, LOOKUP_KEYS_MAX_BYTES, &text, &len);
	if (err == ENOBUFS)
		return diag_error(d, TT_INVALID, "size", path, 0, 0, "key file larger than %u MiB",
				  LOOKUP_KEYS_MAX_BYTES >> 20);
	if (err)
		return diag_error(d, TT_INVALID, "io", path, 0, 0, "cannot read keys: %s",
				  path_strerror(path, err));
	size_t bad = pylit_bad_utf8(text, len);
	if (bad < len) {
		int bl = 1, bc = 1; /* the column counts characters */
		for (size_t i = 0; i < bad; i++) {
			if (text[i] == '\n')
				bl++, bc = 1;
			else if (((unsigned char)text[i] & 0xC0) != 0x80)
				bc++;
		}
		int rc0 = diag_error(d, TT_INVALID, "key-syntax", path, bl, bc, text[bad] ?
				     "invalid UTF-8 byte 0x%02x" : "NUL byte in the key file",
				     (unsigned char)text[bad]);
		free(text);
		return rc0;
	}
	struct arena a = ARENA_INIT;
	int rc = TT_OK, lineno = 0;
	(void)dtypes;
	for (char *line = text, *next; line && *line && !rc; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		size_t l = strlen(line);
		while (l && (line[l - 1] == '\r' || line[l - 1] == ' '))
			line[--l] = '\0';
		int indent = 0; /* the key's column is indent + 1 */
		while (*line == ' ')
			line++, l--, indent++;
		if (!*line || *line == '#')
			continue;
		if (l > LOOKUP_KEY_LINE_MAX) {
			rc = diag_error(d, TT_INVALID, "size", path, lineno, 1, "line longer than %u "
					"bytes: no FlashInfer key is that long", LOOKUP_KEY_LINE_MAX);
			break;
		}
		if (p->n == LOOKUP_KEYS_MAX) {
			rc = diag_error(d, TT_INVALID, "size", path, lineno, 1, "more than %u keys",
					LOOKUP_KEYS_MAX);
			break;
		}
		const struct pyv *t = key_parse(line, strlen(line), &a, path, lineno, indent, d);
		struct moe_key k;
		if (!t) {
			rc = TT_INVALID;
			break;
		}
		if (key_decode(t, &k)) {
			rc = diag_error(d, TT_INVALID, "key-syntax", path, lineno, 1, "%s", k.why);
			break;
		}
		struct strbuf canon = STRBUF_INIT;
		pyv_repr(t, &canon);
		if (strcmp(canon.buf, line)) {
			rc = diag_error(d, TT_INVALID, "key-canonical", path, lineno, 1, "the key is not "
					"Python's str() of its tuple; it should read: %s", canon.buf);
			sb_release(&canon);
			break;
		}
		sb_release(&canon);
		if ((unsigned)k.tuple_len != s->key.tuple) {
			rc = diag_error(d, TT_INVALID, "key-form", path, lineno, 1, "a %d-tuple key, but "
					"FlashInfer's target version builds %u-tuple keys", k.tuple_len,
					s->key.tuple);
			break;
		}
		const struct fr_op *op = NULL;
		for (unsigned o = 0; o < s->key.ops_count; o++)
			if (!strcmp(s->key.ops[o].op, k.op))
				op = &s->key.ops[o];
		if (!op || !op->stage) {
			rc = diag_error(d, TT_INVALID, "unknown-op", path, lineno, 1, "op '%s' is not a "
					"cutlass MoE GEMM stage tunetab generates", k.op);
			break;
		}
		key_decode_moe(&k);
		if (!k.moe_ok) {
			rc = diag_error(d, TT_INVALID, "shape", path, lineno, 1, "%s", k.why);
			break;
		}
		struct lookup_entry e = { 0 };
		e.stage = (int)op->stage;
		e.tokens = k.tokens;
		e.key = xstrdup(line);
		e.experts = k.e1;
		e.experts_total = k.e1 * key_ep_size(s, &k);
		e.inter = k.inter;
		e.features = op->stage == 1 ? k.n1 : k.hidden;
		e.k = op->stage == 1 ? k.hidden : k.inter;
		e.time_us = -1;
		push_entry(p, &e);
		for (int f = 0; f < KR_COUNT; f++) {
			long v = key_field(s, &k, keys_runner_fields[f]);
			if (v >= 0)
				p->runner[f] = p->runner[f] == KEYS_ABSENT || p->runner[f] == v ? v
									       : KEYS_MIXED;
		}
	}
	arena_release(&a);
	free(text);
	if (!rc && p->n == 0)
		rc = diag_error(d, TT_INVALID, "io", path, 0, 0, "no keys in the file");
	return rc;
}

void lookup_list_release(struct lookup_list *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].key);
	free(p->v);
	if (p->have_list)
		tactic_list_release(&p->list);
	memset(p, 0, sizeof *p);
}


const struct fr_op *lookup_moe_op(const struct fi_rules *s, int stage)
{
	for (unsigned i = 0; i < s->key.ops_count; i++)
		if ((int)s->key.ops[i].stage == stage && s->key.ops[i].runners_count)
			return &s->key.ops[i];
	return NULL;
}

void lookup_to_table(const struct fi_rules *s, const struct lookup_list *p, const char *policy,
		     struct table *t)
{
	memset(t, 0, sizeof *t);
	t->path = xstrdup("(generated)");
	struct strbuf rec = STRBUF_INIT;
	for (size_t i = 0; i < p->n; i++) {
		const struct lookup_entry *e = &p->v[i];
		struct pyv tv = { .kind = PV_INT, .i = e->tactic };
		const struct fr_op *op = lookup_moe_op(s, e->stage);
		const char *runner = op ? op->runners[0] : NULL;
		sb_reset(&rec);
		if (policy)
			table_selection_json(&e->sel, &rec);
		if (rec.len)
			table_add_policy(t, e->key, runner, &tv, policy, rec.buf);
		else
			table_add(t, e->key, 0, runner, &tv);
	}
	sb_release(&rec);
	table_sort(t);
}
