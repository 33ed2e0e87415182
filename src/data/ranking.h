/* ranking.h: a ranking file: a FlashInfer tuning table (FlashInfer's own shipped one, say)
 * used by `tunetab learn` as ranking data, with the deployments whose keys it answers. Its
 * tactic for a key is taken as the best of that key's candidates (tune/learn.h, "Rankings").
 *
 *   ranking:
 *     table: ../fixtures/v0_1_trtllm_fused_moe_NVIDIA_B200.py   # relative to this file
 *     device: NVIDIA B200
 *     flashinfer: "0.4.0"
 *     deployments:
 *       - {model: deepseek-v3, dtype: nvfp4, tp: 8, max_tokens: 16384}
 *     only: ["gemm1"]       # optional: the table keys holding one of these texts
 */
#ifndef TUNETAB_RANKING_H
#define TUNETAB_RANKING_H

#include <stdbool.h>

#include "base/diag.h"
#include "data/dtypes.h"

/* A deployment as generate's options give it; a pointer field is NULL when absent (tp, ep:
 * 1; ranks: 0; top_k, experts: the model's; max_tokens: the FlashInfer version's default).
 * experts: the routed experts of all ranks, for a table tuned on a variant of the model (a
 * 3-tuple key holds the rank's experts but not the ep_size they were routed over). */
struct ranking_deployment {
	char *model;
	enum dtype dtype;
	long *tp, *ep, *tp_rank, *ep_rank, *top_k, *max_tokens, *experts;
};

struct ranking {
	char *table;              /* as written */
	char *device;             /* a device profile's name, id or alias */
	char *flashinfer;         /* the FlashInfer release whose keys the table holds */
	struct ranking_deployment *deployments;
	unsigned deployments_count;
	char **only;              /* key substrings; none: every key */
	unsigned only_count;
	char *path;               /* the file loaded */
	char *table_path;         /* table, relative to the file's folder unless absolute */
};

/* Limits of a ranking file (docs/guide.md, "Limits"). */
#define RANKING_MAX_DEPLOYMENTS 64u
#define RANKING_MAX_ONLY 256u
#define RANKING_MAX_TOKENS 1048576L   /* as generate's --max-tokens */

/* Whether the file is a ranking file: YAML whose top-level key is `ranking`. */
bool ranking_file_is(const char *path);
/* Loads strictly (unknown keys are errors; numbers in range; the table must be readable:
 * errors located at the YAML node). Caller frees with ranking_free. */
int ranking_load(const char *path, struct ranking **out, struct diags *d);
void ranking_free(struct ranking *r);
/* Adds an error located at ypath ("ranking.deployments[1].model") in r's file (checks that
 * need the other data, done by the caller) and returns TT_INVALID. */
int ranking_error_at(struct diags *d, const struct ranking *r, const char *ypath,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
