/* plan.h: one deployment, one lookup plan (STYLE.md "One description, one plan"). Whichever
 * way the deployment was given (the server's launch command, or install's flags), generate,
 * install and doctor ask this module what the server will open and look up, and never
 * re-derive it:
 *   - per rank, the file the server opens (the consumer's rule, configs/consumers/<id>.yaml),
 *   - the _metadata FlashInfer compares and its file-level rejection rule for the version
 *     (flashinfer-formats.md §2.3: strict before 0.6.16, hard/soft from 0.6.16),
 *   - every key each rank looks up (per rank where the version's keys carry the TP/EP rank:
 *     0.6.18-0.7.1, §3.3), and the tactic ids the server's GPU can run (validate, for its SM).
 * What the plan cannot know (the environment's metadata with no FlashInfer to read it, a hash
 * only the consumer computes, the model's shapes without its config.json) it records as an
 * unknown, with the option that makes it known. plan_check evaluates a plan against the disk
 * with FlashInfer's own acceptance rules; install refuses what the plan says will not be used.
 * Fills structs and diagnostics; never prints. */
#ifndef TUNETAB_PLAN_H
#define TUNETAB_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/data.h"
#include "deploy/install.h"
#include "deployment/server.h"
#include "flashinfer/lookup.h"

/* Something the plan cannot know: "cannot tell: <what> — give <give>". */
struct plan_unknown {
	char what[400];
	char give[200];
};

#define PLAN_UNKNOWN_MAX 8

#define PLAN_OPS_MAX 8

/* One op the server tunes at start (the CUTLASS MoE first, then configs/ops' others): whether
 * it is tuned, and its keys in the plan (every rank looks them up). */
struct plan_op {
	const char *op, *runner;
	const struct op_def *def;      /* its data (configs/ops): the profiling policy it requests */
	bool tunes;
	bool known;                    /* its keys are in the plan */
	char why[400];                 /* not tuned, or keys not known: why */
	char **keys;                   /* (not owned: the first keyset holds them) */
	size_t nkeys;
};

/* One rank of the deployment: the file it opens and the keys it looks up. */
struct plan_rank {
	const char *path;              /* the job's rank file (rank files only) */
	long moe_tp_rank, moe_ep_rank; /* the MoE runner's (the key's, where it holds them) */
	size_t keys;                   /* index into lookup_plan.keyset */
};

/* A set of keys some ranks look up (one set for every rank where keys hold no rank). */
struct plan_keyset {
	long moe_tp_rank, moe_ep_rank;
	char **v;                      /* the CUTLASS MoE's nmoe keys, then the other ops' (in the
					* order of lookup_plan.ops) */
	size_t n, nmoe;
};

struct lookup_plan {
	struct install_job job;        /* where: rule, store or rank files, this environment */
	const struct serve_deployment *serve; /* the server as derived (NULL: install's flags) */
	const struct fi_rules *rules;  /* the key rules of the FlashInfer the server imports */
	const char *device;            /* the server's GPU, as FlashInfer's _metadata.gpu names it */
	int sm;
	bool rank_keyed;               /* the version's keys carry the TP/EP rank */
	bool keys_known;               /* keyset holds what the server looks up */
	const char *table;             /* the table given (install's --from), NULL: none (a
					* check of the server's keys) */
	struct plan_keyset *keysets;
	size_t nkeysets;
	struct plan_rank *ranks;       /* rank files: one per path of job.res; store: one */
	size_t nranks;
	char **all_keys;               /* every rank's keys (what install writes to each file) */
	size_t nall;
	struct plan_unknown unknowns[PLAN_UNKNOWN_MAX];
	size_t nunknowns;
	struct plan_op ops[PLAN_OPS_MAX];
	size_t nops;
	char moe_op[128];              /* the CUTLASS MoE's ops' names, "GEMM1-OP/gemm2" */
	/* install's flags read as the launch command they describe (consumer flags_command) */
	struct serve_deployment own_serve;
	bool derived;
	char derive_why[1200];          /* why they could not be (the first error) */
	char flags_differ[400];        /* where the flags say other than the model does (its
					* config class: a hash input), "" when they agree */
};

/* What builds a plan: the server (derived from its launch command) or install's flags (q
 * alone), and the table to install (NULL for a check: the plan's keys stand in). */
struct plan_request {
	const struct serve_deployment *serve;
	const struct install_request *q; /* the install request: paths, versions, metadata */
	const char *device;            /* the GPU's name where serve is NULL (--device), or NULL */
	const char *model_config;      /* the model's config.json where serve is NULL, or NULL */
};

/* Builds the plan: the server's keys (every rank's), then install_prepare with a cache of
 * exactly those keys (q->cache, or the plan's keys when q has none and check is set).
 * Errors as install_prepare's (j->usage for a usage error). */
int plan_build(const struct tt_data *data, const struct plan_request *r, struct lookup_plan *p,
	       struct diags *d);
void plan_release(struct lookup_plan *p);


/* --- the plan against the disk ------------------------------------------------------------ */

