/* test_worker.c: the worker protocol (wire.h, worker_job_line): every message written and read
 * back from the one table, names in any order, names and columns the reader does not know
 * ignored, a missing field, another version refused naming both, both directions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tune/wire.h"
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

/* every field of the job, against SHAPE */
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
}

/* reads line as the request or reply it is; -1 with why */
static int read_as(const char *line, enum wire_dir dir, enum wire_id want, void *obj,
		   void **items, size_t *n, char *why, size_t whylen)
{
	const struct wire_msg *m = wire_identify(line, dir, why, whylen);
	if (!m)
		return -1;
	CHECK_INT(m->id, want);
	return wire_read(line, m, obj, items, n, why, whylen);
}

TEST(job_line_round_trip)
{
	struct strbuf sb = STRBUF_INIT;
	const char done[] = { 0, 1, 0 };
	worker_job_line(&sb, "JOB", &SHAPE, NULL, CANDS, 3, done);
	CHECK(str_starts(sb.buf, "JOB v=3 dtype=fp8 batch=8 tokens=3 "));
	CHECK(strstr(sb.buf, " local_experts=128 ") != NULL);
	CHECK(strstr(sb.buf, " act=3 biases=1 fused_finalize=0 cands=2 cols=id,tile_m,tile_n,"
			     "cluster_m,cluster_n,stages,swap,sm80 -- 7,128,64,1,2,3,1,0 "
			     "11,0,0,0,0,0,0,0\n") != NULL);
	CHECK(!strstr(sb.buf, "key=")); /* the key's fields go to the flashinfer worker only */
	struct wire_job job;
	struct prof_cand *c = NULL;
	size_t n = 99;
	char why[256] = "";
	memset(&job, 0, sizeof job);
	CHECK_INT(read_as(sb.buf, WIRE_REQUEST, WQ_JOB, &job, (void **)&c, &n, why, sizeof why), 0);
	CHECK_STR(why, "");
	check_shape(&job.s);
	CHECK(!job.s.key && !job.s.key_fields && !job.s.runner);
	CHECK_INT(n, 2);
	if (c && n == 2) {
		CHECK(!memcmp(&c[0], &CANDS[0], sizeof c[0]));
		CHECK(!memcmp(&c[1], &CANDS[2], sizeof c[1]));
	}
	free(c);
	wire_release(wire_msg(WQ_JOB), &job);
	sb_release(&sb);

	/* PREP: the key, its extras' names and the runner's arguments as hex; ids only */
	worker_job_line(&sb, "PREP", &SHAPE, NULL, CANDS, 3, NULL);
	CHECK(strstr(sb.buf, " fused_finalize=0 key=28276b272c203129 key_fields=612c62 "
			     "runner_args=28312c203229 cands=3 cols=id -- 7 9 11\n") != NULL);
	memset(&job, 0, sizeof job);
	CHECK_INT(read_as(sb.buf, WIRE_REQUEST, WQ_PREP, &job, (void **)&c, &n, why, sizeof why), 0);
	check_shape(&job.s);
	CHECK_STR(job.s.key, "('k', 1)");
	CHECK_STR(job.s.key_fields, "a,b");
	CHECK_STR(job.s.runner, "(1, 2)");
	CHECK_INT(n, 3);
	CHECK(c && c[2].id == 11);
	free(c);
	wire_release(wire_msg(WQ_PREP), &job);
	sb_release(&sb);

	/* GATE: its bounds first; no key: the three are "-" */
	struct prof_shape nokey = SHAPE;
	nokey.key = NULL;
	const double bounds[2] = { 0.02, 0.05 };
	worker_job_line(&sb, "GATE", &nokey, bounds, CANDS, 1, NULL);
	CHECK(str_starts(sb.buf, "GATE v=3 bound=0.02 ref_bound=0.05 dtype=fp8 "));
	CHECK(strstr(sb.buf, " key=- key_fields=- runner_args=- cands=1 cols=id -- 7\n") != NULL);
	memset(&job, 0, sizeof job);
	CHECK_INT(read_as(sb.buf, WIRE_REQUEST, WQ_GATE, &job, NULL, NULL, why, sizeof why), 0);
	check_shape(&job.s);
	CHECK(job.bound == 0.02 && job.ref_bound == 0.05);
	CHECK(!job.s.key && !job.s.key_fields && !job.s.runner);
	wire_release(wire_msg(WQ_GATE), &job);
	sb_release(&sb);
}

