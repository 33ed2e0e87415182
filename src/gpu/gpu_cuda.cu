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

/* ---------------------------------------------------------------------------------------
 * Proxy GEMM timing (worker process only). One batched GEMM over the local experts with
 * the candidate's tile, cluster and stages forced through cuBLASLt's algorithm config.
 * Measurement (formats §5 is what FlashInfer does; this does better): warm-up, CUDA graphs
 * of several launches, cold L2 by rotating input buffers larger than twice the L2,
 * candidates interleaved round by round, median and a 95% confidence interval.
 * --------------------------------------------------------------------------------------- */
#include <cublasLt.h>
#include <algorithm>
#include <cmath>
#include <vector>

#define LT(expr)                                                                             \
	do {                                                                                 \
		cublasStatus_t st_ = (expr);                                                 \
		if (st_ != CUBLAS_STATUS_SUCCESS) {                                          \
			snprintf(err, errlen, "%s:%d: cuBLASLt status %d in '%s'", __FILE__,  \
				 __LINE__, (int)st_, #expr);                                 \
			return TT_GPU;                                                       \
		}                                                                            \
	} while (0)

__global__ static void test_fault_kernel(int *p)
{
	/* test hook: an out-of-bounds write, as a broken tactic would do */
	p[(size_t)threadIdx.x * 1000003u + (1u << 30)] = 1;
}

__global__ static void test_hang_kernel(volatile int *flag)
{
	while (*flag == 0) {
	}
}

static int env_id(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : -1000000;
}

struct tile_map {
	int m, n;
	cublasLtMatmulTile_t tile;
};

static const tile_map tiles[] = {
	{ 64, 8, CUBLASLT_MATMUL_TILE_64x8 },      { 64, 16, CUBLASLT_MATMUL_TILE_64x16 },
	{ 64, 32, CUBLASLT_MATMUL_TILE_64x32 },    { 64, 64, CUBLASLT_MATMUL_TILE_64x64 },
	{ 64, 128, CUBLASLT_MATMUL_TILE_64x128 },  { 64, 256, CUBLASLT_MATMUL_TILE_64x256 },
	{ 128, 16, CUBLASLT_MATMUL_TILE_128x16 },  { 128, 32, CUBLASLT_MATMUL_TILE_128x32 },
	{ 128, 64, CUBLASLT_MATMUL_TILE_128x64 },  { 128, 128, CUBLASLT_MATMUL_TILE_128x128 },
	{ 128, 256, CUBLASLT_MATMUL_TILE_128x256 }, { 256, 64, CUBLASLT_MATMUL_TILE_256x64 },
	{ 256, 128, CUBLASLT_MATMUL_TILE_256x128 }, { 256, 32, CUBLASLT_MATMUL_TILE_256x32 },
};

static int find_tile(int m, int n, cublasLtMatmulTile_t *t)
{
	for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++)
		if (tiles[i].m == m && tiles[i].n == n) {
			*t = tiles[i].tile;
			return 0;
		}
	return -1;
}

static int find_cluster(int cm, int cn, cublasLtClusterShape_t *c)
{
	if (cm == 1 && cn == 1) *c = CUBLASLT_CLUSTER_SHAPE_1x1x1;
	else if (cm == 2 && cn == 1) *c = CUBLASLT_CLUSTER_SHAPE_2x1x1;
	else if (cm == 1 && cn == 2) *c = CUBLASLT_CLUSTER_SHAPE_1x2x1;
	else if (cm == 2 && cn == 2) *c = CUBLASLT_CLUSTER_SHAPE_2x2x1;
	else return -1;
	return 0;
}

static int find_stages(int k_tile, int stages, cublasLtMatmulStages_t *s)
{
	if (stages == 0) {
		*s = k_tile >= 128 ? CUBLASLT_MATMUL_STAGES_128xAUTO : CUBLASLT_MATMUL_STAGES_64xAUTO;
		return 0;
	}
	if (k_tile == 64 && stages == 2) *s = CUBLASLT_MATMUL_STAGES_64x2;
	else if (k_tile == 64 && stages == 3) *s = CUBLASLT_MATMUL_STAGES_64x3;
	else if (k_tile == 64 && stages == 4) *s = CUBLASLT_MATMUL_STAGES_64x4;
	else return -1;
	return 0;
}

