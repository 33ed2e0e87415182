/* explain.c: a tuning table's entries decoded against its target, their coverage per shape
 * family, and the differences between two tables (explain.h). */
#include "flashinfer/explain.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/device.h"
#include "flashinfer/key.h"
#include "flashinfer/provenance.h"

int explain_open(const struct validate_data *vd, const char *path, const struct validate_opts *vo,
		 struct explain_target *tg, struct diags *d)
{
	memset(tg, 0, sizeof *tg);
	tg->catalogs = vd->catalogs;
	int rc = table_read(path, &tg->t, d);
	if (rc)
		return rc;
	diags_release(d); /* what a good read noted is validate's business, not explain's */
	if ((rc = validate_table(vd, &tg->t, vo, &tg->r, d)))
		return rc;
	version_parse(tg->r.version, &tg->v);
	struct diags all = *d;
	*d = (struct diags)DIAGS_INIT;
	for (size_t i = 0; tg->r.never_loaded && i < all.n; i++)
		if (!strcmp(all.v[i].id, "never-loaded"))
			diags_add(d, all.v[i].sev, all.v[i].id, all.v[i].file, all.v[i].line,
				  all.v[i].col, "%s", all.v[i].msg);
	diags_release(&all);
	return TT_OK;
}

void explain_target_release(struct explain_target *tg)
{
	for (int i = 0; i < DT_COUNT; i++)
		for (int ff = 0; ff < 2; ff++)
			if (tg->state[i][ff] == 1)
				tactic_list_release(&tg->lists[i][ff]);
	table_release(&tg->t);
}

/* The candidate lists of dtype dt for the target's device and version, for a runner with
 * use_fused_finalize ff (off: GEMM2 draws from GEMM1's list, no FINALIZE copies), expanded
 * once. */
static const struct tactic_list *target_list(struct explain_target *tg, enum dtype dt, int ff)
{
	if (!tg->r.device)
		return NULL;
	if (!tg->state[dt][ff]) {
		tg->state[dt][ff] = -1;
		const struct catalog *c = catalog_find(tg->catalogs, &tg->v, device_sm(tg->r.device), dt);
		struct diags d = DIAGS_INIT;
		if (c && catalog_expand_finalize(c, ff, &tg->lists[dt][ff], &d) == 0)
			tg->state[dt][ff] = 1;
		diags_release(&d);
	}
	return tg->state[dt][ff] == 1 ? &tg->lists[dt][ff] : NULL;
}

void explain_entry(struct explain_target *tg, const struct table_entry *e, struct arena *a,
		   struct explain_entry *x)
{
	memset(x, 0, sizeof *x);
	x->e = e;
	struct diags d = DIAGS_INIT;
	const struct pyv *tuple = key_parse(e->key, e->key_len, a, NULL, 0, 0, &d);
	diags_release(&d);
	struct moe_key k;
	if (!tuple || key_decode(tuple, &k)) {
		x->status = EXPLAIN_BAD_KEY;
		return;
	}
	x->stage = strstr(k.op, "gemm1") ? "gemm1" : strstr(k.op, "gemm2") ? "gemm2" : k.op;
	int stage = !strcmp(x->stage, "gemm1") ? 1 : !strcmp(x->stage, "gemm2") ? 2 : 0;
	key_decode_moe(&k);
	if (!k.moe_ok) {
		x->status = EXPLAIN_NOT_MOE;
		snprintf(x->why, sizeof x->why, "%s", k.why);
		return;
	}
	x->ndtypes = key_dtypes(tg->r.rules, &k, x->dtypes);
	x->tokens = k.tokens;
	x->hidden = k.hidden;
	x->experts = k.e1;
	x->inter = k.inter;
	x->gated = k.gated;
	x->act_pack = k.act_pack;
	x->w_pack = k.w_pack;
	snprintf(x->family, sizeof x->family, "%s E%lld I%lld H%lld", x->stage, k.e1, k.inter,
		 k.hidden);
	if (!e->value_ok || !e->tactic || e->tactic->kind != PV_INT) {
		x->status = EXPLAIN_BAD_VALUE;
		return;
	}
	x->tactic = e->tactic->i;
	if (x->tactic == -1) {
		x->status = EXPLAIN_FALLBACK;
		return;
	}
	/* GEMM2's ids index the list of the key's use_fused_finalize (keys without the field are
	 * for FlashInfer's default, on), as validate reads them */
	int ff = key_fused_finalize(tg->r.rules, &k) != 0;
	const struct tactic_list *l = x->ndtypes ? target_list(tg, x->dtypes[0], ff) : NULL;
	x->t = l ? tactic_lookup(l, stage ? stage : 1, (int)x->tactic,
				 tg->r.rules->tactics.numbering == TN_SPLIT_RELATIVE)
		 : NULL;
	x->status = !l ? EXPLAIN_NO_CATALOG : !x->t ? EXPLAIN_OUT_OF_RANGE : EXPLAIN_OK;
}

