/* gpu_stub.c: the GPU layer of a build without CUDA; every call says so. */
#include "gpu/gpu.h"

#include <stdio.h>
#include <stdlib.h>

#include "diag.h"

int gpu_compiled(void)
{
	return 0;
}

int gpu_query(struct gpu_info **out, int *n, struct gpu_env *env, char *err, size_t errlen)
{
	*out = NULL;
	*n = 0;
	env->driver_version = env->runtime_version = 0;
	snprintf(err, errlen, "this build of tunetab has no CUDA support (rebuild with CUDA=1 "
		 "where nvcc is installed)");
	return TT_GPU;
}
