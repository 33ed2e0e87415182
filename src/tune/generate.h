/* generate.h: `tunetab generate` as a library call: a request (what the command line asked),
 * a session (the data and the GPU workers, kept across the items of a fleet plan), hooks
 * through which the caller hears what happens while it happens, and a result per table.
 *
 * The data flow (docs/development.md, "Architecture"): target version and device -> deployment ->
 * every key FlashInfer looks up (flashinfer/lookup.h) -> the Lua heuristic ranks each key's candidates
 * (script.h) -> optionally the best are timed in GPU workers (timing.h, journal.h) -> the
 * module and JSON cache are built (table.h), checked with the validate rules, and written
 * with a provenance file, all or nothing (util.h file_set). */
#ifndef TUNETAB_GENERATE_H
#define TUNETAB_GENERATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/util.h"
#include "data/data.h"
#include "data/dtypes.h"
#include "tune/fleet.h"
#include "tune/backend.h"
#include "tune/choose.h"
#include "tune/pairs.h"
#include "tune/timing.h"
#include "tune/worker.h"
#include "ops/ops.h"
#include "deployment/shape.h"

#define GENERATE_MAX_WORKERS 16

/* generate_request.given */
enum { GIVEN_FUSED_FINALIZE = 1 };

/* What the command line asked (docs/commands/generate.md). */
struct generate_request {
	const char *device, *model, *dtype, *flashinfer, *format, *heuristic, *outdir, *keys;
	/* the model as a server's config.json describes it (generate --for CONSUMER -- LAUNCH),
	 * instead of model; biases: the experts' biases (-1: as the model's activation says) */
	const struct model_profile *model_profile;
	int biases;
	const char *input_view;        /* --input-view: how the caller passes the input (dtypes.yaml) */
	const char *weight_view, *calibration, *plan, *report;
	const char *model_fit;         /* --model-fit FILE (tunetab learn), or NULL */
	const char *backend, *python;  /* --backend (NULL: auto), --python */
	const char *command;           /* the command line as typed, for journal and report */
	/* the MoE runner, in the shape's own fields (deployment/shape.h shape_args): --tp, --ep,
	 * --tp-rank, --ep-rank, --top-k (0: the model's), --max-tokens (0: the version's), the
	 * output dtype (NULL: the dtype's) and --fused-finalize (on, FlashInfer's default) */
	struct deployment runner;
	unsigned given;                /* GIVEN_* bits: runner fields the command line set, where
					* --keys' keys decide otherwise */
	long experts;                  /* routed experts of all ranks (0: the model's; ranking files) */
	bool tp_rank_all, ep_rank_all; /* --tp-rank all, --ep-rank all */
	bool no_gate;                  /* --no-gate: the flashinfer backend's correctness gate off */
	const char *routing;           /* --routing balanced|robust|FILE (NULL: robust where EP >
					* 1 on the flashinfer backend, else balanced) */
	char **metas;                  /* --metadata KEY=VALUE */
	int nmeta;
	long script_mem_mib;
	long long script_instructions;
	bool quiet, verbose, profile;
	bool into_flashinfer;          /* -o may be FlashInfer's tuning_configs folder */
	long top, rounds;              /* --top (-1: all), --rounds (0: the default) */
	int method;                    /* 0 tunetab, 1 flashinfer, 2 full */
	double budget, timeout;
	const char *installed_fi, *installed_fi_pkg; /* the FlashInfer found here, or NULL */
	/* the other ops the server tunes at start (generate --for, install; issue #39): their
	 * keys go into the JSON cache with the op's fallback tactic and profiling policy */
	const struct op_use *ops;
	size_t nops;
	bool ops_only;                 /* the server does not tune the CUTLASS MoE: no MoE keys */
	const char *consumer;          /* the server (generate --for), or NULL */
	const char *moe_tune;          /* how it tunes the CUTLASS MoE (serve.h), or NULL */
	long moe_m;
};

/* What a table holds of one op besides the CUTLASS MoE. */
struct generate_op {
	const char *op, *runner;
	const char *covered;           /* "measured", "default", "not covered" */
	const char *why;               /* when not covered */
	size_t keys;
	size_t faster;                 /* measured: keys whose winner beat the fallback */
};

/* One table written (or the reason none was), for the caller's summary. */
struct generate_result {
	const char *model, *device, *dtype, *version, *heuristic, *catalog;
	int sm;
	long tp, ep;
	const char *keys;              /* --keys, or NULL */
	unsigned max_tokens;
	const struct shard *shard;
	size_t entries, total_entries, differ, skipped;
	size_t nworkers;
	bool profiled;
	bool not_timed;                /* --profile asked; the runner ignores the tactic (catalog
					* tactic_ignored), so the heuristic's table was written */
	int gate;                      /* the correctness gate: 1 on, 0 off (--no-gate), -1 none
					* (not the flashinfer backend) */
	struct timing_stats stats;
	const struct pairs_result *pairs; /* the layer's pair choice (--routing), NULL: not run */
	const char *backend, *timed;   /* the backend's line and what it timed */
	const char *written[3];        /* module, JSON cache, provenance file (NULL: not written) */
	const struct fi_rules *rules;
	bool ops_only;                 /* no CUTLASS MoE keys: only the ops below */
	const struct generate_op *ops;
	size_t nops;
};