void explain_describe(const struct explain_entry *x, struct strbuf *out)
{
	if (x->status == EXPLAIN_BAD_KEY) {
		sb_adds(out, "unreadable key");
		return;
	}
	if (x->status == EXPLAIN_NOT_MOE) {
		sb_addf(out, "%s: %s", x->stage, x->why);
		return;
	}
	sb_addf(out, "%s T=%-5lld hidden %lld, %lld experts x inter %lld%s, %s", x->stage, x->tokens,
		x->hidden, x->experts, x->inter, x->gated ? " (gated: fc1 N = 2 x inter)" : "",
		x->ndtypes == 0 ? "dtype ?" : x->ndtypes == 1 ? dtype_name(x->dtypes[0]) : "bf16 or fp8");
	sb_addf(out, " (act pack %d, weight pack %d)", x->act_pack, x->w_pack);
	if (x->status == EXPLAIN_BAD_VALUE) {
		sb_adds(out, " -> unreadable value");
		return;
	}
	sb_addf(out, " -> tactic %lld", x->tactic);
	if (x->status == EXPLAIN_FALLBACK) {
		sb_adds(out, " = fallback (first entry)");
	} else if (x->status == EXPLAIN_NO_CATALOG) {
		sb_adds(out, " (no catalog for this device/dtype/version)");
	} else if (x->status == EXPLAIN_OUT_OF_RANGE) {
		sb_adds(out, " = OUT OF RANGE");
	} else {
		char dsc[256];
		tactic_describe(x->t, dsc, sizeof dsc);
		sb_addf(out, " = %s%s", dsc, x->t->tokens_on_n ? " [tokens on N]" : "");
	}
}