struct lt_problem {
	cublasLtMatmulDesc_t op = nullptr;
	cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
	~lt_problem()
	{
		if (op) cublasLtMatmulDescDestroy(op);
		if (a) cublasLtMatrixLayoutDestroy(a);
		if (b) cublasLtMatrixLayoutDestroy(b);
		if (d) cublasLtMatrixLayoutDestroy(d);
	}
};

/* D[M x N] = op(A)[M x K] * B[K x N], A stored K x M ("TN", required for fp8), batched. */
static int make_problem(lt_problem *p, cudaDataType_t in, long M, long N, long K, long batch,
			char *err, size_t errlen)
{
	LT(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	cublasOperation_t t = CUBLAS_OP_T, nt = CUBLAS_OP_N;
	LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
	LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &nt, sizeof nt));
	LT(cublasLtMatrixLayoutCreate(&p->a, in, K, M, K));
	LT(cublasLtMatrixLayoutCreate(&p->b, in, K, N, K));
	LT(cublasLtMatrixLayoutCreate(&p->d, CUDA_R_16BF, M, N, M));
	int b32 = (int)batch;
	long long sa = K * M, sb = K * N, sd = M * N;
	LT(cublasLtMatrixLayoutSetAttribute(p->a, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b32, sizeof b32));
	LT(cublasLtMatrixLayoutSetAttribute(p->b, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b32, sizeof b32));
	LT(cublasLtMatrixLayoutSetAttribute(p->d, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b32, sizeof b32));
	LT(cublasLtMatrixLayoutSetAttribute(p->a, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof sa));
	LT(cublasLtMatrixLayoutSetAttribute(p->b, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof sb));
	LT(cublasLtMatrixLayoutSetAttribute(p->d, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sd, sizeof sd));
	return 0;
}

/* An algorithm of this problem with the candidate's tile/stages/cluster, if cuBLASLt has one. */
static int pick_algo(cublasLtHandle_t h, lt_problem *p, cudaDataType_t in, cublasLtMatmulTile_t tile,
		     int stages_set, cublasLtMatmulStages_t stages, int cluster_set,
		     cublasLtClusterShape_t cluster, size_t ws, cublasLtMatmulAlgo_t *out)
{
	int ids[64], nids = 0;
	if (cublasLtMatmulAlgoGetIds(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, in, in, CUDA_R_16BF, CUDA_R_16BF,
				     64, ids, &nids) != CUBLAS_STATUS_SUCCESS)
		return -1;
	for (int i = 0; i < nids; i++) {
		cublasLtMatmulAlgo_t algo;
		if (cublasLtMatmulAlgoInit(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, in, in, CUDA_R_16BF,
					   CUDA_R_16BF, ids[i], &algo) != CUBLAS_STATUS_SUCCESS)
			continue;
		int splitk = 1;
		if (cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile) ||
		    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk))
			continue;
		if (stages_set && cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID,
								       &stages, sizeof stages))
			continue;
		if (cluster_set && cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
									&cluster, sizeof cluster))
			continue;
		cublasLtMatmulHeuristicResult_t res;
		if (cublasLtMatmulAlgoCheck(h, p->op, p->a, p->b, p->d, p->d, &algo, &res) ==
			    CUBLAS_STATUS_SUCCESS && res.workspaceSize <= ws) {
			*out = algo;
			return 0;
		}
	}
	return -1;
}

static void median_ci(std::vector<double> &v, double *med, double *lo, double *hi)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	*med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	/* order-statistic 95% interval of the median: n/2 -+ 0.98 sqrt(n) */
	double h = 0.98 * sqrt((double)n);
	long l = (long)floor(n / 2.0 - h), u = (long)ceil(n / 2.0 + h);
	if (l < 0) l = 0;
	if (u > (long)n - 1) u = (long)n - 1;
	*lo = v[(size_t)l];
	*hi = v[(size_t)u];
}

