/* test_worker.c: the worker protocol's job lines (worker_job_line, worker_parse_job): named
 * fields in any order, names the reader does not know, a missing field, another version. */
#include <string.h>

#include "base/util.h"
#include "tune/worker.h"
#include "ttest.h"

static const struct prof_shape SHAPE = {
	.dtype = "fp8", .batch = 8, .tokens = 3, .features = 1536, .k = 2048, .rounds = 5,
	.reps = 32, .method = 2, .stage = 2, .bucket = 4, .hidden = 2048, .inter = 768,
	.experts = 128, .top_k = 8, .tp = 2, .tp_rank = 1, .ep = 4, .ep_rank = 3,
	.activation = 3, .biases = 1, .finalize = 0,
	.key = "('k', 1)", .key_fields = "a,b", .runner = "(1, 2)",
};

static const struct prof_cand CANDS[] = {
	{ .id = 7, .tile_m = 128, .tile_n = 64, .cluster_m = 1, .cluster_n = 2, .stages = 3,
	  .swap = 1, .sm80 = 0 },
	{ .id = 9, .tile_m = 64, .tile_n = 256, .cluster_m = 2, .cluster_n = 1, .stages = 0,
	  .swap = 0, .sm80 = 1 },
	{ .id = 11 },
};

/* every field worker_parse_job keeps, against SHAPE */
static void check_shape(const struct prof_shape *s)
{
	CHECK_STR(s->dtype, "fp8");
	CHECK_INT(s->batch, 8);
	CHECK_INT(s->tokens, 3);
	CHECK_INT(s->features, 1536);
	CHECK_INT(s->k, 2048);
	CHECK_INT(s->rounds, 5);
	CHECK_INT(s->reps, 32);
	CHECK_INT(s->method, 2);
	CHECK_INT(s->stage, 2);
	CHECK_INT(s->bucket, 4);
	CHECK_INT(s->hidden, 2048);
	CHECK_INT(s->inter, 768);
	CHECK_INT(s->experts, 128);
	CHECK_INT(s->top_k, 8);
	CHECK_INT(s->tp, 2);
	CHECK_INT(s->tp_rank, 1);
	CHECK_INT(s->ep, 4);
	CHECK_INT(s->ep_rank, 3);
	CHECK_INT(s->activation, 3);
	CHECK_INT(s->biases, 1);
	CHECK_INT(s->finalize, 0);
	CHECK(!s->key && !s->key_fields && !s->runner);
}

TEST(job_line_round_trip)
{
	struct strbuf sb = STRBUF_INIT;
	const char done[] = { 0, 1, 0 };
	worker_job_line(&sb, "JOB", NULL, &SHAPE, CANDS, 3, done);
	CHECK(str_starts(sb.buf, "JOB v=2 dtype=fp8 batch=8 tokens=3 "));
	CHECK(strstr(sb.buf, " act=3 biases=1 finalize=0 n=2 -- 7,128,64,1,2,3,1,0 "
			     "11,0,0,0,0,0,0,0\n") != NULL);
	CHECK(!strstr(sb.buf, "key=")); /* the key's fields go to the flashinfer worker only */
	struct prof_shape s;
	char dtype[16], why[256] = "";
	size_t n = 99;
	int off = 0;
	CHECK_INT(worker_parse_job(sb.buf, &s, dtype, &n, &off, why, sizeof why), 0);
	CHECK_STR(why, "");
	check_shape(&s);
	CHECK_INT(n, 2);
	CHECK_STR(sb.buf + off, " 7,128,64,1,2,3,1,0 11,0,0,0,0,0,0,0\n");
	sb_release(&sb);

	/* PREP: the key, its extras' names and the runner's arguments as hex; ids only */
	worker_job_line(&sb, "PREP", NULL, &SHAPE, CANDS, 3, NULL);
	CHECK(strstr(sb.buf, " finalize=0 key=28276b272c203129 fields=612c62 runner=28312c203229 "
			     "n=3 -- 7 9 11\n") != NULL);
	CHECK_INT(worker_parse_job(sb.buf, &s, dtype, &n, &off, why, sizeof why), 0);
	check_shape(&s);
	CHECK_INT(n, 3);
	sb_release(&sb);

	/* GATE: its bounds first; no key: the three are "-" */
	struct prof_shape nokey = SHAPE;
	nokey.key = NULL;
	worker_job_line(&sb, "GATE", "bound=0.02 ref_bound=0.05", &nokey, CANDS, 1, NULL);
	CHECK(str_starts(sb.buf, "GATE v=2 bound=0.02 ref_bound=0.05 dtype=fp8 "));
	CHECK(strstr(sb.buf, " key=- fields=- runner=- n=1 -- 7\n") != NULL);
	CHECK_INT(worker_parse_job(sb.buf, &s, dtype, &n, &off, why, sizeof why), 0);
	check_shape(&s);
	sb_release(&sb);
}

