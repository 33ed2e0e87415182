/* test_key.c: FlashInfer tuning keys (key.h): parse and print back, the canonical fast path
 * against the general parser, malformed keys with their positions, the structural and cutlass
 * MoE decode, extras by schema field (fused finalize, the runner dtype). */
#include <stdlib.h>

#include "data/firules.h"
#include "flashinfer/key.h"
#include "ttest.h"

/* Keys FlashInfer writes for Qwen3-30B-A3B bf16 on 0.6.18 (tests/data/tables/ok-py-h200-bf16)
 * and for an nvfp4 model on 0.4.0 (tests/data/tables/py-key-syntax). */
#define EXTRAS_20 "(torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 0, 1, 0, 1, 0, False, " \
		  "False, False, False, False, False, True, 3, False, True)"
#define BF16_KEY "('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2048), (128, 1536, 2048), (0,), " \
		 "(128, 2048, 768), (0,)), " EXTRAS_20 ")"
#define FP4_KEY "('trtllm::fused_moe::gemm2', 'MoERunner', ((8, 3584), (32, 4096, 448), (0,), " \
		"(32, 7168, 128), (0,)))"

static struct arena ka = ARENA_INIT;

static const struct pyv *parse(const char *key)
{
	struct diags d = DIAGS_INIT;
	const struct pyv *v = key_parse(key, strlen(key), &ka, "k.py", 1, 1, &d);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	return v;
}

static char *repr(const struct pyv *v)
{
	struct strbuf sb = STRBUF_INIT;
	pyv_repr(v, &sb);
	return sb_detach(&sb);
}

/* The key decoded (structurally and as a MoE key); fails the test when it does not decode. */
static struct moe_key decode(const char *key)
{
	struct moe_key k;
	memset(&k, 0, sizeof k);
	const struct pyv *t = parse(key);
	CHECK(t != NULL);
	if (!t)
		return k;
	CHECK_INT(key_decode(t, &k), 0);
	key_decode_moe(&k);
	return k;
}

static const struct fi_rules *rules(const char *version)
{
	static struct firules_set set;
	static int loaded;
	if (!loaded) {
		struct diags d = DIAGS_INIT;
		CHECK_INT(firules_load_dir("schemas/flashinfer", &set, &d), 0);
		CHECK_INT(d.n, 0);
		diags_release(&d);
		loaded = 1;
	}
	struct fi_version v;
	CHECK(version_parse(version, &v) == 0);
	return firules_find(&set, &v, NULL);
}

TEST(key_round_trip)
{
	static const char *const keys[] = {
		BF16_KEY,
		FP4_KEY,
		"()",
		"(1,)",
		"('a', -5, None, True, False, torch.int64, (), ((0,),))",
		"(\"it's\", 'say \"hi\"', '\\\\', '\\n\\t\\x00\\x7f', 'é€😀')",
		"('op', 'r', ((9223372036854775807, -9223372036854775807),))",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const struct pyv *v = parse(keys[i]);
		CHECK(v != NULL);
		if (!v)
			continue;
		char *s = repr(v);
		CHECK_STR(s, keys[i]);
		free(s);
	}
	/* any spelling Python accepts prints as its str() */
	static const char *const loose[][2] = {
		{ "( 'a' ,\"b\",((1,2),) , )", "('a', 'b', ((1, 2),))" },
		{ "(0x10, 0o17, 0b101, 1_000, -0, +3)", "(16, 15, 5, 1000, 0, 3)" },
		{ "('a' 'b' \"c\", r'\\d', u'x')", "('abc', '\\\\d', 'x')" },
		{ "(\"it's\", 'both \\' \"')", "(\"it's\", 'both \\' \"')" },
		{ "('\\u00e9\\U0001F600\\101\\q',)", "('é😀A\\\\q',)" },
		{ "('\\xa0\\xad\\u2028\\u0378', '\\u00a1')", "('\\xa0\\xad\\u2028\\u0378', '¡')" },
		{ "((1), [2, 3], {'a': 1})", "(1, [2, 3], {'a': 1})" },
		{ "('it\\'s', \"say \\\"hi\\\"\")", "(\"it's\", 'say \"hi\"')" },
		{ "(1, # comment\n 2)", "(1, 2)" },
	};
	for (size_t i = 0; i < sizeof loose / sizeof loose[0]; i++) {
		const struct pyv *v = parse(loose[i][0]);
		CHECK(v != NULL);
		if (!v)
			continue;
		char *s = repr(v);
		CHECK_STR(s, loose[i][1]);
		free(s);
	}
	arena_release(&ka);
}

