/* test_catalog.c: every catalog's list sizes and a sample of ids against
 * cutlass-moe-tactics.md §3.0, §3.3, §3.4, §3.5, §3.7 and §5. */
#include <stdlib.h>

#include "data/catalog.h"
#include "ttest.h"

static struct catalog_set cats;
static int loaded;

static void load(void)
{
	if (loaded)
		return;
	struct diags d = DIAGS_INIT;
	CHECK_INT(catalog_load_dir("configs/catalogs/flashinfer", &cats, &d), 0);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	loaded = 1;
}

static struct tactic_list list_for(const char *version, unsigned sm, enum dtype t)
{
	load();
	struct fi_version v;
	CHECK(version_parse(version, &v) == 0);
	const struct catalog *c = catalog_find(&cats, &v, sm, t);
	struct tactic_list l = { 0 };
	if (!c) {
		fprintf(stderr, "  no catalog for %s SM%u %s\n", version, sm, dtype_name(t));
		ttest_failed_checks++;
		return l;
	}
	struct diags d = DIAGS_INIT;
	CHECK_INT(catalog_expand(c, &l, &d), 0);
	diags_release(&d);
	return l;
}

/* Expected decoded fields of one id. */
struct want {
	int stage, id;
	int m, n, k_bytes;
	int cl0, cl1;
	int two_sm, swap, fin, disp;
};

static void check_entry(const struct tactic_list *l, const struct want *w, bool relative)
{
	const struct tactic *t = tactic_lookup(l, w->stage, w->id, relative);
	if (!t) {
		fprintf(stderr, "  %s: stage %d id %d not found\n", ttest_current, w->stage, w->id);
		ttest_failed_checks++;
		return;
	}
	CHECK_INT(t->id, w->id);
	CHECK_INT(t->m, w->m);
	CHECK_INT(t->n, w->n);
	CHECK_INT(t->k_bytes, w->k_bytes);
	if (w->cl0) {
		CHECK_INT(t->cluster[0], w->cl0);
		CHECK_INT(t->cluster[1], w->cl1);
	}
	CHECK_INT(t->mma == MMA_2SM, w->two_sm);
	CHECK_INT(t->swap_ab, w->swap);
	CHECK_INT(t->finalize, w->fin);
	CHECK_INT(t->dispatchable, w->disp);
}

