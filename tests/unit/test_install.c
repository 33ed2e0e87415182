/* test_install.c: install_prepare's checks of what it is asked (deploy/install.h): versions
 * that are no versions are usage errors, never BUG(). */
#include <stdlib.h>
#include <unistd.h>

#include "base/util.h"
#include "data/device.h"
#include "data/firules.h"
#include "deploy/install.h"
#include "ttest.h"

/* install_prepare of q for sglang (the cache in a temporary file holding cache_text): its status,
 * with j.usage or the last diagnostic in *msg (caller frees). */
static int prepare(struct install_request q, const char *cache_text, char **msg)
{
	struct device_set devs = { 0 };
	struct firules_set rules = { 0 };
	struct diags d = DIAGS_INIT;
	CHECK_INT(device_load_dir("configs/devices", &devs, &d), 0);
	CHECK_INT(firules_load_dir("schemas/flashinfer", &rules, &d), 0);
	char dir[] = "/tmp/tunetab-unit-install-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *from = xasprintf("%s/c.json", dir);
	CHECK_INT(write_file_atomic(from, cache_text, strlen(cache_text), 0644), 0);
	setenv("TUNETAB_TEST_IGNORE_INSTALLED", "1", 1); /* not this machine's FlashInfer */
	q.from = from;
	q.cache_dir = dir;
	struct install_job j;
	int rc = install_prepare(&q, ".", &devs, &rules, &j, &d);
	*msg = xstrdup(j.usage[0] ? j.usage : d.n ? d.v[d.n - 1].msg : "");
	install_job_release(&j);
	unsetenv("TUNETAB_TEST_IGNORE_INSTALLED");
	unlink(from);
	rmdir(dir);
	free(from);
	diags_release(&d);
	firules_set_release(&rules);
	device_set_release(&devs);
	return rc;
}

TEST(install_bad_versions)
{
	static const char cache[] = "{\"_metadata\": {\"flashinfer_version\": \"0.7.4\", \"gpu\": "
				    "\"NVIDIA H200\"}}\n";
	struct install_request q = { .server = { .consumer = "sglang" }, .flags = { .model_path = "m", .hf_config_class = "X",
				     .torch_dtype = "bfloat16", .quantization = "None",
				     .backend = "flashinfer_cutlass", .skip_ops = "", .tp = 1, .pp = 1,
				     .dp = 1, .attn_dp = 1, .ep = 1 } };
	char *msg;
	/* --consumer-version garbage once reached consumer_pick's version_cmp_str: BUG() */
	q.server.consumer_version = "garbage";
	CHECK_INT(prepare(q, cache, &msg), TT_USAGE);
	CHECK_STR(msg, "--consumer-version wants a version such as 0.5.2, not 'garbage'");
	free(msg);
	q.server.consumer_version = NULL;
	/* --flashinfer garbage named the cache folder, and for FlashInfer's own store was
	 * compared as a version */
	q.server.flashinfer = "garbage";
	CHECK_INT(prepare(q, cache, &msg), TT_USAGE);
	CHECK_STR(msg, "--flashinfer wants a FlashInfer version such as 0.6.18, not 'garbage'");
	free(msg);
	q.server.flashinfer = NULL;
	/* the same from the cache's own _metadata */
	q.server.consumer = "flashinfer";
	CHECK_INT(prepare(q, "{\"_metadata\": {\"flashinfer_version\": \"junk\"}}\n", &msg),
		  TT_INVALID);
	CHECK(strstr(msg, "c.json: _metadata.flashinfer_version is 'junk', not a FlashInfer version: "
		      "give --flashinfer (the version the server imports)") != NULL);
	free(msg);
	/* a version that parses but no rule covers is no usage error */
	q.server.consumer = "sglang";
	q.server.consumer_version = "0.5.2";
	CHECK_INT(prepare(q, cache, &msg), TT_INVALID);
	CHECK(strstr(msg, "no rule for SGLang 0.5.2") != NULL);
	free(msg);
}

TTEST_SUITE(install_tests) = {
	{ "install_bad_versions", install_bad_versions },
	TTEST_END,
};
