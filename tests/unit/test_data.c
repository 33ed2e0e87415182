/* test_data.c: device and model profiles load and resolve names as users type them; a model
 * fit's measurements read by modelfit.c's own reader equal libcyaml's reading. */
#include <stdlib.h>
#include <unistd.h>

#include "base/util.h"
#include "data/device.h"
#include "data/model.h"
#include "data/modelfit.h"
#include "ttest.h"

static struct device_set devs;
static struct model_set models;
static int loaded;

static void load(void)
{
	if (loaded)
		return;
	struct diags d = DIAGS_INIT;
	CHECK_INT(device_load_dir("configs/devices", &devs, &d), 0);
	CHECK_INT(model_load_dir("configs/models", &models, &d), 0);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	loaded = 1;
}

TEST(required_devices_present)
{
	load();
	static const char *const names[] = {
		"NVIDIA B200", "NVIDIA GB200", "NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA H20",
		"NVIDIA L40S", "NVIDIA RTX PRO 6000 Blackwell Server Edition",
		"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "NVIDIA GeForce RTX 5090",
		"NVIDIA GB10",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct device_profile *p = device_find(&devs, names[i]);
		CHECK(p != NULL);
		if (p)
			CHECK_STR(p->name, names[i]);
	}
	const struct device_profile *h = device_find(&devs, "NVIDIA H200");
	CHECK(h && device_sm(h) == 90 && *h->sm_count == 132 && *h->l2_bytes == 62914560);
	const struct device_profile *r = device_find(&devs, "rtx-pro-6000-server");
	CHECK(r && device_sm(r) == 120 && *r->smem_per_block_optin == 101376);
	const struct device_profile *g = device_find(&devs, "NVIDIA GB10");
	CHECK(g && device_sm(g) == 121 && g->l2_bytes == NULL); /* unknown stays unknown */
}

TEST(nearest_device_names)
{
	load();
	const char *near[3];
	size_t n = device_nearest(&devs, "NVIDIA H200 NVL", near, 3);
	CHECK(n == 3);
	CHECK_STR(near[0], "NVIDIA H200");
	CHECK(device_find(&devs, "NVIDIA H200 NVL") == NULL);
}

TEST(required_models_present)
{
	load();
	static const char *const names[] = {
		"GLM-5", "DeepSeek-V3", "DeepSeek-R1", "Kimi-K2", "Qwen3-235B-A22B",
		"qwen3-30b-a3b", "gpt-oss-120b", "Mixtral-8x7B",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		CHECK(model_find(&models, names[i]) != NULL);
	const struct model_profile *m = model_find(&models, "deepseek-v3");
	CHECK(m && m->hidden_size == 7168 && m->moe_intermediate_size == 2048 &&
	      m->routed_experts == 256 && m->top_k == 8 && model_activation_gated(m->activation));
	m = model_find(&models, "glm-5");
	CHECK(m && m->hidden_size == 6144 && m->routed_experts == 256);
}

/* Bit for bit the same fit (the path aside). */
static bool same_fit(const struct model_fit *a, const struct model_fit *b)
{
	if (!a || !b || strcmp(a->heuristic, b->heuristic) || strcmp(a->device, b->device) ||
	    a->sm != b->sm || strcmp(a->method, b->method) ||
	    a->trained_on_count != b->trained_on_count || a->params_count != b->params_count ||
	    a->measured_count != b->measured_count)
		return false;
	for (unsigned i = 0; i < a->trained_on_count; i++)
		if (strcmp(a->trained_on[i], b->trained_on[i]))
			return false;
	for (unsigned i = 0; i < a->params_count; i++)
		if (strcmp(a->params[i].name, b->params[i].name) ||
		    memcmp(&a->params[i].value, &b->params[i].value, sizeof(double)))
			return false;
	for (unsigned i = 0; i < a->measured_count; i++) {
		const struct fit_group *x = &a->measured[i], *y = &b->measured[i];
		if (strcmp(x->config, y->config) || x->stage != y->stage ||
		    x->points_count != y->points_count ||
		    memcmp(x->points, y->points, x->points_count * sizeof *x->points))
			return false;
	}
	return true;
}

/* text as a fit file, loaded; with `tail` appended (a comment after the measurements sends the
 * whole file to libcyaml). NULL when it does not load. */
static struct model_fit *fit_from(const char *text, const char *tail)
{
	char dir[] = "/tmp/tunetab-unit-fit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/fit.yaml", dir), *all = xasprintf("%s%s", text, tail);
	CHECK_INT(write_file_atomic(path, all, strlen(all), 0644), 0);
	struct model_fit *f = NULL;
	struct diags d = DIAGS_INIT;
	if (model_fit_load(path, &f, &d))
		f = NULL;
	diags_release(&d);
	unlink(path);
	rmdir(dir);
	free(path);
	free(all);
	return f;
}

