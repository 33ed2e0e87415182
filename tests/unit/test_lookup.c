/* test_lookup.c: the keys a FlashInfer version looks up for a deployment (flashinfer/lookup.h, tune/choose.h), checked against
 * the keys of tables in tests/data/tables; every rank's keys; key files; the choice of a
 * tactic through a small heuristic script; shards; the plan as a table. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "data/catalog.h"
#include "data/dtypes.h"
#include "data/firules.h"
#include "data/model.h"
#include "flashinfer/table.h"
#include "tune/choose.h"
#include "ttest.h"

static struct firules_set all_rules;
static struct model_set models;
static struct catalog_set cats;
static struct dtype_set *dtypes;

static void load(void)
{
	static int loaded;
	if (loaded)
		return;
	struct diags d = DIAGS_INIT;
	CHECK_INT(firules_load_dir("schemas/flashinfer", &all_rules, &d), 0);
	CHECK_INT(model_load_dir("configs/models", &models, &d), 0);
	CHECK_INT(catalog_load_dir("configs/catalogs/flashinfer", &cats, &d), 0);
	CHECK_INT(dtypes_load("configs/dtypes.yaml", &dtypes, &d), 0);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	loaded = 1;
}

static const struct fi_rules *rules_of(const char *version)
{
	load();
	struct fi_version v;
	CHECK(version_parse(version, &v) == 0);
	return firules_find(&all_rules, &v, NULL);
}

/* A deployment as cli_deploy builds one (the dtype's default weight view). */
static struct deployment deploy(const char *model, const char *dtype, long tp, long ep, int sm,
				unsigned max_tokens)
{
	load();
	const struct model_profile *m = model_find(&models, model);
	const struct dtype_info *dt = dtypes_find(dtypes, dtype);
	CHECK(m != NULL && dt != NULL);
	enum dtype t = DT_BF16;
	CHECK_INT(dtype_parse(dtype, &t), 0);
	return (struct deployment){
		.model_name = m->name, .hidden = (long)m->hidden_size,
		.inter_total = (long)m->moe_intermediate_size, .experts_total = (long)m->routed_experts,
		.top_k = (long)m->top_k, .activation = m->activation,
		.biases = m->activation == ACT_SWIGLU_BIAS, .tp = tp, .ep = ep, .dt = dt, .dtype = t,
		.wv = dtype_weight_view(dt, NULL), .sm = sm, .max_tokens = max_tokens,
		.fused_finalize = true,
	};
}

/* The keys of a table in tests/data/tables, in file order. */
static struct table read_table(const char *path)
{
	struct table t;
	struct diags d = DIAGS_INIT;
	CHECK_INT(table_read(path, &t, &d), TT_OK);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	return t;
}

static const struct lookup_entry *find(const struct lookup_list *p, int stage, long tokens)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].stage == stage && p->v[i].tokens == tokens)
			return &p->v[i];
	return NULL;
}

/* Every key of the table is the plan's key for its stage and token count. */
static void check_keys_match(const struct lookup_list *p, const char *path, size_t want_n)
{
	struct table t = read_table(path);
	CHECK_INT(t.n, want_n);
	for (size_t i = 0; i < t.n; i++) {
		const char *k = t.entries[i].key;
		int stage = t.entries[i].key_len > 26 && !memcmp(k + 21, "gemm2", 5) ? 2 : 1;
		long tokens = strtol(strstr(k, "((") + 2, NULL, 10);
		const struct lookup_entry *e = find(p, stage, tokens);
		CHECK(e != NULL);
		if (e && (strlen(e->key) != t.entries[i].key_len || memcmp(e->key, k, t.entries[i].key_len)))
			fprintf(stderr, "  plan: %s\n  file: %.*s\n", e->key, (int)t.entries[i].key_len, k);
		CHECK(e && strlen(e->key) == t.entries[i].key_len &&
		      !memcmp(e->key, k, t.entries[i].key_len));
	}
	table_release(&t);
}

