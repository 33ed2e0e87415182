/* shape.h: the MoE runner's shape of a deployment (flashinfer/lookup.h struct deployment:
 * the model's sizes per rank, the dtype and its views, TP/EP and the ranks, finalize, the
 * largest bucket), built in one place from generate-style options or from the server as
 * derived (server.h). Every key generate writes and install and doctor look for starts
 * here. Fills structs and diagnostics; never prints. */
#ifndef TUNETAB_SHAPE_H
#define TUNETAB_SHAPE_H

#include <stdbool.h>

#include "base/diag.h"
#include "data/data.h"
#include "data/dtypes.h"
#include "deployment/server.h"
#include "flashinfer/lookup.h"

/* What a shape is built from. model may be NULL (generate --keys). */
struct shape_args {
	const char *cmd;        /* the command, for its usage line */
	const char *model, *weight_view;
	const struct model_profile *model_profile; /* instead of model, when set */
	const char *input_view; /* how the caller passes the input */
	int biases;             /* the experts' biases; -1 (or 0 in a zeroed struct with no
				 * profile): as the model's activation says */
	enum dtype dt;
	long experts;           /* routed experts of all ranks; 0: the model's */
	/* the MoE runner as the caller sets it, in the shape's own fields: tp, ep, tp_rank,
	 * ep_rank, top_k (0: the model's), max_tokens (0: the version's), out_torch (NULL: the
	 * dtype's) and fused_finalize; shape_build fills the rest */
	struct deployment runner;
};

/* The shape a args describe, for a GPU of SM sm and the key rules of a FlashInfer version. A
 * model YAML (a->model ending in .yaml) is loaded into *own_model (free with model_free). */
int shape_build(const struct tt_data *data, const struct dtype_set *dtypes,
		const struct shape_args *a,
		int sm, const struct fi_rules *rules, struct deployment *dep,
		struct model_profile **own_model, struct diags *d);

/* The shape of the MoE runner server s builds at its MoE ranks (tp_rank, ep_rank), m being
 * serve_model_profile(s). TT_SCRIPT when the consumer's script named a dtype tunetab does not
 * know. */
int server_shape_args(const struct serve_deployment *s, const struct model_profile *m,
		      long tp_rank, long ep_rank, struct shape_args *a, struct diags *d);

/* The CUTLASS MoE's keys FlashInfer builds for server s at MoE ranks (tp_rank, ep_rank), by
 * rules (data: with its dtypes). */
int server_moe_keys(const struct tt_data *data, const struct serve_deployment *s,
		    const struct fi_rules *rules, long tp_rank, long ep_rank,
		    struct lookup_list *keys, struct diags *d);

#endif