extern "C" int gpu_prof_run(int device, const struct prof_shape *s, const struct prof_cand *c,
			    size_t n, struct prof_result *out, prof_start_fn on_start, void *ctx,
			    char *err, size_t errlen)
{
	CHECK(cudaSetDevice(device));
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, device));
	bool fp8 = !strcmp(s->dtype, "fp8") && prop.major >= 9;
	cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
	size_t esz = fp8 ? 1 : 2;
	int k_tile = fp8 ? 128 : 64; /* 128 B of K per stage (tactics §2) */
	static cublasLtHandle_t h = nullptr;
	if (!h)
		LT(cublasLtCreate(&h));
	long batch = s->batch < 1 ? 1 : s->batch;
	long tok = s->tokens < 1 ? 1 : s->tokens;
	/* rotating input sets: together more than twice the L2, so every launch starts cold */
	size_t max_mn = (size_t)std::max(tok, s->features);
	size_t set_bytes = (size_t)batch * (size_t)s->k * ((size_t)tok + (size_t)s->features) * esz;
	size_t sets = std::max<size_t>(2, (2 * (size_t)prop.l2CacheSize) / std::max<size_t>(set_bytes, 1) + 1);
	sets = std::min<size_t>(sets, 64);
	size_t free_b, total_b;
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	while (sets > 2 && sets * set_bytes > free_b / 2)
		sets--;
	if (sets * set_bytes > free_b / 2) {
		snprintf(err, errlen, "proxy GEMM needs %zu MiB, %zu MiB free", sets * set_bytes >> 20,
			 free_b >> 20);
		return TT_GPU;
	}
	char *buf = nullptr, *dbuf = nullptr, *ws = nullptr;
	size_t ws_bytes = 64u << 20;
	size_t d_bytes = (size_t)batch * max_mn * (size_t)std::min(tok, s->features) * 2;
	CHECK(cudaMalloc(&buf, sets * set_bytes));
	CHECK(cudaMemset(buf, 0, sets * set_bytes)); /* zeros: the values do not change the time of these GEMMs */
	CHECK(cudaMalloc(&dbuf, d_bytes));
	CHECK(cudaMalloc(&ws, ws_bytes));
	int *flag = nullptr;
	CHECK(cudaMalloc(&flag, sizeof(int)));
	CHECK(cudaMemset(flag, 0, sizeof(int)));
	cudaStream_t st;
	CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	const int reps = s->reps > 0 ? s->reps : 8;
	const int fault_id = env_id("TUNETAB_TEST_FAULT"), hang_id = env_id("TUNETAB_TEST_HANG");

	std::vector<cudaGraphExec_t> graphs(n, nullptr);
	std::vector<lt_problem> probs(n);
	std::vector<std::vector<double>> samples(n);
	std::vector<int> reps_per(n, reps);
	float alpha = 1.0f, beta = 0.0f;
	for (size_t i = 0; i < n; i++) {
		out[i].id = c[i].id;
		out[i].status = PROF_UNSUPPORTED;
		out[i].n = 0;
		out[i].why[0] = '\0';
		long M = c[i].swap ? s->features : tok, N = c[i].swap ? tok : s->features;
		cublasLtMatmulTile_t tile;
		cublasLtMatmulStages_t stg = CUBLASLT_MATMUL_STAGES_UNDEFINED;
		cublasLtClusterShape_t cl = CUBLASLT_CLUSTER_SHAPE_AUTO;
		if (find_tile(c[i].tile_m, c[i].tile_n, &tile)) {
			snprintf(out[i].why, sizeof out[i].why, "cuBLASLt has no %dx%d tile", c[i].tile_m, c[i].tile_n);
			continue;
		}
		int stages_ok = find_stages(k_tile, c[i].sm80 ? c[i].stages : 0, &stg) == 0;
		int cluster_ok = prop.major >= 9 && !c[i].sm80 && find_cluster(c[i].cluster_m, c[i].cluster_n, &cl) == 0;
		if (prop.major >= 9 && !c[i].sm80 && !cluster_ok) {
			snprintf(out[i].why, sizeof out[i].why, "cuBLASLt has no %dx%dx1 cluster", c[i].cluster_m, c[i].cluster_n);
			continue;
		}
		if (make_problem(&probs[i], in, M, N, s->k, batch, err, errlen))
			return TT_GPU;
		cublasLtMatmulAlgo_t algo;
		if (pick_algo(h, &probs[i], in, tile, stages_ok, stg, cluster_ok, cl, ws_bytes, &algo)) {
			snprintf(out[i].why, sizeof out[i].why, "no cuBLASLt algorithm accepts tile %dx%d cluster %dx%d%s",
				 c[i].tile_m, c[i].tile_n, c[i].cluster_m, c[i].cluster_n, c[i].sm80 ? " (SM80-style)" : "");
			continue;
		}
		if (on_start)
			on_start(c[i].id, ctx); /* a crash or hang from here on is this candidate's */
		if (s->method == 1 && c[i].id != fault_id && c[i].id != hang_id) {
			/* FlashInfer's own method (formats §5): 3 warm-up calls, one event pair around 10
			 * back-to-back calls on the same inputs (warm L2), the mean */
			char *A = buf, *B = buf + (size_t)batch * s->k * M * esz;
			cublasStatus_t ls = CUBLAS_STATUS_SUCCESS;
			for (int w = 0; w < 3 && ls == CUBLAS_STATUS_SUCCESS; w++)
				ls = cublasLtMatmul(h, probs[i].op, &alpha, A, probs[i].a, B, probs[i].b, &beta, dbuf,
						    probs[i].d, dbuf, probs[i].d, &algo, ws, ws_bytes, st);
			CHECK(cudaEventRecord(e0, st));
			for (int w = 0; w < 10 && ls == CUBLAS_STATUS_SUCCESS; w++)
				ls = cublasLtMatmul(h, probs[i].op, &alpha, A, probs[i].a, B, probs[i].b, &beta, dbuf,
						    probs[i].d, dbuf, probs[i].d, &algo, ws, ws_bytes, st);
			CHECK(cudaEventRecord(e1, st));
			CHECK(cudaEventSynchronize(e1));
			if (ls != CUBLAS_STATUS_SUCCESS) {
				out[i].status = PROF_FAILED;
				snprintf(out[i].why, sizeof out[i].why, "cublasLtMatmul status %d", (int)ls);
				continue;
			}
			float ms;
			CHECK(cudaEventElapsedTime(&ms, e0, e1));
			out[i].status = PROF_OK;
			out[i].median_us = out[i].lo_us = out[i].hi_us = 1000.0 * ms / 10;
			out[i].n = 1;
			continue;
		}
		/* long GEMMs need fewer launches per replay: aim at about 300 us per replay */
		int reps_i = reps;
		if (c[i].id != fault_id && c[i].id != hang_id) {
			char *A = buf, *B = buf + (size_t)batch * s->k * M * esz;
			cublasStatus_t ls = CUBLAS_STATUS_SUCCESS;
			for (int w = 0; w < 2 && ls == CUBLAS_STATUS_SUCCESS; w++) {
				CHECK(cudaEventRecord(e0, st));
				ls = cublasLtMatmul(h, probs[i].op, &alpha, A, probs[i].a, B, probs[i].b, &beta, dbuf,
						    probs[i].d, dbuf, probs[i].d, &algo, ws, ws_bytes, st);
				CHECK(cudaEventRecord(e1, st));
			}
			CHECK(cudaEventSynchronize(e1));
			float ms = 0;
			CHECK(cudaEventElapsedTime(&ms, e0, e1));
			if (ls == CUBLAS_STATUS_SUCCESS && ms > 0)
				reps_i = std::max(1, std::min(reps, (int)ceil(0.3 / ms)));
		}
		reps_per[i] = reps_i;
		/* warm-up, then capture the launches over rotating input sets */
		CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
		for (int r = 0; r < reps_i; r++) {
			char *base = buf + (size_t)(r % sets) * set_bytes;
			char *A = base, *B = base + (size_t)batch * s->k * M * esz;
			if (c[i].id == fault_id) {
				test_fault_kernel<<<1, 32, 0, st>>>((int *)dbuf);
			} else if (c[i].id == hang_id) {
				test_hang_kernel<<<1, 1, 0, st>>>(flag);
			} else {
				cublasStatus_t ls = cublasLtMatmul(h, probs[i].op, &alpha, A, probs[i].a, B,
								   probs[i].b, &beta, dbuf, probs[i].d, dbuf,
								   probs[i].d, &algo, ws, ws_bytes, st);
				if (ls != CUBLAS_STATUS_SUCCESS) {
					cudaGraph_t g;
					cudaStreamEndCapture(st, &g);
					if (g)
						cudaGraphDestroy(g);
					out[i].status = PROF_FAILED;
					snprintf(out[i].why, sizeof out[i].why, "cublasLtMatmul status %d", (int)ls);
					goto next;
				}
			}
		}
		{
			cudaGraph_t g;
			CHECK(cudaStreamEndCapture(st, &g));
			CHECK(cudaGraphInstantiate(&graphs[i], g, 0));
			CHECK(cudaGraphDestroy(g));
			for (int w = 0; w < 2; w++)
				CHECK(cudaGraphLaunch(graphs[i], st));
			CHECK(cudaStreamSynchronize(st));
			out[i].status = PROF_OK;
		}
next:;
	}
	/* interleaved rounds: A B C A B C ..., so clock and thermal drift hit all alike */
	int rounds = s->rounds > 0 ? s->rounds : 15;
	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < n; i++) {
			if (out[i].status != PROF_OK || !graphs[i])
				continue;
			CHECK(cudaEventRecord(e0, st));
			CHECK(cudaGraphLaunch(graphs[i], st));
			CHECK(cudaEventRecord(e1, st));
			CHECK(cudaEventSynchronize(e1));
			float ms;
			CHECK(cudaEventElapsedTime(&ms, e0, e1));
			samples[i].push_back(1000.0 * ms / reps_per[i]);
		}
	for (size_t i = 0; i < n; i++) {
		if (out[i].status == PROF_OK && !samples[i].empty()) {
			median_ci(samples[i], &out[i].median_us, &out[i].lo_us, &out[i].hi_us);
			out[i].n = (int)samples[i].size();
		}
		if (graphs[i])
			cudaGraphExecDestroy(graphs[i]);
	}
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	cudaStreamDestroy(st);
	cudaFree(flag);
	cudaFree(ws);
	cudaFree(dbuf);
	cudaFree(buf);
	return 0;
}

