/* gpu_stub.c: the GPU layer of a build without CUDA; every call says so. */
#include "gpu/gpu.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/diag.h"

int gpu_compiled(void)
{
	return 0;
}

int gpu_query(struct gpu_info **out, int *n, struct gpu_env *env, char *err, size_t errlen)
{
	*out = NULL;
	*n = 0;
	env->driver_version = env->runtime_version = 0;
	env->blaslt_version = 0;
	snprintf(err, errlen, "this build of tunetab has no CUDA support (rebuild with CUDA=1 "
		 "where nvcc is installed)");
	return TT_GPU;
}

int gpu_prof_run(int device, const struct prof_shape *s, const struct prof_cand *c, size_t n,
		 struct prof_result *out, prof_start_fn on_start, void *ctx, char *err, size_t errlen)
{
	(void)device; (void)s; (void)c; (void)n; (void)out; (void)on_start; (void)ctx;
	snprintf(err, errlen, "this build of tunetab has no CUDA support");
	return TT_GPU;
}

int gpu_calibrate(int device, const int (*tiles_in)[2], int ntiles, struct gpu_calibration *cal,
		  char *err, size_t errlen)
{
	(void)device; (void)tiles_in; (void)ntiles; (void)cal;
	snprintf(err, errlen, "this build of tunetab has no CUDA support");
	return TT_GPU;
}

long gpu_blaslt_version(void)
{
	return 0;
}
