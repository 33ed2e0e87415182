/* gpu_cuda.cu: the GPU layer on the CUDA Runtime API. Every call is checked; errors are
 * returned with file:line, the CUDA error name and the failing expression. */
#include "gpu/gpu.h"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"
#include "gpu/measure.h"

/* ---------------------------------------------------------------------------------------
 * cuBLASLt, loaded when the first GEMM needs it. Linking it costs every tunetab command about
 * 0.08 s at start (a 500 MB library to map and relocate) though only the profiling worker
 * uses it; so tunetab defines the functions it calls itself, each forwarding to the library's
 * own, found with dlopen/dlsym on first use. A missing library makes every call fail with
 * CUBLAS_STATUS_NOT_INITIALIZED, and lt_load() says why. */
#include <dlfcn.h>

static void *lt_lib;
static char lt_why[256];

static bool lt_load(void)
{
	static bool tried;
	if (tried)
		return lt_lib != nullptr;
	tried = true;
	char name[64];
	snprintf(name, sizeof name, "libcublasLt.so.%d", CUBLAS_VER_MAJOR);
	lt_lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lt_lib) {
		const char *e = dlerror();
		snprintf(lt_why, sizeof lt_why, "cannot load %s: %s", name, e ? e : "unknown error");
	}
	return lt_lib != nullptr;
}

static void *lt_sym(const char *fn)
{
	return lt_load() ? dlsym(lt_lib, fn) : nullptr;
}

