/* backend.h: what a worker times candidates with. tunetab's own worker process
 * (`tunetab __worker DEVICE`, worker.c) serves two: `proxy`, the cuBLASLt stand-in GEMM of
 * src/gpu, and `fake`, synthetic timings for CPU tests (TUNETAB_FAKE_GPU=1). The third,
 * `flashinfer`, times FlashInfer's own fused-MoE kernels in a Python process of its own
 * (scripts/tunetab-fi-worker.py) that speaks the same line protocol. */
#ifndef TUNETAB_BACKEND_H
#define TUNETAB_BACKEND_H

#include <stddef.h>

#include "gpu/gpu.h"
#include "tune/worker.h"

/* BACKEND_NONE: nothing timed, the heuristic's table (what `auto` falls back to where the proxy
 * measured worse than the heuristic alone: docs/guide.md "Measurement backends"). */
enum backend_kind { BACKEND_PROXY, BACKEND_FAKE, BACKEND_FLASHINFER, BACKEND_NONE };

struct backend {
	const char *name;
	/* the GPU this worker times on */
	int (*query)(int device, struct worker_device *out, char *err, size_t errlen);
	/* times one job's candidates (gpu.h gpu_prof_run's contract) */
	int (*run)(int device, const struct prof_shape *s, const struct prof_cand *c, size_t n,
		   struct prof_result *out, prof_start_fn on_start, void *ctx, char *err,
		   size_t errlen);
	int (*calibrate)(int device, const int (*tiles)[2], int ntiles, struct gpu_calibration *cal,
			 char *err, size_t errlen);
};

extern const struct backend backend_proxy, backend_fake;

/* The fake backend's GPUs: TUNETAB_FAKE_GPUS (default 1). */
int fake_gpu_count(void);

/* "proxy", "fake" or "flashinfer". */
const char *backend_kind_name(enum backend_kind k);

#endif
