/* test_data.c: device and model profiles load and resolve names as users type them. */
#include "data/device.h"
#include "data/model.h"
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

TTEST_SUITE(data_tests) = {
	{ "required_devices_present", required_devices_present },
	{ "nearest_device_names", nearest_device_names },
	{ "required_models_present", required_models_present },
	TTEST_END
};
