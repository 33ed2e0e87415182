/* trtllm_moe.c: the key of FlashInfer's TensorRT-LLM-gen NVFP4 fused MoE
 * (configs/ops/trtllm_fp4_block_scale_moe.yaml): the eight MoeRunnerInputs as the tuner sizes
 * them (fused_moe/shared/inputs.py; None -> (0,)), then the runner's extras in the order the
 * YAML lists them (sm100_runner.py:111-138):
 *   output             [T, hidden_output], or [T, 0] when finalize is deferred
 *   routing_logits     [T, experts] on the logits path, None when routed
 *   topk_ids, expert_weights [T, top_k]
 *   hidden_states      [T, hidden / 2] (packed e2m1)
 *   hidden_states_scale [T, hidden / 16] (linear fp8 block scales)
 *   gemm1_lora_delta, per_token_scale: None
 * (docs/research/issue39-ops-at-start.md §3). */
#include "ops/ops.h"
#include "flashinfer/pylit.h"

#include <string.h>

static int extras(const struct op_def *op, const struct op_call *c, struct strbuf *out,
		  struct diags *d)
{
	sb_addc(out, '(');
	for (unsigned i = 0; i < op->extras_count; i++) {
		const struct op_extra *e = &op->extras[i];
		if (i)
			sb_adds(out, ", ");
		if (e->literal) {
			sb_adds(out, e->literal);
			continue;
		}
		if (e->is_enum) {
			const char *name;
			long v;
			int rc = op_need_str(op, c, e->field, &name, d);
			if (rc)
				return rc;
			if (!opdef_enum(op, name, &v))
				return diag_error(d, TT_INVALID, "op", op->path, 0, 0, "%s: %s '%s' is "
						  "not one of the op's enums", op->id, e->field, name);
			sb_addf(out, "%ld", v);
			continue;
		}
		long long v;
		int rc = op_need_int(op, c, e->field, &v, d);
		if (rc)
			return rc;
		if (e->is_bool)
			sb_adds(out, v ? "True" : "False");
		else
			sb_addf(out, "%lld", v);
	}
	if (op->extras_count == 1)
		sb_addc(out, ',');
	sb_addc(out, ')');
	return TT_OK;
}

int op_trtllm_moe_key(const struct op_def *op, const struct op_call *c, long tokens,
		      struct strbuf *out, struct diags *d)
{
	long long hidden, hidden_out, experts, top_k, finalize;
	const char *runner, *routing;
	int rc;
	if ((rc = op_need_int(op, c, "hidden", &hidden, d)) ||
	    (rc = op_need_int(op, c, "hidden_output", &hidden_out, d)) ||
	    (rc = op_need_int(op, c, "experts", &experts, d)) ||
	    (rc = op_need_int(op, c, "top_k", &top_k, d)) ||
	    (rc = op_need_int(op, c, "finalize", &finalize, d)) ||
	    (rc = op_need_str(op, c, "runner", &runner, d)) ||
	    (rc = op_need_str(op, c, "routing", &routing, d)))
		return rc;
	if (hidden % 16)
		return diag_error(d, TT_INVALID, "op", NULL, 0, 0, "%s: hidden %lld is not a "
				  "multiple of the NVFP4 block (16)", op->id, hidden);
	bool logits = !strcmp(routing, "logits");
	if (!logits && strcmp(routing, "routed"))
		return diag_error(d, TT_INVALID, "op", NULL, 0, 0, "%s: routing '%s' is neither "
				  "logits nor routed", op->id, routing);
	sb_addf(out, "('%s', ", op->name);
	py_str_repr(runner, strlen(runner), out);
	sb_addf(out, ", ((%ld, %lld), ", tokens, finalize ? hidden_out : 0LL);
	if (logits)
		sb_addf(out, "(%ld, %lld), ", tokens, experts);
	else
		sb_adds(out, "(0,), ");
	sb_addf(out, "(%ld, %lld), (%ld, %lld), (%ld, %lld), (%ld, %lld), (0,), (0,)), ", tokens,
		top_k, tokens, top_k, tokens, hidden / 2, tokens, hidden / 16);
	rc = extras(op, c, out, d);
	if (!rc)
		sb_addc(out, ')');
	return rc;
}
