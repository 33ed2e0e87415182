/* test_deployment.c: the deployment layer (src/deployment/): the same deployment whether the
 * server's launch command or install's flags describe it (serve_derive, serve_derive_flags),
 * field by field (serve_equal), for SGLang and vLLM, TP/EP/DP/PP and attention DP, fused
 * finalize set and unset, bf16/fp8/NVFP4/MXFP4 checkpoints; and the rank layout. */
#include <stdlib.h>

#include "base/util.h"
#include "data/device.h"
#include "deployment/ranks.h"
#include "deployment/server.h"
#include "ttest.h"

struct equiv_case {
	const char *consumer, *version, *device, *config, *finalize_env;
	const char *launch;            /* the command as a user types it */
	struct serve_flags flags;      /* the same deployment as install's flags */
};

#define HF "tests/data/hf/"
#define SG(tp_, pp_, dp_, adp_, ep_, q_, model_)                                              \
	{ .model_path = model_, .hf_config_class = NULL, .torch_dtype = "bfloat16",            \
	  .quantization = q_, .backend = "flashinfer_cutlass", .skip_ops = "", .tp = tp_,      \
	  .pp = pp_, .dp = dp_, .attn_dp = adp_, .ep = ep_ }
#define SGL "python -m sglang.launch_server --moe-runner-backend flashinfer_cutlass "

static const struct equiv_case cases[] = {
	{ "sglang", "0.5.23", "h200", HF "Qwen/Qwen3-30B-A3B/config.json", NULL,
	  SGL "--model-path Qwen/Qwen3-30B-A3B --tp 8", SG(8, 1, 1, 1, 1, "None", "Qwen/Qwen3-30B-A3B") },
	{ "sglang", "0.5.23", "h200", HF "Qwen/Qwen3-30B-A3B/config.json", "1",
	  SGL "--model-path Qwen/Qwen3-30B-A3B --tp 8", SG(8, 1, 1, 1, 1, "None", "Qwen/Qwen3-30B-A3B") },
	{ "sglang", "0.5.22", "h100-sxm", HF "Qwen/Qwen3-30B-A3B/config.json", "0",
	  SGL "--model-path Qwen/Qwen3-30B-A3B --tp-size 4 --dp-size 2",
	  SG(4, 1, 2, 1, 1, "None", "Qwen/Qwen3-30B-A3B") },
	{ "sglang", "0.5.23", "h200", HF "Qwen/Qwen3-30B-A3B/config.json", NULL,
	  SGL "--model-path Qwen/Qwen3-30B-A3B --tp 8 --enable-dp-attention --dp 8",
	  SG(8, 1, 1, 8, 1, "None", "Qwen/Qwen3-30B-A3B") },
	{ "sglang", "0.5.23", "h200", HF "Qwen/Qwen3-30B-A3B/config.json", NULL,
	  SGL "--model-path Qwen/Qwen3-30B-A3B --tp 2 --pp-size 2",
	  SG(2, 2, 1, 1, 1, "None", "Qwen/Qwen3-30B-A3B") },
	{ "sglang", "0.5.23", "h200", HF "deepseek-ai/DeepSeek-V3/config.json", NULL,
	  SGL "--model-path deepseek-ai/DeepSeek-V3 --tp 8 --ep-size 8",
	  SG(8, 1, 1, 1, 8, "None", "deepseek-ai/DeepSeek-V3") },
	{ "sglang", "0.5.23", "h200", HF "Qwen/Qwen3-30B-A3B/config.json", "1",
	  SGL "--model-path Qwen/Qwen3-30B-A3B --tp 8 --ep 8",
	  SG(8, 1, 1, 1, 8, "None", "Qwen/Qwen3-30B-A3B") },
	{ "sglang", "0.5.23", "rtx-pro-6000-server", HF "nvidia/GLM-5.1-NVFP4/config.json", NULL,
	  SGL "--model-path nvidia/GLM-5.1-NVFP4 --tp 8 --quantization modelopt_fp4",
	  SG(8, 1, 1, 1, 1, "modelopt_fp4", "nvidia/GLM-5.1-NVFP4") },
	{ "sglang", "0.5.23", "b200", HF "openai/gpt-oss-120b/config.json", NULL,
	  SGL "--model-path openai/gpt-oss-120b --tp 4", SG(4, 1, 1, 1, 1, "None", "openai/gpt-oss-120b") },
	{ "vllm", "0.34.0", "h200", HF "Qwen/Qwen3-30B-A3B/config.json", NULL,
	  "vllm serve Qwen/Qwen3-30B-A3B -tp 8", SG(8, 1, 1, 1, 1, "None", "Qwen/Qwen3-30B-A3B") },
	{ "vllm", "0.34.0", "h200", HF "deepseek-ai/DeepSeek-V3/config.json", NULL,
	  "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --enable-expert-parallel",
	  SG(8, 1, 1, 1, 8, "None", "deepseek-ai/DeepSeek-V3") },
	{ "vllm", "0.34.0", "h100-sxm", HF "Qwen/Qwen3-30B-A3B/config.json", NULL,
	  "vllm serve Qwen/Qwen3-30B-A3B -tp 4 --data-parallel-size 2 --enable-expert-parallel",
	  SG(4, 1, 2, 1, 8, "None", "Qwen/Qwen3-30B-A3B") },
	{ "vllm", "0.34.0", "h200", HF "Qwen/Qwen3-30B-A3B/config.json", NULL,
	  "vllm serve Qwen/Qwen3-30B-A3B -tp 2 -pp 2", SG(2, 2, 1, 1, 1, "None", "Qwen/Qwen3-30B-A3B") },
	{ "vllm", "0.34.0", "b200", HF "nvidia/GLM-5.1-NVFP4/config.json", NULL,
	  "vllm serve nvidia/GLM-5.1-NVFP4 -tp 4", SG(4, 1, 1, 1, 1, "None", "nvidia/GLM-5.1-NVFP4") },
	{ "vllm", "0.34.0", "h200", HF "zai-org/GLM-5-FP8/config.json", NULL,
	  "vllm serve zai-org/GLM-5-FP8 -tp 8 --enable-expert-parallel",
	  SG(8, 1, 1, 1, 8, "None", "zai-org/GLM-5-FP8") },
};