#define LT_FWD(name, params, args)                                                            \
	extern "C" cublasStatus_t name params                                                 \
	{                                                                                     \
		static auto f = (cublasStatus_t(*) params)lt_sym(#name);                      \
		return f ? f args : CUBLAS_STATUS_NOT_INITIALIZED;                            \
	}
LT_FWD(cublasLtCreate, (cublasLtHandle_t *h), (h))
LT_FWD(cublasLtMatmul,
       (cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha, const void *A,
	cublasLtMatrixLayout_t Ad, const void *B, cublasLtMatrixLayout_t Bd, const void *beta,
	const void *C, cublasLtMatrixLayout_t Cd, void *D, cublasLtMatrixLayout_t Dd,
	const cublasLtMatmulAlgo_t *algo, void *ws, size_t wsb, cudaStream_t st),
       (h, d, alpha, A, Ad, B, Bd, beta, C, Cd, D, Dd, algo, ws, wsb, st))
LT_FWD(cublasLtMatmulAlgoCapGetAttribute,
       (const cublasLtMatmulAlgo_t *a, cublasLtMatmulAlgoCapAttributes_t at, void *buf, size_t n,
	size_t *w),
       (a, at, buf, n, w))
LT_FWD(cublasLtMatmulAlgoCheck,
       (cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t Ad,
	cublasLtMatrixLayout_t Bd, cublasLtMatrixLayout_t Cd, cublasLtMatrixLayout_t Dd,
	const cublasLtMatmulAlgo_t *algo, cublasLtMatmulHeuristicResult_t *r),
       (h, d, Ad, Bd, Cd, Dd, algo, r))
LT_FWD(cublasLtMatmulAlgoConfigGetAttribute,
       (const cublasLtMatmulAlgo_t *a, cublasLtMatmulAlgoConfigAttributes_t at, void *buf,
	size_t n, size_t *w),
       (a, at, buf, n, w))
LT_FWD(cublasLtMatmulAlgoConfigSetAttribute,
       (cublasLtMatmulAlgo_t *a, cublasLtMatmulAlgoConfigAttributes_t at, const void *buf,
	size_t n),
       (a, at, buf, n))
LT_FWD(cublasLtMatmulAlgoGetHeuristic,
       (cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t Ad,
	cublasLtMatrixLayout_t Bd, cublasLtMatrixLayout_t Cd, cublasLtMatrixLayout_t Dd,
	cublasLtMatmulPreference_t p, int req, cublasLtMatmulHeuristicResult_t res[], int *ret),
       (h, d, Ad, Bd, Cd, Dd, p, req, res, ret))
LT_FWD(cublasLtMatmulAlgoGetIds,
       (cublasLtHandle_t h, cublasComputeType_t ct, cudaDataType_t st, cudaDataType_t at,
	cudaDataType_t bt, cudaDataType_t ctp, cudaDataType_t dt, int req, int ids[], int *ret),
       (h, ct, st, at, bt, ctp, dt, req, ids, ret))
LT_FWD(cublasLtMatmulAlgoInit,
       (cublasLtHandle_t h, cublasComputeType_t ct, cudaDataType_t st, cudaDataType_t at,
	cudaDataType_t bt, cudaDataType_t ctp, cudaDataType_t dt, int id, cublasLtMatmulAlgo_t *a),
       (h, ct, st, at, bt, ctp, dt, id, a))
LT_FWD(cublasLtMatmulDescCreate,
       (cublasLtMatmulDesc_t *d, cublasComputeType_t ct, cudaDataType_t st), (d, ct, st))
LT_FWD(cublasLtMatmulDescDestroy, (cublasLtMatmulDesc_t d), (d))
LT_FWD(cublasLtMatmulDescSetAttribute,
       (cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t at, const void *buf, size_t n),
       (d, at, buf, n))
LT_FWD(cublasLtMatmulPreferenceCreate, (cublasLtMatmulPreference_t *p), (p))
LT_FWD(cublasLtMatmulPreferenceDestroy, (cublasLtMatmulPreference_t p), (p))
LT_FWD(cublasLtMatmulPreferenceSetAttribute,
       (cublasLtMatmulPreference_t p, cublasLtMatmulPreferenceAttributes_t at, const void *buf,
	size_t n),
       (p, at, buf, n))
LT_FWD(cublasLtMatrixLayoutCreate,
       (cublasLtMatrixLayout_t *l, cudaDataType t, uint64_t rows, uint64_t cols, int64_t ld),
       (l, t, rows, cols, ld))
LT_FWD(cublasLtMatrixLayoutDestroy, (cublasLtMatrixLayout_t l), (l))
LT_FWD(cublasLtMatrixLayoutSetAttribute,
       (cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t at, const void *buf, size_t n),
       (l, at, buf, n))
#undef LT_FWD

extern "C" size_t cublasLtGetVersion(void)
{
	static auto f = (size_t(*)(void))lt_sym("cublasLtGetVersion");
	return f ? f() : 0;
}

extern "C" long gpu_blaslt_version(void)
{
	return (long)cublasLtGetVersion();
}

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
	env->blaslt_version = 0; /* gpu_blaslt_version() loads the library to ask */
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
#include <algorithm>
#include <cmath>
#include <string>
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

/* every power-of-two CTA tile cuBLASLt names (both orientations: the proxy may transpose) */
static const tile_map tiles[] = {
	{ 8, 8, CUBLASLT_MATMUL_TILE_8x8 }, { 8, 16, CUBLASLT_MATMUL_TILE_8x16 }, { 8, 32, CUBLASLT_MATMUL_TILE_8x32 },
	{ 8, 64, CUBLASLT_MATMUL_TILE_8x64 }, { 8, 128, CUBLASLT_MATMUL_TILE_8x128 }, { 8, 256, CUBLASLT_MATMUL_TILE_8x256 },
	{ 8, 512, CUBLASLT_MATMUL_TILE_8x512 }, { 16, 8, CUBLASLT_MATMUL_TILE_16x8 }, { 16, 16, CUBLASLT_MATMUL_TILE_16x16 },
	{ 16, 32, CUBLASLT_MATMUL_TILE_16x32 }, { 16, 64, CUBLASLT_MATMUL_TILE_16x64 }, { 16, 128, CUBLASLT_MATMUL_TILE_16x128 },
	{ 16, 256, CUBLASLT_MATMUL_TILE_16x256 }, { 16, 512, CUBLASLT_MATMUL_TILE_16x512 }, { 32, 8, CUBLASLT_MATMUL_TILE_32x8 },
	{ 32, 16, CUBLASLT_MATMUL_TILE_32x16 }, { 32, 32, CUBLASLT_MATMUL_TILE_32x32 }, { 32, 64, CUBLASLT_MATMUL_TILE_32x64 },
	{ 32, 128, CUBLASLT_MATMUL_TILE_32x128 }, { 32, 256, CUBLASLT_MATMUL_TILE_32x256 }, { 32, 512, CUBLASLT_MATMUL_TILE_32x512 },
	{ 64, 8, CUBLASLT_MATMUL_TILE_64x8 }, { 64, 16, CUBLASLT_MATMUL_TILE_64x16 }, { 64, 32, CUBLASLT_MATMUL_TILE_64x32 },
	{ 64, 64, CUBLASLT_MATMUL_TILE_64x64 }, { 64, 128, CUBLASLT_MATMUL_TILE_64x128 }, { 64, 256, CUBLASLT_MATMUL_TILE_64x256 },
	{ 64, 512, CUBLASLT_MATMUL_TILE_64x512 }, { 128, 8, CUBLASLT_MATMUL_TILE_128x8 }, { 128, 16, CUBLASLT_MATMUL_TILE_128x16 },
	{ 128, 32, CUBLASLT_MATMUL_TILE_128x32 }, { 128, 64, CUBLASLT_MATMUL_TILE_128x64 }, { 128, 128, CUBLASLT_MATMUL_TILE_128x128 },
	{ 128, 256, CUBLASLT_MATMUL_TILE_128x256 }, { 128, 512, CUBLASLT_MATMUL_TILE_128x512 }, { 256, 8, CUBLASLT_MATMUL_TILE_256x8 },
	{ 256, 16, CUBLASLT_MATMUL_TILE_256x16 }, { 256, 32, CUBLASLT_MATMUL_TILE_256x32 }, { 256, 64, CUBLASLT_MATMUL_TILE_256x64 },
	{ 256, 128, CUBLASLT_MATMUL_TILE_256x128 }, { 256, 256, CUBLASLT_MATMUL_TILE_256x256 }, { 256, 512, CUBLASLT_MATMUL_TILE_256x512 },
	{ 512, 8, CUBLASLT_MATMUL_TILE_512x8 }, { 512, 16, CUBLASLT_MATMUL_TILE_512x16 }, { 512, 32, CUBLASLT_MATMUL_TILE_512x32 },
	{ 512, 64, CUBLASLT_MATMUL_TILE_512x64 }, { 512, 128, CUBLASLT_MATMUL_TILE_512x128 }, { 512, 512, CUBLASLT_MATMUL_TILE_512x512 },
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
	void reset()
	{
		if (op) cublasLtMatmulDescDestroy(op);
		if (a) cublasLtMatrixLayoutDestroy(a);
		if (b) cublasLtMatrixLayoutDestroy(b);
		if (d) cublasLtMatrixLayoutDestroy(d);
		op = nullptr;
		a = b = d = nullptr;
	}
	~lt_problem() { reset(); }
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
	/* D's leading dimension rounded up to 16 elements: Hopper's kernels need 16-byte aligned
	 * columns, and FlashInfer's grouped GEMM pads each expert's rows the same way */
	long ldd = (M + 15) / 16 * 16;
	LT(cublasLtMatrixLayoutCreate(&p->d, CUDA_R_16BF, M, N, ldd));
	int b32 = (int)batch;
	long long sa = K * M, sb = K * N, sd = ldd * N;
	LT(cublasLtMatrixLayoutSetAttribute(p->a, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b32, sizeof b32));
	LT(cublasLtMatrixLayoutSetAttribute(p->b, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b32, sizeof b32));
	LT(cublasLtMatrixLayoutSetAttribute(p->d, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b32, sizeof b32));
	LT(cublasLtMatrixLayoutSetAttribute(p->a, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof sa));
	LT(cublasLtMatrixLayoutSetAttribute(p->b, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof sb));
	LT(cublasLtMatrixLayoutSetAttribute(p->d, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sd, sizeof sd));
	return 0;
}

/* The uint32 id list an algorithm advertises for a capability (tile ids, stage ids). */
static std::vector<uint32_t> cap_ids(const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoCapAttributes_t attr)
{
	size_t sz = 0;
	std::vector<uint32_t> ids;
	if (cublasLtMatmulAlgoCapGetAttribute(algo, attr, nullptr, 0, &sz) != CUBLAS_STATUS_SUCCESS || !sz)
		return ids;
	ids.resize(sz / sizeof(uint32_t));
	if (cublasLtMatmulAlgoCapGetAttribute(algo, attr, ids.data(), sz, &sz) != CUBLAS_STATUS_SUCCESS)
		ids.clear();
	return ids;
}

static bool has_id(const std::vector<uint32_t> &v, uint32_t id)
{
	return std::find(v.begin(), v.end(), id) != v.end();
}

/* TUNETAB_LT_DUMP=1: what cuBLASLt offers on this GPU (algorithm ids, tiles, stages), once. */
static void dump_algos(cublasLtHandle_t h, cudaDataType_t in)
{
	static bool done = false;
	if (done || !getenv("TUNETAB_LT_DUMP"))
		return;
	done = true;
	int ids[128], nids = 0;
	cublasLtMatmulAlgoGetIds(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, in, in, CUDA_R_16BF, CUDA_R_16BF, 128, ids, &nids);
	for (int i = 0; i < nids; i++) {
		cublasLtMatmulAlgo_t algo;
		if (cublasLtMatmulAlgoInit(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, in, in, CUDA_R_16BF, CUDA_R_16BF,
					   ids[i], &algo) != CUBLAS_STATUS_SUCCESS)
			continue;
		std::vector<uint32_t> t = cap_ids(&algo, CUBLASLT_ALGO_CAP_TILE_IDS), g = cap_ids(&algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
		std::string line = "lt-dump: type " + std::to_string((int)in) + " algo " + std::to_string(ids[i]) +
				   " tiles";
		for (uint32_t x : t) line += " " + std::to_string(x);
		line += " stages";
		for (uint32_t x : g) line += " " + std::to_string(x);
		gpu_trace("%s", line.c_str());
	}
}

static void dump_heuristics(const cublasLtMatmulHeuristicResult_t *r, int n)
{
	static int done = 0;
	if (done >= 2 || !getenv("TUNETAB_LT_DUMP"))
		return;
	done++;
	for (int i = 0; i < n; i++) {
		uint32_t v[9] = { 0 };
		static const cublasLtMatmulAlgoConfigAttributes_t at[9] = {
			CUBLASLT_ALGO_CONFIG_ID, CUBLASLT_ALGO_CONFIG_TILE_ID, CUBLASLT_ALGO_CONFIG_STAGES_ID,
			CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID,
			CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING,
			CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, CUBLASLT_ALGO_CONFIG_SPLITK_NUM
		};
		size_t w;
		for (int j = 0; j < 9; j++) {
			if (j == 3 || j == 4) { /* cluster and inner shape ids are uint16_t */
				uint16_t x = 0;
				cublasLtMatmulAlgoConfigGetAttribute(&r[i].algo, at[j], &x, sizeof x, &w);
				v[j] = x;
			} else {
				cublasLtMatmulAlgoConfigGetAttribute(&r[i].algo, at[j], &v[j], sizeof v[j], &w);
			}
		}
		gpu_trace("lt-heur: state %d algo %u tile %u stages %u cluster %u inner %u custom %u "
			  "swizzle %u reduction %u splitk %u ws %zu", (int)r[i].state, v[0], v[1], v[2], v[3],
			  v[4], v[5], v[6], v[7], v[8], r[i].workspaceSize);
	}
}

/* One configuration, checked on the host (no launch). INNER_SHAPE_ID and CLUSTER_SHAPE_ID
 * are uint16_t (cublasLt.h); the custom option (a per-algorithm variant) is the template's,
 * then each other the algorithm allows, as cuBLASLt accepts some tiles only with one. */
static bool try_config(cublasLtHandle_t h, lt_problem *p, cublasLtMatmulAlgo_t algo, uint32_t tile,
		       uint32_t stages, int cluster_set, uint16_t cluster, uint16_t inner, size_t ws,
		       cublasLtMatmulAlgo_t *out)
{
	int splitk = 1;
	if (cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile) ||
	    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk) ||
	    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages) ||
	    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &inner, sizeof inner))
		return false;
	if (cluster_set && cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
								&cluster, sizeof cluster))
		return false;
	uint32_t custom0 = 0, cmax = 0;
	size_t w;
	cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom0, sizeof custom0, &w);
	int32_t cm = 0;
	if (cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, &cm, sizeof cm, &w) ==
		    CUBLAS_STATUS_SUCCESS && cm > 0)
		cmax = (uint32_t)std::min(cm, 15);
	for (uint32_t k = 0; k <= cmax + 1; k++) {
		uint32_t custom = k == 0 ? custom0 : k - 1;
		if (k > 0 && custom == custom0)
			continue;
		if (cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom,
							 sizeof custom))
			continue;
		cublasLtMatmulHeuristicResult_t res;
		if (cublasLtMatmulAlgoCheck(h, p->op, p->a, p->b, p->d, p->d, &algo, &res) == CUBLAS_STATUS_SUCCESS &&
		    res.workspaceSize <= ws) {
			*out = algo;
			return true;
		}
	}
	return false;
}

