/* gpu_cuda.cu: the GPU layer on the CUDA Runtime API. Every call is checked; errors are
 * returned with file:line, the CUDA error name and the failing expression. */
#include "gpu/gpu.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define CHECK(expr)                                                                          \
	do {                                                                                 \
		cudaError_t e_ = (expr);                                                     \
		if (e_ != cudaSuccess) {                                                     \
			snprintf(err, errlen, "%s:%d: %s (%s) in '%s'", __FILE__, __LINE__,  \
				 cudaGetErrorName(e_), cudaGetErrorString(e_), #expr);       \
			return TT_GPU;                                                       \
		}                                                                            \
	} while (0)

extern "C" int gpu_compiled(void)
{
	return 1;
}

static int query_one(int dev, struct gpu_info *g, char *err, size_t errlen)
{
	cudaDeviceProp p;
	CHECK(cudaGetDeviceProperties(&p, dev));
	memset(g, 0, sizeof *g);
	g->index = dev;
	snprintf(g->name, sizeof g->name, "%s", p.name);
	g->cc_major = p.major;
	g->cc_minor = p.minor;
	g->sm_count = p.multiProcessorCount;
	g->smem_per_block_optin = p.sharedMemPerBlockOptin;
	g->smem_per_sm = p.sharedMemPerMultiprocessor;
	g->l2_bytes = (size_t)p.l2CacheSize;
	g->total_mem = p.totalGlobalMem;
	/* Clock fields left cudaDeviceProp in CUDA 13: read them as attributes. */
	CHECK(cudaDeviceGetAttribute(&g->clock_khz, cudaDevAttrClockRate, dev));
	CHECK(cudaDeviceGetAttribute(&g->mem_clock_khz, cudaDevAttrMemoryClockRate, dev));
	CHECK(cudaDeviceGetAttribute(&g->mem_bus_width, cudaDevAttrGlobalMemoryBusWidth, dev));
	CHECK(cudaDeviceGetPCIBusId(g->pci_bus_id, (int)sizeof g->pci_bus_id, dev));
	return 0;
}

extern "C" int gpu_query(struct gpu_info **out, int *n, struct gpu_env *env, char *err,
			 size_t errlen)
{
	*out = NULL;
	*n = 0;
	env->driver_version = env->runtime_version = 0;
	cudaDriverGetVersion(&env->driver_version);
	cudaRuntimeGetVersion(&env->runtime_version);
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
	    (e == cudaSuccess && count == 0)) {
		snprintf(err, errlen, "no CUDA GPU found: %s (%s)",
			 e == cudaSuccess ? "cudaGetDeviceCount returned 0" : cudaGetErrorName(e),
			 e == cudaErrorInsufficientDriver || env->driver_version == 0
				 ? "no NVIDIA driver is loaded on this machine"
				 : "no device is visible; check CUDA_VISIBLE_DEVICES");
		return TT_GPU;
	}
	if (e != cudaSuccess) {
		/* Seen on a freshly started H200 machine: cudaErrorMemoryAllocation from the first
		 * cudaGetDeviceCount while the driver came up; a second process a few seconds
		 * later succeeded. Say so rather than leave a bare error name. */
		snprintf(err, errlen, "%s:%d: %s (%s) in 'cudaGetDeviceCount(&count)'%s", __FILE__,
			 __LINE__, cudaGetErrorName(e), cudaGetErrorString(e),
			 e == cudaErrorMemoryAllocation || e == cudaErrorInitializationError
				 ? "; the driver may still be initialising the GPU: retry in a few seconds"
				 : "");
		return TT_GPU;
	}
	struct gpu_info *v = (struct gpu_info *)calloc((size_t)count, sizeof *v);
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return TT_INTERNAL;
	}
	for (int i = 0; i < count; i++) {
		int rc = query_one(i, &v[i], err, errlen);
		if (rc) {
			free(v);
			return rc;
		}
	}
	*out = v;
	*n = count;
	return 0;
}
