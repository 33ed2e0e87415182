/* test_version.c: FlashInfer version parsing and ordering. */
#include "ttest.h"
#include "base/version.h"

TEST(version_parses)
{
	struct fi_version v;
	CHECK(version_parse("0.6.18", &v) == 0 && v.major == 0 && v.minor == 6 && v.patch == 18 &&
	      v.pre == 4);
	CHECK(version_parse("0.6.18rc2", &v) == 0 && v.pre == 3 && v.pre_num == 2);
	CHECK(version_parse("0.2.9.post1", &v) == 0 && v.post == 1);
	CHECK(version_parse("0.6.7+cu128", &v) == 0 && strcmp(v.local, "cu128") == 0);
	CHECK(version_parse("0.0.0+unknown", &v) == 0);
	CHECK(version_parse("v0.4.0", &v) == 0 && v.minor == 4);
	CHECK(version_parse("0.6", &v) == 0 && v.patch == 0);
	CHECK(version_parse("banana", &v) != 0);
	CHECK(version_parse("0.6.x", &v) != 0);
	CHECK(version_parse("0.6.18rc", &v) != 0);
	CHECK(version_parse("0.6.18+", &v) != 0);
	CHECK(version_parse("", &v) != 0);
}

TEST(version_orders_like_pip)
{
	CHECK(version_cmp_str("0.2.9", "0.2.10") < 0);
	CHECK(version_cmp_str("0.2.10", "0.2.11") < 0);
	CHECK(version_cmp_str("0.6.18rc1", "0.6.18rc2") < 0);
	CHECK(version_cmp_str("0.6.18rc2", "0.6.18") < 0);
	CHECK(version_cmp_str("0.6.18.dev1", "0.6.18rc1") < 0);
	CHECK(version_cmp_str("0.6.18", "0.6.18.post1") < 0);
	CHECK(version_cmp_str("0.6.17", "0.6.18rc1") < 0);
	CHECK(version_cmp_str("0.6.7+cu128", "0.6.7") == 0);
	CHECK(version_cmp_str("1.0.0", "0.99.99") > 0);
}

TTEST_SUITE(version_tests) = {
	{ "version_parses", version_parses },
	{ "version_orders_like_pip", version_orders_like_pip },
	TTEST_END
};