TEST(gen_deploy_keys_as_flashinfer)
{
	/* Qwen3-30B-A3B bf16 on an H200, FlashInfer 0.6.18: 4-tuple keys with 20 extras */
	const struct fi_rules *s = rules_of("0.6.18");
	struct deployment dep = deploy("Qwen3-30B-A3B", "bf16", 1, 1, 90, 8192);
	struct lookup_list p;
	struct diags d = DIAGS_INIT;
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	static const long buckets[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 768, 1024, 1280, 1536,
					1792, 2048, 2560, 3072, 3584, 4096, 8192 };
	CHECK_INT(p.n, 2 * 21);
	for (size_t i = 0; i < p.n && p.n == 42; i++) {
		const struct lookup_entry *e = &p.v[i];
		CHECK_INT(e->stage, i < 21 ? 1 : 2);
		CHECK_INT(e->tokens, buckets[i % 21]);
		CHECK_INT(e->experts, 128);
		CHECK_INT(e->experts_total, 128);
		CHECK_INT(e->inter, 768);
		CHECK_INT(e->features, e->stage == 1 ? 1536 : 2048);
		CHECK_INT(e->k, e->stage == 1 ? 2048 : 768);
		CHECK(e->time_us == -1);
	}
	check_keys_match(&p, "tests/data/tables/ok-py-h200-bf16/v0_1_trtllm_fused_moe_NVIDIA_H200.py", 8);
	const struct lookup_entry *e = find(&p, 2, 8192);
	CHECK_STR(e ? e->key : NULL, "('trtllm::fused_moe::gemm2', 'MoERunner', ((8192, 2048), (128, "
		  "1536, 2048), (0,), (128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, "
		  "torch.bfloat16, 8, 1, 0, 1, 0, 1, 0, False, False, False, False, False, False, True, "
		  "3, False, True))");
	lookup_list_release(&p);
	CHECK(p.n == 0 && p.v == NULL);

	/* DeepSeek-V3 nvfp4 over EP 8 on a B200, FlashInfer 0.4.0: 3-tuple keys, packed shapes */
	s = rules_of("0.4.0");
	dep = deploy("DeepSeek-V3", "nvfp4", 1, 8, 100, 8);
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	CHECK_INT(p.n, 8);
	check_keys_match(&p, "tests/data/tables/ok-py-b200-0.4.0/v0_1_trtllm_fused_moe_NVIDIA_B200.py", 8);
	e = find(&p, 1, 4);
	CHECK(e && e->experts == 32 && e->inter == 2048 && e->features == 4096 && e->k == 7168);
	/* FlashInfer's profiler routes over all 256 experts: 4 x 8 / 256 per local expert, not
	 * 4 x 8 / 32 */
	CHECK(e && e->experts_total == 256 && lookup_tokens_per_expert(e, 0) == 0.125);
	lookup_list_release(&p);

	/* with use_fused_finalize off and TP 2 at rank 1: the extras say so */
	s = rules_of("0.6.18");
	dep = deploy("Qwen3-30B-A3B", "fp8", 2, 1, 90, 1);
	dep.tp_rank = 1;
	dep.fused_finalize = false;
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	CHECK_INT(p.n, 2);
	CHECK_STR(p.n ? p.v[0].key : NULL, "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2048), "
		  "(128, 768, 2048), (0,), (128, 2048, 384), (0,)), (torch.float8_e4m3fn, "
		  "torch.float8_e4m3fn, torch.bfloat16, 8, 2, 1, 1, 0, 1, 0, False, False, False, False, "
		  "False, False, True, 3, False, False))");
	lookup_list_release(&p);

	/* deployments that do not split */
	dep = deploy("Qwen3-30B-A3B", "bf16", 1, 3, 90, 8);
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_INVALID);
	CHECK_STR(d.n ? d.v[d.n - 1].msg : NULL, "128 experts do not split over EP 3");
	dep = deploy("Qwen3-30B-A3B", "bf16", 5, 1, 90, 8);
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_INVALID);
	CHECK_STR(d.n ? d.v[d.n - 1].msg : NULL, "intermediate size 768 does not split over TP 5");
	dep = deploy("Qwen3-30B-A3B", "nvfp4", 64, 1, 100, 8);
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_INVALID);
	CHECK_STR(d.n ? d.v[d.n - 1].msg : NULL, "hidden 2048 or intermediate 12 per rank is not a "
		  "multiple of the nvfp4 packing (16 per torch.int64)");
	CHECK_INT(d.n, 3);
	diags_release(&d);
}