/* SHAPE's job line by hand, the fields in another order, two names no reader knows */
#define REORDERED "finalize=0 biases=1 act=3 ep_rank=3 ep=4 tp_rank=1 tp=2 top_k=8 " \
	"experts=128 inter=768 hidden=2048 bucket=4 stage=2 method=2 reps=32 rounds=5 k=2048 " \
	"features=1536 tokens=3 batch=8 dtype=fp8"

TEST(job_line_any_order_unknown_ignored)
{
	struct prof_shape s;
	char dtype[16], why[256] = "";
	size_t n;
	int off;
	const char *line = "JOB n=1 graphs=on " REORDERED " v=2 future=x,y -- 5,1,2,3,4,5,6,7\n";
	CHECK_INT(worker_parse_job(line, &s, dtype, &n, &off, why, sizeof why), 0);
	CHECK_STR(why, "");
	check_shape(&s);
	CHECK_INT(n, 1);
	CHECK_STR(line + off, " 5,1,2,3,4,5,6,7\n");
}

TEST(job_line_refused)
{
	struct prof_shape s;
	char dtype[16], why[256];
	size_t n;
	int off;
	static const struct {
		const char *line, *why;
	} cases[] = {
		{ "JOB v=3 " REORDERED " n=0 --\n",
		  "JOB of protocol version v=3, which this worker does not speak (it speaks v=2)" },
		/* another version is refused before anything else on its line is read */
		{ "JOB v=3 stage=x --\n",
		  "JOB of protocol version v=3, which this worker does not speak (it speaks v=2)" },
		{ "JOB " REORDERED " n=0 --\n",
		  "JOB without a protocol version (v=): this worker speaks v=2" },
		/* the positional job line of before */
		{ "JOB bf16 8 1 1536 2048 5 32 0 1 1 2048 768 128 8 1 0 1 0 3 0 1 0\n",
		  "JOB without a protocol version (v=): this worker speaks v=2" },
		{ "JOB v=2 finalize=0 biases=1 act=3 ep_rank=3 ep=4 tp_rank=1 tp=2 top_k=8 "
		  "experts=128 inter=768 hidden=2048 bucket=4 method=2 reps=32 rounds=5 k=2048 "
		  "features=1536 tokens=3 batch=8 dtype=fp8 n=0 --\n",
		  "JOB without 'stage'" },
		{ "JOB v=2 " REORDERED " --\n", "JOB without 'n'" },
		{ "JOB v=2 " REORDERED " n=1\n", "JOB without '--' before its candidates" },
		{ "JOB v=2 " REORDERED " tokens=1x n=0 --\n", "JOB: bad value 'tokens=1x'" },
		{ "JOB v=2 " REORDERED " stage=99999999999 n=0 --\n",
		  "JOB: bad value 'stage=99999999999'" },
		{ "JOB v=2 " REORDERED " n=5000 --\n", "JOB: bad value 'n=5000'" },
		{ "JOB v=2 " REORDERED " dtype=abcdefghijklmnop n=0 --\n",
		  "JOB: bad value 'dtype=abcdefghijklmnop'" },
		{ "JOB v=2 " REORDERED " stray n=0 --\n", "JOB: 'stray' is not name=value" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		why[0] = '\0';
		CHECK_INT(worker_parse_job(cases[i].line, &s, dtype, &n, &off, why, sizeof why), -1);
		CHECK_STR(why, cases[i].why);
	}
}

TTEST_SUITE(worker_tests) = {
	{ "worker: job line round trip (JOB, PREP, GATE)", job_line_round_trip },
	{ "worker: job line fields in any order, unknown names ignored",
	  job_line_any_order_unknown_ignored },
	{ "worker: job line refused (version, missing field, bad value)", job_line_refused },
	TTEST_END,
};
