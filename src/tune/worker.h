/* worker.h: GPU work in a separate process. The parent starts the worker before it touches
 * CUDA, sends it jobs over a pipe and reads results; a candidate that crashes or hangs the
 * worker (watchdog) kills only the worker, which the parent records and restarts. The worker
 * is tunetab's own binary (`tunetab __worker`: the proxy backend, or the fake one with
 * synthetic timings when TUNETAB_FAKE_GPU=1, backend.h) or, for the flashinfer backend, a
 * Python process running scripts/tunetab-fi-worker.py. The protocol's messages are wire.h's
 * (docs/development.md "The worker protocol"). */
#ifndef TUNETAB_WORKER_H
#define TUNETAB_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/diag.h"
#include "gpu/gpu.h"

struct strbuf;

struct worker {
	pid_t pid;
	int to, from;      /* pipe fds */
	int device;
	double timeout_s;  /* watchdog: no output for this long kills the worker */
	char buf[65536];
	size_t len;
	int restarts;
	char *python, *script; /* the flashinfer worker's interpreter and script; NULL: tunetab's */
	bool careful;          /* one candidate a round request (after a crash inside a batch) */
	unsigned ahead;        /* requests sent ahead, answers not read yet (worker_ask_ahead) */
};

/* What a worker measures with (its WHO reply). */
struct worker_backend {
	char name[32];         /* proxy, fake, flashinfer; "none" when it cannot run */
	char version[64];      /* FlashInfer's version ("-" for tunetab's own backends) */
	char torch[64];
	char why[1024];        /* a description, or why it cannot run */
};

/* What a worker knows of its GPU (the parent never asks CUDA itself): the GPU layer's own
 * description (its DEV line carries name, compute capability, SMs, shared memory, L2,
 * memory and SM clock; memory clock, bus width and PCI id stay 0 in the parent), and what
 * only the worker sees. */
struct worker_device {
	struct gpu_info gpu;
	double mem_bw_gbs;
	int visible;       /* GPUs this process can see (for --devices all) */
	struct gpu_env env;  /* CUDA driver and runtime, cuBLASLt */
};

/* Whether workers are the fake backend (TUNETAB_FAKE_GPU=1 in the environment they inherit). */
bool worker_is_fake(void);
/* How many GPUs a worker will see, guessed without CUDA (the parent never touches it): the
 * fake backend's count, CUDA_VISIBLE_DEVICES's entries, else the driver's GPUs
 * (/proc/driver/nvidia/gpus), else 1. Only which workers start early depends on it; the
 * first worker's own count (worker_info) decides. */
int worker_visible_guess(void);

int worker_start(struct worker *w, int device, double timeout_s, struct diags *d);
/* The flashinfer backend's worker: `python script DEVICE`. */
int worker_start_python(struct worker *w, int device, double timeout_s, const char *python,
			const char *script, struct diags *d);
/* Sends a new worker its start-up requests at once, before their answers are wanted: INFO,
 * and for a Python worker WHO and LOAD dtype (NULL: bf16). The worker takes them as soon as
 * it has started (a Python worker's imports take seconds), so that workers started together
 * start up together; worker_who, worker_info and worker_load then read the answers, in that
 * order. Nonzero when the worker is already gone (the reads say so). */
int worker_ask_ahead(struct worker *w, const char *dtype);
/* What the worker measures with. TT_GPU with out->why when it cannot run (no FlashInfer, no
 * CUDA torch, a worker of another protocol version, ...): nothing is added to d then, the
 * caller decides how to say it. */
int worker_who(struct worker *w, struct worker_backend *out, struct diags *d);
/* The flashinfer worker loads (the first time: compiles) FlashInfer's fused-MoE module for
 * dtype; note() gets each phase and progress line. */
int worker_load(struct worker *w, const char *dtype, void (*note)(void *ctx, const char *text),
		void *ctx, double *seconds, struct diags *d);
void worker_stop(struct worker *w);
/* At exit: kills the worker without waiting for the driver to tear its GPU context down
 * (0.06 to 0.15 s on an H200); the kernel reaps it once this process is gone. */
void worker_detach(struct worker *w);
int worker_info(struct worker *w, struct worker_device *out, struct diags *d);
/* The flashinfer worker's self-test of one op's runner on its GPU (OPTEST; issue #39): status
 * "works", "not_in_build", "cannot_run", "wrong" or "failed", and what it found. TT_GPU when
 * the worker is gone, TT_INTERNAL for a reply it cannot read. */
