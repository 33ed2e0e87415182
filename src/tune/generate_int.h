/* generate_int.h: what the files of `tunetab generate` share, and nothing outside them
 * (generate.h is the public face): telling the caller (generate.c), the workers and the
 * backend (generate_session.c), one table's stages (struct run; generate.c), the other ops'
 * keys and timings (generate_ops.c), the outputs (generate_outputs.c). */
#ifndef TUNETAB_GENERATE_INT_H
#define TUNETAB_GENERATE_INT_H

#include "tune/generate.h"
#include "data/calibration.h"
#include "data/modelfit.h"
#include "flashinfer/table.h"
#include "gpu/gpu.h"
#include "script/script.h"

/* Telling the caller through its hooks (generate.c): a line, the diagnostics gathered so far
 * (errors stay in d), a warning, and with TUNETAB_PROF_TIMING=1 where the time goes. */
void gen_say(const struct generate_session *S, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void gen_hear(const struct generate_session *S, struct diags *d);
void gen_warn(const struct generate_session *S, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void gen_timing(const struct generate_session *S, const char *what);

/* The workers of S for o, started once per process (generate_session.c): the backend
 * chosen, the first GPU's worker ready, then those of --devices. */
int gen_start_workers(struct generate_session *S, const struct generate_request *o,
		      struct diags *d);

/* The measurement backend: its short name (in the journal's identity, so that a resume never
 * mixes backends) and its one line for journal, provenance and report (provenance.h). The one
 * place that decides them. */
struct backend_desc {
	const char *name;        /* "proxy", "fake", "flashinfer" */
	char text[160];          /* e.g. "proxy cuBLASLt 13.1.0" */
	const char *timed;       /* what was timed, for the summary line */
};
void gen_backend_describe(const struct generate_session *S, struct backend_desc *b);
/* --method's name (0 tunetab, 1 flashinfer, 2 full, 3 sequential). */
const char *gen_method_name(int m);

/* Everything one table's stages share; released by run_release. */
struct run {
	const struct generate_request *o;
	struct generate_request heuristic_only; /* o when auto chose no backend */
	bool not_timed;                         /* --profile asked, the runner ignores the tactic */
	struct generate_session *S;
	const struct shard *sh;
	const char *outdir;
	enum dtype dt;
	struct fi_version fv;
	const struct fi_rules *rules;
	const char *version;
	struct device_profile *own_dev;
	struct model_profile *own_model;
	struct gpu_info *gpus;
	struct script_device sdev;
	struct calibration *cal;
	struct model_fit *fit;        /* --model-fit, or the fit found for this GPU */
	struct script_value *fitv;    /* its params, as the script sees them */
	bool fit_found, fit_sister;   /* found (not a --model-fit FILE); of a sister GPU */
	struct deployment dep;
	const struct catalog *cat;
	struct lookup_list list;
	struct script *sc;
	size_t total_entries;
	struct backend_desc be;
	char *identity, *journal;
	struct timing_stats pst;
	struct pairs_result pairs;    /* the layer's pair choice (tune/pairs.h) */
	bool have_pairs;
	struct table t;
	bool have_table;
	char *written[3];
	/* the other ops' keys (rq->ops), one list per op */
	struct op_keys *opk;
	struct generate_op *ops;
	size_t nops;
};

/* The other ops' keys, each with the fallback tactic (generate_ops.c), and with --profile
 * and the flashinfer backend their timings. */
int gen_run_ops(struct run *R, struct diags *d);
int gen_run_ops_measure(struct run *R, struct diags *d);

/* The outputs built, checked and written as one set; --report's HTML (generate_outputs.c). */
int gen_run_outputs(struct run *R, struct diags *d);
int gen_run_report(struct run *R, struct diags *d);

#endif