TEST(key_canonical_fast_path)
{
	/* the canonical spelling: the same tree as the general parser's */
	static const char *const canon[] = {
		BF16_KEY, FP4_KEY, "()", "(1,)", "(-3, 'x y', None, True, False, torch.float8_e4m3fn)",
		"((), ((),), (0, -1))",
	};
	for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
		const struct pyv *f = key_parse_canonical(canon[i], strlen(canon[i]), &ka);
		const struct pyv *g = parse(canon[i]);
		CHECK(f != NULL && g != NULL);
		if (f && g) {
			CHECK(pyv_equal(f, g));
			char *s = repr(f);
			CHECK_STR(s, canon[i]);
			free(s);
		}
	}
	/* any other spelling is left to the general parser */
	static const char *const other[] = {
		"",
		"'a'",
		" (1,)",
		"(1, 2) ",
		"(1)",
		"(1, 2,)",
		"(1,2)",
		"(1,  2)",
		"(01,)",
		"(-0,)",
		"(1234567890123456789,)", /* 19 digits: the general parser's strtoll judges */
		"(\"a\",)",
		"('it\\'s',)",
		"('a\"b',)",
		"('é',)",
		"('tab\t',)",
		"(torch.,)",
		"([1],)",
		"((1, 2)",
		"(1, 2",
		"(0x1,)",
		"(+1,)",
	};
	for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
		const struct pyv *f = key_parse_canonical(other[i], strlen(other[i]), &ka);
		if (f)
			fprintf(stderr, "  accepted: %s\n", other[i]);
		CHECK(f == NULL);
	}
	/* 33 nested tuples: beyond the fast path's depth, still a valid key */
	struct strbuf deep = STRBUF_INIT;
	for (int i = 0; i < 33; i++)
		sb_addc(&deep, '(');
	for (int i = 0; i < 33; i++)
		sb_adds(&deep, i ? "," ")" : ")");
	CHECK(key_parse_canonical(deep.buf, deep.len, &ka) == NULL);
	const struct pyv *v = parse(deep.buf);
	CHECK(v != NULL && v->kind == PV_TUPLE && v->n == 1);
	sb_release(&deep);
	arena_release(&ka);
}

/* key_parse's diagnostic for a malformed key whose opening quote is at line 10, column 4. */
static void check_bad(const char *key, int col, const char *msg)
{
	struct diags d = DIAGS_INIT;
	const struct pyv *v = key_parse(key, strlen(key), &ka, "m.py", 10, 4, &d);
	CHECK(v == NULL);
	CHECK_INT(d.n, 1);
	if (d.n == 1) {
		CHECK_STR(d.v[0].id, "syntax");
		CHECK_STR(d.v[0].file, "m.py");
		CHECK_INT(d.v[0].line, 10);
		if (d.v[0].col != col)
			fprintf(stderr, "  key %s\n", key);
		CHECK_INT(d.v[0].col, col);
		CHECK_STR(d.v[0].msg, msg);
	}
	diags_release(&d);
}

TEST(key_malformed_positions)
{
	/* the key's first character is column 5 */
	check_bad("('a', 'b'", 5, "syntax error: '(' was never closed");
	check_bad("('a', 1 2)", 13, "syntax error: expected ',' or ')'");
	check_bad("('a', ((1.5,),))", 13, "syntax error: floats are not literals tunetab reads");
	check_bad("('é€', 1 2)", 14, "syntax error: expected ',' or ')'");
	check_bad("('a', f(1))", 12, "syntax error: expected ',' or ')'");
	check_bad("('a', 'b') x", 16, "syntax error: unexpected text after the value");
	check_bad("('a', -'b')", 11, "syntax error: unary '-' applies only to integers here");
	check_bad("('a', b'x')", 11, "syntax error: bytes and f-strings are not literals tunetab reads");
	check_bad("('a', f'x')", 11, "syntax error: bytes and f-strings are not literals tunetab reads");
	check_bad("('a, 1)", 6, "syntax error: unterminated string");
	check_bad("('a', '\\x4')", 12, "syntax error: truncated \\x escape");
	check_bad("('a', '\\ud800')", 12, "syntax error: lone surrogate \\uD800 is not supported");
	check_bad("('a', 012)", 11, "syntax error: invalid integer literal '012'");
	check_bad("('a', 99999999999999999999)", 11,
		  "syntax error: invalid integer literal '99999999999999999999'");
	check_bad("('a', @)", 11, "syntax error: unexpected '@'");
	check_bad("('a', \x01)", 11, "syntax error: unexpected control character 0x01");
	check_bad("('a', é)", 11, "syntax error: unexpected non-ASCII character");
	check_bad("{1 2}", 8, "syntax error: expected ':' after dictionary key");
	check_bad("", 5, "syntax error: unexpected end of input");
	arena_release(&ka);
}

