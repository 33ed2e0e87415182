/* key.c: tuning keys parsed and decoded (flashinfer-formats.md §1.3, §3.1, §3.3). */
#include "flashinfer/key.h"

#include "data/firules.h"

#include <stdio.h>
#include <string.h>

const struct pyv *key_parse(const char *key, size_t len, struct arena *a, const char *file,
			    int line, int col, struct diags *d)
{
	/* positions inside the key: the key starts one column after its opening quote */
	return pylit_parse_expr(key, len, a, file, line, col + 1, d);
}

/* --- fast path ------------------------------------------------------------
 * Keys FlashInfer writes are Python's str() of a tuple: one canonical spelling. This parser
 * accepts exactly that spelling for the common subset (tuples, ints, plain ASCII strings
 * without quotes or backslashes, dotted names, True/False/None) and builds the same tree the
 * general parser builds; anything else returns NULL and the caller uses the general parser.
 * By construction, an accepted key equals pyv_repr() of its tree. */
struct fast {
	const char *p, *end;
	struct arena *a;
	struct pyv *stack;
	size_t sp, cap;
	int depth; /* tuple nesting; deeper keys go to the general parser (its MAX_DEPTH) */
};

static int fast_value(struct fast *f, struct pyv *v);

static int fast_push(struct fast *f, const struct pyv *v)
{
	ALLOC_GROW(f->stack, f->sp + 1, f->cap);
	f->stack[f->sp++] = *v;
	return 0;
}

static int fast_tuple(struct fast *f, struct pyv *v)
{
	f->p++; /* ( */
	if (++f->depth > 32)
		return -1; /* keys nest 3 deep; no recursion without bound */
	size_t base = f->sp;
	size_t n = 0;
	if (f->p < f->end && *f->p == ')') {
		f->p++;
	} else {
		for (;;) {
			struct pyv item;
			if (fast_value(f, &item))
				return -1;
			fast_push(f, &item);
			n++;
			if (f->p >= f->end)
				return -1;
			if (*f->p == ')') {
				if (n == 1)
					return -1; /* (x) is not a tuple; (x,) is */
				f->p++;
				break;
			}
			if (*f->p != ',')
				return -1;
			f->p++;
			if (f->p < f->end && *f->p == ')') {
				if (n != 1)
					return -1; /* trailing comma only in 1-tuples */
				f->p++;
				break;
			}
			if (f->p >= f->end || *f->p != ' ')
				return -1;
			f->p++;
		}
	}
	memset(v, 0, sizeof *v);
	v->kind = PV_TUPLE;
	v->n = n;
	if (n) {
		v->items = arena_alloc(f->a, n * sizeof *v->items);
		memcpy(v->items, f->stack + base, n * sizeof *v->items);
	}
	f->sp = base;
	f->depth--;
	return 0;
}

static int fast_value(struct fast *f, struct pyv *v)
{
	if (f->p >= f->end)
		return -1;
	char c = *f->p;
	if (c == '(')
		return fast_tuple(f, v);
	memset(v, 0, sizeof *v);
	if (c == '\'') {
		const char *st = ++f->p;
		while (f->p < f->end && *f->p != '\'') {
			unsigned char x = (unsigned char)*f->p;
			if (x < 0x20 || x >= 0x7F || x == '\\' || x == '"')
				return -1;
			f->p++;
		}
		if (f->p >= f->end)
			return -1;
		v->kind = PV_STR;
		v->len = (size_t)(f->p - st);
		v->s = arena_strndup(f->a, st, v->len);
		f->p++;
		return 0;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		int neg = c == '-';
		if (neg)
			f->p++;
		const char *st = f->p;
		long long x = 0;
		while (f->p < f->end && *f->p >= '0' && *f->p <= '9' && f->p - st < 18)
			x = x * 10 + (*f->p++ - '0');
		size_t n = (size_t)(f->p - st);
		if (!n || (f->p < f->end && *f->p >= '0' && *f->p <= '9') ||
		    (*st == '0' && (n > 1 || neg)))
			return -1; /* long, leading zero or -0: let the general parser judge */
		v->kind = PV_INT;
		v->i = neg ? -x : x;
		return 0;
	}
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
		const char *st = f->p;
		while (f->p < f->end && ((*f->p >= 'a' && *f->p <= 'z') || (*f->p >= 'A' && *f->p <= 'Z') ||
					 (*f->p >= '0' && *f->p <= '9') || *f->p == '_' ||
					 (*f->p == '.' && f->p + 1 < f->end &&
					  ((f->p[1] >= 'a' && f->p[1] <= 'z') || (f->p[1] >= 'A' && f->p[1] <= 'Z') ||
					   f->p[1] == '_'))))
			f->p++;
		size_t n = (size_t)(f->p - st);
		if (st[n - 1] == '.')
			return -1;
		pylit_name(st, n, f->a, v);
		return 0;
	}
	return -1;
}

static struct fast fast_state;