TEST(model_fit_measurements_read)
{
	/* the shipped fit: learn's layout, read by modelfit.c; with a comment at the end, by
	 * libcyaml */
	char *text;
	size_t len;
	CHECK_INT(read_file("configs/fits/NVIDIA_H200.yaml", 0, &text, &len), 0);
	struct model_fit *fast = fit_from(text, ""), *slow = fit_from(text, "# the end\n");
	CHECK(fast && slow && fast->measured_count > 100);
	CHECK(same_fit(fast, slow));
	model_fit_free(fast);
	model_fit_free(slow);
	free(text);
	/* numbers strtod reads otherwise than as m / 10^k, and the same lines out of layout */
	static const char head[] = "model_fit:\n  heuristic: default\n  device: NVIDIA H200\n"
				   "  sm: 90\n  method: m\n  trained_on: [a]\n"
				   "  params:\n    - {name: overlap, value: 0.5}\n  measured:\n";
	static const char *const groups[] = {
		"    - config: \"64x128x128B cluster 1x1x1 1SM sm90\"\n      stage: 2\n      points:\n"
		"        - {l: 0.0625, f: 1536, k: 2048, b: 16, r: 0.00000}\n"
		"        - {l: 1e-05, f: 1.536e3, k: 2048., b: +16, r: 0.1234567890123456789}\n"
		"        - {l: 00012.50, f: 7168, k: 0.3, b: 4, r: -0.00000}\n"
		"        - {l: 123456789012345678, f: 0.1, k: 3.0e-1, b: 8, r: 1.7976931348623157e308}\n",
		"    - config: \"a \\\"quoted\\\" config\"\n      stage: 1\n      points:\n"
		"        - {l: 1, f: 2, k: 3, b: 4, r: 5}\n",
		"    - config: \"spaced\"\n      stage: 1\n      points:\n"
		"        - { l: 1, f: 2, k: 3, b: 4, r: 5 }\n",
	};
	for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
		char *t = xasprintf("%s%s", head, groups[i]);
		fast = fit_from(t, "");
		slow = fit_from(t, "# the end\n");
		CHECK(fast != NULL);
		CHECK(same_fit(fast, slow));
		model_fit_free(fast);
		model_fit_free(slow);
		free(t);
	}
	/* the measurements must be model_fit's: one indented otherwise is an error in both */
	char *t = xasprintf("model_fit:\n    heuristic: default\n    device: NVIDIA H200\n    sm: 90\n"
			    "    method: m\n    trained_on: [a]\n    params: []\n  measured:\n%s",
			    groups[0]);
	CHECK(fit_from(t, "") == NULL);
	CHECK(fit_from(t, "# the end\n") == NULL);
	free(t);
}

TTEST_SUITE(data_tests) = {
	{ "required_devices_present", required_devices_present },
	{ "nearest_device_names", nearest_device_names },
	{ "required_models_present", required_models_present },
	{ "model_fit_measurements_read", model_fit_measurements_read },
	TTEST_END
};