TEST(catalog_counts_match_reference)
{
	static const struct { const char *v; unsigned sm; enum dtype t; size_t g1, g2; } rows[] = {
		{ "0.6.18", 89, DT_BF16, 18, 18 },     { "0.6.18", 89, DT_FP8, 42, 42 },
		{ "0.6.18", 90, DT_BF16, 45, 81 },     { "0.6.18", 90, DT_FP16, 45, 81 },
		{ "0.6.18", 90, DT_FP8, 36, 72 },      { "0.6.18", 90, DT_MXFP8, 36, 72 },
		{ "0.6.18", 100, DT_NVFP4, 42, 84 },   { "0.6.18", 100, DT_FP8_MXFP4, 42, 84 },
		{ "0.6.18", 103, DT_FP8_MXFP4, 42, 84 }, { "0.6.18", 100, DT_BF16, 209, 309 },
		{ "0.6.18", 103, DT_BF16, 209, 309 },  { "0.6.18", 100, DT_FP8, 216, 324 },
		{ "0.6.18", 100, DT_MXFP8, 216, 324 }, { "0.6.18", 103, DT_NVFP4, 98, 168 },
		{ "0.6.18", 120, DT_NVFP4, 20, 40 },   { "0.6.18", 121, DT_NVFP4, 20, 40 },
		{ "0.6.11", 120, DT_NVFP4, 20, 40 },   { "0.6.10", 120, DT_NVFP4, 12, 24 },
		{ "0.6.8", 120, DT_NVFP4, 12, 24 },    { "0.6.7", 120, DT_NVFP4, 8, 16 },
		{ "0.5.3", 120, DT_NVFP4, 8, 16 },     { "0.6.18", 120, DT_FP8_MXFP4, 20, 40 },
		{ "0.6.18", 120, DT_FP8, 21, 21 },     { "0.6.18", 120, DT_BF16, 9, 9 },
		{ "0.4.0", 100, DT_NVFP4, 7, 7 },      { "0.2.9", 100, DT_NVFP4, 7, 7 },
		{ "0.5.2", 100, DT_NVFP4, 7, 7 },      { "0.5.3", 100, DT_NVFP4, 42, 84 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct tactic_list l = list_for(rows[i].v, rows[i].sm, rows[i].t);
		if (!l.cat)
			continue;
		if (l.n1 != rows[i].g1 || l.n2 != rows[i].g2) {
			fprintf(stderr, "  %s SM%u %s: %zu/%zu, want %zu/%zu\n", rows[i].v, rows[i].sm,
				dtype_name(rows[i].t), l.n1, l.n2, rows[i].g1, rows[i].g2);
			ttest_failed_checks++;
		}
		tactic_list_release(&l);
	}
}

TEST(catalog_has_no_list_for_unknown)
{
	load();
	struct fi_version v;
	version_parse("0.4.0", &v);
	CHECK(catalog_find(&cats, &v, 90, DT_BF16) == NULL);  /* pre-0.5.3 SM90 list not in the reference */
	version_parse("0.6.18", &v);
	CHECK(catalog_find(&cats, &v, 80, DT_BF16) == NULL);  /* SM80 rejected by FlashInfer (§1.2) */
	CHECK(catalog_find(&cats, &v, 90, DT_NVFP4) == NULL); /* 0 entries on SM90 (§3.0) */
}

TEST(sm90_bf16_ids)
{
	struct tactic_list l = list_for("0.6.18", 90, DT_BF16);
	static const struct want w[] = {
		{ 1, 0, 128, 16, 128, 1, 1, 0, 0, 0, 1 },
		{ 1, 9, 128, 128, 128, 2, 2, 0, 0, 0, 1 },
		{ 1, 27, 128, 128, 128, 2, 2, 0, 1, 0, 1 },
		{ 1, 35, 256, 128, 128, 2, 2, 0, 1, 0, 1 },
		{ 2, 45 + 18, 128, 16, 128, 1, 1, 0, 0, 1, 1 },
		{ 2, 45 + 35, 256, 128, 128, 2, 2, 0, 0, 1, 1 },
		{ 2, 45 + 36, 128, 16, 128, 1, 1, 0, 1, 0, 1 },
		{ 2, 45 + 54, 128, 16, 128, 1, 1, 0, 1, 1, 1 },
		{ 2, 45 + 71, 256, 128, 128, 2, 2, 0, 1, 1, 1 },
	};
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		check_entry(&l, &w[i], false);
	/* SM80-style tail: G1 36..44 and G2 local 72..80, K in elements (64 = 128 B). */
	const struct tactic *t = tactic_lookup(&l, 1, 36, false);
	CHECK(t && t->sm80_style && t->m == 32 && t->n == 128 && t->k_elems == 64 && t->stages == 2);
	t = tactic_lookup(&l, 1, 44, false);
	CHECK(t && t->sm80_style && t->m == 128 && t->stages == 4 && t->warp[0] == 64);
	t = tactic_lookup(&l, 2, 45 + 80, false);
	CHECK(t && t->sm80_style && t->m == 128 && t->stages == 4 && !t->finalize);
	CHECK(tactic_lookup(&l, 2, 45 + 81, false) == NULL);
	CHECK(tactic_lookup(&l, 1, 45, false) == NULL);
	CHECK(tactic_lookup(&l, 2, 10, false) == NULL);          /* absolute only */
	CHECK(tactic_lookup(&l, 2, 10, true) == &l.g2[10]);      /* v0.5.3-v0.6.14 relative */
	tactic_list_release(&l);
}

TEST(sm100_nvfp4_ids)
{
	struct tactic_list l = list_for("0.6.18", 100, DT_NVFP4);
	static const struct want w[] = {
		{ 1, 0, 128, 64, 128, 1, 1, 0, 0, 0, 1 },
		{ 1, 4, 128, 64, 128, 2, 1, 1, 0, 0, 1 },
		{ 1, 20, 128, 256, 128, 2, 1, 1, 0, 0, 1 },
		/* §5: HEAD equivalents of the old 6/5/1/3 = G1 36/37/40/41 */
		{ 1, 36, 128, 64, 128, 1, 1, 0, 1, 0, 1 },
		{ 1, 37, 128, 64, 128, 2, 1, 1, 1, 0, 1 },
		{ 1, 40, 128, 128, 128, 2, 1, 1, 1, 0, 1 },
		{ 1, 41, 128, 256, 128, 2, 1, 1, 1, 0, 1 },
		{ 2, 42 + 21, 128, 64, 128, 1, 1, 0, 0, 1, 1 },
		{ 2, 42 + 58, 128, 64, 128, 2, 1, 1, 1, 0, 1 },
		{ 2, 42 + 79, 128, 64, 128, 2, 1, 1, 1, 1, 1 },
		{ 2, 42 + 83, 128, 256, 128, 2, 1, 1, 1, 1, 1 },
	};
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		check_entry(&l, &w[i], false);
	const struct tactic *t = tactic_lookup(&l, 1, 16, false);
	CHECK(t && t->static_cluster && t->k_elems == 256);
	t = tactic_lookup(&l, 1, 4, false);
	CHECK(t && t->dyn_cluster[0] == 4 && t->dyn_cluster[1] == 1 && t->fallback[0] == 2);
	tactic_list_release(&l);
}

TEST(sm120_nvfp4_ids)
{
	struct tactic_list l = list_for("0.6.18", 120, DT_NVFP4);
	static const struct want w[] = {
		{ 1, 0, 128, 128, 128, 1, 1, 0, 0, 0, 1 },
		{ 1, 4, 128, 128, 256, 1, 1, 0, 0, 0, 0 },
		{ 1, 5, 256, 128, 128, 1, 1, 0, 0, 0, 0 },
		{ 1, 6, 128, 32, 128, 1, 1, 0, 0, 0, 1 },
		{ 1, 14, 128, 128, 256, 1, 1, 0, 1, 0, 0 },
		{ 1, 19, 128, 64, 64, 1, 1, 0, 1, 0, 1 },
		{ 2, 20 + 14, 128, 128, 256, 1, 1, 0, 0, 1, 0 },
		{ 2, 20 + 29, 128, 64, 64, 1, 1, 0, 1, 0, 1 },
		{ 2, 20 + 34, 128, 128, 256, 1, 1, 0, 1, 1, 0 },
		{ 2, 20 + 39, 128, 64, 64, 1, 1, 0, 1, 1, 1 },
	};
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		check_entry(&l, &w[i], false);
	size_t bad = 0;
	for (size_t i = 0; i < l.n1; i++)
		bad += !l.g1[i].dispatchable;
	CHECK_INT(bad, 4); /* ids 4, 5, 14, 15 */
	tactic_list_release(&l);
}

TEST(sm100_fp4_pre_0_5_3_shared_list)
{
	struct tactic_list l = list_for("0.4.0", 100, DT_NVFP4);
	/* §5: the 7-entry list; per-CTA tiles, tokens along N (transposed). */
	static const struct { int m, n, cl0, cl1, two_sm; } w[] = {
		{ 128, 128, 1, 1, 0 }, { 128, 128, 2, 1, 1 }, { 128, 256, 1, 1, 0 },
		{ 128, 256, 2, 1, 1 }, { 128, 128, 1, 2, 0 }, { 128, 64, 2, 1, 1 },
		{ 128, 64, 1, 1, 0 },
	};
	CHECK_INT(l.n1, 7);
	for (int i = 0; i < 7 && (size_t)i < l.n1; i++) {
		for (int stage = 1; stage <= 2; stage++) {
			const struct tactic *t = tactic_lookup(&l, stage, i, false);
			CHECK(t != NULL);
			if (!t)
				continue;
			CHECK_INT(t->id, i);
			CHECK_INT(t->m, w[i].m);
			CHECK_INT(t->n, w[i].n);
			CHECK_INT(t->cluster[0], w[i].cl0);
			CHECK_INT(t->cluster[1], w[i].cl1);
			CHECK_INT(t->mma == MMA_2SM, w[i].two_sm);
			CHECK(t->tokens_on_n && !t->swap_ab && !t->finalize);
		}
	}
	CHECK(tactic_lookup(&l, 2, 7, false) == NULL);
	tactic_list_release(&l);
}

TEST(sm103_nvfp4_ids)
{
	struct tactic_list l = list_for("0.6.18", 103, DT_NVFP4);
	const struct tactic *t = tactic_lookup(&l, 2, 98 + 133, false);
	CHECK(t && t->swap_ab && t->finalize && t->m == 128 && t->n == 128 && t->sm_version == 103);
	t = tactic_lookup(&l, 2, 98 + 98, false);
	CHECK(t && t->swap_ab && !t->finalize && t->epilogue == EPI_NO_SMEM);
	t = tactic_lookup(&l, 2, 98 + 63, false);
	CHECK(t && t->finalize && !t->swap_ab && t->sm_version == 100 && t->n == 64);
	t = tactic_lookup(&l, 1, 28, false);
	CHECK(t && t->sm_version == 100 && t->n == 64);
	tactic_list_release(&l);
}

TEST(sm100_bf16_ids)
{
	struct tactic_list l = list_for("0.6.18", 100, DT_BF16);
	const struct tactic *t = tactic_lookup(&l, 1, 200, false);
	CHECK(t && t->sm80_style && t->m == 32 && t->stages == 2);
	t = tactic_lookup(&l, 1, 150, false);
	CHECK(t && t->swap_ab && t->epilogue == EPI_NO_SMEM && t->m == 128 && t->n == 128);
	t = tactic_lookup(&l, 2, 209 + 250, false);
	CHECK(t && t->swap_ab && t->finalize && t->epilogue == EPI_TMA && t->m == 128 && t->n == 128);
	t = tactic_lookup(&l, 2, 209 + 200, false);
	CHECK(t && t->swap_ab && !t->finalize && t->epilogue == EPI_NO_SMEM);
	t = tactic_lookup(&l, 1, 49, false);
	CHECK(t && t->mma == MMA_2SM && t->m == 128 && t->n == 256 && t->static_cluster);
	tactic_list_release(&l);
}

TTEST_SUITE(catalog_tests) = {
	{ "catalog_counts_match_reference", catalog_counts_match_reference },
	{ "catalog_has_no_list_for_unknown", catalog_has_no_list_for_unknown },
	{ "sm90_bf16_ids", sm90_bf16_ids },
	{ "sm100_nvfp4_ids", sm100_nvfp4_ids },
	{ "sm120_nvfp4_ids", sm120_nvfp4_ids },
	{ "sm100_fp4_pre_0_5_3_shared_list", sm100_fp4_pre_0_5_3_shared_list },
	{ "sm103_nvfp4_ids", sm103_nvfp4_ids },
	{ "sm100_bf16_ids", sm100_bf16_ids },
	TTEST_END
};
