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
	long blaslt_version;  /* cublasLtGetVersion(), e.g. 130100; 0 when unknown */
};

/* One candidate of a proxy GEMM: the CTA tile in the kernel's own M/N, its cluster, stage
 * count (0 = auto) and orientation. */
struct prof_cand {
	int id;
	int tile_m, tile_n;
	int cluster_m, cluster_n;
	int stages;
	int swap;         /* tokens on N (swap_ab or a transposed list) */
	int sm80;         /* SM80-style (mma.sync) entry */
};

/* The proxy GEMM of one MoE stage and token bucket: `batch` experts, each tokens x features
 * x k, in dtype "bf16" or "fp8" (others fall back to bf16 and say so). */
struct prof_shape {
	const char *dtype;
	long batch, tokens, features, k;
	int rounds;       /* interleaved rounds: A B C A B C ... */
	int reps;         /* at most this many launches per CUDA graph replay (fewer for long GEMMs) */
	int method;       /* 0: tunetab's; 1: FlashInfer's (3 warm-up, 10 timed, mean, warm L2);
			    * 2: tunetab's without racing (every round for every candidate) */
	/* The MoE layer the GEMM belongs to, for the flashinfer backend, which times
	 * FlashInfer's own fused-MoE runner (flashinfer-formats.md §3.1, §3.3); per rank. */
	int stage;        /* 1 or 2 */
	long bucket;      /* FlashInfer's token bucket: input dim 0 */
	long hidden, inter, experts, top_k;
	long tp, tp_rank, ep, ep_rank;
	int activation;   /* FlashInfer's ActivationType */
	int biases;
	int fused_finalize; /* the runner's use_fused_finalize: 1 on (FlashInfer's default), 0 off
			   * (SGLang's default); GEMM2's tactic ids mean other configs with it off */
	int keep;         /* screening (flashinfer backend): after one sample each, this many go on */
	/* The entry's FlashInfer key and the names of its extras fields, comma-separated (the
	 * target version's schema), or NULL: the flashinfer backend builds the runner and the
	 * tensors the key names (every dtype), and checks its runner's key against it. Where the
	 * version's key has no extras, runner holds the runner's arguments (a Python tuple
	 * literal, lookup_runner_args) and key_fields their names. */
	const char *key, *key_fields, *runner;
};

enum prof_status { PROF_OK = 0, PROF_UNSUPPORTED = 1, PROF_FAILED = 2 };

struct prof_result {
	int id;
	enum prof_status status;
	double median_us, lo_us, hi_us; /* median and its 95% confidence interval */
	int n;
	char why[128];
};

/* Called before each candidate's first launch (the worker reports it, so a crash or hang
 * can be pinned on one candidate). */
typedef void (*prof_start_fn)(int id, void *ctx);

/* In the profiling worker only. Times every candidate of one shape; results in cands' order.
 * Test hooks: TUNETAB_TEST_FAULT=<id> runs an out-of-bounds kernel for that candidate,
 * TUNETAB_TEST_HANG=<id> a kernel that never ends. */
int gpu_prof_run(int device, const struct prof_shape *s, const struct prof_cand *c, size_t n,
		 struct prof_result *out, prof_start_fn on_start, void *ctx, char *err, size_t errlen);

/* What `tunetab calibrate` measures. */
struct gpu_calibration {
	double copy_gbs;          /* device-to-device copy bandwidth (read + write) */
	double tflops_bf16, tflops_fp8;
	int ntiles;
	struct { int m, n; double eff_bf16, eff_fp8; } tiles[32];
};

/* tiles_in: the tile shapes to measure (m, n pairs); results fill cal->tiles. */
int gpu_calibrate(int device, const int (*tiles_in)[2], int ntiles, struct gpu_calibration *cal,
		  char *err, size_t errlen);

/* Debugging lines of the profiling worker (TUNETAB_PROF_TIMING, TUNETAB_LT_DUMP): each one
 * whole line, without its newline, handed to the hook the worker sets (worker.c, which owns
 * the worker's stderr); with no hook they are dropped. gpu_trace formats one line and hands
 * it on (nothing when no hook is set); gpu_tracing says whether one is. */
typedef void (*gpu_trace_fn)(const char *line);
void gpu_set_trace(gpu_trace_fn fn);
int gpu_tracing(void);
void gpu_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* 1 when this binary was built with CUDA support. */
int gpu_compiled(void);
/* Fills *out (caller frees) with every visible GPU. No GPU or driver: TT_GPU with a reason. */
int gpu_query(struct gpu_info **out, int *n, struct gpu_env *env, char *err, size_t errlen);
/* cuBLASLt's version (cublasLtGetVersion, e.g. 130100), loading the library; 0 without it. */
long gpu_blaslt_version(void);

#ifdef __cplusplus
}
#endif

#endif
