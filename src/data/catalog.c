/* catalog.c: tactic catalogs loaded with libcyaml and expanded by FlashInfer's recipe
 * (cutlass-moe-tactics.md §2: base, FINALIZE copies for GEMM2, swap_ab copies, SM80 list). */
#include "data/catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/yamlload.h"

static const cyaml_strval_t numbering_strings[] = {
	{ "split", NUM_SPLIT }, { "shared", NUM_SHARED },
};
static const cyaml_strval_t orientation_strings[] = {
	{ "normal", ORIENT_NORMAL }, { "transposed", ORIENT_TRANSPOSED },
};
static const cyaml_strval_t mma_strings[] = { { "1sm", MMA_1SM }, { "2sm", MMA_2SM } };
static const cyaml_strval_t epilogue_strings[] = { { "tma", EPI_TMA }, { "no_smem", EPI_NO_SMEM } };

#define OPT_STR(key, field) \
	CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct cat_entry, \
			       field, 1, 256)

static const cyaml_schema_field_t entry_fields[] = {
	CYAML_FIELD_STRING_PTR("cta", CYAML_FLAG_POINTER, struct cat_entry, cta, 1, 32),
	OPT_STR("cluster", cluster),
	OPT_STR("warp", warp),
	OPT_STR("dyn_cluster", dyn_cluster),
	OPT_STR("fallback", fallback),
	OPT_STR("mainloop", mainloop),
	OPT_STR("note", note),
	CYAML_FIELD_ENUM("mma", CYAML_FLAG_OPTIONAL | CYAML_FLAG_STRICT, struct cat_entry, mma,
			 mma_strings, CYAML_ARRAY_LEN(mma_strings)),
	CYAML_FIELD_ENUM("epilogue", CYAML_FLAG_OPTIONAL | CYAML_FLAG_STRICT, struct cat_entry,
			 epilogue, epilogue_strings, CYAML_ARRAY_LEN(epilogue_strings)),
	CYAML_FIELD_UINT("stages", CYAML_FLAG_OPTIONAL, struct cat_entry, stages),
	CYAML_FIELD_UINT("sm_version", CYAML_FLAG_OPTIONAL, struct cat_entry, sm_version),
	CYAML_FIELD_BOOL_PTR("dispatchable", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			     struct cat_entry, dispatchable),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t entry_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct cat_entry, entry_fields),
};

