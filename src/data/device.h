/* device.h: GPU device profiles from configs/devices/<id>.yaml.
 * Unknown values are NULL pointers, never guessed (devices-models.md "How to use"). */
#ifndef TUNETAB_DEVICE_H
#define TUNETAB_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

struct device_cc {
	unsigned major, minor;
};

struct device_tflops {
	double *bf16, *fp8, *fp4;
};

struct device_profile {
	char *id;
	char *name;            /* exact cudaGetDeviceProperties().name */
	char **aliases;
	unsigned aliases_count;
	struct device_cc cc;
	uint64_t *sm_count;
	uint64_t *smem_per_block_optin;
	uint64_t *smem_per_sm;
	uint64_t *l2_bytes;
	uint64_t *memory_bytes;
	uint64_t *memory_mib;  /* as nvidia-smi reports it, where the bytes are not known (serving
				* stacks size their defaults by it) */
	double *memory_bandwidth_gbs;
	uint64_t *boost_clock_mhz;
	uint64_t *tdp_watts;
	struct device_tflops dense_tflops;
	char *path;            /* file it came from (set after loading) */
};

struct device_set {
	struct device_profile **v;
	size_t n;
};

/* Loads one profile file; caller frees with device_free. */
int device_load_file(const char *path, struct device_profile **out, struct diags *d);
void device_free(struct device_profile *p);
/* Loads every *.yaml in dir and checks ids, names and uniqueness. Errors go to d;
 * profiles that loaded stay in the set. */
int device_load_dir(const char *dir, struct device_set *set, struct diags *d);
void device_set_release(struct device_set *set);

/* Exact device name, then id or alias, case-insensitively. NULL when none. */
const struct device_profile *device_find(const struct device_set *set, const char *name);
/* Up to max profile names nearest to name (edit distance), best first. */
size_t device_nearest(const struct device_set *set, const char *name, const char **out, size_t max);
/* SM version as FlashInfer writes it: major*10+minor. */
unsigned device_sm(const struct device_profile *p);

#endif
