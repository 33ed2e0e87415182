/* ops.c: calls, buckets and the dispatch to each op's key builder (ops.h). */
#include "ops/ops.h"

#include <stdlib.h>
#include <string.h>

static struct op_field *slot(struct op_call *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].name, name)) {
			free(c->f[i].s);
			c->f[i].s = NULL;
			return &c->f[i];
		}
	ALLOC_GROW(c->f, c->n + 1, c->alloc);
	struct op_field *f = &c->f[c->n++];
	memset(f, 0, sizeof *f);
	f->name = xstrdup(name);
	return f;
}

void op_call_set_int(struct op_call *c, const char *name, long long v)
{
	slot(c, name)->i = v;
}

void op_call_set_str(struct op_call *c, const char *name, const char *v)
{
	slot(c, name)->s = xstrdup(v);
}

const struct op_field *op_call_get(const struct op_call *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].name, name))
			return &c->f[i];
	return NULL;
}

void op_call_release(struct op_call *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->f[i].name);
		free(c->f[i].s);
	}
	free(c->f);
	memset(c, 0, sizeof *c);
}

void op_call_words(const struct op_call *c, struct strbuf *out)
{
	bool first = true;
	for (size_t i = 0; i < c->n; i++) {
		if (c->f[i].s && strchr(c->f[i].s, ' '))
			continue;
		if (c->f[i].s)
			sb_addf(out, "%s%s=%s", first ? "" : " ", c->f[i].name, c->f[i].s);
		else
			sb_addf(out, "%s%s=%lld", first ? "" : " ", c->f[i].name, c->f[i].i);
		first = false;
	}
}

int op_need_int(const struct op_def *op, const struct op_call *c, const char *name, long long *v,
		struct diags *d)
{
	const struct op_field *f = op_call_get(c, name);
	if (!f || f->s)
		return diag_error(d, TT_INVALID, "op", NULL, 0, 0, "%s: a call without the integer "
				  "field '%s'", op->id, name);
	*v = f->i;
	return TT_OK;
}

int op_need_str(const struct op_def *op, const struct op_call *c, const char *name,
		const char **v, struct diags *d)
{
	const struct op_field *f = op_call_get(c, name);
	if (!f || !f->s)
		return diag_error(d, TT_INVALID, "op", NULL, 0, 0, "%s: a call without the field "
				  "'%s'", op->id, name);
	*v = f->s;
	return TT_OK;
}

/* The phases of get_hybrid_num_tokens_buckets (fused_moe/utils.py:228-325, 0.7.2-0.7.4):
 * (upto, step), step 0 = powers of two; the last phase is unbounded powers of two. */
static const long phases[][2] = { { 256, 0 }, { 2048, 256 }, { 4096, 512 }, { 0, 0 } };

size_t op_hybrid_buckets(long max, long **out)
{
	size_t n = 0, alloc = 0;
	long *v = NULL;
	if (max < 1)
		max = 1;
	long lower = 0;
	for (size_t p = 0; p < ARRAY_SIZE(phases); p++) {
		long upto = phases[p][0] ? phases[p][0] : max, step = phases[p][1];
		long x = step ? lower + step : 1;
		while (!step && x <= lower)
			x *= 2;
		for (; x <= upto && x < max; x = step ? x + step : x * 2) {
			ALLOC_GROW(v, n + 1, alloc);
			v[n++] = x;
		}
		if (!phases[p][0] || upto >= max)
			break;
		lower = upto;
	}
	ALLOC_GROW(v, n + 1, alloc);
	v[n++] = max;
	*out = v;
	return n;
}

long op_hybrid_map_uncapped(long x)
{
	if (x <= 0)
		return 1;
	long lower = 0;
	for (size_t p = 0; p < ARRAY_SIZE(phases); p++) {
		long upto = phases[p][0], step = phases[p][1];
		if (!upto || x <= upto) {
			if (step)
				return (x + step - 1) / step * step;
			long b = 1;
			while (b < x)
				b *= 2;
			return b;
		}
		lower = upto;
	}
	(void)lower;
	return x;
}