static const cyaml_schema_field_t range_fields[] = {
	CYAML_FIELD_STRING_PTR("min", CYAML_FLAG_POINTER, struct cat_range, min, 1, 32),
	CYAML_FIELD_STRING_PTR("below", CYAML_FLAG_POINTER_NULL_STR, struct cat_range, below, 1, 32),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t sm_schema = {
	CYAML_VALUE_UINT(CYAML_FLAG_DEFAULT, unsigned),
};
static const cyaml_schema_value_t dtype_schema = {
	CYAML_VALUE_ENUM(CYAML_FLAG_STRICT, enum dtype, dtype_strings, DT_COUNT),
};

static const cyaml_schema_field_t catalog_fields[] = {
	CYAML_FIELD_STRING_PTR("id", CYAML_FLAG_POINTER, struct catalog, id, 1, 64),
	CYAML_FIELD_MAPPING("flashinfer", CYAML_FLAG_DEFAULT, struct catalog, flashinfer,
			    range_fields),
	CYAML_FIELD_SEQUENCE("sm", CYAML_FLAG_POINTER, struct catalog, sm, &sm_schema, 1, 16),
	CYAML_FIELD_SEQUENCE("dtypes", CYAML_FLAG_POINTER, struct catalog, dtypes, &dtype_schema,
			     1, 8),
	CYAML_FIELD_UINT("act_bits", CYAML_FLAG_DEFAULT, struct catalog, act_bits),
	CYAML_FIELD_ENUM("numbering", CYAML_FLAG_STRICT, struct catalog, numbering,
			 numbering_strings, CYAML_ARRAY_LEN(numbering_strings)),
	CYAML_FIELD_ENUM("orientation", CYAML_FLAG_STRICT, struct catalog, orientation,
			 orientation_strings, CYAML_ARRAY_LEN(orientation_strings)),
	CYAML_FIELD_BOOL("gemm2_finalize", CYAML_FLAG_DEFAULT, struct catalog, gemm2_finalize),
	CYAML_FIELD_BOOL("swap_ab_copy", CYAML_FLAG_DEFAULT, struct catalog, swap_ab_copy),
	CYAML_FIELD_BOOL("swap_ab_only", CYAML_FLAG_OPTIONAL, struct catalog, swap_ab_only),
	CYAML_FIELD_BOOL("shape_filter", CYAML_FLAG_OPTIONAL, struct catalog, shape_filter),
	CYAML_FIELD_BOOL("tactic_ignored", CYAML_FLAG_OPTIONAL, struct catalog, tactic_ignored),
	CYAML_FIELD_STRING_PTR("default_note", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct catalog, default_note, 0, 512),
	CYAML_FIELD_SEQUENCE("base", CYAML_FLAG_POINTER, struct catalog, base, &entry_schema, 0,
			     1024),
	CYAML_FIELD_SEQUENCE("sm80", CYAML_FLAG_POINTER, struct catalog, sm80, &entry_schema, 0,
			     1024),
	CYAML_FIELD_END
};

static const struct yaml_kind doc_kind =
	YAML_KIND(doc_kind, "catalog", struct catalog, catalog_fields);

void catalog_free(struct catalog *c)
{
	if (!c)
		return;
	for (int k = 0; k < 2; k++) {
		if (c->decoded[k])
			tactic_list_release(c->decoded[k]);
		free(c->decoded[k]);
		c->decoded[k] = NULL;
	}
	yaml_kind_free(&doc_kind, c);
}

/* "AxBxC" with an optional trailing 'B' (K in bytes). Returns 0 on success. */
static int parse_dims(const char *s, int out[3], int *bytes_suffix)
{
	int n = 0;
	char tail[4] = "";
	if (!s || sscanf(s, "%dx%dx%d%3s%n", &out[0], &out[1], &out[2], tail, &n) < 3)
		return -1;
	if (strlen(s) > 24)
		return -1;
	if (bytes_suffix)
		*bytes_suffix = strcmp(tail, "B") == 0;
	else if (*tail)
		return -1;
	if (*tail && strcmp(tail, "B"))
		return -1;
	for (int i = 0; i < 3; i++)
		if (out[i] <= 0 || out[i] > 4096)
			return -1;
	return 0;
}

static int check_version_str(struct diags *d, const char *path, const char *ypath, const char *s)
{
	struct fi_version v;
	if (s && version_parse(s, &v))
		return yaml_error_at(d, path, ypath, "'%s' is not a version", s);
	return TT_OK;
}

static int expand(const struct catalog *c, bool fused_finalize, struct tactic_list *l,
		  struct diags *d);

static int decode_entry(const struct catalog *c, const struct cat_entry *e, int sm80_list,
			const char *ypath, struct tactic *t, struct diags *d)
{
	memset(t, 0, sizeof *t);
	int dims[3], bytes = 0, rc = TT_OK;
	char sub[160];
	snprintf(sub, sizeof sub, "%s.cta", ypath);
	if (parse_dims(e->cta, dims, &bytes))
		return yaml_error_at(d, c->path, sub, "bad tile '%s' (want MxNxK or MxNxKB)", e->cta);
	t->m = dims[0];
	t->n = dims[1];
	/* K with a B suffix is in bytes of the activation type (cutlass-moe-tactics.md §2). */
	if (bytes) {
		t->k_bytes = dims[2];
		t->k_elems = dims[2] * 8 / (int)c->act_bits;
	} else {
		t->k_elems = dims[2];
		t->k_bytes = dims[2] * (int)c->act_bits / 8;
	}
	t->sm80_style = e->warp || e->stages;
	if (sm80_list && !t->sm80_style)
		rc = yaml_error_at(d, c->path, ypath, "SM80-style entry needs 'warp' and 'stages'");
	if (t->sm80_style && bytes)
		rc = yaml_error_at(d, c->path, sub, "SM80-style tile '%s' gives K in elements, "
				   "without 'B'", e->cta);
	int one[3] = { 1, 1, 1 };
	memcpy(t->cluster, one, sizeof one);
	if (e->cluster && parse_dims(e->cluster, t->cluster, NULL)) {
		snprintf(sub, sizeof sub, "%s.cluster", ypath);
		rc = yaml_error_at(d, c->path, sub, "bad cluster '%s'", e->cluster);
	}
	if (e->warp && parse_dims(e->warp, t->warp, NULL)) {
		snprintf(sub, sizeof sub, "%s.warp", ypath);
		rc = yaml_error_at(d, c->path, sub, "bad warp tile '%s'", e->warp);
	}
	if (e->dyn_cluster) {
		if (strcmp(e->dyn_cluster, "static") == 0) {
			t->static_cluster = true;
		} else if (parse_dims(e->dyn_cluster, t->dyn_cluster, NULL)) {
			snprintf(sub, sizeof sub, "%s.dyn_cluster", ypath);
			rc = yaml_error_at(d, c->path, sub, "bad dynamic cluster '%s'", e->dyn_cluster);
		}
	}
	if (e->fallback && parse_dims(e->fallback, t->fallback, NULL)) {
		snprintf(sub, sizeof sub, "%s.fallback", ypath);
		rc = yaml_error_at(d, c->path, sub, "bad fallback cluster '%s'", e->fallback);
	}
	if (e->mma == MMA_2SM && t->cluster[0] != 2) {
		snprintf(sub, sizeof sub, "%s.mma", ypath);
		rc = yaml_error_at(d, c->path, sub, "2SM MMA needs cluster_shape 2x1x1, not '%s'",
				   e->cluster ? e->cluster : "1x1x1");
	}
	t->mma = e->mma;
	t->epilogue = e->epilogue;
	t->stages = (int)e->stages;
	t->sm_version = e->sm_version ? (int)e->sm_version : (int)c->sm[0];
	t->dispatchable = e->dispatchable ? *e->dispatchable : true;
	t->mainloop = e->mainloop;
	t->note = e->note;
	t->tokens_on_n = c->orientation == ORIENT_TRANSPOSED;
	if (c->swap_ab_only && !t->sm80_style)
		t->swap_ab = t->tokens_on_n = true;
	return rc;
}

int catalog_load_file(const char *path, struct catalog **out, struct diags *d)
{
	*out = NULL;
	struct catalog *c;
	int rc = yaml_kind_load(path, &doc_kind, (void **)&c, d);
	if (rc)
		return rc;
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (strncmp(b, c->id, strlen(c->id)) || strcmp(b + strlen(c->id), ".yaml"))
		rc = yaml_error_at(d, path, "catalog.id", "id '%s' differs from the file name", c->id);
	if (c->act_bits != 4 && c->act_bits != 8 && c->act_bits != 16)
		rc = yaml_error_at(d, path, "catalog.act_bits", "must be 4, 8 or 16, not %u",
				   c->act_bits);
	if (check_version_str(d, path, "catalog.flashinfer.min", c->flashinfer.min) ||
	    check_version_str(d, path, "catalog.flashinfer.below", c->flashinfer.below))
		rc = TT_INVALID;
	else if (c->flashinfer.below &&
		 version_cmp_str(c->flashinfer.min, c->flashinfer.below) >= 0)
		rc = yaml_error_at(d, path, "catalog.flashinfer", "empty range [%s, %s)",
				   c->flashinfer.min, c->flashinfer.below);
	if (c->swap_ab_only && (c->swap_ab_copy || c->gemm2_finalize))
		rc = yaml_error_at(d, path, "catalog.swap_ab_only", "a swap_ab-only list has no "
				   "swap_ab copy and no FINALIZE copies (mixed-input runners)");
	if (c->base_count + c->sm80_count == 0)
		rc = yaml_error_at(d, path, "catalog", "both 'base' and 'sm80' are empty");
	for (int k = 0; k < 2 && !rc; k++) {
		c->decoded[k] = xcalloc(1, sizeof *c->decoded[k]);
		rc = expand(c, k == 1, c->decoded[k], d);
	}
	if (rc) {
		catalog_free(c);
		return rc;
	}
	*out = c;
	return TT_OK;
}

/* Two catalogs must never serve the same (version, sm, dtype): an error at c's file. */
static int check_overlap(const struct catalog *c, const struct catalog *o, const char *path,
			 struct diags *d)
{
	int overlap_v = (!o->flashinfer.below ||
			 version_cmp_str(c->flashinfer.min, o->flashinfer.below) < 0) &&
			(!c->flashinfer.below ||
			 version_cmp_str(o->flashinfer.min, c->flashinfer.below) < 0);
	for (unsigned a = 0; overlap_v && a < c->sm_count; a++)
		for (unsigned b = 0; b < o->sm_count; b++)
			for (unsigned x = 0; x < c->dtypes_count; x++)
				for (unsigned y = 0; y < o->dtypes_count; y++)
					if (c->sm[a] == o->sm[b] && c->dtypes[x] == o->dtypes[y])
						return yaml_error_at(d, path, "catalog",
								     "overlaps '%s' for SM%u %s", o->id,
								     c->sm[a], dtype_name(c->dtypes[x]));
	return TT_OK;
}

static int load_one(void *ctx, const char *path, size_t nfiles, struct diags *d)
{
	struct catalog_set *set = ctx;
	struct catalog *c;
	int rc = catalog_load_file(path, &c, d);
	if (rc)
		return rc;
	if (!set->v)
		set->v = xcalloc(nfiles, sizeof *set->v);
	for (size_t j = 0; j < set->n && !rc; j++) /* the first overlap only */
		rc = check_overlap(c, set->v[j], path, d);
	set->v[set->n++] = c;
	return rc;
}

int catalog_load_dir(const char *dir, struct catalog_set *set, struct diags *d)
{
	*set = (struct catalog_set){ 0 };
	return yaml_load_dir(dir, "catalogs", load_one, set, d);
}

void catalog_set_release(struct catalog_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		catalog_free(set->v[i]);
	free(set->v);
	set->v = NULL;
	set->n = 0;
}

struct tvec {
	struct tactic *v;
	size_t n, alloc;
};

static void tv_push(struct tvec *tv, const struct tactic *t)
{
	ALLOC_GROW(tv->v, tv->n + 1, tv->alloc);
	tv->v[tv->n++] = *t;
}

/* §2 steps 3–5 (+ the SM80-style list) for one stage. */
static int build_stage(const struct catalog *c, int stage, bool finalize, struct tvec *out,
		       struct diags *d)
{
	int rc = TT_OK;
	struct tvec base = { 0 };
	char yp[64];
	for (unsigned i = 0; i < c->base_count; i++) {
		struct tactic t;
		snprintf(yp, sizeof yp, "catalog.base[%u]", i);
		if (decode_entry(c, &c->base[i], 0, yp, &t, d))
			rc = TT_INVALID;
		tv_push(&base, &t);
	}
	if (rc) {
		free(base.v);
		return rc;
	}
	for (size_t i = 0; i < base.n; i++)
		tv_push(out, &base.v[i]);
	int split = c->numbering == NUM_SPLIT;
	/* Step 4: GEMM2 FINALIZE copies; FINALIZE with the NO_SMEM epilogue is dropped. */
	if (split && stage == 2 && c->gemm2_finalize && finalize)
		for (size_t i = 0; i < base.n; i++)
			if (base.v[i].epilogue != EPI_NO_SMEM) {
				struct tactic t = base.v[i];
				t.finalize = true;
				tv_push(out, &t);
			}
	/* Step 5: a swap_ab copy of everything so far. */
	if (c->swap_ab_copy) {
		size_t n = out->n;
		for (size_t i = 0; i < n; i++) {
			struct tactic t = out->v[i];
			t.swap_ab = true;
			/* The swap flag has no effect on SM80-style kernels (§3.2). */
			t.tokens_on_n = !t.sm80_style;
			tv_push(out, &t);
		}
	}
	free(base.v);
	for (unsigned i = 0; i < c->sm80_count; i++) {
		struct tactic t;
		snprintf(yp, sizeof yp, "catalog.sm80[%u]", i);
		if (decode_entry(c, &c->sm80[i], 1, yp, &t, d))
			rc = TT_INVALID;
		tv_push(out, &t);
	}
	return rc;
}

/* The catalog's candidate lists decoded from its YAML strings (§2), checked: at load only. */
static int expand(const struct catalog *c, bool fused_finalize, struct tactic_list *l,
		  struct diags *d)
{
	memset(l, 0, sizeof *l);
	l->cat = c;
	struct tvec g1 = { 0 }, g2 = { 0 };
	int rc = build_stage(c, 1, fused_finalize, &g1, d);
	if (!rc)
		rc = build_stage(c, 2, fused_finalize, &g2, d);
	/* Tactic integer = index into GEMM1 list ++ GEMM2 list (§1.1); one shared list <= v0.5.2 (§1.3). */
	int offset = c->numbering == NUM_SPLIT ? (int)g1.n : 0;
	for (size_t i = 0; i < g1.n; i++) {
		g1.v[i].stage = 1;
		g1.v[i].local = (int)i;
		g1.v[i].id = (int)i;
	}
	for (size_t i = 0; i < g2.n; i++) {
		g2.v[i].stage = 2;
		g2.v[i].local = (int)i;
		g2.v[i].id = offset + (int)i;
	}
	l->g1 = g1.v;
	l->n1 = g1.n;
	l->g2 = g2.v;
	l->n2 = g2.n;
	return rc;
}

static struct tactic *dup_tactics(const struct tactic *v, size_t n)
{
	if (!n)
		return NULL;
	struct tactic *out = xcalloc(n, sizeof *out);
	memcpy(out, v, n * sizeof *out);
	return out;
}

int catalog_expand(const struct catalog *c, struct tactic_list *l, struct diags *d)
{
	return catalog_expand_finalize(c, true, l, d);
}

int catalog_expand_finalize(const struct catalog *c, bool fused_finalize, struct tactic_list *l,
			    struct diags *d)
{
	const struct tactic_list *from = c->decoded[fused_finalize];
	if (!from) /* a catalog built by hand, not loaded: decode it now */
		return expand(c, fused_finalize, l, d);
	*l = *from;
	l->g1 = dup_tactics(from->g1, from->n1);
	l->g2 = dup_tactics(from->g2, from->n2);
	return TT_OK;
}

void tactic_list_release(struct tactic_list *l)
{
	free(l->g1);
	free(l->g2);
	memset(l, 0, sizeof *l);
}

int catalog_covers_version(const struct catalog *c, const struct fi_version *v)
{
	struct fi_version lo, hi;
	if (version_parse(c->flashinfer.min, &lo) || version_cmp(v, &lo) < 0)
		return 0;
	if (c->flashinfer.below && (version_parse(c->flashinfer.below, &hi) || version_cmp(v, &hi) >= 0))
		return 0;
	return 1;
}

const struct catalog *catalog_find(const struct catalog_set *set, const struct fi_version *v,
				   unsigned sm, enum dtype t)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct catalog *c = set->v[i];
		if (!catalog_covers_version(c, v))
			continue;
		int sm_ok = 0, dt_ok = 0;
		for (unsigned k = 0; k < c->sm_count; k++)
			sm_ok |= c->sm[k] == sm;
		for (unsigned k = 0; k < c->dtypes_count; k++)
			dt_ok |= c->dtypes[k] == t;
		if (sm_ok && dt_ok)
			return c;
	}
	return NULL;
}

