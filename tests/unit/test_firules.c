/* test_firules.c: FlashInfer version rules: ranges, buckets, bundled file names
 * (flashinfer-formats.md §1.1, §3.2). */
#include <stdlib.h>

#include "data/firules.h"
#include "flashinfer/names.h"
#include "ttest.h"

static struct firules_set rules;
static int loaded;

static const struct fi_rules *at(const char *version)
{
	if (!loaded) {
		struct diags d = DIAGS_INIT;
		CHECK_INT(firules_load_dir("schemas/flashinfer", &rules, &d), 0);
		CHECK_INT(d.n, 0);
		diags_release(&d);
		loaded = 1;
	}
	struct fi_version v;
	CHECK(version_parse(version, &v) == 0);
	return firules_find(&rules, &v, NULL);
}

TEST(schema_ranges_cover_0_2_9_to_0_6_18)
{
	static const char *const every[] = {
		"0.2.9", "0.2.10", "0.2.11", "0.3.0", "0.4.0", "0.5.2", "0.5.3", "0.6.0", "0.6.6",
		"0.6.7", "0.6.8", "0.6.9", "0.6.10", "0.6.11", "0.6.12", "0.6.13", "0.6.14",
		"0.6.15", "0.6.16", "0.6.17", "0.6.18rc1", "0.6.18rc2", "0.6.18", "0.6.18.post1",
		"0.7.0", "0.7.0.post1", "0.7.1", "0.7.2", "0.7.2.post1", "0.7.4",
	};
	for (size_t i = 0; i < sizeof every / sizeof every[0]; i++)
		CHECK(at(every[i]) != NULL);
	CHECK(at("0.2.8") == NULL);
	bool newer;
	struct fi_version v;
	version_parse("0.8.0", &v);
	CHECK(firules_find(&rules, &v, &newer) != NULL && newer);
}

TEST(schema_key_forms_by_version)
{
	CHECK_INT(at("0.4.0")->key.tuple, 3);
	CHECK_INT(at("0.6.12")->key.tuple, 3);
	CHECK_INT(at("0.6.13")->key.tuple, 4);
	CHECK_INT(at("0.6.13")->key.extras, EXTRAS_EMPTY);
	CHECK_INT(at("0.6.18rc1")->key.extras, EXTRAS_EMPTY);
	CHECK_INT(at("0.6.18")->key.extras, EXTRAS_FIELDS);
	CHECK_INT(at("0.6.18")->key.extras_fields_count, 20);
	CHECK_STR(at("0.6.18")->key.extras_fields[17].name, "activation_type");
	CHECK_INT(at("0.5.2")->tactics.numbering, TN_SHARED);
	CHECK_INT(at("0.5.3")->tactics.numbering, TN_SPLIT_RELATIVE);
	CHECK_INT(at("0.6.14")->tactics.numbering, TN_SPLIT_RELATIVE);
	CHECK_INT(at("0.6.15")->tactics.numbering, TN_SPLIT_ABSOLUTE);
	CHECK(!at("0.6.6")->json_cache.supported);
	CHECK(at("0.6.7")->json_cache.supported);
	CHECK_INT(at("0.6.10")->json_cache.metadata_count, 5);
	CHECK_INT(at("0.6.11")->json_cache.metadata_count, 6);
	CHECK_INT(at("0.6.15")->json_cache.mismatch, MISMATCH_STRICT);
	CHECK_INT(at("0.6.16")->json_cache.mismatch, MISMATCH_HARD_SOFT);
	CHECK_INT(at("0.6.18")->json_cache.reserved_count, 3);
	/* beyond the reference: PyPI releases 0.7.x (see schemas/flashinfer/v0_7_*.yaml) */
	CHECK_INT(at("0.6.18.post1")->key.extras_fields_count, 20);
	CHECK_INT(at("0.7.0")->json_cache.metadata_count, 7);
	CHECK_INT(at("0.7.1")->json_cache.entry_value, VALUE_POLICY);
	CHECK_INT(at("0.7.1")->key.extras_fields_count, 20);
	CHECK_INT(at("0.7.2")->key.extras_fields_count, 17);
	CHECK_INT(at("0.7.4")->key.extras_fields_count, 17);
	CHECK_STR(at("0.7.4")->key.extras_fields[5].name, "ep_size");
	/* 0.7.4's selection record, in the range that 0.7.2 opens */
	CHECK(!at("0.7.1")->json_cache.selection);
	CHECK_STR(at("0.7.2")->json_cache.selection, "0.7.4");
}

