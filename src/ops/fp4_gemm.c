/* fp4_gemm.c: the key of FlashInfer's dense NVFP4 GEMM (configs/ops/fp4_gemm.yaml), as
 * mm_fp4 hands its inputs to choose_one (gemm/gemm_base.py:10317-10334, 0.7.2-0.7.4):
 *   [a, b, a_sf, b_sf, alpha, out_dtype, out, block_size, use_nvfp4, workspace]
 * with the consumers' tensors (SGLang 0.5.23 / vLLM 0.34.0: the weight [N, K/2] uint8 padded
 * to N and K multiples of 32, passed transposed; its swizzled scale [round_up(N, 128),
 * round_up(K/16, 4)] transposed; the activation's scale from the 128x4 quantizer; alpha a 0-d
 * float32; out [M, N]). Non-tensors key as (0,); the 128x4 tuning config constrains dim 0 of
 * a_sf, out and the workspace, which key as -1 (docs/research/issue39-ops-at-start.md §1). */
#include "ops/ops.h"
#include "flashinfer/pylit.h"

#include <string.h>

static long up(long x, long to)
{
	return (x + to - 1) / to * to;
}

int op_fp4_gemm_key(const struct op_def *op, const struct op_call *c, long tokens,
		    struct strbuf *out, struct diags *d)
{
	long long n, k;
	const char *runner;
	int rc;
	if ((rc = op_need_int(op, c, "n", &n, d)) || (rc = op_need_int(op, c, "k", &k, d)) ||
	    (rc = op_need_str(op, c, "runner", &runner, d)))
		return rc;
	if (n < 1 || k < 16 || k % 16)
		return diag_error(d, TT_INVALID, "op", NULL, 0, 0, "fp4_gemm: N %lld, K %lld: K is "
				  "not a multiple of the NVFP4 block (16)", n, k);
	long np = up((long)n, 32), kp = up((long)k, 32);
	long ksf = up(kp / 16, 4);
	sb_addf(out, "('%s', ", op->name);
	py_str_repr(runner, strlen(runner), out);
	sb_addf(out, ", ((%ld, %ld), (%ld, %ld), (-1, %ld), (%ld, %ld), (), (0,), (-1, %ld), "
		"(0,), (0,), (-1,)), ())", tokens, kp / 2, kp / 2, np, ksf, ksf, up(np, 128), np);
	return TT_OK;
}
