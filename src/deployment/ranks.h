/* ranks.h: a deployment's ranks in the one order every module uses: the consumer's rank files
 * (TP fastest, then PP, then DP replicas; with attention DP one group whose dp_rank is the
 * rank's attention-DP group), each with the MoE runner's TP and EP rank. Computed here once
 * for install's files and the plan's keys. */
#ifndef TUNETAB_RANKS_H
#define TUNETAB_RANKS_H

#include <stddef.h>

/* The parallel layout as the server computes it. runner_tp x runner_ep is the MoE group
 * (0 counts as 1). */
struct rank_layout {
	long tp, pp, dp, attn_dp;
	long runner_tp, runner_ep;
};

struct server_rank {
	long tp_rank, pp_rank, dp_rank; /* the consumer's file name's rank variables */
	long world_rank;                /* over TP, PP and DP replicas (vLLM offsets it by DP) */
	long moe_tp_rank, moe_ep_rank;  /* the MoE runner's (SGLang: moe_ep_rank = tp_rank //
					 * moe_tp_size; vLLM flattens DP x TP, dp_rank * tp +
					 * tp_rank) */
};

/* Every rank of l in file order (*out, caller frees; never NULL). Returns how many. */
size_t ranks_lay_out(const struct rank_layout *l, struct server_rank **out);

#endif