TEST(gen_all_ranks)
{
	/* 0.6.18 keys hold tp_rank and ep_rank: TP 2 x EP 2 has four key sets */
	const struct fi_rules *s = rules_of("0.6.18");
	struct deployment dep = deploy("Qwen3-30B-A3B", "bf16", 2, 2, 90, 2);
	struct lookup_list p;
	struct diags d = DIAGS_INIT;
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	CHECK_INT(p.n, 4);
	for (size_t i = 0; i < p.n; i++)
		p.v[i].tactic = (int)(10 + i);
	CHECK_INT(lookup_all_ranks(s, &dep, &p, true, true, &d), TT_OK);
	CHECK_INT(p.n, 16);
	int ranks[4] = { 0 };
	for (size_t i = 0; i < p.n; i++) {
		/* extras 4..7: tp_size, tp_rank, ep_size, ep_rank */
		const char *ex = strstr(p.v[i].key, "torch.bfloat16, 8, 2, ");
		CHECK(ex != NULL);
		if (!ex)
			continue;
		int tr = -1, er = -1, es = -1;
		CHECK_INT(sscanf(ex, "torch.bfloat16, 8, 2, %d, %d, %d", &tr, &es, &er), 3);
		CHECK_INT(es, 2);
		if (tr >= 0 && tr < 2 && er >= 0 && er < 2)
			ranks[tr * 2 + er]++;
		CHECK_INT(p.v[i].tactic, 10 + (int)(i % 4)); /* each rank's copy keeps the decision */
	}
	for (int r = 0; r < 4; r++)
		CHECK_INT(ranks[r], 4);
	lookup_list_release(&p);
	/* only TP ranks */
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	CHECK_INT(lookup_all_ranks(s, &dep, &p, true, false, &d), TT_OK);
	CHECK_INT(p.n, 8);
	lookup_list_release(&p);
	/* 0.7.4 keys hold no rank: nothing added */
	s = rules_of("0.7.4");
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	CHECK_INT(p.n, 4);
	CHECK_INT(lookup_all_ranks(s, &dep, &p, true, true, &d), TT_OK);
	CHECK_INT(p.n, 4);
	lookup_list_release(&p);
	CHECK_INT(d.n, 0);
	diags_release(&d);
}

static char *tmp_file(const char *name, const char *text)
{
	char dir[] = "/tmp/tunetab-unit-gen-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/%s", dir, name);
	CHECK_INT(write_file_atomic(path, text, strlen(text), 0644), 0);
	return path;
}

static void tmp_done(char *path)
{
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	free(path);
}

#define K1 "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 2048), (128, 1536, 2048), (0,), " \
	   "(128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 0, " \
	   "1, 0, 1, 0, False, False, False, False, False, False, True, 3, False, True))"
#define K2 "('trtllm::fused_moe::gemm2', 'MoERunner', ((64, 2048), (128, 1536, 2048), (0,), " \
	   "(128, 2048, 768), (0,)), (torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 0, " \
	   "1, 0, 1, 0, False, False, False, False, False, False, True, 3, False, True))"

/* lookup_keys_file on text: its status and last diagnostic (line, col, message). */
static void check_keys_error(const char *text, int status, int line, int col, const char *msg)
{
	char *path = tmp_file("keys.txt", text);
	struct deployment dep = deploy("Qwen3-30B-A3B", "bf16", 1, 1, 90, 8);
	struct lookup_list p;
	struct diags d = DIAGS_INIT;
	CHECK_INT(lookup_keys_file(rules_of("0.6.18"), path, &dep, dtypes, &p, &d), status);
	CHECK(d.n >= 1);
	if (d.n) {
		const struct diag *x = &d.v[d.n - 1];
		if (x->line != line || x->col != col || strcmp(x->msg, msg))
			fprintf(stderr, "  keys: %.70s\n", text);
		CHECK_INT(x->line, line);
		CHECK_INT(x->col, col);
		CHECK_STR(x->msg, msg);
		CHECK_STR(x->file, path);
	}
	diags_release(&d);
	lookup_list_release(&p);
	tmp_done(path);
}

