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

struct gen_deploy {
	const char *model_name;
	long hidden, inter_total, experts_total, top_k;
	enum model_activation activation;
	bool biases;              /* biased experts: fc1/fc2 bias inputs are tensors */
	long tp, ep, tp_rank, ep_rank;
	const struct dtype_info *dt;
	enum dtype dtype;
	const struct weight_view *wv;
	int sm;                   /* device SM version (pdl, catalog) */
	bool no_fused_finalize;   /* the runner's use_fused_finalize is off (SGLang's default) */
	unsigned max_tokens;
};

/* Limits of a key file for generate --keys (README, "Limits") */
#define GEN_KEYS_MAX_BYTES (16u << 20) /* file size */
#define GEN_KEY_LINE_MAX 16384u        /* one key line, bytes */
#define GEN_KEYS_MAX 10000u            /* keys in one file */
#define GEN_TOP_MAX 128 /* enough for --top N to skip many inexpressible candidates */

struct gen_entry {
	int stage;
	long tokens;
	char *key;
	long features, k;         /* the GEMM: output features and reduction size */
	long experts, inter;      /* per rank */
	int tactic, fallback;
	double time_us;           /* the heuristic's predicted time, < 0 if none */
	int ranked;               /* candidates the heuristic ranked */
	bool skipped_first;       /* its first choice was not dispatchable */
	int top[GEN_TOP_MAX];     /* the heuristic's best dispatchable ids, best first */
	double top_time[GEN_TOP_MAX];
	int ntop;
	/* profiling (profile.c) */
	enum { CHOICE_PREDICTED, CHOICE_MEASURED, CHOICE_FALLBACK } kind;
	double fallback_us, chosen_us;  /* measured medians, < 0 when not measured */
	double chosen_lo, chosen_hi;    /* the chosen one's interval */
	int ties[GEN_TOP_MAX + 1];      /* measured ids another run may choose (note_ties) */
	int nties;
	int failed;               /* candidates that crashed or hung */
};

struct gen_plan {
	struct gen_entry *v;
	size_t n;
	struct tactic_list list;
	bool have_list;
};

/* --tp-rank all / --ep-rank all: after p (built for dep's ranks) is decided, adds for every
 * other TP rank (tp_all) and EP rank (ep_all) the keys that rank looks up, each with the
 * decision of its entry for dep's ranks (every rank runs the same GEMM shapes). Where the
 * version's key holds no rank, nothing is added. */
int gen_plan_all_ranks(const struct fi_schema *s, const struct gen_deploy *dep, struct gen_plan *p,
		       bool tp_all, bool ep_all, struct diags *d);

/* Every key the version builds for the deployment: both GEMM stages, every token bucket up
 * to max_tokens (§3.2), shapes and extras as §3.1/§3.3 describe. */
int gen_plan_deploy(const struct fi_schema *s, const struct gen_deploy *dep, struct gen_plan *p,
		    struct diags *d);
/* Exactly the keys in a file (one key string per line, '#' comments); dep gives what keys
 * do not carry (top-k when there are no extras). */
int gen_plan_keys(const struct fi_schema *s, const char *path, const struct gen_deploy *dep,
		  const struct dtype_set *dtypes, struct gen_plan *p, struct diags *d);
void gen_plan_release(struct gen_plan *p);
/* The plan as a table (sorted keys; runner "MoERunner", slot 0). */
void gen_to_table(const struct gen_plan *p, struct table *t);

#endif