const struct pyv *key_parse_canonical(const char *key, size_t len, struct arena *a)
{
	struct fast *f = &fast_state;
	f->p = key;
	f->end = key + len;
	f->a = a;
	f->sp = 0;
	f->depth = 0;
	if (!len || *key != '(')
		return NULL;
	struct pyv *v = arena_alloc(a, sizeof *v);
	if (fast_value(f, v) || f->p != f->end)
		return NULL;
	return v;
}

static bool is_str(const struct pyv *v)
{
	return v->kind == PV_STR && memchr(v->s, '\0', v->len) == NULL;
}

const struct pyv *key_parse_any(const char *key, size_t len, struct arena *a)
{
	const struct pyv *t = key_parse_canonical(key, len, a);
	if (!t) {
		struct diags quiet = DIAGS_INIT;
		t = key_parse(key, len, a, NULL, 0, 0, &quiet);
		diags_release(&quiet);
	}
	return t;
}

int key_decode(const struct pyv *t, struct moe_key *k)
{
	memset(k, 0, sizeof *k);
	if (t->kind != PV_TUPLE) {
		snprintf(k->why, sizeof k->why, "the key is a %s, not a tuple", pyv_kind_name(t->kind));
		return -1;
	}
	if (t->n != 3 && t->n != 4) {
		snprintf(k->why, sizeof k->why, "the key is a %zu-tuple; FlashInfer keys are "
			 "(op, runner, profile) or (op, runner, profile, extras)", t->n);
		return -1;
	}
	k->tuple_len = (int)t->n;
	if (!is_str(&t->items[0]) || !is_str(&t->items[1])) {
		snprintf(k->why, sizeof k->why, "op and runner must be strings");
		return -1;
	}
	k->op = t->items[0].s;
	k->runner = t->items[1].s;
	if (t->items[2].kind != PV_TUPLE) {
		snprintf(k->why, sizeof k->why, "the profile is a %s, not a tuple of shapes",
			 pyv_kind_name(t->items[2].kind));
		return -1;
	}
	k->profile = &t->items[2];
	for (size_t i = 0; i < k->profile->n; i++) {
		const struct pyv *s = &k->profile->items[i];
		if (s->kind != PV_TUPLE) {
			snprintf(k->why, sizeof k->why, "shape %zu is a %s, not a tuple of ints", i + 1,
				 pyv_kind_name(s->kind));
			return -1;
		}
		for (size_t j = 0; j < s->n; j++)
			if (s->items[j].kind != PV_INT) {
				snprintf(k->why, sizeof k->why, "shape %zu holds a %s, not an int", i + 1,
					 pyv_kind_name(s->items[j].kind));
				return -1;
			}
	}
	if (t->n == 4) {
		if (t->items[3].kind != PV_TUPLE) {
			snprintf(k->why, sizeof k->why, "the extras are a %s, not a tuple",
				 pyv_kind_name(t->items[3].kind));
			return -1;
		}
		k->extras = &t->items[3];
	}
	return 0;
}

static long long dim(const struct pyv *s, size_t i)
{
	return s->items[i].i;
}

static bool absent(const struct pyv *s)
{
	/* a None input shows as (0,) (§1.3) */
	return s->n == 1 && s->items[0].i == 0;
}

void key_decode_moe(struct moe_key *k)
{
	k->moe_ok = false;
	const struct pyv *p = k->profile;
	if (p->n != 5) {
		snprintf(k->why, sizeof k->why, "the profile has %zu shapes; the cutlass MoE key has 5 "
			 "(input, fc1 weights, fc1 biases, fc2 weights, fc2 biases)", p->n);
		return;
	}
	const struct pyv *in = &p->items[0], *w1 = &p->items[1], *b1 = &p->items[2],
			 *w2 = &p->items[3], *b2 = &p->items[4];
	if (in->n != 2 || w1->n != 3 || w2->n != 3) {
		snprintf(k->why, sizeof k->why, "input must be 2-D and both weights 3-D "
			 "(got %zu-D, %zu-D, %zu-D)", in->n, w1->n, w2->n);
		return;
	}
	k->tokens = dim(in, 0);
	k->in_k = dim(in, 1);
	k->e1 = dim(w1, 0);
	k->n1 = dim(w1, 1);
	k->k1 = dim(w1, 2);
	k->e2 = dim(w2, 0);
	k->n2 = dim(w2, 1);
	k->k2 = dim(w2, 2);
	k->bias1 = !absent(b1);
	k->bias2 = !absent(b2);
	for (size_t i = 0; i < 5; i++)
		for (size_t j = 0; j < p->items[i].n; j++)
			if (p->items[i].items[j].i <= 0 && !(absent(&p->items[i]))) {
				snprintf(k->why, sizeof k->why, "shape %zu has a non-positive dimension", i + 1);
				return;
			}
	k->hidden = k->n2;
	k->act_pack = k->in_k > 0 && k->hidden % k->in_k == 0 ? (int)(k->hidden / k->in_k) : 0;
	k->w_pack = k->k1 > 0 && k->hidden % k->k1 == 0 ? (int)(k->hidden / k->k1) : 0;
	/* gated when fc2's K, unpacked like fc1's, is half of fc1's N (§3.1) */
	long long i2 = k->k2 * k->w_pack;
	k->gated = k->n1 == 2 * i2;
	k->inter = i2;
	k->moe_ok = true;
}