TEST(gen_key_files)
{
	/* comments, blank lines, CRLF and surrounding spaces are fine */
	char *path = tmp_file("keys.txt", "# keys seen in a serving log\n\n" K2 "\r\n   " K1 "  \n#\n");
	struct deployment dep = deploy("Qwen3-30B-A3B", "bf16", 1, 1, 90, 8);
	struct lookup_list p;
	struct diags d = DIAGS_INIT;
	CHECK_INT(lookup_keys_file(rules_of("0.6.18"), path, &dep, dtypes, &p, &d), TT_OK);
	CHECK_INT(d.n, 0);
	CHECK_INT(p.n, 2);
	if (p.n == 2) {
		CHECK_STR(p.v[0].key, K2);
		CHECK(p.v[0].stage == 2 && p.v[0].tokens == 64 && p.v[0].features == 2048 &&
		      p.v[0].k == 768 && p.v[0].experts == 128 && p.v[0].inter == 768);
		CHECK_STR(p.v[1].key, K1);
		CHECK(p.v[1].stage == 1 && p.v[1].tokens == 4 && p.v[1].features == 1536 &&
		      p.v[1].k == 2048);
		CHECK(p.v[1].experts_total == 128 && lookup_tokens_per_expert(&p.v[1], 8) == 0.25);
	}
	lookup_list_release(&p);
	tmp_done(path);
	/* the same GEMM on EP 2's rank 1: 64 local experts of 128 (the key's ep_size); a key
	 * carries no top_k field of its own here, so the deployment's */
	path = tmp_file("keys-ep.txt", "('trtllm::fused_moe::gemm1', 'MoERunner', ((4, 2048), "
			"(64, 1536, 2048), (0,), (64, 2048, 768), (0,)), (torch.bfloat16, "
			"torch.bfloat16, torch.bfloat16, 8, 1, 0, 2, 1, 1, 0, False, False, False, "
			"False, False, False, True, 3, False, True))\n");
	CHECK_INT(lookup_keys_file(rules_of("0.6.18"), path, &dep, dtypes, &p, &d), TT_OK);
	CHECK(p.n == 1 && p.v[0].experts == 64 && p.v[0].experts_total == 128 &&
	      lookup_tokens_per_expert(&p.v[0], 8) == 0.25);
	lookup_list_release(&p);
	tmp_done(path);
	diags_release(&d);

	check_keys_error("# nothing\n\n", TT_INVALID, 0, 0, "no keys in the file");
	check_keys_error(K1 "\n('a', 1 2)\n", TT_INVALID, 2, 9, "syntax error: expected ',' or ')'");
	check_keys_error(K1 "\n(\"trtllm::fused_moe::gemm1\", 'MoERunner', ((1, 2),))\n", TT_INVALID, 2,
			 1, "the key is not Python's str() of its tuple; it should read: "
			 "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2),))");
	check_keys_error("('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2048), (128, 1536, 2048), "
			 "(0,), (128, 2048, 768), (0,)))\n", TT_INVALID, 1, 1, "a 3-tuple key, but "
			 "FlashInfer's target version builds 4-tuple keys");
	check_keys_error("('trtllm::fused_moe::gemm3', 'MoERunner', ((1, 2048),), ())\n", TT_INVALID,
			 1, 1, "op 'trtllm::fused_moe::gemm3' is not a cutlass MoE GEMM stage tunetab "
			 "generates");
	check_keys_error("('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2048),), ())\n", TT_INVALID,
			 1, 1, "the profile has 1 shapes; the cutlass MoE key has 5 (input, fc1 weights, "
			 "fc1 biases, fc2 weights, fc2 biases)");
	check_keys_error("('a', 'b')\n", TT_INVALID, 1, 1, "the key is a 2-tuple; FlashInfer keys are "
			 "(op, runner, profile) or (op, runner, profile, extras)");
	check_keys_error("# ok\n('a', '\xff')\n", TT_INVALID, 2, 8, "invalid UTF-8 byte 0xff");
	/* columns count the spaces before a key and characters, not bytes */
	check_keys_error(K1 "\n   ('a', 1 2)\n", TT_INVALID, 2, 12, "syntax error: expected ',' or ')'");
	check_keys_error("   ('\xc3\xa9', 'x' 'y' 1)\n", TT_INVALID, 1, 18,
			 "syntax error: expected ',' or ')'");
	check_keys_error("# \xc3\xa9\n  ('\xc3\xa9\xe2\x82\xac', '\xff')\n", TT_INVALID, 2, 11,
			 "invalid UTF-8 byte 0xff");
	/* UTF-8 Python's decoder rejects: an encoded surrogate, an overlong form, above U+10FFFF */
	check_keys_error("('\xed\xa0\x80',)\n", TT_INVALID, 1, 3, "invalid UTF-8 byte 0xed");
	check_keys_error("('a', '\xe0\x80\xaf',)\n", TT_INVALID, 1, 8, "invalid UTF-8 byte 0xe0");
	check_keys_error("('\xf4\x90\x80\x80',)\n", TT_INVALID, 1, 3, "invalid UTF-8 byte 0xf4");
}

