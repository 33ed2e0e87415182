/* lookup.h: the keys a FlashInfer version looks up for a deployment, each an entry that the
 * tuning pipeline (tune/choose.h, tune/timing.h) fills with a tactic (flashinfer-formats.md
 * §3; tactics §1). */
#ifndef TUNETAB_LOOKUP_H
#define TUNETAB_LOOKUP_H

#include <stdbool.h>

#include "data/catalog.h"
#include "data/dtypes.h"
#include "data/firules.h"
#include "data/model.h"
#include "flashinfer/table.h"

struct strbuf;

struct deployment {
	const char *model_name;
	long hidden, inter_total, experts_total, top_k;
	enum model_activation activation;
	bool biases;              /* biased experts: fc1/fc2 bias inputs are tensors */
	long tp, ep, tp_rank, ep_rank;
	const struct dtype_info *dt;
	enum dtype dtype;
	const struct weight_view *wv;
	const struct weight_view *iv; /* the input as the caller passes it; NULL: the dtype's */
	const char *out_torch;    /* the output dtype ("torch.float16"); NULL: torch.float16 for
				   * fp16, else torch.bfloat16 */
	int sm;                   /* device SM version (pdl, catalog) */
	bool fused_finalize;      /* the runner's use_fused_finalize (FlashInfer's default on;
				   * SGLang's off) */
	unsigned max_tokens;
};

/* Limits of a key file for generate --keys (docs/guide.md, "Limits") */
#define LOOKUP_KEYS_MAX_BYTES (16u << 20) /* file size */
#define LOOKUP_KEY_LINE_MAX 16384u        /* one key line, bytes */
#define LOOKUP_KEYS_MAX 10000u            /* keys in one file */
#define LOOKUP_TOP_MAX 128 /* enough for --top N to skip many inexpressible candidates */

struct lookup_entry {
	int stage;
	long tokens;
	char *key;
	long features, k;         /* the GEMM: output features and reduction size */
	long experts, inter;      /* per rank */
	long experts_total;       /* of every rank: what FlashInfer's profiler routes over */
	long top_k;               /* experts per token (0 for --keys entries) */
	int weight_bits;          /* 0 for --keys entries */
	int tactic, fallback;
	double time_us;           /* the heuristic's predicted time, < 0 if none */
	int ranked;               /* candidates the heuristic ranked */
	bool skipped_first;       /* its first choice was not dispatchable */
	int top[LOOKUP_TOP_MAX];     /* the heuristic's best dispatchable ids, best first */
	double top_time[LOOKUP_TOP_MAX];
	int ntop;
	/* profiling (tune/timing.c) */
	enum { CHOICE_PREDICTED, CHOICE_MEASURED, CHOICE_FALLBACK } kind;
	double fallback_us, chosen_us;  /* measured medians, < 0 when not measured */
	double chosen_lo, chosen_hi;    /* the chosen one's interval */
	int ties[LOOKUP_TOP_MAX + 1];      /* measured ids another run may choose (note_ties) */
	int nties;
	int wrong[LOOKUP_TOP_MAX];  /* ids the correctness gate found computing a wrong answer */
	int nwrong;
	int failed;               /* candidates that crashed or hung */
	/* the candidates measured (PROF_OK, the gate passed), fastest median first: what the
	 * layer's pair choice draws its candidates from (tune/pairs.h) */
	int meas_id[LOOKUP_TOP_MAX + 1];
	double meas_us[LOOKUP_TOP_MAX + 1];
	int nmeas;
	/* the layer's pair choice (tune/pairs.h) decided this entry (paired); per_gemm: the
	 * tactic the per-GEMM profiles had chosen */
	bool paired;
	int per_gemm;
	struct table_selection sel; /* how the measured tactic was chosen among the candidates
				     * timed (FlashInfer's selection record); none when
				     * predicted */
	/* the fastest and the second fastest time among the candidates timed (< 0: none) and the
	 * fastest's id: the record of another winner (tune/pairs.c) */
	double sel_min_us, sel_second_us;
	int sel_min_id;
};