/* words of a command line (split at spaces), in a NULL-terminated array the caller frees */
static char **split(const char *line, size_t *n)
{
	char *copy = xstrdup(line), *save = NULL;
	char **v = xcalloc(strlen(line) + 1, sizeof *v);
	*n = 0;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		v[(*n)++] = xstrdup(w);
	free(copy);
	return v;
}

TEST(deployment_flags_equal_launch)
{
	struct device_set devs = { 0 };
	struct diags d = DIAGS_INIT;
	CHECK_INT(device_load_dir("configs/devices", &devs, &d), 0);
	setenv("TUNETAB_TEST_IGNORE_INSTALLED", "1", 1); /* not this machine's Python */
	size_t derived = 0;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct equiv_case *c = &cases[i];
		if (c->finalize_env)
			setenv("SGLANG_FLASHINFER_MOE_FUSED_FINALIZE", c->finalize_env, 1);
		size_t n;
		char **words = split(c->launch, &n);
		struct serve_request q = { .consumer = c->consumer, .consumer_version = c->version,
					   .flashinfer = "0.7.4", .model_config = c->config,
					   .device = c->device };
		struct serve_deployment a, b;
		struct serve_request ql = q;
		ql.words = words;
		ql.nwords = n;
		int ra = serve_derive(&ql, ".", &devs, &a, &d);
		int rb = serve_derive_flags(&q, &c->flags, ".", &devs, &b, &d);
		if (ra || rb) {
			fprintf(stderr, "  case %zu (%s): launch %d, flags %d: %s\n", i, c->launch, ra,
				rb, d.n ? d.v[d.n - 1].msg : "");
			CHECK(0);
		} else {
			const char *field;
			bool same = serve_equal(&a, &b, &field);
			if (!same)
				fprintf(stderr, "  case %zu (%s): differs in %s\n", i, c->launch, field);
			for (size_t o = 0; !same && o < a.nops && o < b.nops; o++)
				for (size_t k = 0; k < a.ops[o].ncalls && k < b.ops[o].ncalls; k++) {
					struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
					op_call_words(&a.ops[o].calls[k], &x);
					op_call_words(&b.ops[o].calls[k], &y);
					if (strcmp(x.buf ? x.buf : "", y.buf ? y.buf : ""))
						fprintf(stderr, "    launch: %s\n    flags:  %s\n", x.buf, y.buf);
					sb_release(&x);
					sb_release(&y);
				}
			CHECK(same);
			derived++;
		}
		/* and serve_equal can say no: the same launch against flags of another TP */
		if (!ra && i == 0) {
			struct serve_flags f = c->flags;
			f.tp = 4;
			struct serve_deployment e;
			CHECK_INT(serve_derive_flags(&q, &f, ".", &devs, &e, &d), 0);
			const char *field = NULL;
			CHECK(!serve_equal(&a, &e, &field));
			CHECK_STR(field ? field : "", "tp");
			serve_release(&e);
		}
		serve_release(&a);
		serve_release(&b);
		for (size_t k = 0; k < n; k++)
			free(words[k]);
		free(words);
		unsetenv("SGLANG_FLASHINFER_MOE_FUSED_FINALIZE");
	}
	CHECK_INT(derived, ARRAY_SIZE(cases));
	unsetenv("TUNETAB_TEST_IGNORE_INSTALLED");
	diags_release(&d);
	device_set_release(&devs);
}

TEST(deployment_rank_layout)
{
	struct server_rank *r;
	/* TP 4 x PP 2 x DP 2, MoE EP 4: TP fastest, then PP, then DP */
	size_t n = ranks_lay_out(&(struct rank_layout){ 4, 2, 2, 1, 1, 4 }, &r);
	CHECK_INT(n, 16);
	CHECK_INT(r[5].tp_rank, 1);
	CHECK_INT(r[5].pp_rank, 1);
	CHECK_INT(r[5].dp_rank, 0);
	CHECK_INT(r[5].world_rank, 5);
	CHECK_INT(r[5].moe_ep_rank, 1);
	CHECK_INT(r[9].dp_rank, 1);
	CHECK_INT(r[9].world_rank, 9);
	CHECK_INT(r[9].moe_ep_rank, 1); /* vLLM flattens DP x TP: (1 * 4 + 1) % 4 */
	free(r);
	/* attention DP 4 of TP 8: one DP group; a rank's dp_rank is its attention-DP group */
	n = ranks_lay_out(&(struct rank_layout){ 8, 1, 1, 4, 2, 4 }, &r);
	CHECK_INT(n, 8);
	CHECK_INT(r[3].dp_rank, 1);
	CHECK_INT(r[7].dp_rank, 3);
	CHECK_INT(r[7].moe_tp_rank, 1);
	CHECK_INT(r[7].moe_ep_rank, 3);
	free(r);
}

const struct ttest_case deployment_tests[] = {
	{ "deployment_flags_equal_launch", deployment_flags_equal_launch },
	{ "deployment_rank_layout", deployment_rank_layout },
	{ NULL, NULL },
};