/* The caller's ears. Every hook may be NULL. */
struct generate_hooks {
	void *ctx;
	/* a line for the user as it happens ("tunetab: backend proxy: ...") */
	void (*line)(void *ctx, const char *text);
	/* a warning or note as it happens */
	void (*diag)(void *ctx, const struct diag *x);
	/* each decided entry while profiling; NULL when profiling is over */
	void (*entry)(void *ctx, const struct timing_event *ev);
	/* a table was written */
	void (*table)(void *ctx, const struct generate_result *r);
	/* the heuristic's print(), one line per call (script.h); NULL drops it */
	void (*script_print)(const char *line);
};

/* What one process keeps across the tables it writes: the data, and the GPU workers (started
 * once: a CUDA context and cuBLASLt cost about half a second each time). */
struct generate_session {
	struct tt_data *data;
	const struct dtype_set *dtypes; /* the data's */
	struct worker workers[GENERATE_MAX_WORKERS];
	size_t nworkers;
	struct worker *early;           /* further GPUs' workers started with the first (generate_session.c) */
	size_t nearly;
	struct worker_device wd;        /* the GPU of workers[0] */
	int gpu_ids[GENERATE_MAX_WORKERS];
	size_t ngpu_ids;
	bool all_gpus;
	const char *gpu_why;            /* the launcher variable that chose gpu_ids[0], or "" */
	bool started;                   /* workers started (or failed to) */
	enum backend_kind backend;      /* what the workers measure with */
	struct worker_backend wb;       /* the flashinfer worker's WHO */
	char *python, *script;          /* the flashinfer worker's */
	const struct generate_hooks *hooks;
};

/* A session over loaded data (not owned); gpu ids, all_gpus and gpu_why are the caller's to
 * set before the first call. Loads configs/dtypes.yaml. */
int generate_session_init(struct generate_session *S, struct tt_data *data,
			  const struct generate_hooks *hooks, struct diags *d);
/* Detaches the workers and frees what the session owns. */
void generate_session_release(struct generate_session *S);

/* generate's defaults (docs/commands/generate.md): TP and EP 1, both formats, a 30 s watchdog per
 * job, the heuristic's 64 MiB and 10^8 instructions. Sets only those fields. */
void generate_request_defaults(struct generate_request *q);

/* One table: every key of the deployment (or of --keys), or the shard sh of them, chosen,
 * profiled when asked, checked and written under outdir. d receives the errors (a diag with
 * id DIAG_SHOW_USAGE marks a bad command line: the caller shows the usage). */
int generate_table(const struct generate_request *rq, struct generate_session *S,
		   const struct shard *sh, const char *outdir, struct diags *d);

/* --plan: the items of the fleet plan for this process's GPU, each claimed through a file in
 * the output tree and generated into its own folder; whoever finishes a device's last item
 * merges them into the device's folder (docs/fleet.md "Plans"). */
int generate_fleet_plan(const struct generate_request *rq, struct generate_session *S,
		      struct diags *d);

/* The heuristic's ranking of every key of a deployment: generate's target, device and rank
 * stages, no profiling, no output. out receives the lookup list, each entry with the
 * heuristic's best ids and predicted times (top[], top_time[]); fit (n values) overrides
 * the heuristic's params; groups (n) are a fit's measurements (device.fit_points). */
int generate_rank(const struct generate_request *rq, struct generate_session *S,
		  const struct script_value *fit, size_t nfit, const struct fit_group *groups,
		  size_t ngroups, struct lookup_list *out, struct diags *d);

/* The user's summary of a table written: what, where from, how many entries differ from the
 * fallback, what profiling did (lines ending in '\n'). */
void generate_summary(const struct generate_result *r, struct strbuf *out);
/* The files written and where each goes (lines ending in '\n'). */
void generate_written(const struct generate_result *r, struct strbuf *out);

/* The generate request that writes the table of s's keys (m: serve_model_profile's): what
 * generate --for and install generate. Its shape is server_shape_args' (shape.h). */
void generate_request_from_server(const struct serve_deployment *s, const struct model_profile *m,
				  struct generate_request *o);

/* The shape a request asks for (its dtype parsed: dt), as shape_build takes it. */
struct shape_args generate_shape_args(const struct generate_request *o, enum dtype dt,
				      const char *cmd);

#endif