/* Tokens each local expert gets at e's bucket as FlashInfer's profiler routes them: T x top_k
 * picks drawn uniformly over every rank's experts (prepareFakeRouterBuffers is given
 * num_experts = local experts x ep_size), the local ones kept, so T x top_k / experts_total
 * (cutlass-moe-tactics.md §1.2, with E the total). top_k: the deployment's when e has none
 * (a --keys entry). 0 when it is unknown. */
double lookup_tokens_per_expert(const struct lookup_entry *e, long top_k);

/* What of the runner a key names (the version's extras fields, §3.3): the flashinfer backend
 * builds that runner, so a --keys run takes them from the keys. */
enum { KR_FINALIZE, KR_TOP_K, KR_TP, KR_EP, KR_ACTIVATION, KR_COUNT };
extern const char *const keys_runner_fields[KR_COUNT];
#define KEYS_ABSENT (-2L)
#define KEYS_MIXED (-1L)

struct lookup_list {
	struct lookup_entry *v;
	size_t n, alloc;
	struct tactic_list list;
	bool have_list;
	/* lookup_keys_file: the runner the keys name, per keys_runner_fields[] (key_field): the
	 * value every key holds, KEYS_MIXED where they differ, KEYS_ABSENT where the version's key
	 * has no such field */
	long runner[KR_COUNT];
};

/* --tp-rank all / --ep-rank all: after p (built for dep's ranks) is decided, adds for every
 * other TP rank (tp_all) and EP rank (ep_all) the keys that rank looks up, each with the
 * decision of its entry for dep's ranks (every rank runs the same GEMM shapes). Where the
 * version's key holds no rank, nothing is added. */
int lookup_all_ranks(const struct fi_rules *s, const struct deployment *dep, struct lookup_list *p,
		       bool tp_all, bool ep_all, struct diags *d);

/* Every key the version builds for the deployment: both GEMM stages, every token bucket up
 * to max_tokens (§3.2), shapes and extras as §3.1/§3.3 describe. */
int lookup_deploy(const struct fi_rules *s, const struct deployment *dep, struct lookup_list *p,
		    struct diags *d);
/* Exactly the keys in a file (one key string per line, '#' comments); dep gives what keys
 * do not carry (top-k when there are no extras). */
int lookup_keys_file(const struct fi_rules *s, const char *path, const struct deployment *dep,
		  const struct dtype_set *dtypes, struct lookup_list *p, struct diags *d);
void lookup_list_release(struct lookup_list *p);
/* The arguments of the deployment's MoERunner where the target version's key does not name
 * them (no extras fields before 0.6.18): the newest schema's extras fields evaluated for dep,
 * as their names (comma-separated) and a Python tuple literal. The flashinfer worker passes
 * those the installed MoERunner takes (scripts/tunetab-fi-worker.py, Kernels._key_runner). */
int lookup_runner_args(const struct fi_rules *newest, const struct deployment *dep,
		       struct strbuf *names, struct strbuf *values, struct diags *d);
/* The lookup list as a table (sorted keys; each the runner class version s names for its
 * stage, slot 0). With a policy (JSON text: the CUTLASS MoE's profiling policy, for a version
 * that saves selection records, firules_saves_selection), an entry with a selection record
 * (measured) is [runner, tactic, policy, record], as FlashInfer saves an entry it profiled. */
void lookup_to_table(const struct fi_rules *s, const struct lookup_list *p, const char *policy,
		     struct table *t);

/* The CUTLASS MoE's op of GEMM stage (1 or 2) as version s names it (key.ops: its name and
 * runner classes), or NULL when the version's rules list none. */
const struct fr_op *lookup_moe_op(const struct fi_rules *s, int stage);

#endif