extern "C" int gpu_calibrate(int device, const int (*tiles_in)[2], int ntiles,
			     struct gpu_calibration *cal, char *err, size_t errlen)
{
	memset(cal, 0, sizeof *cal);
	CHECK(cudaSetDevice(device));
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, device));
	/* copy bandwidth: 1 GiB device-to-device, read + write counted */
	size_t bytes = 1u << 30;
	char *a, *b;
	CHECK(cudaMalloc(&a, bytes));
	CHECK(cudaMalloc(&b, bytes));
	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
	std::vector<double> bw;
	for (int i = 0; i < 7; i++) {
		CHECK(cudaEventRecord(e0));
		CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
		CHECK(cudaEventRecord(e1));
		CHECK(cudaEventSynchronize(e1));
		float ms;
		CHECK(cudaEventElapsedTime(&ms, e0, e1));
		bw.push_back(2.0 * bytes / (ms * 1e-3) / 1e9);
	}
	double lo, hi;
	median_ci(bw, &cal->copy_gbs, &lo, &hi);
	cudaFree(a);
	cudaFree(b);
	/* dense GEMM throughput and per-tile efficiency: one large square-ish GEMM per tile */
	struct prof_shape sh;
	memset(&sh, 0, sizeof sh);
	sh.batch = 1;
	sh.tokens = 8192;
	sh.features = 8192;
	sh.k = 8192;
	sh.rounds = 5;
	sh.reps = 3;
	const char *dts[2] = { "bf16", "fp8" };
	cal->ntiles = ntiles > 32 ? 32 : ntiles;
	for (int d = 0; d < 2; d++) {
		if (d == 1 && prop.major < 9)
			break;
		sh.dtype = dts[d];
		std::vector<prof_cand> cs(cal->ntiles + 1);
		std::vector<prof_result> rs(cal->ntiles + 1);
		for (int t = 0; t < cal->ntiles; t++) {
			cs[t] = prof_cand{ t, tiles_in[t][0], tiles_in[t][1], 1, 1, 0, 0, 0 };
		}
		int rc = gpu_prof_run(device, &sh, cs.data(), (size_t)cal->ntiles, rs.data(), nullptr, nullptr,
				      err, errlen);
		if (rc)
			return rc;
		double best = 0;
		double flop = 2.0 * sh.tokens * sh.features * sh.k;
		for (int t = 0; t < cal->ntiles; t++)
			if (rs[t].status == PROF_OK)
				best = std::max(best, flop / (rs[t].median_us * 1e-6) / 1e12);
		if (d == 0)
			cal->tflops_bf16 = best;
		else
			cal->tflops_fp8 = best;
		for (int t = 0; t < cal->ntiles; t++) {
			cal->tiles[t].m = tiles_in[t][0];
			cal->tiles[t].n = tiles_in[t][1];
			double eff = rs[t].status == PROF_OK && best > 0
					     ? flop / (rs[t].median_us * 1e-6) / 1e12 / best : 0;
			if (d == 0)
				cal->tiles[t].eff_bf16 = eff;
			else
				cal->tiles[t].eff_fp8 = eff;
		}
	}
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	return 0;
}