/* A heuristic: a stage with a non-dispatchable candidate ranks it, the last and the fallback;
 * else GEMM1 ranks tactic 44 (with a time), 7, a duplicate 7 and 3 (with a time), GEMM2 only
 * the fallback. "boom" raises at its line 3. */
static const char pick_lua[] =
	"tunetab.heuristic { name = 'unit-pick', rank = function(q)\n"
	"  for _, c in ipairs(q.candidates) do\n"
	"    if not c.dispatchable then\n"
	"      return { c.id, q.candidates[#q.candidates].id, q.fallback }\n"
	"    end\n"
	"  end\n"
	"  if q.stage == 1 then\n"
	"    return { { id = 44, time = q.tokens + 0.5 }, 7, 7, { id = 3, time = 2 } }\n"
	"  end\n"
	"  return { q.fallback }\n"
	"end }\n";
static const char boom_lua[] =
	"tunetab.heuristic { name = 'boom', rank = function(q)\n"
	"  local x = 1\n"
	"  error('boom at ' .. q.tokens)\n"
	"end }\n";

static struct script *open_script(const char *path)
{
	struct script_limits lim = { .mem_bytes = 64u << 20, .instructions = 100000000ull };
	struct script *sc = NULL;
	struct diags d = DIAGS_INIT;
	CHECK_INT(script_open(&sc, ".", path, &lim, &d), TT_OK);
	struct script_device dev = { .name = "NVIDIA H200", .sm = 90, .sm_count = 132,
				     .smem_per_block_optin = -1, .smem_per_sm = -1, .l2_bytes = -1,
				     .memory_bandwidth_gbs = -1, .boost_clock_mhz = -1,
				     .tflops_bf16 = -1, .tflops_fp8 = -1, .tflops_fp4 = -1 };
	struct script_deploy sd = { .model = "Qwen3-30B-A3B", .dtype = "bf16", .act_bits = 16,
				    .weight_bits = 16, .out_bits = 16, .hidden = 2048, .inter = 768,
				    .experts = 128, .experts_total = 128, .top_k = 8, .tp = 1, .ep = 1,
				    .gated = true, .activation = "swiglu" };
	if (sc)
		CHECK_INT(script_set_context(sc, &dev, &sd, &d), TT_OK);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	return sc;
}

static const struct catalog *catalog(const char *version, unsigned sm, enum dtype t)
{
	load();
	struct fi_version v;
	CHECK(version_parse(version, &v) == 0);
	const struct catalog *c = catalog_find(&cats, &v, sm, t);
	CHECK(c != NULL);
	return c;
}

