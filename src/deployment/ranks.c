/* ranks.c: a deployment's ranks in file order (ranks.h). */
#include "deployment/ranks.h"

#include "base/util.h"

size_t ranks_lay_out(const struct rank_layout *l, struct server_rank **out)
{
	long tp = l->tp > 0 ? l->tp : 1, pp = l->pp > 0 ? l->pp : 1;
	long dp = l->attn_dp > 1 ? 1 : l->dp > 0 ? l->dp : 1;
	long mtp = l->runner_tp > 0 ? l->runner_tp : 1, mep = l->runner_ep > 0 ? l->runner_ep : 1;
	size_t n = (size_t)(tp * pp * dp), i = 0;
	struct server_rank *v = xcalloc(n ? n : 1, sizeof *v);
	for (long di = 0; di < dp; di++)
		for (long pi = 0; pi < pp; pi++)
			for (long ti = 0; ti < tp; ti++, i++) {
				long g = (di * tp + ti) % (mtp * mep);
				v[i] = (struct server_rank){
					.tp_rank = ti, .pp_rank = pi,
					.dp_rank = l->attn_dp > 1 ? ti / (tp / l->attn_dp) : di,
					.world_rank = (di * pp + pi) * tp + ti,
					.moe_tp_rank = g % mtp, .moe_ep_rank = g / mtp,
				};
			}
	*out = v;
	return n;
}