/* PLAN_DISAGREE: FlashInfer's own loader (plan_judge) answers otherwise than tunetab's model */
enum plan_state { PLAN_HITS, PLAN_NO, PLAN_CANNOT_TELL, PLAN_DISAGREE };

/* One reason the server will not use what is there ("no"). */
struct plan_finding {
	char what[600];
};

#define PLAN_FINDINGS_MAX 24

/* One rank file as the server loads it. */
struct plan_file {
	const char *path;
	bool exists;
	int meta;                      /* 0 accepted, 1 soft, 2 hard, 3 strict, -1 cannot tell */
	char meta_field[64];
	size_t wanted, hits;           /* this rank's keys; present in the file and used */
	size_t reprofiled;             /* present, but FlashInfer's tune mode profiles them again:
					* their profiling policy is not their op's */
	char first_reprofiled[400];    /* the first of them: its op and policy, in words */
	size_t invalid;                /* validate errors for the server's GPU and version */
	char first_invalid[320];
	bool parsed;                   /* a JSON object FlashInfer can read */
	bool *in_file;                 /* per key of its rank's set: there (tunetab's model of a
					* hit), NULL when not checked */
};

#define PLAN_DISAGREE_MAX 8

struct plan_check {
	enum plan_state state;
	struct plan_file *files;
	size_t nfiles;
	size_t wanted, hits;           /* over every rank */
	size_t reprofiled;             /* over every rank: found, but profiled again */
	bool differ;                   /* rank files of one group hold different content */
	struct plan_finding findings[PLAN_FINDINGS_MAX];
	size_t nfindings;
	struct plan_unknown unknowns[PLAN_UNKNOWN_MAX]; /* the plan's, then the check's */
	size_t nunknowns;
	size_t op_hits[PLAN_OPS_MAX];  /* per plan op: its keys in the first present file */
	size_t op_fallback[PLAN_OPS_MAX]; /* of those, the entries holding FlashInfer's fallback
				       * tactic, -1 (the server runs its default there, untuned) */
	bool op_left[PLAN_OPS_MAX];    /* an op only a measurement covers (plan_op_measured) of
				       * which a file holds no key: the server tunes it at start */
	size_t op_reprofiled[PLAN_OPS_MAX]; /* ... there, but with another profiling policy */
	bool op_checked;               /* op_hits counted (a file was there to count in) */
	bool measure;                  /* an op only a measurement covers lacks keys: a plain
				       * install leaves them to the server (install_untuned), a
				       * measured one (--profile) writes them */
	/* FlashInfer's own loader as the judge (plan_judge) */
	bool judged;                   /* its loader answered for the files */
	char judge[600];               /* judged: "FlashInfer V's loader at PACKAGE"; else why it
					* was not asked (tunetab's model alone gave the verdict) */
	size_t not_judged;             /* lookups it could not judge */
	char disagree[PLAN_DISAGREE_MAX][1000]; /* where it answers otherwise than the model */
	size_t ndisagree;
};

/* Whether plan op o is one tunetab covers only by measuring it on the GPU (every op but the
 * CUTLASS MoE, ops[0], whose tactics the cost model predicts): tuned at start, keys known.
 * Its entries in a file are measured, or FlashInfer's fallback (-1). */
bool plan_op_measured(const struct lookup_plan *p, size_t o);

/* The plan against what is on disk, with FlashInfer's acceptance rules for the version:
 * hits only when every rank's file is there, loads (its _metadata accepted: known fields
 * compared, the rest "*" or read from the environment), holds every key that rank looks up
 * with a tactic valid on the server's GPU and, where the server looks them up in FlashInfer's
 * tune mode, the profiling policy their op requests (validate_policy_used: others are
 * profiled again), and the ranks' files agree. vd: validate's data. */
void plan_check_disk(const struct lookup_plan *p, const void *vd, struct plan_check *c);
void plan_check_release(struct plan_check *c);

/* FlashInfer's own loader as the judge of c (plan_check_disk's): where the server's Python
 * (the job's) imports the FlashInfer the plan is for, scripts/tunetab-fi-judge.py loads each
 * rank file with its AutoTuner.load_configs and looks up that rank's keys with its
 * search_cache in tune mode (flashinfer/fijudge.h; each op's requested profiling policy from
 * configs/ops); c->judge says whose verdict it is. Where its answer differs from the model's
 * (a file loaded or not, a lookup found or not), c->disagree says so and c->state becomes
 * PLAN_DISAGREE; where the plan's keys are not known, only whether each file loads is
 * asked. Not asked (said in c->judge) where the server reads no cache, the store is
 * FlashInfer's managed one, no rank file is there, or that Python has no FlashInfer of the
 * plan's version. */
void plan_judge(const struct lookup_plan *p, const struct tt_data *data, struct plan_check *c);

/* The table about to be installed against the plan: tactics the server's GPU cannot run
 * (validate), keys a rank looks up that it lacks (but those install leaves to the server:
 * p->job.untuned). Findings in c (state PLAN_NO when any). */
void plan_check_table(const struct lookup_plan *p, const struct fi_cache *table,
		      const char *name, const void *vd, struct plan_check *c);


#endif
