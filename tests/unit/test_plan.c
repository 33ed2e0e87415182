/* test_plan.c: the lookup plan of a deployment (deploy/plan.h): per rank the file the server
 * opens and the keys it looks up (one key set where FlashInfer's keys hold no rank, one per MoE
 * rank where they do), and the plan against an empty folder and against what install writes. */
#include <stdlib.h>
#include <unistd.h>

#include "base/util.h"
#include "data/data.h"
#include "deploy/plan.h"
#include "flashinfer/validate.h"
#include "ttest.h"

static const struct validate_data *unit_vd(const struct tt_data *data)
{
	static struct validate_data vd;
	vd = (struct validate_data){ &data->devices, &data->catalogs, &data->rules, &data->ops };
	return &vd;
}

/* The plan of an SGLang launch of Qwen3-30B-A3B on H200s into root; its status. */
static int sglang_plan(struct tt_data *data, const char *fi, const char *launch_tp,
		       const char *ep, const char *root, struct serve_deployment *s,
		       struct lookup_plan *p)
{
	char *words[] = { "python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-30B-A3B",
			  "--moe-runner-backend", "flashinfer_cutlass", "--tp", (char *)launch_tp,
			  "--ep-size", (char *)ep };
	struct serve_request q = { .consumer = "sglang", .words = words, .nwords = ARRAY_SIZE(words),
				   .consumer_version = "0.5.23", .flashinfer = fi,
				   .model_config = "tests/data/hf/Qwen/Qwen3-30B-A3B/config.json",
				   .device = "h200" };
	struct diags d = DIAGS_INIT;
	int rc = serve_derive(&q, data->root, &data->devices, s, &d);
	CHECK_INT(rc, 0);
	struct install_request iq = {
		.server = { .consumer = "sglang", .consumer_version = s->consumer_version,
			    .flashinfer = s->flashinfer, .sm = s->sm },
		.flags = serve_flags_of(s),
		.cache_dir = root, .metadata = "wildcard", .check = true,
	};
	struct plan_request pr = { .serve = s, .q = &iq };
	if (!rc)
		rc = plan_build(data, &pr, p, &d);
	if (rc && d.n)
		fprintf(stderr, "  %s\n", d.v[d.n - 1].msg);
	diags_release(&d);
	return rc;
}

TEST(plan_ranks_and_keys)
{
	setenv("TUNETAB_DATA_DIR", ".", 1);
	setenv("TUNETAB_TEST_IGNORE_INSTALLED", "1", 1);
	struct tt_data data;
	struct diags d = DIAGS_INIT;
	CHECK_INT(data_load(&data, DATA_ALL, &d), 0);
	diags_release(&d);
	char root[] = "/tmp/tunetab-unit-plan-XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	struct serve_deployment s;
	struct lookup_plan p;

	/* 0.7.4: keys without ranks, one set for the 8 ranks of TP 8 x EP 8 */
	CHECK_INT(sglang_plan(&data, "0.7.4", "8", "8", root, &s, &p), 0);
	CHECK_INT(p.nranks, 8);
	CHECK(!p.rank_keyed);
	CHECK_INT(p.nkeysets, 1);
	CHECK(p.keys_known);
	CHECK(p.nall > 0);
	CHECK_INT(p.nall, p.keysets[0].n);
	CHECK(p.ranks[3].path && strstr(p.ranks[3].path, "/rank_tp3_pp0_dp0.json"));
	CHECK_INT(p.ranks[3].moe_ep_rank, 3); /* EP 8 over TP 8: moe_tp_size 1 */
	CHECK_INT(p.ranks[3].moe_tp_rank, 0);
	/* nothing installed: no, with every file missing */
	struct plan_check c;
	plan_check_disk(&p, unit_vd(&data), &c);
	CHECK_INT(c.state, PLAN_NO);
	CHECK_INT(c.nfiles, 8);
	CHECK_INT(c.hits, 0);
	CHECK(c.nfindings > 0 && strstr(c.findings[0].what, "8 of 8 rank files missing"));
	plan_check_release(&c);
	/* the plan's own placeholder table installed: every rank's lookups hit */
	CHECK_INT(install_write(&p.job, &d), 0);
	plan_check_disk(&p, unit_vd(&data), &c);
	CHECK_INT(c.hits, c.wanted);
	CHECK_INT(c.wanted, 8 * p.nall);
	plan_check_release(&c);
	size_t one_set = p.nall;
	plan_release(&p);
	serve_release(&s);

	/* 0.6.18: the keys carry the MoE ranks, one key set per EP rank, each file all of them */
	CHECK_INT(sglang_plan(&data, "0.6.18", "8", "8", root, &s, &p), 0);
	CHECK(p.rank_keyed);
	CHECK_INT(p.nkeysets, 8);
	CHECK_INT(p.ranks[5].keys, 5);
	CHECK(p.nall > p.keysets[0].n);
	CHECK(one_set > 0);
	plan_release(&p);
	serve_release(&s);

	char *cmd = xasprintf("rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	diags_release(&d);
	data_release(&data);
	unsetenv("TUNETAB_TEST_IGNORE_INSTALLED");
	unsetenv("TUNETAB_DATA_DIR");
}

const struct ttest_case plan_tests[] = {
	{ "plan_ranks_and_keys", plan_ranks_and_keys },
	{ NULL, NULL },
};