TEST(gen_choose_with_script)
{
	const struct fi_rules *s = rules_of("0.6.18");
	struct deployment dep = deploy("Qwen3-30B-A3B", "bf16", 1, 1, 90, 4);
	struct lookup_list p;
	struct diags d = DIAGS_INIT;
	char *pick = tmp_file("pick.lua", pick_lua), *boom = tmp_file("boom.lua", boom_lua);
	struct script *sc = open_script(pick);
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	CHECK_INT(p.n, 6);
	CHECK_INT(sc ? choose_tactics(sc, catalog("0.6.18", 90, DT_BF16), &dep, &p, &d) : -1, TT_OK);
	CHECK(p.have_list && p.list.n1 == 45 && p.list.n2 == 81);
	for (size_t i = 0; i < p.n; i++) {
		const struct lookup_entry *e = &p.v[i];
		if (e->stage == 1) {
			CHECK_INT(e->fallback, 0);
			CHECK_INT(e->tactic, 44);
			CHECK(e->time_us == (double)e->tokens + 0.5);
			CHECK_INT(e->ranked, 3); /* the duplicate 7 is dropped */
			CHECK_INT(e->ntop, 3);
			CHECK(e->top[0] == 44 && e->top[1] == 7 && e->top[2] == 3);
			CHECK(e->top_time[1] == -1 && e->top_time[2] == 2);
			CHECK(!e->skipped_first);
		} else {
			CHECK_INT(e->fallback, 45);
			CHECK_INT(e->tactic, 45);
			CHECK(e->time_us == -1 && e->ranked == 1 && e->ntop == 1);
		}
		CHECK(e->fallback_us == -1 && e->chosen_us == -1);
	}
	/* the plan as a table: sorted keys, (0, tactic) */
	struct table t;
	lookup_to_table(s, &p, NULL, &t);
	CHECK_INT(t.n, 6);
	for (size_t i = 0; i < t.n; i++) {
		if (i)
			CHECK(strcmp(t.entries[i - 1].key, t.entries[i].key) < 0);
		const struct lookup_entry *e = NULL;
		for (size_t k = 0; k < p.n; k++)
			if (!strcmp(p.v[k].key, t.entries[i].key))
				e = &p.v[k];
		CHECK(e && t.entries[i].tactic && t.entries[i].tactic->i == e->tactic);
		CHECK(t.entries[i].runner_id == 0 && !strcmp(t.entries[i].runner, "MoERunner"));
	}
	table_release(&t);
	lookup_list_release(&p);
	script_close(sc);

	/* SM90 mxfp8: no candidate is dispatchable (the first is the fallback, ranked twice):
	 * FlashInfer's fallback is kept. A fresh script: script_rank caches the candidate table
	 * by the list's address, which a list allocated after another was freed may reuse. */
	sc = open_script(pick);
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	CHECK_INT(sc ? choose_tactics(sc, catalog("0.6.18", 90, DT_MXFP8), &dep, &p, &d) : -1, TT_OK);
	for (size_t i = 0; i < p.n; i++) {
		const struct lookup_entry *e = &p.v[i];
		CHECK(e->skipped_first && e->tactic == e->fallback && e->ntop == 0 && e->ranked == 2);
		CHECK_INT(e->fallback, e->stage == 1 ? 0 : 36);
	}
	lookup_list_release(&p);
	script_close(sc);

	/* the runner ignores the tactic (DeepSeek FP8 block scale): the script is not asked */
	sc = open_script(boom);
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	CHECK_INT(sc ? choose_tactics(sc, catalog("0.6.18", 90, DT_FP8_BLOCK), &dep, &p, &d) : -1, TT_OK);
	for (size_t i = 0; i < p.n; i++)
		CHECK(p.v[i].tactic == p.v[i].fallback && p.v[i].ranked == 0 && p.v[i].ntop == 0);
	CHECK_INT(d.n, 0);
	lookup_list_release(&p);
	/* a script error stops the choice, located in the script */
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	CHECK_INT(sc ? choose_tactics(sc, catalog("0.6.18", 90, DT_BF16), &dep, &p, &d) : -1, TT_SCRIPT);
	CHECK_INT(d.n, 1);
	if (d.n == 1) {
		CHECK_STR(d.v[0].file, boom);
		CHECK_INT(d.v[0].line, 3);
		CHECK_STR(d.v[0].msg, "script error while ranking GEMM1 at 1 tokens: boom at 1");
	}
	lookup_list_release(&p);
	script_close(sc);
	diags_release(&d);
	tmp_done(pick);
	tmp_done(boom);
}