/* An algorithm of this problem with the candidate's tile (and stages, cluster), if cuBLASLt has
 * one: every algorithm that lists the tile among its CUBLASLT_ALGO_CAP_TILE_IDS is tried with
 * the wanted stage id (or each one it lists) and the cluster; a host-side check, no launch. */
static int pick_algo(cublasLtHandle_t h, lt_problem *p, cudaDataType_t in, cublasLtMatmulTile_t tile,
		     int stages_set, cublasLtMatmulStages_t stages, int cluster_set,
		     cublasLtClusterShape_t cluster, size_t ws, cublasLtMatmulAlgo_t *out)
{
	dump_algos(h, in);
	int ids[128], nids = 0;
	if (cublasLtMatmulAlgoGetIds(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, in, in, CUDA_R_16BF, CUDA_R_16BF,
				     128, ids, &nids) != CUBLAS_STATUS_SUCCESS)
		return -1;
	/* First cuBLASLt's own heuristic configurations for this problem: one with the tile as
	 * it is, then each as a template (its algorithm, stages, inner shape, options) with the
	 * tile (and cluster) replaced. They carry every attribute a kernel family needs. */
	cublasLtMatmulPreference_t pref = nullptr;
	cublasLtMatmulHeuristicResult_t heur[64];
	int nheur = 0;
	if (cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS) {
		uint64_t wsz = ws;
		cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz, sizeof wsz);
		if (cublasLtMatmulAlgoGetHeuristic(h, p->op, p->a, p->b, p->d, p->d, pref, 64, heur, &nheur) !=
		    CUBLAS_STATUS_SUCCESS)
			nheur = 0;
		cublasLtMatmulPreferenceDestroy(pref);
	}
	dump_heuristics(heur, nheur);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nheur; i++) {
			if (heur[i].state != CUBLAS_STATUS_SUCCESS)
				continue;
			cublasLtMatmulAlgo_t algo = heur[i].algo;
			uint32_t t = 0, sg = 0;
			uint16_t inner = 0;
			size_t w;
			cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &t, sizeof t, &w);
			cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &sg, sizeof sg, &w);
			cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &inner, sizeof inner, &w);
			if (pass == 0 && t != (uint32_t)tile)
				continue;
			if (stages_set && stages < CUBLASLT_MATMUL_STAGES_8xAUTO)
				sg = (uint32_t)stages; /* SM80-style: its fixed stage count */
			if (try_config(h, p, algo, (uint32_t)tile, sg, cluster_set, (uint16_t)cluster, inner, ws, out))
				return 0;
		}
	static const uint16_t inners[] = { 0, 1, 2, 3, 4 };
	for (int i = 0; i < nids; i++) {
		cublasLtMatmulAlgo_t algo;
		if (cublasLtMatmulAlgoInit(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, in, in, CUDA_R_16BF,
					   CUDA_R_16BF, ids[i], &algo) != CUBLAS_STATUS_SUCCESS)
			continue;
		if (!has_id(cap_ids(&algo, CUBLASLT_ALGO_CAP_TILE_IDS), (uint32_t)tile))
			continue;
		std::vector<uint32_t> st = cap_ids(&algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
		std::vector<uint32_t> try_st;
		if (stages_set && has_id(st, (uint32_t)stages))
			try_st.push_back((uint32_t)stages);
		if (!(stages_set && stages < CUBLASLT_MATMUL_STAGES_8xAUTO)) /* fixed SM80 stages: only that */
			for (uint32_t x : st)
				if (!has_id(try_st, x))
					try_st.push_back(x);
		if (st.empty())
			try_st.push_back(CUBLASLT_MATMUL_STAGES_UNDEFINED);
		for (uint32_t sg : try_st)
			for (uint16_t inner : inners)
				for (int cs = cluster_set ? 1 : 0; cs >= 0; cs--) /* the cluster asked for, then unset */
					if ((cs || !cluster_set || cluster == CUBLASLT_CLUSTER_SHAPE_1x1x1) &&
					    try_config(h, p, algo, (uint32_t)tile, sg, cs, (uint16_t)cluster, inner, ws, out))
						return 0;
	}
	return -1;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* One function of about 250 lines, on purpose for now: the set-up, the per-candidate algorithm
 * search and graph capture, and the rounds share the stream, the two events, four device
 * buffers, the graphs and the cuBLASLt problems, and every CUDA call goes through CHECK, which
 * returns from this function with err filled. Split into helpers, each would take most of that
 * state and each CHECK would need its status passed back up: a change of its own, to be
 * checked with make test-gpu on a GPU. */
extern "C" int gpu_prof_run(int device, const struct prof_shape *s, const struct prof_cand *c,
			    size_t n, struct prof_result *out, prof_start_fn on_start, void *ctx,
			    char *err, size_t errlen)
{
	double t_setup0 = now_ms();
	CHECK(cudaSetDevice(device));
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, device));
	bool fp8 = !strcmp(s->dtype, "fp8") && prop.major >= 9;
	cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
	size_t esz = fp8 ? 1 : 2;
	int k_tile = fp8 ? 128 : 64; /* 128 B of K per stage (tactics §2) */
	static cublasLtHandle_t h = nullptr;
	if (!h)
	{
		if (!lt_load()) {
			snprintf(err, errlen, "%s", lt_why);
			return TT_GPU;
		}
		LT(cublasLtCreate(&h));
	}
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
	size_t r16 = [](long x) { return (size_t)((x + 15) / 16 * 16); }(tok);
	size_t f16 = (size_t)((s->features + 15) / 16 * 16);
	size_t d_bytes = (size_t)batch * std::max(r16 * (size_t)s->features, f16 * (size_t)tok) * 2;
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
	std::vector<int> reps_per(n, reps);
	float alpha = 1.0f, beta = 0.0f;
	for (size_t i = 0; i < n; i++) {
		out[i].id = c[i].id;
		out[i].status = PROF_UNSUPPORTED;
		out[i].n = 0;
		out[i].why[0] = '\0';
		/* The candidate's output tile over (tokens, features), oriented as it swaps or not.
		 * cuBLASLt does not offer every tile in both orientations, so when the direct form has
		 * no algorithm the proxy computes the transposed product D^T = B^T A^T with the tile
		 * transposed: the same CTA decomposition of the same output. An SM80-style candidate
		 * (fixed stage count) whose tile has no SM80 kernel here is timed with any kernel of
		 * that tile. Every fallback keeps the tile; none changes it. */
		long M = c[i].swap ? s->features : tok, N = c[i].swap ? tok : s->features;
		cublasLtMatmulAlgo_t algo;
		bool test_hook = c[i].id == fault_id || c[i].id == hang_id;
		bool found = test_hook, have_tile = false;
		for (int att = 0; att < 4 && !found; att++) {
			bool tr = att & 1, loose = att >= 2;
			if (loose && !c[i].sm80)
				break;
			int tm = tr ? c[i].tile_n : c[i].tile_m, tn = tr ? c[i].tile_m : c[i].tile_n;
			int cm = tr ? c[i].cluster_n : c[i].cluster_m, cn = tr ? c[i].cluster_m : c[i].cluster_n;
			cublasLtMatmulTile_t tile;
			cublasLtMatmulStages_t stg = CUBLASLT_MATMUL_STAGES_UNDEFINED;
			cublasLtClusterShape_t cl = CUBLASLT_CLUSTER_SHAPE_AUTO;
			if (find_tile(tm, tn, &tile))
				continue;
			have_tile = true;
			int stages_ok = find_stages(k_tile, c[i].sm80 && !loose ? c[i].stages : 0, &stg) == 0;
			int cluster_ok = prop.major >= 9 && !c[i].sm80 && find_cluster(cm, cn, &cl) == 0;
			if (prop.major >= 9 && !c[i].sm80 && !cluster_ok)
				continue;
			lt_problem tmp;
			long Mt = tr ? N : M, Nt = tr ? M : N;
			if (make_problem(&tmp, in, Mt, Nt, s->k, batch, err, errlen))
				return TT_GPU;
			if (pick_algo(h, &tmp, in, tile, stages_ok, stg, cluster_ok, cl, ws_bytes, &algo))
				continue;
			probs[i].reset();
			std::swap(probs[i].op, tmp.op);
			std::swap(probs[i].a, tmp.a);
			std::swap(probs[i].b, tmp.b);
			std::swap(probs[i].d, tmp.d);
			M = Mt;
			N = Nt;
			found = true;
		}
		if (!found) {
			if (!have_tile)
				snprintf(out[i].why, sizeof out[i].why, "cuBLASLt has no %dx%d tile", c[i].tile_m,
					 c[i].tile_n);
			else
				snprintf(out[i].why, sizeof out[i].why, "no cuBLASLt algorithm accepts tile %dx%d "
					 "cluster %dx%d%s", c[i].tile_m, c[i].tile_n, c[i].cluster_m, c[i].cluster_n,
					 c[i].sm80 ? " (SM80-style)" : "");
			continue;
		}
		/* one proxy GEMM on the input set at base (A, then B) */
		auto gemm = [&](char *base) {
			char *A = base, *B = base + (size_t)batch * s->k * M * esz;
			return cublasLtMatmul(h, probs[i].op, &alpha, A, probs[i].a, B, probs[i].b, &beta, dbuf,
					      probs[i].d, dbuf, probs[i].d, &algo, ws, ws_bytes, st);
		};
		if (on_start)
			on_start(c[i].id, ctx); /* a crash or hang from here on is this candidate's */
		if (s->method == 1 && !test_hook) {
			/* FlashInfer's own method (formats §5): 3 warm-up calls, one event pair around 10
			 * back-to-back calls on the same inputs (warm L2), the mean */
			cublasStatus_t ls = CUBLAS_STATUS_SUCCESS;
			for (int w = 0; w < 3 && ls == CUBLAS_STATUS_SUCCESS; w++)
				ls = gemm(buf);
			CHECK(cudaEventRecord(e0, st));
			for (int w = 0; w < 10 && ls == CUBLAS_STATUS_SUCCESS; w++)
				ls = gemm(buf);
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
		if (!test_hook) {
			cublasStatus_t ls = CUBLAS_STATUS_SUCCESS;
			for (int w = 0; w < 2 && ls == CUBLAS_STATUS_SUCCESS; w++) {
				CHECK(cudaEventRecord(e0, st));
				ls = gemm(buf);
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
			if (c[i].id == fault_id) {
				test_fault_kernel<<<1, 32, 0, st>>>((int *)dbuf);
			} else if (c[i].id == hang_id) {
				test_hang_kernel<<<1, 1, 0, st>>>(flag);
			} else {
				cublasStatus_t ls = gemm(base);
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
	/* the rounds, intervals and racing are measure.c's (one rule for every backend); a
	 * round launches each active candidate's graph once between two events */
	double t_measure0 = now_ms();
	if (s->method != 1) {
		struct round_ctx {
			std::vector<cudaGraphExec_t> *graphs;
			std::vector<int> *reps;
			cudaStream_t st;
			cudaEvent_t e0, e1;
			char *err;
			size_t errlen;
		} rctx = { &graphs, &reps_per, st, e0, e1, err, errlen };
		for (size_t i = 0; i < n; i++)
			if (out[i].status == PROF_OK && !graphs[i])
				out[i].status = PROF_FAILED; /* cannot happen: every OK candidate has a graph */
		auto one_round = [](void *vp, int, const size_t *idx, size_t k, double *us) -> int {
			round_ctx *x = (round_ctx *)vp;
			char *err = x->err;
			size_t errlen = x->errlen;
			cudaStream_t st = x->st;
			cudaEvent_t e0 = x->e0, e1 = x->e1;
			for (size_t j = 0; j < k; j++) {
				CHECK(cudaEventRecord(e0, st));
				CHECK(cudaGraphLaunch((*x->graphs)[idx[j]], st));
				CHECK(cudaEventRecord(e1, st));
				CHECK(cudaEventSynchronize(e1));
				float ms;
				CHECK(cudaEventElapsedTime(&ms, e0, e1));
				us[j] = 1000.0 * ms / (*x->reps)[idx[j]];
			}
			return 0;
		};
		int mrc = measure_rounds(out, n, s->rounds, s->method, 0, one_round, &rctx);
		if (mrc)
			return mrc > 0 ? mrc : TT_GPU;
	}
	if (getenv("TUNETAB_PROF_TIMING"))
		gpu_trace("tunetab-worker: job %ldx%ldx%ld, %zu candidates: setup %.1f ms, "
			  "measure %.1f ms", batch, tok, s->features, n, t_measure0 - t_setup0,
			  now_ms() - t_measure0);
	for (size_t i = 0; i < n; i++) {
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
	measure_median_ci(bw.data(), bw.size(), &cal->copy_gbs, &lo, &hi);
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
		if (best <= 0) {
			snprintf(err, errlen, "calibration: cuBLASLt ran none of the %d %s tiles (first: %s)",
				 cal->ntiles, dts[d], cal->ntiles ? rs[0].why : "none");
			return TT_GPU;
		}
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
