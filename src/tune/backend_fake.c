/* backend_fake.c: synthetic timings (TUNETAB_FAKE_GPU=1), a deterministic function of the
 * shape and tile with noise, so everything above the GPU can be tested on a CPU.
 * TUNETAB_FAKE_GPUS=N: N fake H200s; TUNETAB_FAKE_MIXED=1: the last one is an H100.
 * TUNETAB_TEST_FAULT / TUNETAB_TEST_HANG=<id> crash or hang at that candidate,
 * TUNETAB_FAKE_DELAY_MS slows every job (kill tests). */
#include "tune/backend.h"

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fake_gpu_count(void)
{
	const char *fn = getenv("TUNETAB_FAKE_GPUS");
	return fn && atoi(fn) > 0 ? atoi(fn) : 1;
}

static int fake_query(int device, struct worker_device *o, char *err, size_t errlen)
{
	const char *mixed = getenv("TUNETAB_FAKE_MIXED");
	int count = fake_gpu_count();
	if (device >= count) {
		snprintf(err, errlen, "no GPU %d (%d visible)", device, count);
		return 1;
	}
	bool other = mixed && !strcmp(mixed, "1") && count > 1 && device == count - 1;
	memset(o, 0, sizeof *o);
	struct gpu_info *g = &o->gpu;
	snprintf(g->name, sizeof g->name, "%s", other ? "NVIDIA H100 80GB HBM3" : "NVIDIA H200");
	g->index = device;
	g->cc_major = 9;
	g->sm_count = 132;
	g->smem_per_block_optin = 232448;
	g->smem_per_sm = 233472;
	g->l2_bytes = 62914560;
	g->total_mem = (size_t)150109880320ULL;
	g->clock_khz = 1980000;
	o->mem_bw_gbs = 4814;
	o->visible = count;
	return 0;
}

static int fake_run(int device, const struct prof_shape *s, const struct prof_cand *c, size_t n,
		    struct prof_result *out, prof_start_fn on_start, void *ctx, char *err,
		    size_t errlen)
{
	(void)device;
	(void)err;
	(void)errlen;
	const char *fault = getenv("TUNETAB_TEST_FAULT"), *hang = getenv("TUNETAB_TEST_HANG");
	const char *delay = getenv("TUNETAB_FAKE_DELAY_MS");
	if (delay)
		usleep((useconds_t)atoi(delay) * 1000u);
	unsigned seed = (unsigned)(s->tokens * 2654435761u + (unsigned long)s->features * 40503u);
	for (size_t i = 0; i < n; i++) {
		on_start(c[i].id, ctx);
		if (fault && atoi(fault) == c[i].id)
			raise(SIGSEGV);
		if (hang && atoi(hang) == c[i].id)
			for (;;)
				pause();
		long tok_tile = c[i].swap ? c[i].tile_n : c[i].tile_m;
		long feat_tile = c[i].swap ? c[i].tile_m : c[i].tile_n;
		double tiles = s->batch * ceil((double)s->tokens / tok_tile) * ceil((double)s->features / feat_tile);
		double t = 5.0 + tiles * (0.02 * tok_tile * feat_tile / 16384.0 + 0.5) / 132.0 +
			   0.001 * (c[i].id % 7);
		out[i].id = c[i].id;
		out[i].status = PROF_OK;
		out[i].n = s->rounds > 0 ? s->rounds : 15;
		seed = seed * 1103515245u + 12345u;
		double noise = ((seed >> 8) % 1000) / 1000.0 * 0.002 * t;
		out[i].median_us = t + noise;
		out[i].lo_us = t * 0.995;
		out[i].hi_us = t * 1.005 + noise;
		out[i].why[0] = '\0';
	}
	return 0;
}

static int fake_calibrate(int device, const int (*tiles)[2], int n, struct gpu_calibration *cal,
			  char *err, size_t errlen)
{
	(void)device;
	(void)err;
	(void)errlen;
	memset(cal, 0, sizeof *cal);
	cal->copy_gbs = 4000;
	cal->tflops_bf16 = 700;
	cal->tflops_fp8 = 1300;
	cal->ntiles = n;
	for (int i = 0; i < n; i++) {
		cal->tiles[i].m = tiles[i][0];
		cal->tiles[i].n = tiles[i][1];
		cal->tiles[i].eff_bf16 = cal->tiles[i].eff_fp8 =
			fmin(1.0, 0.5 + 0.5 * fmin(tiles[i][0], tiles[i][1]) / 128.0);
	}
	return 0;
}

const struct backend backend_fake = {
	.name = "fake",
	.query = fake_query,
	.run = fake_run,
	.calibrate = fake_calibrate,
};