int worker_optest(struct worker *w, const char *op, const char *runner, char *status,
		  size_t nstatus, char *detail, size_t ndetail, struct diags *d);
/* One key of another op measured on the worker's GPU (OPPROF; issue #39): the call's fields
 * (op_call_words) at bucket tokens, the candidates cands[0..n) (n 0: the runner's own valid
 * tactics there), FlashInfer's fallback timed beside them. What the worker answers. */
struct worker_opprof {
	int timed;              /* tactics timed */
	char win[512];          /* the winner's tactic as JSON text ("-1": the fallback) */
	double win_us, fallback_us; /* NAN: not measured */
	char gate[16];          /* ok, wrong, unchecked, off */
	char detail[480];
};
int worker_opprof(struct worker *w, const char *job_words, long bucket, int reps, bool gate,
		  const int *cands, size_t n, struct worker_opprof *out, struct diags *d);

/* The correctness gate's verdict on one candidate (the flashinfer worker's GATE). */
enum gate_verdict { GATE_OK, GATE_BAD, GATE_UNCHECKED };
struct gate_result {
	int id;
	enum gate_verdict verdict;
	double max_abs, rel;      /* its output against FlashInfer's default tactics' */
	char why[320];
};

/* The flashinfer worker checks the job's candidates c[0..n) (ids, in the order of preference)
 * against bounds (the dtype's: a tactic against FlashInfer's default tactics, the default
 * against the torch reference; {0, 0}: the dtype has none, every verdict GATE_UNCHECKED)
 * until one is not GATE_BAD; *k: how many verdicts out[] holds. A crash names the candidate
 * (GATE_BAD, "crashed the GPU worker") and the worker is restarted. */
int worker_gate(struct worker *w, const struct prof_shape *s, const struct prof_cand *c, size_t n,
		const double bounds[2], struct gate_result *out, size_t *k, struct diags *d);

/* The whole MoE layer (FlashInfer's cutlass_fused_moe) per (GEMM1, GEMM2) tactic pair under
 * one routing load (issue #49; the flashinfer backend's LAYER). */
struct layer_pair { int g1, g2; };
struct layer_result {
	int g1, g2;
	enum prof_status status;  /* PROF_UNSUPPORTED: the layer cannot be called so (why) */
	double us;                /* a call's mean over the router draws: the median of rounds */
	char why[320];
};
struct layer_load {
	const char *name;         /* "balanced", "hot-1.2", a file's name */
	const char *popularity;   /* "w,w,...", a weight per expert of every rank; NULL: uniform */
	int draws, reps, rounds, seed;
};
/* Times pairs p[0..n) as a layer of the job s (GEMM1's entry) under load: out[i] for p[i].
 * A worker that dies or hangs fails every pair not answered (restarted); a FlashInfer error
 * fails the request. */
int worker_layer(struct worker *w, const struct prof_shape *s, const struct layer_load *load,
		 const struct layer_pair *p, size_t n, struct layer_result *out, struct diags *d);

/* Times a job. Candidates that crashed or hung the worker come back PROF_FAILED with the
 * reason, the worker restarted, and the rest timed again. */
int worker_profile(struct worker *w, const struct prof_shape *s, const struct prof_cand *c,
		   size_t n, struct prof_result *out, struct diags *d);

int worker_calibrate(struct worker *w, const int (*tiles)[2], int ntiles,
		     struct gpu_calibration *cal, struct diags *d);

/* Appends a job's request line (wire.h), newline included: verb "JOB" (tunetab's own worker:
 * each candidate's whole tactic), "PREP" or "GATE" (the flashinfer worker: the candidates' ids,
 * and the entry's key, its extras' names and the runner's arguments where s has the key and
 * its extras' names, else none of the three), s's fields, GATE's bounds (NULL for the
 * others), then the candidates not done (done NULL: all). */
void worker_job_line(struct strbuf *sb, const char *verb, const struct prof_shape *s,
		     const double bounds[2], const struct prof_cand *c, size_t ncand,
		     const char *done);

/* The worker's main loop (`tunetab __worker DEVICE`): reads jobs on stdin. */
int worker_main(int argc, char **argv);

#endif