/* SHAPE's job line by hand, the fields in another order, names and a column no reader knows */
#define REORDERED "fused_finalize=0 biases=1 act=3 ep_rank=3 ep=4 tp_rank=1 tp=2 top_k=8 " \
	"local_experts=128 inter=768 hidden=2048 bucket=4 stage=2 method=2 reps=32 rounds=5 " \
	"k=2048 features=1536 tokens=3 batch=8 dtype=fp8"
#define COLS "cols=id,tile_m,tile_n,cluster_m,cluster_n,stages,swap,sm80"

TEST(request_any_order_unknown_ignored)
{
	struct wire_job job;
	struct prof_cand *c = NULL;
	size_t n = 0;
	char why[256] = "";
	const char *line = "JOB cands=1 graphs=on " REORDERED " v=3 future=x,y cols=id,tile_m,"
			   "tile_n,later,cluster_m,cluster_n,stages,swap,sm80 -- 5,1,2,99,3,4,5,6,7\n";
	memset(&job, 0, sizeof job);
	CHECK_INT(read_as(line, WIRE_REQUEST, WQ_JOB, &job, (void **)&c, &n, why, sizeof why), 0);
	CHECK_STR(why, "");
	check_shape(&job.s);
	CHECK_INT(n, 1);
	CHECK(c && c[0].id == 5 && c[0].tile_m == 1 && c[0].tile_n == 2 && c[0].cluster_m == 3 &&
	      c[0].sm80 == 7);
	free(c);
	wire_release(wire_msg(WQ_JOB), &job);
}

