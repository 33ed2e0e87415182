/* ops.h: the keys of the FlashInfer ops a server's start-up autotune profiles besides the
 * CUTLASS fused MoE (configs/ops/<id>.yaml; issue #39): one call of the warm-up, as named
 * fields, gives the key set FlashInfer's tuner stores for it. One key builder per op
 * (fp4_gemm.c, trtllm_moe.c); the CUTLASS MoE keeps its own (flashinfer/lookup.h). Fills
 * structs and diagnostics; never prints. */
#ifndef TUNETAB_OPS_H
#define TUNETAB_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/util.h"
#include "data/opdefs.h"

/* One named field of a call: a string or an integer (the worker protocol's job fields, the
 * provenance's "calls"). */
struct op_field {
	char *name;
	char *s;        /* NULL: an integer */
	long long i;
};

/* One call the server's warm-up makes to an op (consumer scripts' ops[].calls[]):
 *   common   op, runner, consumer, tune ("at_m": tuned at the call's m, SGLang; "buckets":
 *            autotune(tuning_buckets=hybrid(tune_max), round_up=True), vLLM), m, tune_max,
 *            layer (what the call is, for the user)
 *   fp4_gemm n, k (the linear's per-rank out and in features), out (bfloat16|float16)
 *   trtllm   hidden, hidden_output, inter (per rank), experts, local_experts,
 *            local_expert_offset, top_k, shared, routing (logits|routed), finalize, act_dtype,
 *            weight_dtype (enum names), activation, layout, shuffled, packed, per_token */
struct op_call {
	struct op_field *f;
	size_t n, alloc;
};

void op_call_set_int(struct op_call *c, const char *name, long long v);
void op_call_set_str(struct op_call *c, const char *name, const char *v);
const struct op_field *op_call_get(const struct op_call *c, const char *name);
void op_call_release(struct op_call *c);
/* The call as "name=value ..." words in its field order (the worker's job line); a field whose
 * value holds a space (layer: what the call is, for the user) is not among them. */
void op_call_words(const struct op_call *c, struct strbuf *out);

/* One op the server's start-up autotune profiles besides the CUTLASS MoE (issue #39), as the
 * consumer's script says (configs/ops/<op>.yaml). */
struct op_use {
	char *op;                      /* the configs/ops id ("fp4_gemm") */
	char *runner;                  /* the runner class the server builds (or its backend) */
	bool tunes;                    /* profiled at start */
	bool unknown;                  /* tunetab cannot tell its calls (why says what) */
	char *why;                     /* when not tuned or unknown: why */
	char *from;                    /* where its token counts come from */
	struct op_call *calls;         /* the warm-up's calls, each with op, runner and consumer */
	size_t ncalls;
};

/* One key FlashInfer's tuner stores for a call. */
struct op_key {
	char *key;
	long tokens;      /* the bucket in it */
	size_t call;      /* index of the call it came from */
	/* measured on this GPU (generate --profile): the chosen tactic as JSON text (NULL: the
	 * fallback, -1), its and the fallback's time, the gate's verdict */
	bool measured;
	char *tactic;
	double time_us, fallback_us;
	char gate[16];
};

struct op_keys {
	struct op_key *v;
	size_t n, alloc;
};

/* The keys the warm-up's call stores (each once; a key already in out is not added again,
 * as FlashInfer's cache holds a key once). TT_INVALID with an error naming the field for a
 * call the op's builder cannot read. */
int op_call_keys(const struct op_def *op, const struct op_call *call, size_t index,
		 struct op_keys *out, struct diags *d);
void op_keys_release(struct op_keys *k);

/* FlashInfer's hybrid token buckets (fused_moe/utils.py:228-325): powers of two to 256, steps
 * of 256 to 2048, of 512 to 4096, then powers of two, and max itself. Caller frees. */
size_t op_hybrid_buckets(long max, long **out);
/* map_to_hybrid_bucket_uncapped(x): rounded up in its phase, no cap. */
long op_hybrid_map_uncapped(long x);

/* The builders (one file each). */
int op_fp4_gemm_key(const struct op_def *op, const struct op_call *c, long tokens,
		    struct strbuf *out, struct diags *d);
int op_trtllm_moe_key(const struct op_def *op, const struct op_call *c, long tokens,
		      struct strbuf *out, struct diags *d);

/* A call's integer field, or an error naming it (for the builders). */
int op_need_int(const struct op_def *op, const struct op_call *c, const char *name, long long *v,
		struct diags *d);
int op_need_str(const struct op_def *op, const struct op_call *c, const char *name,
		const char **v, struct diags *d);

#endif