/* The token counts whose keys the call stores (ops.h op_call). */
static int call_tokens(const struct op_def *op, const struct op_call *c, long **out, size_t *n,
		       struct diags *d)
{
	const char *tune;
	long long m, max;
	int rc;
	if ((rc = op_need_str(op, c, "tune", &tune, d)) || (rc = op_need_int(op, c, "m", &m, d)))
		return rc;
	if (m < 1)
		return diag_error(d, TT_INVALID, "op", NULL, 0, 0, "%s: a call of %lld tokens", op->id, m);
	if (!strcmp(tune, "buckets")) {
		/* vLLM: autotune(tuning_buckets=hybrid(tune_max), round_up=True) replaces the
		 * op's buckets with those (flashinfer autotuner _apply_tuning_overrides) */
		if ((rc = op_need_int(op, c, "tune_max", &max, d)))
			return rc;
		*n = op_hybrid_buckets((long)max, out);
		return TT_OK;
	}
	if (strcmp(tune, "at_m"))
		return diag_error(d, TT_INVALID, "op", NULL, 0, 0, "%s: tune '%s' is neither at_m "
				  "nor buckets", op->id, tune);
	switch (op->buckets) {
	case OPB_HYBRID_UNCAPPED: {
		/* the buckets generated for the call's M, each stored under its uncapped map */
		*n = op_hybrid_buckets((long)m, out);
		for (size_t i = 0; i < *n; i++)
			(*out)[i] = op_hybrid_map_uncapped((*out)[i]);
		return TT_OK;
	}
	case OPB_HYBRID_CLAMPED:
		/* the buckets of the tune_max the consumer passes, whatever the call's M */
		if ((rc = op_need_int(op, c, "tune_max", &max, d)))
			return rc;
		*n = op_hybrid_buckets((long)max, out);
		return TT_OK;
	case OPB_SCHEMA:
		break;
	}
	return diag_error(d, TT_INVALID, "op", NULL, 0, 0, "%s: its keys come from the version "
			  "schema, not from calls", op->id);
}

int op_call_keys(const struct op_def *op, const struct op_call *call, size_t index,
		 struct op_keys *out, struct diags *d)
{
	int (*build)(const struct op_def *, const struct op_call *, long, struct strbuf *,
		     struct diags *) = NULL;
	if (!strcmp(op->builder, "fp4_gemm"))
		build = op_fp4_gemm_key;
	else if (!strcmp(op->builder, "trtllm_moe"))
		build = op_trtllm_moe_key;
	else
		return diag_error(d, TT_INVALID, "op", op->path, 0, 0, "op %s: no key builder '%s' "
				  "for calls (fp4_gemm, trtllm_moe)", op->id, op->builder);
	long *tokens = NULL;
	size_t nt = 0;
	int rc = call_tokens(op, call, &tokens, &nt, d);
	if (rc)
		return rc;
	struct strbuf key = STRBUF_INIT;
	for (size_t i = 0; i < nt && !rc; i++) {
		sb_reset(&key);
		if ((rc = build(op, call, tokens[i], &key, d)))
			break;
		bool seen = false;
		for (size_t j = 0; j < out->n && !seen; j++)
			seen = !strcmp(out->v[j].key, key.buf);
		if (seen)
			continue;
		ALLOC_GROW(out->v, out->n + 1, out->alloc);
		out->v[out->n++] = (struct op_key){ .key = xstrdup(key.buf), .tokens = tokens[i],
						    .call = index };
	}
	sb_release(&key);
	free(tokens);
	return rc;
}

void op_keys_release(struct op_keys *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].key);
		free(k->v[i].tactic);
	}
	free(k->v);
	memset(k, 0, sizeof *k);
}