/* key_decode's reason for a key that parses but is not (op, runner, profile[, extras]). */
static void check_undecodable(const char *key, const char *why)
{
	const struct pyv *t = parse(key);
	CHECK(t != NULL);
	if (!t)
		return;
	struct moe_key k;
	CHECK_INT(key_decode(t, &k), -1);
	CHECK_STR(k.why, why);
}

TEST(key_decode_structure)
{
	check_undecodable("['a', 'b', ()]", "the key is a list, not a tuple");
	check_undecodable("'a'", "the key is a str, not a tuple");
	check_undecodable("('a', 'b')", "the key is a 2-tuple; FlashInfer keys are (op, runner, "
			  "profile) or (op, runner, profile, extras)");
	check_undecodable("('a', 'b', (), (), ())", "the key is a 5-tuple; FlashInfer keys are "
			  "(op, runner, profile) or (op, runner, profile, extras)");
	check_undecodable("(1, 'b', ())", "op and runner must be strings");
	check_undecodable("('a', None, ())", "op and runner must be strings");
	check_undecodable("('a\\x00', 'b', ())", "op and runner must be strings");
	check_undecodable("('a', 'b', [(1,)])", "the profile is a list, not a tuple of shapes");
	check_undecodable("('a', 'b', ((1,), [2]))", "shape 2 is a list, not a tuple of ints");
	check_undecodable("('a', 'b', ((1, True),))", "shape 1 holds a bool, not an int");
	check_undecodable("('a', 'b', ((1,),), [1])", "the extras are a list, not a tuple");
	check_undecodable("('a', 'b', ((1,),), None)", "the extras are a None, not a tuple");

	struct moe_key k;
	const struct pyv *t = parse(BF16_KEY);
	CHECK_INT(key_decode(t, &k), 0);
	CHECK_INT(k.tuple_len, 4);
	CHECK_STR(k.op, "trtllm::fused_moe::gemm1");
	CHECK_STR(k.runner, "MoERunner");
	CHECK_INT(k.profile->n, 5);
	CHECK(k.extras && k.extras->n == 20);
	CHECK(!k.moe_ok);
	const struct pyv *x = key_extra(&k, 0);
	CHECK(x && x->kind == PV_NAME);
	CHECK_STR(x ? x->s : NULL, "torch.bfloat16");
	CHECK(key_extra(&k, 3) && key_extra(&k, 3)->i == 8);
	CHECK(key_extra(&k, 19) && key_extra(&k, 19)->kind == PV_TRUE);
	CHECK(key_extra(&k, 20) == NULL);
	t = parse(FP4_KEY);
	CHECK_INT(key_decode(t, &k), 0);
	CHECK_INT(k.tuple_len, 3);
	CHECK(k.extras == NULL && key_extra(&k, 0) == NULL);
	arena_release(&ka);
}