TEST(gen_shards_partition)
{
	const struct fi_rules *s = rules_of("0.6.18");
	struct deployment dep = deploy("Qwen3-30B-A3B", "bf16", 1, 1, 90, 8192);
	struct diags d = DIAGS_INIT;
	struct lookup_list all;
	CHECK_INT(lookup_deploy(s, &dep, &all, &d), TT_OK);
	int owner[64];
	for (size_t i = 0; i < all.n && i < 64; i++)
		owner[i] = -1;
	for (int count = 1; count <= 3; count++) {
		size_t total = 0;
		for (int index = 0; index < count; index++) {
			struct lookup_list p;
			CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
			choose_shard(&p, &dep, 15, 0, index, count);
			CHECK(p.n > 0);
			total += p.n;
			/* the same split every time */
			struct lookup_list again;
			CHECK_INT(lookup_deploy(s, &dep, &again, &d), TT_OK);
			choose_shard(&again, &dep, 15, 0, index, count);
			CHECK_INT(again.n, p.n);
			for (size_t k = 0; k < p.n && k < again.n; k++)
				CHECK_STR(again.v[k].key, p.v[k].key);
			lookup_list_release(&again);
			/* each entry in exactly one shard, in plan order */
			size_t at = 0;
			for (size_t k = 0; k < p.n; k++) {
				while (at < all.n && strcmp(all.v[at].key, p.v[k].key))
					at++;
				CHECK(at < all.n);
				if (at < all.n && count == 3) {
					CHECK_INT(owner[at], -1);
					owner[at] = index;
				}
			}
			lookup_list_release(&p);
		}
		CHECK_INT(total, all.n);
	}
	for (size_t i = 0; i < all.n && i < 64; i++)
		CHECK(owner[i] >= 0);
	lookup_list_release(&all);
	diags_release(&d);
}

/* FlashInfer 0.7.4's selection record (table_selection_of, table_selection_json): each
 * expected string is what python3 prints for AutoTuner._selection_record's formula on the times
 * in milliseconds (a failed candidate inf), json.dumps'd:
 *   t = [u / 1000 if math.isfinite(u) and u >= 0 else inf for u in times_us]
 *   others = [x for i, x in enumerate(t) if i != w and x < inf]; ru = min(others, default=None)
 *   {"time_ms": round(t[w], 6), "runner_up_ms": None if ru is None else round(ru, 6),
 *    "margin": round(ru / t[w] - 1.0, 6) if ru is not None and t[w] > 0 else None,
 *    "candidates": len(others) + 1}
 * (make test-flashinfer checks generated tables against FlashInfer's own function). */
