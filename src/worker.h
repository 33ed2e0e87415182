/* worker.h: GPU work in a separate process. The parent starts the worker (its own binary,
 * `tunetab __worker`) before it touches CUDA, sends it jobs over a pipe and reads results;
 * a candidate that crashes or hangs the worker (watchdog) kills only the worker, which the
 * parent records and restarts. TUNETAB_FAKE_GPU=1 makes the worker a fake backend with
 * synthetic timings (CPU-only tests of everything above the GPU). */
#ifndef TUNETAB_WORKER_H
#define TUNETAB_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "diag.h"
#include "gpu/gpu.h"

struct worker {
	pid_t pid;
	int to, from;      /* pipe fds */
	int device;
	double timeout_s;  /* watchdog: no output for this long kills the worker */
	char buf[65536];
	size_t len;
	int restarts;
};

/* What a worker knows of its GPU (the parent never asks CUDA itself). */
struct worker_device {
	char name[256];
	int cc_major, cc_minor, sm_count;
	double smem_optin, smem_sm, l2, mem, clock_mhz, mem_bw_gbs;
	int visible;       /* GPUs this process can see (for --devices all) */
	int driver_version, runtime_version;   /* CUDA's, e.g. 13000 */
	long blaslt_version;
};

/* Whether workers are the fake backend (TUNETAB_FAKE_GPU=1 in the environment they inherit). */
bool worker_is_fake(void);

int worker_start(struct worker *w, int device, double timeout_s, struct diags *d);
void worker_stop(struct worker *w);
/* At exit: kills the worker without waiting for the driver to tear its GPU context down
 * (0.06 to 0.15 s on an H200); the kernel reaps it once this process is gone. */
void worker_detach(struct worker *w);
int worker_info(struct worker *w, struct worker_device *out, struct diags *d);

/* Times a job. Candidates that crashed or hung the worker come back PROF_FAILED with the
 * reason, the worker restarted, and the rest timed again. */
int worker_profile(struct worker *w, const struct prof_shape *s, const struct prof_cand *c,
		   size_t n, struct prof_result *out, struct diags *d);

int worker_calibrate(struct worker *w, const int (*tiles)[2], int ntiles,
		     struct gpu_calibration *cal, struct diags *d);

/* The worker's main loop (`tunetab __worker DEVICE`): reads jobs on stdin. */
int worker_main(int argc, char **argv);

#endif
