/* gpu.h: everything tunetab needs from the GPU, as plain C. Implemented by gpu_cuda.cu when
 * the build has CUDA, by gpu_stub.c otherwise. Functions return 0 or a TT_* status and write
 * a one-line reason into err. */
#ifndef TUNETAB_GPU_H
#define TUNETAB_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_info {
	int index;
	char name[256];
	int cc_major, cc_minor;
	int sm_count;
	size_t smem_per_block_optin;
	size_t smem_per_sm;
	size_t l2_bytes;
	size_t total_mem;
	int clock_khz;        /* max SM clock */
	int mem_clock_khz;
	int mem_bus_width;    /* bits */
	char pci_bus_id[32];
};

struct gpu_env {
	int driver_version;   /* e.g. 13000; 0 when no driver */
	int runtime_version;
};

/* 1 when this binary was built with CUDA support. */
int gpu_compiled(void);
/* Fills *out (caller frees) with every visible GPU. No GPU or driver: TT_GPU with a reason. */
int gpu_query(struct gpu_info **out, int *n, struct gpu_env *env, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
