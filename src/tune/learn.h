/* learn.h: `tunetab learn`: the heuristic's free parameters (tunetab.heuristic{ params })
 * fitted to measured journals of one GPU, and the fit judged on deployments it did not see.
 *
 * Method (deterministic; docs/commands/learn.md): each journal's identity gives the deployment; the
 * heuristic ranks that deployment's keys (generate_rank) with a parameter vector; an entry's
 * regret is the measured median of the heuristic's pick (the first measured id of its ranking)
 * over the fastest measured median, minus 1. Two losses over the training entries:
 *  - time: for each entry, the weighted variance of log(predicted / measured) over the
 *    candidates both ranked and measured (the model's absolute level does not matter for a
 *    ranking); a candidate's weight falls by e for every LEARN_TIME_TAU (0.2) of log-slowdown
 *    against the entry's best, measured or predicted, whichever is nearer, so the candidates
 *    that compete for the pick count most, and so does one the model wrongly thinks
 *    competitive. Smooth, and it uses every measured candidate, not only the best.
 *  - regret: mean(log(1 + regret)) + 0.1 * max(log(1 + regret)): the geomean regret users
 *    feel, with the worst entry kept in view.
 * --loss both (the default) minimizes the time loss, then the regret loss starting from the
 * better (by regret loss) of that fit and the defaults, so the fit is never worse than the
 * defaults on its own set. Each minimization is a coordinate search: each parameter in turn
 * tries x +- k * step (k = 1, 2; step a tenth of its range, halved every sweep), clamped to
 * its range, and a move is taken only when the loss falls; parameters in the order the
 * heuristic declares them. No randomness: the same journals give the same file, byte for
 * byte. Failed and inexpressible candidates (no median) are never a measured best.
 *
 * Measured neighbours: then every measured candidate of every training entry goes into the
 * fit (data/modelfit.h, struct fit_group: by tactic_config, with where its GEMM was and
 * r = log(median / the entry's fastest median)); the default heuristic ranks an entry of a
 * deployment it has not seen by its configurations' nearby measurements, shrunk toward the
 * fitted model (scripts/lib/moe_cost.lua). The held-out deployments are judged with the
 * parameters alone (held_params) and with the neighbours (held_fit, what generate --model-fit
 * does); the training entries only with the parameters (with the neighbours they would be
 * judged on themselves).
 *
 * Rankings: an input may instead be a ranking file (data/ranking.h): a FlashInfer tuning
 * table (FlashInfer's own shipped B200 table, say) and the deployments whose keys it holds.
 * Each deployment is ranked like a journal's (generate_rank); every table key it looks up
 * (FlashInfer's key string, exactly; narrowed by the file's `only`) is a ranking entry whose
 * best candidate is taken to be the table's tactic. A table key no deployment looks up is
 * left out and counted (rank_unmatched). A ranking entry's loss is 0 when the heuristic's
 * first pick is the table's tactic and LEARN_RANK_MISS otherwise, whether the table's tactic
 * was ranked second or not at all (rank_unranked counts those). Not the margin
 * log(predicted time of the table's tactic / of the first pick), which was tried: on
 * FlashInfer's B200 table it falls by squeezing every prediction together (launch_us to
 * 19.6 us, cta_overhead_us to 9.4 us, swap_ab_factor to its bound) and its fit agreed with 54
 * of the 58 keys against the defaults' 55; with a unit per miss added it kept 55 but made
 * moves of the same kind, which changed 37 to 42 of the 42 tactics of other B200
 * deployments (FlashInfer 0.7.4) that no table speaks for (docs/benchmarks.md). Counting
 * misses, a move is taken only when agreement rises. Ranking entries join the regret loss:
 * the search minimizes mean(l) + 0.1 max(l) over journal entries (l = log(1 + regret)) and
 * ranking entries together; the time loss does not see them. Agreement (the heuristic's
 * first pick is the table's tactic) is reported beside regret, k of n. All inputs of one
 * fit are of one GPU. */