static int cmp_bucket(const void *a, const void *b)
{
	const long long *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* One item to put in order: its shape family's first place (its own place when it has none),
 * its token bucket, its kind (diff), its place. */
struct order_key {
	const struct explain_entry *x;
	size_t group, pos;
	long long tokens;
	int kind;
};

static int cmp_family(const void *a, const void *b)
{
	const struct order_key *p = a, *q = b;
	int c = CMP(!p->x->family[0], !q->x->family[0]);
	if (!c && p->x->family[0])
		c = strcmp(p->x->family, q->x->family);
	return c ? c : CMP(p->pos, q->pos);
}

static int cmp_order(const void *a, const void *b)
{
	const struct order_key *p = a, *q = b;
	int c = CMP(p->group, q->group);
	if (!c && p->x->family[0])
		c = CMP(p->tokens, q->tokens);
	if (!c)
		c = CMP(p->kind, q->kind);
	return c ? c : CMP(p->pos, q->pos);
}

/* Puts k[0..n) (pos = the place each has now) in family order: the families where they first
 * appear, each family's items by token bucket as numbers (1, 128, 1024: not the text order of
 * a JSON cache's sorted keys), then by kind, then as they were; an item of no family stays
 * where it was among the families. */
static void family_order(struct order_key *k, size_t n)
{
	qsort(k, n, sizeof *k, cmp_family);
	for (size_t i = 0; i < n; i++) {
		bool first = i == 0 || !k[i].x->family[0] || strcmp(k[i].x->family, k[i - 1].x->family);
		k[i].group = first ? k[i].pos : k[i - 1].group;
		k[i].tokens = k[i].x->tokens;
	}
	qsort(k, n, sizeof *k, cmp_order);
}

void explain_table(struct explain_target *tg, struct arena *a, struct explain_result *r)
{
	memset(r, 0, sizeof *r);
	r->n = tg->t.n;
	struct explain_entry *all = xcalloc(r->n ? r->n : 1, sizeof *all);
	struct order_key *k = xcalloc(r->n ? r->n : 1, sizeof *k);
	for (size_t i = 0; i < r->n; i++) {
		explain_entry(tg, &tg->t.entries[i], a, &all[i]);
		k[i] = (struct order_key){ .x = &all[i], .pos = i };
	}
	family_order(k, r->n);
	r->entries = xcalloc(r->n ? r->n : 1, sizeof *r->entries);
	for (size_t i = 0; i < r->n; i++)
		r->entries[i] = *k[i].x;
	free(k);
	free(all);
	for (size_t i = 0; i < r->n; i++) {
		struct explain_entry *x = &r->entries[i];
		if (!x->family[0])
			continue;
		size_t f;
		for (f = 0; f < r->nfamilies && strcmp(r->families[f].name, x->family); f++)
			;
		if (f == r->nfamilies) {
			ALLOC_GROW(r->families, f + 1, r->families_alloc);
			r->families[f] = (struct explain_family){ .name = xstrdup(x->family) };
			r->nfamilies++;
		}
		struct explain_family *fam = &r->families[f];
		const struct pyv *tv = x->e->tactic;
		ALLOC_GROW(fam->buckets, fam->n + 1, fam->buckets_alloc);
		fam->buckets[fam->n][0] = x->tokens;
		fam->buckets[fam->n][1] = tv && tv->kind == PV_INT ? tv->i : -2;
		fam->n++;
	}
	for (size_t f = 0; f < r->nfamilies; f++)
		qsort(r->families[f].buckets, r->families[f].n, sizeof *r->families[f].buckets,
		      cmp_bucket);
}

void explain_result_release(struct explain_result *r)
{
	for (size_t f = 0; f < r->nfamilies; f++) {
		free(r->families[f].name);
		free(r->families[f].buckets);
	}
	free(r->families);
	free(r->entries);
	memset(r, 0, sizeof *r);
}

/* The entry of t with e's key: the last of duplicates, as Python keeps. */
static const struct table_entry *find_key(const struct table *t, const struct table_entry *e)
{
	for (size_t i = t->n; i-- > 0;)
		if (t->entries[i].key_len == e->key_len && !memcmp(t->entries[i].key, e->key, e->key_len))
			return &t->entries[i];
	return NULL;
}

static struct explain_diff_item *diff_add(struct explain_diff *r, enum explain_change kind)
{
	ALLOC_GROW(r->v, r->n + 1, r->alloc);
	memset(&r->v[r->n], 0, sizeof r->v[r->n]);
	r->v[r->n].kind = kind;
	return &r->v[r->n++];
}

void explain_diff(struct explain_target *ta, struct explain_target *tb, struct arena *a,
		  struct explain_diff *r)
{
	memset(r, 0, sizeof *r);
	for (size_t i = 0; i < ta->t.n; i++) {
		const struct table_entry *e = &ta->t.entries[i];
		if (find_key(&ta->t, e) != e)
			continue;
		const struct table_entry *o = find_key(&tb->t, e);
		if (o && e->value_ok && o->value_ok && pyv_equal(e->tactic, o->tactic) &&
		    e->runner_id == o->runner_id) {
			r->unchanged++;
			continue;
		}
		struct explain_diff_item *it = diff_add(r, o ? EXPLAIN_CHANGED : EXPLAIN_REMOVED);
		explain_entry(ta, e, a, &it->a);
		if (o)
			explain_entry(tb, o, a, &it->b);
		if (o)
			r->changed++;
		else
			r->removed++;
	}
	for (size_t i = 0; i < tb->t.n; i++) {
		const struct table_entry *e = &tb->t.entries[i];
		if (find_key(&tb->t, e) != e || find_key(&ta->t, e))
			continue;
		explain_entry(tb, e, a, &diff_add(r, EXPLAIN_ADDED)->b);
		r->added++;
	}
	/* in family and token order, each item by the side it shows (a; b for added) */
	struct order_key *k = xcalloc(r->n ? r->n : 1, sizeof *k);
	for (size_t i = 0; i < r->n; i++)
		k[i] = (struct order_key){ .x = r->v[i].kind == EXPLAIN_ADDED ? &r->v[i].b : &r->v[i].a,
					   .pos = i, .kind = (int)r->v[i].kind };
	family_order(k, r->n);
	struct explain_diff_item *v = xcalloc(r->n ? r->n : 1, sizeof *v);
	for (size_t i = 0; i < r->n; i++)
		v[i] = r->v[k[i].pos];
	free(k);
	free(r->v);
	r->v = v;
	r->alloc = r->n;
}

void explain_diff_release(struct explain_diff *r)
{
	free(r->v);
	memset(r, 0, sizeof *r);
}

/* --- the layer's tactic pairs (issue #49) ----------------------------------------------- */

static double pair_us(json_t *pairs, int g1, int g2, size_t l)
{
	size_t i;
	json_t *p;
	json_array_foreach(pairs, i, p)
		if (json_integer_value(json_array_get(p, 0)) == g1 &&
		    json_integer_value(json_array_get(p, 1)) == g2) {
			json_t *t = json_array_get(json_array_get(p, 2), l);
			return json_is_number(t) ? json_number_value(t) : -1;
		}
	return -1;
}

static int by_tokens(const void *a, const void *b)
{
	const struct explain_pair_bucket *x = a, *y = b;
	return (x->tokens > y->tokens) - (x->tokens < y->tokens);
}

void explain_pairs_read(const char *path, struct explain_pairs *r)
{
	memset(r, 0, sizeof *r);
	struct provenance pv;
	const char *base = strrchr(path, '/');
	if (prov_find_beside(path, base ? base + 1 : path, &pv, &r->provenance))
		return;
	for (size_t i = 0; i < pv.n; i++) {
		json_t *j = pv.entries[i].layer ? json_loads(pv.entries[i].layer, 0, NULL) : NULL;
		long long tokens = -1;
		struct arena a = ARENA_INIT;
		const struct pyv *tuple = j ? key_parse_any(pv.entries[i].key, strlen(pv.entries[i].key),
							  &a) : NULL;
		struct moe_key k;
		if (tuple && !key_decode(tuple, &k)) {
			key_decode_moe(&k);
			if (k.moe_ok)
				tokens = k.tokens;
		}
		arena_release(&a);
		bool seen = false;
		for (size_t q = 0; q < r->n; q++)
			seen |= r->v[q].tokens == tokens;
		if (!j || tokens < 0 || seen) {
			json_decref(j);
			continue;
		}
		json_t *loads = json_object_get(j, "loads"), *pairs = json_object_get(j, "pairs");
		if (!r->nloads)
			for (size_t l = 0; l < json_array_size(loads) && l < EXPLAIN_LOADS_MAX; l++)
				r->loads[r->nloads++] = xstrdup(json_string_value(json_array_get(loads, l)) ?: "?");
		r->v = xrealloc(r->v, (r->n + 1) * sizeof *r->v);
		struct explain_pair_bucket *b = &r->v[r->n++];
		memset(b, 0, sizeof *b);
		b->tokens = tokens;
		json_t *c = json_object_get(j, "chosen"), *g = json_object_get(j, "per_gemm");
		b->chosen[0] = json_is_array(c) ? (int)json_integer_value(json_array_get(c, 0)) : -1;
		b->chosen[1] = json_is_array(c) ? (int)json_integer_value(json_array_get(c, 1)) : -1;
		b->per_gemm[0] = (int)json_integer_value(json_array_get(g, 0));
		b->per_gemm[1] = (int)json_integer_value(json_array_get(g, 1));
		for (size_t l = 0; l < EXPLAIN_LOADS_MAX; l++) {
			b->chosen_us[l] = json_is_array(c) ? pair_us(pairs, b->chosen[0], b->chosen[1], l) : -1;
			b->per_gemm_us[l] = pair_us(pairs, b->per_gemm[0], b->per_gemm[1], l);
			json_t *rg = json_array_get(json_object_get(j, "regret"), l);
			b->regret[l] = json_is_number(rg) ? json_number_value(rg) : -1;
		}
		json_decref(j);
	}
	prov_release(&pv);
	if (r->n)
		qsort(r->v, r->n, sizeof *r->v, by_tokens);
}

double explain_pairs_cost(const struct explain_pairs *r, size_t l)
{
	double s = 0;
	size_t n = 0;
	for (size_t i = 0; i < r->n && l < EXPLAIN_LOADS_MAX; i++)
		if (r->v[i].chosen_us[l] > 0 && r->v[i].per_gemm_us[l] > 0) {
			s += log(r->v[i].chosen_us[l] / r->v[i].per_gemm_us[l]);
			n++;
		}
	return n ? expm1(s / (double)n) : -2;
}

void explain_pairs_release(struct explain_pairs *r)
{
	free(r->provenance);
	for (size_t l = 0; l < r->nloads; l++)
		free(r->loads[l]);
	free(r->v);
	memset(r, 0, sizeof *r);
}
