/* fuzz_launch.c: libFuzzer target for the launch-command reader: serve_derive
#define _GNU_SOURCE
 * (deployment/server.c), which hands the words of a server's launch command to the consumer's
 * script (configs/consumers/sglang.lua, vllm.lua, through scripts/lib/launch.lua and the
 * releases' option tables) and reads back what it resolved, as `install --for` and `doctor
 * --for` do. Then, where it derived a deployment, the same through install's flags
 * (serve_flags_of, serve_derive_flags: the consumer's flags_command) and the model profile.
 *
 * The input: its first line's first byte picks the request (bit 0: sglang or vllm; bits 1-2
 * the model's config.json: tests/data/hf Qwen3-30B-A3B, DeepSeek-V3, GLM-5.1-NVFP4,
 * gpt-oss-120b; bit 3: --device h200 or b200; bits 4-5: --flashinfer 0.7.4, 0.6.18, 0.5.3,
 * 0.2.9; bit 6 clear: the consumer's older release as --consumer-version, set: none, so the
 * newest rule); the rest are the words, one a line, or NUL-separated where the rest holds a
 * NUL (then a word may hold a line break). VAR=VALUE words before the command are the
 * server's environment. No Python is asked (TUNETAB_TEST_IGNORE_INSTALLED, as
 * tests/unit/test_deployment.c; the process's environment is emptied first, so that only the
 * input's VAR=VALUE words are the server's), no GPU (a device is named), nothing is spawned. */
#include "fuzz_common.h"
#include "deployment/server.h"
#include "data/model.h"

#define MAX_WORDS 512

static const char *const configs[] = {
	"tests/data/hf/Qwen/Qwen3-30B-A3B/config.json",
	"tests/data/hf/deepseek-ai/DeepSeek-V3/config.json",
	"tests/data/hf/nvidia/GLM-5.1-NVFP4/config.json",
	"tests/data/hf/openai/gpt-oss-120b/config.json",
};
static char *config_paths[4];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_load_data();
	for (size_t i = 0; i < ARRAY_SIZE(configs); i++) {
		config_paths[i] = xasprintf("%s/%s", fz.root, configs[i]);
		if (access(config_paths[i], R_OK)) {
			perror(config_paths[i]);
			abort();
		}
	}
	if (clearenv() || setenv("TUNETAB_TEST_IGNORE_INSTALLED", "1", 1)) {
		perror("fuzz: environment");
		abort();
	}
	return 0;
}

/* The words of text[0, n): NUL-separated where it holds a NUL, else one a line. */
static size_t split(char *text, size_t n, char **words)
{
	char sep = memchr(text, '\0', n) ? '\0' : '\n';
	size_t k = 0;
	char *p = text, *end = text + n;
	while (p < end && k < MAX_WORDS) {
		char *e = memchr(p, sep, (size_t)(end - p));
		if (!e)
			e = end;
		*e = '\0'; /* text has a byte past n for the last word's end */
		words[k++] = p;
		p = e + 1;
	}
	return k;
}

static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

/* What the commands read of a deployment, all of it (ASan sees a bad pointer). */
static void read_all(const struct serve_deployment *s)
{
	size_t n = touch(s->consumer) + touch(s->consumer_name) + touch(s->consumer_version) +
		   touch(s->python) + touch(s->flashinfer) + touch(s->device) +
		   touch(s->model_path) + touch(s->torch_dtype) + touch(s->quantization) +
		   touch(s->moe_runner_backend) + touch(s->skip_ops) + touch(s->hf_config_class) +
		   touch(s->dtype) + touch(s->activation) + touch(s->input_view) +
		   touch(s->fused_finalize_from) + touch(s->moe_tune) + touch(s->why_not) +
		   touch(s->moe_unknown);
	for (size_t i = 0; i < s->nnotes; i++)
		n += touch(s->notes[i]);
	for (size_t i = 0; i < s->nunknowns; i++)
		n += touch(s->unknowns[i].what) + touch(s->unknowns[i].give);
	for (size_t i = 0; i < s->nops; i++) {
		const struct op_use *o = &s->ops[i];
		n += touch(o->op) + touch(o->runner) + touch(o->why) + touch(o->from);
		for (size_t c = 0; c < o->ncalls; c++) {
			struct strbuf sb = STRBUF_INIT;
			op_call_words(&o->calls[c], &sb);
			n += sb.len;
			sb_release(&sb);
		}
	}
	for (size_t i = 0; i < s->nenv; i++)
		if (!strchr(s->env[i], '='))
			abort(); /* an environment word is VAR=VALUE */
	/* the parallel sizes take() checks: the rank layout divides by them */
	if (s->tp < 1 || s->pp < 1 || s->dp < 1 || s->attn_dp < 1 || s->moe_ep < 1 ||
	    s->runner_tp < 1 || s->runner_ep < 1)
		abort();
	(void)n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (!size)
		return 0;
	unsigned sel = data[0];
	const unsigned char *nl = memchr(data, '\n', size);
	size_t skip = nl ? (size_t)(nl - data) + 1 : size;
	char *text = xmalloc(size - skip + 1);
	memcpy(text, data + skip, size - skip);
	char *words[MAX_WORDS];
	size_t nwords = split(text, size - skip, words);
	static const char *const fis[] = { "0.7.4", "0.6.18", "0.5.3", "0.2.9" };
	bool vllm = sel & 1;
	struct serve_request q = {
		.consumer = vllm ? "vllm" : "sglang",
		.words = words,
		.nwords = nwords,
		.consumer_version = sel & 0x40 ? NULL : vllm ? "0.33.0" : "0.5.22",
		.flashinfer = fis[(sel >> 4) & 3],
		.model_config = config_paths[(sel >> 1) & 3],
		.device = sel & 8 ? "b200" : "h200",
	};
	struct diags d = DIAGS_INIT;
	struct serve_deployment s;
	int rc = serve_derive(&q, fz.root, &fz.devices, &s, &d);
	if (!rc) {
		read_all(&s);
		if (s.nwords != nwords)
			abort();
		if (!serve_autotunes(&s) || !s.tunes)
			free(serve_why_no_autotune(&s));
		struct model_profile m;
		serve_model_profile(&s, &m, &d);
		/* install's flags for the same deployment, derived through flags_command */
		struct serve_flags f = serve_flags_of(&s);
		struct serve_request fq = q;
		fq.words = NULL;
		fq.nwords = 0;
		struct serve_deployment t;
		if (!serve_derive_flags(&fq, &f, fz.root, &fz.devices, &t, &d)) {
			read_all(&t);
			const char *field;
			serve_equal(&s, &t, &field);
		}
		serve_release(&t);
	} else if (!d.n) {
		abort(); /* an error says why */
	}
	for (size_t i = 0; i < d.n; i++)
		if (!d.v[i].msg)
			abort();
	serve_release(&s);
	diags_release(&d);
	free(text);
	return 0;
}