const struct pyv *key_extra(const struct moe_key *k, unsigned index)
{
	if (!k->extras || index >= k->extras->n)
		return NULL;
	return &k->extras->items[index];
}

/* The named extras field of schema s in k, or NULL (the version's key has no such field). */
static const struct pyv *key_named(const struct fi_rules *s, const struct moe_key *k,
				   const char *name)
{
	for (unsigned i = 0; s && i < s->key.extras_fields_count; i++)
		if (!strcmp(s->key.extras_fields[i].name, name))
			return key_extra(k, i);
	return NULL;
}

/* The named bool extras field of schema s: 1 True, 0 False, -1 absent. */
static int key_flag(const struct fi_rules *s, const struct moe_key *k, const char *name)
{
	const struct pyv *v = key_named(s, k, name);
	return !v ? -1 : v->kind == PV_TRUE ? 1 : v->kind == PV_FALSE ? 0 : -1;
}

/* A small non-negative int extras field (ep_size, top_k, activation_type), or -1. */
static long key_int(const struct fi_rules *s, const struct moe_key *k, const char *name)
{
	const struct pyv *v = key_named(s, k, name);
	return v && v->kind == PV_INT && v->i >= 0 && v->i < 1 << 20 ? (long)v->i : -1;
}

long key_field(const struct fi_rules *s, const struct moe_key *k, const char *name)
{
	long v = key_int(s, k, name);
	if (v >= 0)
		return v;
	int f = key_flag(s, k, name);
	return f >= 0 ? f : -2;
}

long key_ep_size(const struct fi_rules *s, const struct moe_key *k)
{
	long v = key_int(s, k, "ep_size");
	return v > 0 ? v : 1;
}

int key_dtypes(const struct fi_rules *s, const struct moe_key *k, enum dtype out[2])
{
	/* The flags pick the runner before the tensor dtypes do (binding.cu FusedMoeRunner:
	 * isWMxfp4AFp8HummingQuant, isInt4Quant, isWFP4A16Quant; the DeepSeek block-scale runner
	 * is bf16 x fp8). Which flags each dtype sets: configs/dtypes.yaml. */
	if (key_flag(s, k, "use_deepseek_fp8_block_scale") == 1)
		return out[0] = DT_FP8_BLOCK, 1;
	if (key_flag(s, k, "use_w4_group_scaling") == 1) {
		if (key_flag(s, k, "use_wfp4afp8_humming") == 1)
			return out[0] = DT_W4A8_MXFP4, 1;
		if (key_flag(s, k, "use_packed_weights") == 1)
			return out[0] = DT_W4A8, 1;
		return out[0] = DT_W4A16_MXFP4, 1;
	}
	const struct pyv *x = key_extra(k, 0), *w = key_extra(k, 1);
	if (x && w && x->kind == PV_NAME && w->kind == PV_NAME) {
		if (!strcmp(x->s, "torch.uint8") && (!strcmp(w->s, "torch.int64") || !strcmp(w->s, "torch.uint8")))
			return out[0] = DT_NVFP4, 1;
		/* NVFP4's runner given its input unquantized (dtypes.yaml input_views) */
		if (!strcmp(x->s, "torch.bfloat16") && !strcmp(w->s, "torch.int64"))
			return out[0] = DT_NVFP4, 1;
		if (!strcmp(x->s, "torch.float8_e4m3fn") && !strcmp(w->s, "torch.float8_e4m3fn"))
			return out[0] = DT_FP8, 1;
		if (!strcmp(x->s, "torch.bfloat16") && !strcmp(w->s, "torch.bfloat16"))
			return out[0] = DT_BF16, 1;
		if (!strcmp(x->s, "torch.float16") && !strcmp(w->s, "torch.float16"))
			return out[0] = DT_FP16, 1;
	}
	if (!k->moe_ok)
		return 0;
	if (k->act_pack == 2)
		return out[0] = DT_NVFP4, 1; /* packed fp4 activations (§3.1) */
	if (k->act_pack == 1 && k->w_pack == 1) {
		out[0] = DT_BF16;
		out[1] = DT_FP8;
		return 2;
	}
	if (k->act_pack == 1 && (k->w_pack == 2 || k->w_pack == 16))
		return out[0] = DT_FP8_MXFP4, 1;
	return 0;
}

int key_fused_finalize(const struct fi_rules *s, const struct moe_key *k)
{
	return key_flag(s, k, "use_fused_finalize");
}