TEST(key_decode_moe_shapes)
{
	struct moe_key k = decode(BF16_KEY);
	CHECK(k.moe_ok);
	CHECK(k.tokens == 1 && k.in_k == 2048);
	CHECK(k.e1 == 128 && k.n1 == 1536 && k.k1 == 2048);
	CHECK(k.e2 == 128 && k.n2 == 2048 && k.k2 == 768);
	CHECK(!k.bias1 && !k.bias2);
	CHECK_INT(k.hidden, 2048);
	CHECK_INT(k.act_pack, 1);
	CHECK_INT(k.w_pack, 1);
	CHECK(k.gated);
	CHECK_INT(k.inter, 768);

	/* nvfp4: activations and weights packed two to a byte, scales as int64 (16 per element) */
	k = decode(FP4_KEY);
	CHECK(k.moe_ok);
	CHECK_INT(k.tokens, 8);
	CHECK_INT(k.hidden, 7168);
	CHECK_INT(k.act_pack, 2);
	CHECK_INT(k.w_pack, 16);
	CHECK_INT(k.inter, 2048);
	CHECK(k.gated);

	/* not gated, with biases */
	k = decode("('g', 'r', ((4, 4096), (8, 14336, 4096), (8, 14336), (8, 4096, 14336), (8, 4096)))");
	CHECK(k.moe_ok);
	CHECK(k.bias1 && k.bias2);
	CHECK(!k.gated);
	CHECK_INT(k.inter, 14336);

	/* hidden not a multiple of the input's K: packing unknown */
	k = decode("('g', 'r', ((4, 3000), (8, 2048, 4096), (0,), (8, 4096, 1024), (0,)))");
	CHECK(k.moe_ok);
	CHECK_INT(k.act_pack, 0);
	CHECK_INT(k.w_pack, 1);

	k = decode("('g', 'r', ((4, 4096), (8, 2048, 4096), (0,), (8, 4096, 1024)))");
	CHECK(!k.moe_ok);
	CHECK_STR(k.why, "the profile has 4 shapes; the cutlass MoE key has 5 (input, fc1 weights, "
		  "fc1 biases, fc2 weights, fc2 biases)");
	k = decode("('g', 'r', ((4,), (8, 2048, 4096), (0,), (8, 4096, 1024), (0,)))");
	CHECK(!k.moe_ok);
	CHECK_STR(k.why, "input must be 2-D and both weights 3-D (got 1-D, 3-D, 3-D)");
	k = decode("('g', 'r', ((4, 4096), (8, 2048, 4096), (0,), (8, 4096), (0,)))");
	CHECK_STR(k.why, "input must be 2-D and both weights 3-D (got 2-D, 3-D, 2-D)");
	k = decode("('g', 'r', ((4, 4096), (8, 0, 4096), (0,), (8, 4096, 1024), (0,)))");
	CHECK(!k.moe_ok);
	CHECK_STR(k.why, "shape 2 has a non-positive dimension");
	k = decode("('g', 'r', ((4, 4096), (8, 2048, 4096), (0,), (8, 4096, 1024), (-1, 2)))");
	CHECK(!k.moe_ok);
	CHECK_STR(k.why, "shape 5 has a non-positive dimension");
	arena_release(&ka);
}

/* BF16_KEY with the extras given. */
static struct moe_key with_extras(const char *extras)
{
	char *key = xasprintf("('trtllm::fused_moe::gemm1', 'MoERunner', ((1, 2048), (128, 1536, 2048), "
			      "(0,), (128, 2048, 768), (0,)), %s)", extras);
	struct moe_key k = decode(key);
	free(key);
	return k;
}

/* extras of 0.6.18 (20 fields): x_dtype, weight_dtype, ...; flags: fields 11-14
 * (use_deepseek_fp8_block_scale, use_w4_group_scaling, use_mxfp8_act_scaling,
 * use_wfp4afp8_humming), pack: 18 (use_packed_weights), fin: 19 (use_fused_finalize) */
#define NOQ "False, False, False, False"
#define DEEPSEEK "True, False, False, False"
#define W4 "False, True, False, False"
#define W4_HUMMING "False, True, False, True"
#define DT(x, w, flags, pack, fin)                                                         \
	"(" x ", " w ", torch.bfloat16, 8, 1, 0, 1, 0, 1, 0, False, " flags ", False, True, 3, " \
	pack ", " fin ")"