TEST(request_refused)
{
	static const struct {
		const char *line, *why;
	} cases[] = {
		{ "JOB v=2 " REORDERED " n=0 --\n", "tunetab speaks protocol 2, this worker 3 (its JOB line)" },
		/* another version is refused before anything else on its line is read */
		{ "JOB v=4 stage=x --\n", "tunetab speaks protocol 4, this worker 3 (its JOB line)" },
		{ "JOB " REORDERED " cands=0 " COLS " --\n",
		  "tunetab speaks protocol 2 or older, this worker 3 (its JOB line, without v=)" },
		/* the positional job line of version 1, and version 2's WHO */
		{ "JOB bf16 8 1 1536 2048 5 32 0 1 1 2048 768 128 8 1 0 1 0 3 0 1 0\n",
		  "tunetab speaks protocol 2 or older, this worker 3 (its JOB line, without v=)" },
		{ "WHO\n", "tunetab speaks protocol 2 or older, this worker 3 (its WHO line, without v=)" },
		{ "hello world\n", "not a request of the worker protocol: 'hello world'" },
		{ "HELLO v=3\n", "not a request of the worker protocol: 'HELLO v=3'" },
		{ "JOB v=3 fused_finalize=0 biases=1 act=3 ep_rank=3 ep=4 tp_rank=1 tp=2 top_k=8 "
		  "local_experts=128 inter=768 hidden=2048 bucket=4 method=2 reps=32 rounds=5 k=2048 "
		  "features=1536 tokens=3 batch=8 dtype=fp8 cands=0 " COLS " --\n",
		  "JOB without 'stage'" },
		/* the names of version 2 are not this version's */
		{ "JOB v=3 finalize=0 biases=1 act=3 ep_rank=3 ep=4 tp_rank=1 tp=2 top_k=8 "
		  "local_experts=128 inter=768 hidden=2048 bucket=4 stage=2 method=2 reps=32 rounds=5 "
		  "k=2048 features=1536 tokens=3 batch=8 dtype=fp8 n=0 " COLS " --\n",
		  "JOB without 'fused_finalize'" },
		{ "JOB v=3 " REORDERED " " COLS " --\n", "JOB without 'cands'" },
		{ "JOB v=3 " REORDERED " cands=0 --\n", "JOB without 'cols'" },
		{ "JOB v=3 " REORDERED " cands=1 " COLS "\n", "JOB without '--' before its items" },
		{ "JOB v=3 " REORDERED " cands=2 " COLS " -- 1,1,1,1,1,1,1,1\n",
		  "JOB: cands=2 but 1 items after '--'" },
		{ "JOB v=3 " REORDERED " cands=1 cols=id,tile_m -- 1,1\n",
		  "JOB: its items lack the column 'tile_n'" },
		{ "JOB v=3 " REORDERED " cands=1 " COLS " -- 1,1,1\n",
		  "JOB: bad item '1,1,1' (its columns: id,tile_m,tile_n,cluster_m,cluster_n,stages,swap,sm80)" },
		{ "JOB v=3 " REORDERED " cands=1 " COLS " -- 1,1,1,x,1,1,1,1\n",
		  "JOB: bad item '1,1,1,x,1,1,1,1' (its columns: id,tile_m,tile_n,cluster_m,cluster_n,stages,swap,sm80)" },
		{ "JOB v=3 " REORDERED " tokens=1x cands=0 " COLS " --\n", "JOB: bad value 'tokens=1x'" },
		{ "JOB v=3 " REORDERED " stage=99999999999 cands=0 " COLS " --\n",
		  "JOB: bad value 'stage=99999999999'" },
		{ "JOB v=3 " REORDERED " cands=5000 " COLS " --\n", "JOB: bad value 'cands=5000'" },
		{ "JOB v=3 " REORDERED " stray cands=0 " COLS " --\n", "JOB: 'stray' is not name=value" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct wire_job job;
		char why[256] = "";
		memset(&job, 0, sizeof job);
		const struct wire_msg *m = wire_identify(cases[i].line, WIRE_REQUEST, why, sizeof why);
		if (m) {
			CHECK_INT(wire_read(cases[i].line, m, &job, NULL, NULL, why, sizeof why), -1);
			wire_release(m, &job);
		}
		CHECK_STR(why, cases[i].why);
	}
}

TEST(replies_round_trip)
{
	struct strbuf sb = STRBUF_INIT;
	char why[256] = "";

	struct prof_result r = { .id = 3, .status = PROF_FAILED, .median_us = 1.23456,
				 .lo_us = 1, .hi_us = 2, .n = 5, .why = "FlashInfer's get_valid_tactics" };
	wire_write(&sb, wire_msg(WR_RES), &r, NULL, NULL, 0);
	CHECK(str_starts(sb.buf, "RES v=3 id=3 status=2 median_us=1.2346 lo_us=1.0000 hi_us=2.0000 "
			 "samples=5 why=466c617368"));
	struct prof_result back;
	CHECK_INT(read_as(sb.buf, WIRE_REPLY, WR_RES, &back, NULL, NULL, why, sizeof why), 0);
	CHECK_INT(back.id, 3);
	CHECK_INT(back.status, PROF_FAILED);
	CHECK(fabs(back.median_us - 1.2346) < 1e-9 && back.n == 5);
	CHECK_STR(back.why, "FlashInfer's get_valid_tactics"); /* exact: no '_' for ' ' */
	sb_reset(&sb);

	struct worker_device dev = { .gpu = { .name = "NVIDIA H200", .cc_major = 9, .sm_count = 132,
					      .smem_per_block_optin = 232448, .l2_bytes = 62914560,
					      .total_mem = 150109880320, .clock_khz = 1980000 },
				     .mem_bw_gbs = 4814.04, .visible = 8,
				     .env = { .driver_version = 13000, .blaslt_version = 130100 } };
	wire_write(&sb, wire_msg(WR_DEV), &dev, NULL, NULL, 0);
	struct worker_device dback;
	CHECK_INT(read_as(sb.buf, WIRE_REPLY, WR_DEV, &dback, NULL, NULL, why, sizeof why), 0);
	CHECK_STR(dback.gpu.name, "NVIDIA H200");
	CHECK(dback.gpu.total_mem == 150109880320 && dback.gpu.clock_khz == 1980000 &&
	      dback.visible == 8 && dback.env.blaslt_version == 130100 && dback.gpu.sm_count == 132);
	CHECK(fabs(dback.mem_bw_gbs - 4814.0) < 1e-9); /* written %.1f */
	sb_reset(&sb);

	struct gate_result g = { .id = 4, .verdict = GATE_UNCHECKED, .max_abs = 0.5, .rel = 0.25,
				 .why = "no bounds" };
	wire_write(&sb, wire_msg(WR_G), &g, NULL, NULL, 0);
	CHECK(str_starts(sb.buf, "G v=3 id=4 verdict=unchecked max_abs=0.5 rel=0.25 why="));
	struct gate_result gback;
	CHECK_INT(read_as(sb.buf, WIRE_REPLY, WR_G, &gback, NULL, NULL, why, sizeof why), 0);
	CHECK(gback.id == 4 && gback.verdict == GATE_UNCHECKED && gback.rel == 0.25);
	CHECK_STR(gback.why, "no bounds");
	sb_reset(&sb);

	struct gpu_calibration cal = { .copy_gbs = 4000, .tflops_bf16 = 700, .tflops_fp8 = 1300 };
	const struct wire_tile tiles[] = { { 128, 64, 0.9, 0.8 }, { 64, 64, 0.5, 0.25 } };
	wire_write(&sb, wire_msg(WR_CAL), &cal, NULL, tiles, 2);
	CHECK_STR(sb.buf, "CAL v=3 copy_gbs=4000.00 tflops_bf16=700.00 tflops_fp8=1300.00 tiles=2 "
		  "cols=tile_m,tile_n,eff_bf16,eff_fp8 -- 128,64,0.9000,0.8000 64,64,0.5000,0.2500\n");
	struct gpu_calibration cback;
	struct wire_tile *t = NULL;
	size_t n = 0;
	CHECK_INT(read_as(sb.buf, WIRE_REPLY, WR_CAL, &cback, (void **)&t, &n, why, sizeof why), 0);
	CHECK(n == 2 && t && t[1].tile_m == 64 && t[1].eff_fp8 == 0.25 && cback.tflops_fp8 == 1300);
	free(t);
	sb_reset(&sb);

	/* ERR and FAULT: the text after "--", as it is (line breaks made spaces) */
	struct wire_text e = { "JOB: bad value 'x=1'\nagain" }, eback;
	wire_write(&sb, wire_msg(WR_ERR), &e, NULL, NULL, 0);
	CHECK_STR(sb.buf, "ERR v=3 -- JOB: bad value 'x=1' again\n");
	CHECK_INT(read_as(sb.buf, WIRE_REPLY, WR_ERR, &eback, NULL, NULL, why, sizeof why), 0);
	CHECK_STR(eback.text, "JOB: bad value 'x=1' again");
	sb_release(&sb);
}

TEST(replies_unknown_ignored_other_version_refused)
{
	char why[512] = "";
	/* a later worker's reply: names and columns this side does not know */
	struct prof_result r;
	CHECK_INT(read_as("RES v=3 later=1 id=3 status=0 median_us=2 lo_us=1 hi_us=3 samples=5 "
			  "why=- gpu_clock=1980\n", WIRE_REPLY, WR_RES, &r, NULL, NULL, why,
			  sizeof why), 0);
	CHECK(r.id == 3 && r.median_us == 2 && r.hi_us == 3 && r.n == 5);
	CHECK_STR(r.why, "");
	struct gpu_calibration cal;
	struct wire_tile *t = NULL;
	size_t n = 0;
	CHECK_INT(read_as("CAL v=3 copy_gbs=1 tflops_bf16=2 tflops_fp8=3 tiles=1 cols=eff_fp8,"
			  "power,eff_bf16,tile_n,tile_m -- 0.5,300,0.25,64,128\n", WIRE_REPLY, WR_CAL,
			  &cal, (void **)&t, &n, why, sizeof why), 0);
	CHECK(n == 1 && t && t[0].tile_m == 128 && t[0].tile_n == 64 && t[0].eff_bf16 == 0.25 &&
	      t[0].eff_fp8 == 0.5);
	free(t);
	static const struct {
		const char *line, *why;
	} cases[] = {
		{ "WHO v=2 backend=flashinfer version=0.7.4 torch=2.9 detail=-\n",
		  "the worker speaks protocol 2, tunetab 3 (it answered 'WHO v=2 backend=flashinfer "
		  "version=0.7.4 torch=2.9 detail=-')" },
		/* version 2's replies carried no version */
		{ "WHO flashinfer 0.7.4 2.9.0 2d\n",
		  "the worker speaks protocol 2 or older, tunetab 3 (it answered 'WHO flashinfer 0.7.4 "
		  "2.9.0 2d', without v=)" },
		{ "ERR PREP of protocol version v=3, which this worker does not speak (it speaks v=2)\n",
		  "the worker speaks protocol 2 or older, tunetab 3 (it answered 'ERR PREP of protocol "
		  "version v=3, which this worker does not speak (it speaks v=2)', without v=)" },
		/* a library's stray output on the worker's stdout */
		{ "Compiling the module...\n",
		  "not a reply of the worker protocol: 'Compiling the module...'" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		why[0] = '\0';
		CHECK(!wire_identify(cases[i].line, WIRE_REPLY, why, sizeof why));
		CHECK_STR(why, cases[i].why);
	}
	why[0] = '\0';
	CHECK_INT(read_as("T v=3 id=4\n", WIRE_REPLY, WR_T, &(struct wire_time){ 0 }, NULL, NULL,
			  why, sizeof why), -1);
	CHECK_STR(why, "T without 'us'");
}

/* Every field of the table is the size its type reads and writes. */
TEST(table_sizes)
{
	for (int i = 0; i < WIRE_MESSAGES; i++) {
		const struct wire_msg *m = wire_msg((enum wire_id)i);
		CHECK_INT(m->id, i);
		for (int list = 0; list < 2; list++) {
			const struct wire_field *f = list ? m->cols : m->fields;
			size_t nf = list ? m->ncols : m->nfields;
			for (size_t k = 0; k < nf; k++) {
				size_t want = f[k].type == WT_INT || f[k].type == WT_ENUM ? sizeof(int)
					: f[k].type == WT_LONG ? sizeof(long)
					: f[k].type == WT_SIZE ? sizeof(size_t)
					: f[k].type == WT_DOUBLE ? sizeof(double)
					: f[k].type == WT_PWORD || f[k].type == WT_PTEXT ? sizeof(char *)
					: f[k].size;
				if (f[k].size != want)
					fprintf(stderr, "  %s %s: size %zu, its type's %zu\n", m->verb,
						f[k].name, f[k].size, want);
				CHECK(f[k].size == want);
				CHECK(strcmp(f[k].name, "n") && strcmp(f[k].name, "v") &&
				      strcmp(f[k].name, "cols"));
			}
		}
	}
}

TTEST_SUITE(worker_tests) = {
	{ "worker: job lines round trip (JOB, PREP, GATE)", job_line_round_trip },
	{ "worker: requests' fields in any order, unknown names and columns ignored",
	  request_any_order_unknown_ignored },
	{ "worker: requests refused (version, missing field, bad value, list)", request_refused },
	{ "worker: replies round trip (RES, DEV, G, CAL, ERR)", replies_round_trip },
	{ "worker: replies' unknown names ignored, another version refused",
	  replies_unknown_ignored_other_version_refused },
	{ "worker: the table's field sizes", table_sizes },
	TTEST_END,
};