const struct tactic *tactic_lookup(const struct tactic_list *l, int stage, int id,
				   bool relative_gemm2)
{
	if (stage == 1)
		return id >= 0 && (size_t)id < l->n1 ? &l->g1[id] : NULL;
	if (l->cat->numbering == NUM_SHARED)
		return id >= 0 && (size_t)id < l->n2 ? &l->g2[id] : NULL;
	int local = id - (int)l->n1;
	if (local >= 0 && (size_t)local < l->n2)
		return &l->g2[local];
	if (relative_gemm2 && id >= 0 && (size_t)id < l->n2)
		return &l->g2[id];
	return NULL;
}

bool catalog_dispatchable(const struct catalog *c, const char **why)
{
	const struct cat_entry *lists[2] = { c->base, c->sm80 };
	unsigned counts[2] = { c->base_count, c->sm80_count };
	*why = NULL;
	for (int l = 0; l < 2; l++)
		for (unsigned i = 0; i < counts[l]; i++) {
			const struct cat_entry *e = &lists[l][i];
			if (!e->dispatchable || *e->dispatchable)
				return true;
			if (!*why)
				*why = e->note;
		}
	return !counts[0] && !counts[1];
}

bool catalog_tactic_fits(const struct tactic *t, long n, long k)
{
	/* the enum's numbers: K in bytes for a B tile (binding.cu isProfileShapeSupported) */
	long tm = t->m, tn = t->n, tk = t->sm80_style ? t->k_elems : t->k_bytes;
	if (n <= 0 || k <= 0 || k % tk || n < tn || n % tm)
		return false;
	if (t->mainloop && !strncmp(t->mainloop, "SINGLE_WARPGROUP_", 17)) {
		if (n % 128)
			return false;
		return !strcmp(t->mainloop, "SINGLE_WARPGROUP_PREFILL") ? k <= 384 : k > 384;
	}
	return true;
}