TEST(key_extras_by_schema)
{
	const struct fi_rules *s618 = rules("0.6.18"), *s040 = rules("0.4.0"),
			       *s074 = rules("0.7.4");
	CHECK(s618 && s040 && s074);
	CHECK_INT(s618 ? s618->key.extras_fields_count : 0, 20);
	CHECK_INT(s074 ? s074->key.extras_fields_count : 0, 17);

	struct moe_key k = decode(BF16_KEY);
	CHECK_INT(key_fused_finalize(s618, &k), 1);
	CHECK_INT(key_fused_finalize(s040, &k), -1); /* no extras fields in 0.4.0 */
	CHECK_INT(key_fused_finalize(NULL, &k), -1);
	/* 0.7.4's use_fused_finalize is field 16: in this 0.6.18 key, enable_pdl */
	CHECK_INT(key_fused_finalize(s074, &k), 1);
	k = with_extras(DT("torch.bfloat16", "torch.bfloat16", NOQ, "False", "False"));
	CHECK_INT(key_fused_finalize(s618, &k), 0);
	k = with_extras("(torch.bfloat16,)");
	CHECK_INT(key_fused_finalize(s618, &k), -1);
	k = decode(FP4_KEY);
	CHECK_INT(key_fused_finalize(s618, &k), -1);

	enum dtype out[2] = { DT_COUNT, DT_COUNT };
	/* the flags (fields 11, 12, 14 and 18 of 0.6.18) pick the runner first */
	k = with_extras(DT("torch.bfloat16", "torch.float8_e4m3fn", DEEPSEEK, "False", "True"));
	CHECK_INT(key_dtypes(s618, &k, out), 1);
	CHECK_INT(out[0], DT_FP8_BLOCK);
	k = with_extras(DT("torch.bfloat16", "torch.uint8", W4, "False", "True"));
	CHECK_INT(key_dtypes(s618, &k, out), 1);
	CHECK_INT(out[0], DT_W4A16_MXFP4);
	k = with_extras(DT("torch.bfloat16", "torch.uint8", W4, "True", "True"));
	CHECK_INT(key_dtypes(s618, &k, out), 1);
	CHECK_INT(out[0], DT_W4A8);
	k = with_extras(DT("torch.float8_e4m3fn", "torch.uint8", W4_HUMMING, "False", "True"));
	CHECK_INT(key_dtypes(s618, &k, out), 1);
	CHECK_INT(out[0], DT_W4A8_MXFP4);
	/* without flags: the extras' dtypes */
	k = with_extras(DT("torch.uint8", "torch.int64", NOQ, "False", "True"));
	CHECK_INT(key_dtypes(s618, &k, out), 1);
	CHECK_INT(out[0], DT_NVFP4);
	k = with_extras(DT("torch.uint8", "torch.uint8", NOQ, "False", "True"));
	CHECK_INT(key_dtypes(s618, &k, out), 1);
	CHECK_INT(out[0], DT_NVFP4);
	k = with_extras(DT("torch.float8_e4m3fn", "torch.float8_e4m3fn", NOQ, "False", "True"));
	CHECK_INT(key_dtypes(s618, &k, out), 1);
	CHECK_INT(out[0], DT_FP8);
	k = with_extras(DT("torch.float16", "torch.float16", NOQ, "False", "True"));
	CHECK_INT(key_dtypes(s618, &k, out), 1);
	CHECK_INT(out[0], DT_FP16);
	k = decode(BF16_KEY);
	CHECK_INT(key_dtypes(s618, &k, out), 1);
	CHECK_INT(out[0], DT_BF16);
	/* the same key without a schema: the flags are not known, the dtypes are */
	k = with_extras(DT("torch.bfloat16", "torch.bfloat16", DEEPSEEK, "False", "True"));
	CHECK_INT(key_dtypes(NULL, &k, out), 1);
	CHECK_INT(out[0], DT_BF16);
	/* 3-tuples: from the packing */
	k = decode(FP4_KEY);
	CHECK_INT(key_dtypes(s040, &k, out), 1);
	CHECK_INT(out[0], DT_NVFP4);
	k = decode("('g', 'r', ((4, 4096), (8, 2048, 4096), (0,), (8, 4096, 1024), (0,)))");
	out[0] = out[1] = DT_COUNT;
	CHECK_INT(key_dtypes(s040, &k, out), 2);
	CHECK(out[0] == DT_BF16 && out[1] == DT_FP8);
	k = decode("('g', 'r', ((4, 4096), (8, 2048, 2048), (0,), (8, 4096, 512), (0,)))");
	CHECK_INT(k.w_pack, 2);
	CHECK_INT(key_dtypes(s040, &k, out), 1);
	CHECK_INT(out[0], DT_FP8_MXFP4);
	k = decode("('g', 'r', ((4, 4096), (8, 2048, 1024), (0,), (8, 4096, 256), (0,)))");
	CHECK_INT(k.w_pack, 4);
	CHECK_INT(key_dtypes(s040, &k, out), 0);
	k = decode("('g', 'r', ((4, 4096),))");
	CHECK(!k.moe_ok);
	CHECK_INT(key_dtypes(s040, &k, out), 0);
	arena_release(&ka);
}

TTEST_SUITE(key_tests) = {
	{ "key_round_trip", key_round_trip },
	{ "key_canonical_fast_path", key_canonical_fast_path },
	{ "key_malformed_positions", key_malformed_positions },
	{ "key_decode_structure", key_decode_structure },
	{ "key_decode_moe_shapes", key_decode_moe_shapes },
	{ "key_extras_by_schema", key_extras_by_schema },
	TTEST_END,
};