TEST(bundled_file_names)
{
	char *s = firules_bundled_name(at("0.2.9"), "0.2.9", "NVIDIA B200");
	CHECK_STR(s, "v0_2_9_trtllm_fused_moe_NVIDIA_B200.py");
	free(s);
	s = firules_bundled_name(at("0.2.10"), "0.2.10", "NVIDIA B200");
	CHECK_STR(s, "v0_2_10_trtllm_fused_moe_NVIDIA_B200.py");
	free(s);
	s = firules_bundled_name(at("0.6.18"), "0.6.18", "NVIDIA H100 80GB HBM3");
	CHECK_STR(s, "v0_1_trtllm_fused_moe_NVIDIA_H100_80GB_HBM3.py");
	free(s);
	s = firules_bundled_name(at("0.4.0"), "0.4.0", "NVIDIA A100-SXM4-80GB");
	CHECK_STR(s, "v0_1_trtllm_fused_moe_NVIDIA_A100-SXM4-80GB.py");
	free(s);
}

/* flashinfer/names.h: every name of a table set from one device part */
TEST(file_names_share_the_device_part)
{
	const char *dev = "NVIDIA RTX PRO 6000 Blackwell Server Edition";
	char *s = firules_device_part(dev);
	CHECK_STR(s, "NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition");
	free(s);
	s = names_json_cache(dev);
	CHECK_STR(s, "flashinfer_autotune_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json");
	free(s);
	s = names_provenance("NVIDIA A100-SXM4-80GB");
	CHECK_STR(s, "tunetab_provenance_NVIDIA_A100-SXM4-80GB.json");
	CHECK(names_is_provenance(s));
	CHECK(!names_is_provenance("tunetab_provenance_x.py"));
	free(s);
	CHECK(names_same_device("NVIDIA H200", "NVIDIA_H200"));
	CHECK(!names_same_device("NVIDIA H200", "NVIDIA H20"));
	CHECK(at("0.6.18") != NULL); /* loads the schemas */
	s = names_module_device(&rules, "v0_1_trtllm_fused_moe_NVIDIA_H100_80GB_HBM3.py");
	CHECK_STR(s, "NVIDIA_H100_80GB_HBM3");
	free(s);
	CHECK(names_module_device(&rules, "v0_1_trtllm_fused_moe_.py") == NULL);
	CHECK(names_module_device(&rules, "trtllm_fused_moe_NVIDIA_H200.py") == NULL);
	CHECK(names_module_device(&rules, "v0_1_trtllm_fused_moe_NVIDIA_H200.json") == NULL);
}

TEST(hybrid_buckets_match_reference)
{
	/* §3.2: the 21 buckets for 8192, 22 for 16384. */
	static const unsigned want[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 768, 1024, 1280,
					  1536, 1792, 2048, 2560, 3072, 3584, 4096, 8192 };
	unsigned *b;
	size_t n = firules_buckets(at("0.6.18"), 8192, &b);
	CHECK_INT(n, 21);
	for (size_t i = 0; i < n && i < 21; i++)
		CHECK_INT(b[i], want[i]);
	free(b);
	n = firules_buckets(at("0.6.10"), 16384, &b);
	CHECK_INT(n, 22);
	CHECK_INT(b[n - 1], 16384);
	CHECK_INT(b[n - 2], 8192);
	free(b);
	n = firules_buckets(at("0.6.10"), 10000, &b);
	CHECK_INT(b[n - 1], 10000);
	CHECK_INT(b[n - 2], 8192);
	free(b);
	n = firules_buckets(at("0.6.10"), 100, &b);
	CHECK_INT(n, 8);
	CHECK_INT(b[n - 1], 100);
	free(b);
}

TEST(token_mapping_by_version)
{
	const struct fi_rules *h = at("0.6.18");
	CHECK_INT(firules_map_tokens(h, 8192, 3), 4);
	CHECK_INT(firules_map_tokens(h, 8192, 300), 512);
	CHECK_INT(firules_map_tokens(h, 8192, 600), 768);
	CHECK_INT(firules_map_tokens(h, 8192, 1000), 1024);
	CHECK_INT(firules_map_tokens(h, 8192, 5000), 8192);
	CHECK_INT(firules_map_tokens(h, 8192, 100000), 8192);
	const struct fi_rules *p = at("0.4.0");
	CHECK_INT(firules_map_tokens(p, 8192, 3), 2);
	CHECK_INT(firules_map_tokens(p, 8192, 1000), 512);
	CHECK_INT(firules_map_tokens(p, 8192, 100000), 8192);
	unsigned *b;
	size_t n = firules_buckets(p, 16384, &b);
	CHECK_INT(n, 15);
	CHECK_INT(b[0], 1);
	CHECK_INT(b[14], 16384);
	free(b);
}

TTEST_SUITE(firules_tests) = {
	{ "schema_ranges_cover_0_2_9_to_0_6_18", schema_ranges_cover_0_2_9_to_0_6_18 },
	{ "schema_key_forms_by_version", schema_key_forms_by_version },
	{ "bundled_file_names", bundled_file_names },
	{ "file_names_share_the_device_part", file_names_share_the_device_part },
	{ "hybrid_buckets_match_reference", hybrid_buckets_match_reference },
	{ "token_mapping_by_version", token_mapping_by_version },
	TTEST_END
};