/* describe: with the element counts (which depend on the dtype) and dispatchability, or only
 * the kernel's shape (config). */
static void describe(const struct tactic *t, bool config, char *buf, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	if (t->sm80_style && config)
		sb_addf(&sb, "%dx%dx%dB warp %dx%dx%d stages %d SM80-style", t->m, t->n, t->k_bytes,
			t->warp[0], t->warp[1], t->warp[2], t->stages);
	else if (t->sm80_style)
		sb_addf(&sb, "%dx%dx%d (%d B) warp %dx%dx%d stages %d SM80-style", t->m, t->n,
			t->k_elems, t->k_bytes, t->warp[0], t->warp[1], t->warp[2], t->stages);
	else if (config)
		sb_addf(&sb, "%dx%dx%dB cluster %dx%dx%d %s", t->m, t->n, t->k_bytes, t->cluster[0],
			t->cluster[1], t->cluster[2], t->mma == MMA_2SM ? "2SM" : "1SM");
	else
		sb_addf(&sb, "%dx%dx%dB (%d el) cluster %dx%dx%d %s", t->m, t->n, t->k_bytes,
			t->k_elems, t->cluster[0], t->cluster[1], t->cluster[2],
			t->mma == MMA_2SM ? "2SM" : "1SM");
	if (t->dyn_cluster[0])
		sb_addf(&sb, " dyn %dx%dx%d/%dx%dx%d", t->dyn_cluster[0], t->dyn_cluster[1],
			t->dyn_cluster[2], t->fallback[0], t->fallback[1], t->fallback[2]);
	else if (t->static_cluster)
		sb_adds(&sb, " static");
	if (t->epilogue == EPI_NO_SMEM)
		sb_adds(&sb, " no_smem");
	if (t->sm_version)
		sb_addf(&sb, " sm%d", t->sm_version);
	if (t->swap_ab)
		sb_adds(&sb, " swap_ab");
	else if (t->tokens_on_n)
		sb_adds(&sb, " transposed");
	if (t->finalize)
		sb_adds(&sb, " finalize");
	if (!t->dispatchable && !config)
		sb_adds(&sb, " NOT-DISPATCHABLE");
	snprintf(buf, n, "%s", sb.buf);
	sb_release(&sb);
}

void tactic_describe(const struct tactic *t, char *buf, size_t n)
{
	describe(t, false, buf, n);
}

void tactic_config(const struct tactic *t, char *buf, size_t n)
{
	describe(t, true, buf, n);
}