#ifndef TUNETAB_LEARN_H
#define TUNETAB_LEARN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/data.h"
#include "script/script.h"

enum learn_loss { LEARN_LOSS_BOTH, LEARN_LOSS_TIME, LEARN_LOSS_REGRET };

/* The loss of a ranking entry whose table tactic is not the heuristic's first pick ("Rankings"):
 * a miss weighs as a journal entry of regret e - 1 (172%). */
#define LEARN_RANK_MISS 1.0

struct learn_request {
	char *const *journals;  /* journals and ranking files, told apart by content */
	size_t njournals;
	const char *holdout;    /* journals whose deployment label holds this text are left out of
				 * the fit and judged (case-insensitive); NULL: none. A ranking
				 * file's deployment is labelled "MODEL DTYPE TP n EP n, ranking
				 * FILE of TABLE" (the file names) */
	const char *heuristic;  /* NULL: scripts/heuristics/default.lua */
	int sweeps;             /* 0: 6 */
	enum learn_loss loss;   /* what the search minimizes (Method) */
};

/* How a parameter vector does on a set of journals. */
struct learn_score {
	size_t entries;         /* entries with a measured best */
	double geo_regret;      /* geomean(1 + regret) - 1 */
	double max_regret;
	size_t recall4;         /* entries whose measured best is among the heuristic's first 4 */
	size_t unmeasured;      /* entries whose pick had no median (the next measured one counted) */
	double time_loss;       /* sum over entries of the time loss (Method) */
	/* a profiled --top 4 run as the journals' medians would decide it: the fastest measured of
	 * the heuristic's first four, against the fastest measured of all */
	double top4_geo_regret, top4_max_regret;
	double top4_sum_log, top4_max_log;
	size_t ranked;          /* ranking entries (Rankings) */
	size_t agree;           /* ranking entries whose first pick is the table's tactic */
	size_t rank_unranked;   /* ranking entries whose table tactic the heuristic did not rank */
};

/* The heuristic's first ids for one judged entry (learn --json: a bench scores them against
 * an oracle). */
#define LEARN_PICK_TOP 8
struct learn_pick {
	char *deployment;
	int stage;
	long tokens;
	int top[LEARN_PICK_TOP];
	int ntop;
};

struct learn_picks {
	struct learn_pick *v;
	size_t n, alloc;
};

struct learn_result {
	char *device;
	unsigned sm;
	char *heuristic;
	struct script_param *params;  /* declared (defaults) */
	double *fitted;               /* one value per param */
	size_t nparams;
	char **train, **held;         /* deployment labels */
	size_t ntrain, nheld;
	/* train_fit: the params alone (the neighbours would be the entries themselves);
	 * held_params: the params alone on the held-out; held_fit: params and neighbours */
	struct learn_score train_default, train_fit, held_default, held_params, held_fit;
	struct fit_group *measured;   /* the measured neighbours (data/modelfit.h) */
	struct learn_picks held_picks; /* the held-out entries' first ids, params and neighbours */
	size_t nmeasured;
	enum learn_loss loss;         /* what the search minimized */
	size_t rank_keys;             /* table keys the ranking files select */
	size_t rank_unmatched;        /* of those, looked up by none of the file's deployments */
	double seconds;
};

int learn_run(struct tt_data *data, const struct learn_request *rq, struct learn_result *r,
	      struct diags *d);
/* Reads one journal as learn does (its identity as a deployment, the last median of each
 * candidate) and drops it: the reader alone, for the fuzz target. */
int learn_read_journal(const char *path, struct diags *d);
/* Reads one ranking file as learn does (the file, its table, the table's tactics of the keys
 * it selects) without the data: the reader alone, for the fuzz target. */
int learn_read_ranking(const char *path, struct diags *d);

/* The fit as a model-fit YAML file (data/modelfit.h). Caller frees. */
char *learn_yaml(const struct learn_result *r);
void learn_result_release(struct learn_result *r);

#endif