TEST(gen_selection_record)
{
	static const struct {
		double us[5];
		size_t n, winner;
		const char *want;
	} cases[] = {
		{ { 5.3725, 5.3785, 5.3796, 5.379, 7.929 }, 5, 0, "{\"time_ms\": 0.005372, "
		  "\"runner_up_ms\": 0.005378, \"margin\": 0.001117, \"candidates\": 5}" },
		/* one candidate: no runner-up, no margin */
		{ { 12.5 }, 1, 0, "{\"time_ms\": 0.0125, \"runner_up_ms\": null, \"margin\": null, "
		  "\"candidates\": 1}" },
		/* a slower tactic kept (a failed candidate left out): a negative margin */
		{ { 10.0, 9.0, INFINITY }, 3, 0, "{\"time_ms\": 0.01, \"runner_up_ms\": 0.009, "
		  "\"margin\": -0.1, \"candidates\": 2}" },
		/* exact halves (1/128 and 3/128 ms) round to even */
		{ { 7.8125, 8.0 }, 2, 0, "{\"time_ms\": 0.007812, \"runner_up_ms\": 0.008, "
		  "\"margin\": 0.024, \"candidates\": 2}" },
		{ { 23.4375, 30.0 }, 2, 0, "{\"time_ms\": 0.023438, \"runner_up_ms\": 0.03, "
		  "\"margin\": 0.28, \"candidates\": 2}" },
		/* below 1e-4: repr's exponent form */
		{ { 0.0123, 0.0456 }, 2, 0, "{\"time_ms\": 1.2e-05, \"runner_up_ms\": 4.6e-05, "
		  "\"margin\": 2.707317, \"candidates\": 2}" },
		/* a margin that rounds to minus zero */
		{ { 10.0, 9.99999999 }, 2, 0, "{\"time_ms\": 0.01, \"runner_up_ms\": 0.01, "
		  "\"margin\": -0.0, \"candidates\": 2}" },
		/* the winner in the middle; NaN and a negative time are failed candidates */
		{ { 9.0, 123456789.0, 123456.7895, NAN, -1.0 }, 5, 2, "{\"time_ms\": 123.456789, "
		  "\"runner_up_ms\": 0.009, \"margin\": -0.999927, \"candidates\": 3}" },
		/* a zero time: no margin */
		{ { 0.0, 1.0 }, 2, 0, "{\"time_ms\": 0.0, \"runner_up_ms\": 0.001, \"margin\": null, "
		  "\"candidates\": 2}" },
		/* 1e16 ms and more: repr's exponent form */
		{ { 2e19 }, 1, 0, "{\"time_ms\": 2e+16, \"runner_up_ms\": null, \"margin\": null, "
		  "\"candidates\": 1}" },
		/* a winner without a time: no record */
		{ { NAN, 1.0 }, 2, 0, "" },
	};
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct table_selection sel;
		table_selection_of(cases[i].us, cases[i].n, cases[i].winner, &sel);
		sb_reset(&sb);
		table_selection_json(&sel, &sb);
		CHECK_STR(sb.buf ? sb.buf : "", cases[i].want);
	}
	sb_release(&sb);

	/* the version rule (schemas: json_cache.selection): 0.7.4 on, a version newer than every
	 * range with the newest rules */
	struct fi_version v;
	static const struct { const char *v; bool saves; } vs[] = {
		{ "0.6.18", false }, { "0.7.1", false }, { "0.7.2", false }, { "0.7.2.post1", false },
		{ "0.7.4", true }, { "0.7.5rc1", true }, { "0.9.0", true },
	};
	for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
		CHECK(version_parse(vs[i].v, &v) == 0);
		CHECK_INT(firules_saves_selection(rules_of(vs[i].v), &v), vs[i].saves);
	}

	/* a measured entry as FlashInfer saves it: [runner, tactic, policy, record]; without a
	 * record (predicted) or without a policy (another version) [runner, tactic] */
	const struct fi_rules *s = rules_of("0.7.4");
	struct deployment dep = deploy("Qwen3-30B-A3B", "bf16", 1, 1, 90, 1);
	struct lookup_list p;
	struct diags d = DIAGS_INIT;
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	CHECK_INT(p.n, 2);
	const double us[] = { 5.3725, 5.3785 };
	if (p.n == 2)
		table_selection_of(us, 2, 0, &p.v[0].sel);
	const char *pol = "[\"cuda_graph_profile_replays\", null, \"l2_cache_policy\", \"hot\"]";
	for (int with = 0; with < 2; with++) {
		struct table t;
		lookup_to_table(s, &p, with ? pol : NULL, &t);
		sb_reset(&sb);
		table_write_json(&t, false, &sb);
		CHECK_INT(t.n, 2);
		for (size_t i = 0; i < t.n && p.n == 2; i++) {
			bool rec = with && !strcmp(t.entries[i].key, p.v[0].key);
			CHECK(rec ? !strcmp(t.entries[i].policy, pol) && t.entries[i].selection
				  : !t.entries[i].policy && !t.entries[i].selection);
		}
		CHECK((strstr(sb.buf, "    [\n      \"cuda_graph_profile_replays\",\n      null,\n"
				      "      \"l2_cache_policy\",\n      \"hot\"\n    ],\n    {\n"
				      "      \"time_ms\": 0.005372,\n      \"runner_up_ms\": 0.005378,\n"
				      "      \"margin\": 0.001117,\n      \"candidates\": 2\n    }\n  ]") != NULL) == with);
		/* read back: the record as read, and the same bytes written again */
		struct table r;
		memset(&r, 0, sizeof r);
		CHECK_INT(table_read_mem("t.json", sb.buf, sb.len, &r, &d), TT_OK);
		size_t nsel = 0;
		for (size_t i = 0; i < r.n; i++)
			nsel += r.entries[i].selection != NULL;
		CHECK_INT(nsel, with);
		struct strbuf again = STRBUF_INIT;
		table_write_json(&r, false, &again);
		CHECK_STR(again.buf, sb.buf);
		sb_release(&again);
		table_release(&r);
		table_release(&t);
	}
	CHECK_INT(d.n, 0);
	diags_release(&d);
	sb_release(&sb);
	lookup_list_release(&p);
}

TTEST_SUITE(gen_tests) = {
	{ "gen_deploy_keys_as_flashinfer", gen_deploy_keys_as_flashinfer },
	{ "gen_all_ranks", gen_all_ranks },
	{ "gen_key_files", gen_key_files },
	{ "gen_choose_with_script", gen_choose_with_script },
	{ "gen_shards_partition", gen_shards_partition },
	{ "gen_selection_record", gen_selection_record },
	TTEST_END,
};
