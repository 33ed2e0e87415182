/* backend_proxy.c: the cuBLASLt stand-in GEMM (src/gpu) as a worker backend. */
#include "tune/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int proxy_query(int device, struct worker_device *o, char *err, size_t errlen)
{
	struct gpu_info *g;
	int n;
	struct gpu_env env;
	struct timespec q0, q1;
	clock_gettime(CLOCK_MONOTONIC, &q0);
	int rc = gpu_query(&g, &n, &env, err, errlen);
	if (!rc)
		env.blaslt_version = gpu_blaslt_version();
	clock_gettime(CLOCK_MONOTONIC, &q1);
	if (getenv("TUNETAB_PROF_TIMING"))
		gpu_trace("tunetab-worker: device query (CUDA init) %.1f ms",
			  (double)(q1.tv_sec - q0.tv_sec) * 1e3 + (q1.tv_nsec - q0.tv_nsec) * 1e-6);
	if (rc)
		return rc;
	if (device >= n) {
		snprintf(err, errlen, "no GPU %d (%d visible)", device, n);
		free(g);
		return 1;
	}
	worker_device_from_gpu(o, &g[device], n, &env);
	free(g);
	return 0;
}

const struct backend backend_proxy = {
	.name = "proxy",
	.query = proxy_query,
	.run = gpu_prof_run,
	.calibrate = gpu_calibrate,
};

const char *backend_kind_name(enum backend_kind k)
{
	return k == BACKEND_FLASHINFER ? "flashinfer" : k == BACKEND_FAKE ? "fake"
	       : k == BACKEND_NONE ? "none" : "proxy";
}
