/* generate.c: `tunetab generate` as a library call (generate.h): target, deployment, keys,
 * the heuristic's ranking, profiling, the outputs checked and written all or nothing. It
 * prints nothing: what the user should hear goes through the caller's hooks. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tune/generate.h"
#include "base/util.h"
#include "data/calibration.h"
#include "data/fleetplan.h"
#include "data/modelfit.h"
#include "flashinfer/merge.h"
#include "flashinfer/names.h"
#include "flashinfer/provenance.h"
#include "flashinfer/table.h"
#include "flashinfer/validate.h"
#include "gpu/gpu.h"
#include "inspect/doctor.h"
#include "script/script.h"
#include "tune/backend.h"
#include "tune/journal.h"
#include "deployment/python.h"
#include "tune/report.h"
#include "ops/ops.h"

/* ---------------------------------------------------------------- telling the caller */

static void say(const struct generate_session *S, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct generate_session *S, const char *fmt, ...)
{
	if (!S->hooks || !S->hooks->line)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *text = xvasprintf(fmt, ap);
	va_end(ap);
	S->hooks->line(S->hooks->ctx, text);
	free(text);
}

/* The diagnostics gathered so far, told now (so that they reach the user in order), and
 * dropped from d. Errors stay in d for the caller. */
static void hear(const struct generate_session *S, struct diags *d)
{
	const struct generate_hooks *h = S->hooks;
	diags_flush(d, h ? h->diag : NULL, h ? h->ctx : NULL);
}

static void warn(const struct generate_session *S, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warn(const struct generate_session *S, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = xvasprintf(fmt, ap);
	va_end(ap);
	struct diags d = DIAGS_INIT;
	diags_add(&d, SEV_WARNING, "generate", NULL, 0, 0, "%s", text);
	hear(S, &d);
	diags_release(&d);
	free(text);
}

/* TUNETAB_PROF_TIMING=1: where a profiled run's wall time goes (diagnostics). */
static void timing(const struct generate_session *S, const char *what)
{
	static int on = -1;
	static struct timespec t0;
	if (on < 0) {
		on = getenv("TUNETAB_PROF_TIMING") != NULL;
		clock_gettime(CLOCK_MONOTONIC, &t0);
	}
	if (!on || !what || !S->hooks || !S->hooks->line)
		return;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	char *text = xasprintf("tunetab-timing: %.3f s %s",
			       (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9, what);
	S->hooks->line(S->hooks->ctx, text);
	free(text);
}

/* ---------------------------------------------------------------- the session and its workers */

static void stop_early(struct generate_session *S);

int generate_session_init(struct generate_session *S, struct tt_data *data,
			  const struct generate_hooks *hooks, struct diags *d)
{
	S->data = data;
	S->hooks = hooks;
	timing(S, NULL); /* the clock starts */
	char *path = xasprintf("%s/configs/dtypes.yaml", data->root);
	int rc = dtypes_load(path, &S->dtypes, d);
	free(path);
	return rc;
}

void generate_session_release(struct generate_session *S)
{
	timing(S, "done; stopping the workers");
	stop_early(S);
	for (size_t k = 0; k < S->nworkers; k++)
		worker_detach(&S->workers[k]);
	S->nworkers = 0;
	free(S->python);
	free(S->script);
	S->python = S->script = NULL;
	dtypes_free(S->dtypes);
	S->dtypes = NULL;
}

static int start_worker(const struct generate_session *S, const struct generate_request *o,
			struct worker *w, int device, struct diags *d)
{
	if (S->backend == BACKEND_FLASHINFER)
		return worker_start_python(w, device, o->timeout, S->python, S->script, d);
	return worker_start(w, device, o->timeout, d);
}

/* The GPUs --devices wants beside the first: the list given, or for `all` every GPU below
 * visible but the first one. */
static size_t further_gpus(const struct generate_session *S, int visible, int *want)
{
	size_t n = 0;
	if (!S->all_gpus) {
		for (size_t k = 1; k < S->ngpu_ids; k++)
			want[n++] = S->gpu_ids[k];
		return n;
	}
	for (int k = 0; k < visible && n < GENERATE_MAX_WORKERS - 1; k++)
		if (k != S->gpu_ids[0])
			want[n++] = k;
	return n;
}

static void stop_early(struct generate_session *S)
{
	for (size_t k = 0; k < S->nearly; k++)
		worker_stop(&S->early[k]);
	free(S->early);
	S->early = NULL;
	S->nearly = 0;
}

/* The first worker, and with --devices the further GPUs' workers at the same time, each sent
 * its start-up requests at once (worker_ask_ahead): their start-up (a Python worker's imports
 * take 5-8 s on an H200, docs/benchmarks.md "Start-up") runs beside the first one's instead of
 * after it. For `all` the count is worker_visible_guess()'s; start_more_workers keeps the
 * early workers the first worker's own count wants and starts any it lacks. An early worker
 * that fails to start is not an error here: start_more_workers starts it again and reports. */
static int start_first(struct generate_session *S, const struct generate_request *o,
		       struct diags *d)
{
	int rc = start_worker(S, o, &S->workers[0], S->gpu_ids[0], d);
	if (rc)
		return rc;
	worker_ask_ahead(&S->workers[0], o->dtype);
	int want[GENERATE_MAX_WORKERS];
	size_t n = further_gpus(S, S->all_gpus ? worker_visible_guess() : 0, want);
	S->early = n ? xcalloc(n, sizeof *S->early) : NULL;
	for (size_t k = 0; k < n; k++) {
		struct diags quiet = DIAGS_INIT;
		struct worker *w = &S->early[S->nearly];
		if (start_worker(S, o, w, want[k], &quiet) == TT_OK) {
			worker_ask_ahead(w, o->dtype);
			S->nearly++;
		}
		diags_release(&quiet);
	}
	return TT_OK;
}

/* GPU device's early worker moved into *w (true), or false when none was started for it. */
static bool take_early(struct generate_session *S, int device, struct worker *w)
{
	for (size_t k = 0; k < S->nearly; k++)
		if (S->early[k].device == device && S->early[k].pid > 0) {
			*w = S->early[k];
			S->early[k] = (struct worker){ .pid = -1 };
			return true;
		}
	return false;
}

/* --backend (docs/guide.md "Measurement backends"): flashinfer times FlashInfer's own kernels in a
 * Python worker, proxy the cuBLASLt stand-in; auto takes flashinfer when the Python found
 * answers with FlashInfer and a CUDA torch, else the proxy, and says which and why. With
 * TUNETAB_FAKE_GPU=1 and no --backend the fake backend stands in for the GPU. On success the
 * flashinfer worker is S->workers[0], started. */
static int choose_backend(struct generate_session *S, const struct generate_request *o,
			  struct diags *d)
{
	const char *want = o->backend ? o->backend : "auto";
	enum backend_kind own = worker_is_fake() ? BACKEND_FAKE : BACKEND_PROXY;
	S->backend = own;
	if (!strcmp(want, "proxy") || (!o->backend && own == BACKEND_FAKE))
		return TT_OK;
	char why[1100] = "";
	const char *from = "";
	S->python = python_find(o->python, &from, why, sizeof why);
	if (S->python && !(S->script = python_worker_script()))
		snprintf(why, sizeof why, "scripts/tunetab-fi-worker.py is missing from tunetab's data "
			 "folder (reinstall tunetab)");
	if (S->python && S->script) {
		S->backend = BACKEND_FLASHINFER;
		int rc = start_first(S, o, d);
		if (rc)
			return rc;
		timing(S, "flashinfer worker started");
		if (worker_who(&S->workers[0], &S->wb, d) == TT_OK) {
			S->nworkers = 1;
			timing(S, "flashinfer worker answered (python, torch and flashinfer imported)");
			if (!o->quiet)
				say(S, "tunetab: backend flashinfer: FlashInfer %s, torch %s, python %s (from %s)",
				    S->wb.version, S->wb.torch, S->python, from);
			return TT_OK;
		}
		worker_stop(&S->workers[0]);
		stop_early(S);
		snprintf(why, sizeof why, "%s (python %s, from %s)", S->wb.why, S->python, from);
		S->backend = own;
	}
	if (!strcmp(want, "flashinfer"))
		return diag_error(d, TT_GPU, "backend", NULL, 0, 0, "--backend flashinfer: %s", why);
	if (own == BACKEND_PROXY && o->dtype && !strcmp(o->dtype, "fp8")) {
		/* judged against FlashInfer's own kernels on an H200, the proxy's fp8 tables were
		 * worse than the heuristic's (docs/benchmarks.md, "FlashInfer's kernels") */
		S->backend = BACKEND_NONE;
		if (!o->quiet)
			say(S, "tunetab: backend none, the heuristic's table: %s; for fp8 the proxy GEMM "
			    "measured worse than the heuristic alone on FlashInfer's own kernels "
			    "(--backend proxy measures anyway)", why);
		return TT_OK;
	}
	if (!o->quiet)
		say(S, "tunetab: backend %s: %s", backend_kind_name(own), why);
	return TT_OK;
}

struct load_note_ctx {
	const struct generate_session *S;
	bool quiet;
};

static void on_load_note(void *ctx, const char *text)
{
	const struct load_note_ctx *c = ctx;
	if (!c->quiet)
		say(c->S, "tunetab: flashinfer: %s", text);
}

/* A worker's GPU, and for the flashinfer backend its fused-MoE module loaded (a phase that
 * compiles for minutes the first time). */
static int ready_worker(struct generate_session *S, const struct generate_request *o,
			struct worker *w, struct worker_device *wd, struct diags *d)
{
	int rc = worker_info(w, wd, d);
	if (rc || S->backend != BACKEND_FLASHINFER)
		return rc;
	double seconds; /* TUNETAB_PROF_TIMING shows the phase */
	struct load_note_ctx c = { S, o->quiet };
	return worker_load(w, o->dtype ? o->dtype : "bf16", on_load_note, &c, &seconds, d);
}

/* --devices: a worker per further GPU. Only GPUs of the first one's model join (a table is
 * for one model); others are named and left out. */
static int start_more_workers(struct generate_session *S, const struct generate_request *o,
			      struct diags *d)
{
	const struct worker_device *first = &S->wd;
	int want[GENERATE_MAX_WORKERS];
	size_t nwant = further_gpus(S, first->visible, want);
	int rc = TT_OK;
	for (size_t k = 0; k < nwant; k++) {
		struct worker_device wd;
		struct worker *w = &S->workers[S->nworkers];
		if (!take_early(S, want[k], w)) {
			if ((rc = start_worker(S, o, w, want[k], d)))
				break;
			worker_ask_ahead(w, o->dtype);
		}
		if ((rc = ready_worker(S, o, w, &wd, d))) {
			worker_stop(w);
			break;
		}
		if (strcmp(wd.gpu.name, first->gpu.name) || wd.gpu.cc_major != first->gpu.cc_major ||
		    wd.gpu.cc_minor != first->gpu.cc_minor || wd.gpu.sm_count != first->gpu.sm_count) {
			if (!o->quiet)
				warn(S, "GPU %d is a '%s', not a '%s' like GPU %d: left out (a table is "
				     "measured on one GPU model)", want[k], wd.gpu.name, first->gpu.name,
				     S->workers[0].device);
			worker_stop(w);
			continue;
		}
		S->nworkers++;
	}
	stop_early(S); /* those for GPUs the first worker does not see */
	return rc;
}

static int start_workers(struct generate_session *S, const struct generate_request *o,
			 struct diags *d)
{
	if (S->started) /* once per process: a failed start is not retried */
		return S->nworkers || S->backend == BACKEND_NONE ? TT_OK : TT_GPU;
	S->started = true;
	int rc = choose_backend(S, o, d);
	if (rc || S->backend == BACKEND_NONE)
		return rc;
	if (!S->nworkers) {
		if ((rc = start_first(S, o, d)))
			return rc;
		timing(S, "worker process started");
		S->nworkers = 1;
	}
	if ((rc = ready_worker(S, o, &S->workers[0], &S->wd, d))) {
		stop_early(S);
		if (S->gpu_why && *S->gpu_why)
			diags_add(d, SEV_NOTE, "gpu", NULL, 0, 0, "GPU %d is this process's local rank (%s): "
				  "start at most one process per visible GPU, or give --devices", S->gpu_ids[0],
				  S->gpu_why);
		return rc;
	}
	timing(S, S->backend == BACKEND_FLASHINFER ? "worker reported its GPU; fused-MoE module loaded"
						   : "worker reported its GPU");
	return start_more_workers(S, o, d);
}

/* The measurement backend: its short name (in the journal's identity, so that a resume never
 * mixes backends) and its one line for journal, provenance and report (provenance.h). The one
 * place that decides them. */
struct backend_desc {
	const char *name;        /* "proxy", "fake", "flashinfer" */
	char text[160];          /* e.g. "proxy cuBLASLt 13.1.0" */
	const char *timed;       /* what was timed, for the summary line */
};

static void backend_describe(const struct generate_session *S, struct backend_desc *b)
{
	memset(b, 0, sizeof *b);
	if (S->backend == BACKEND_FLASHINFER) {
		b->name = "flashinfer";
		b->timed = "FlashInfer's own CUTLASS fused-MoE kernels through its MoERunner";
		snprintf(b->text, sizeof b->text, "flashinfer %s (torch %s)", S->wb.version, S->wb.torch);
		return;
	}
	if (S->backend == BACKEND_FAKE) {
		b->name = "fake";
		b->timed = "synthetic timings, no GPU kernel";
		snprintf(b->text, sizeof b->text, "fake");
		return;
	}
	b->name = "proxy";
	b->timed = "the proxy GEMM, not FlashInfer's kernels";
	long v = S->wd.env.blaslt_version; /* cuBLASLt's 130100 is 13.1.0 */
	if (v > 0)
		snprintf(b->text, sizeof b->text, "proxy cuBLASLt %ld.%ld.%ld", v / 10000, v % 10000 / 100,
			 v % 100);
	else
		snprintf(b->text, sizeof b->text, "proxy");
}

static const char *method_name(int m)
{
	return m == 1 ? "flashinfer" : m == 2 ? "full" : m == 3 ? "sequential" : "tunetab";
}

/* ---------------------------------------------------------------- deployment and device */

struct shape_args generate_shape_args(const struct generate_request *o, enum dtype dt,
				      const char *cmd)
{
	return (struct shape_args){
		.cmd = cmd, .model = o->model, .weight_view = o->weight_view,
		.model_profile = o->model_profile, .biases = o->biases, .input_view = o->input_view,
		.out_torch = o->out_torch, .dt = dt, .tp = o->tp, .ep = o->ep, .tp_rank = o->tp_rank,
		.ep_rank = o->ep_rank, .top_k = o->top_k, .max_tokens = o->max_tokens,
		.experts = o->experts, .no_fused_finalize = o->no_fused_finalize,
	};
}

void generate_request_from_server(const struct serve_deployment *s, const struct model_profile *m,
				   struct generate_request *o)
{
	o->device = s->device;
	o->model_profile = m;
	o->biases = s->biases;
	o->dtype = s->dtype;
	o->input_view = s->input_view;
	o->out_torch = s->torch_dtype;
	o->tp = s->runner_tp;
	o->ep = s->runner_ep;
	o->flashinfer = s->flashinfer;
	o->max_tokens = s->max_tokens;
	o->no_fused_finalize = !s->fused_finalize;
	o->ops = s->ops;
	o->nops = s->nops;
	o->consumer = s->consumer;
	o->moe_tune = s->moe_tune;
	o->moe_m = s->moe_m;
	o->ops_only = !s->tunes;
	if (o->ops_only) /* only the CUTLASS MoE has a bundled module */
		o->format = "json";
}

static double prof_u(const uint64_t *v)
{
	return v ? (double)*v : -1;
}

static double prof_f(const double *v)
{
	return v ? *v : -1;
}

/* The device as the heuristic sees it: a detected GPU's own numbers win over its profile's
 * (devices-models.md "How to use"). */
static void fill_device(struct script_device *sd, const struct device_profile *p,
			const struct gpu_info *g)
{
	memset(sd, 0, sizeof *sd);
	sd->name = g ? g->name : p->name;
	sd->sm = g ? g->cc_major * 10 + g->cc_minor : (int)device_sm(p);
	sd->sm_count = g ? g->sm_count : prof_u(p ? p->sm_count : NULL);
	sd->smem_per_block_optin = g ? (double)g->smem_per_block_optin : prof_u(p ? p->smem_per_block_optin : NULL);
	sd->smem_per_sm = g ? (double)g->smem_per_sm : prof_u(p ? p->smem_per_sm : NULL);
	sd->l2_bytes = g ? (double)g->l2_bytes : prof_u(p ? p->l2_bytes : NULL);
	sd->memory_bandwidth_gbs = p ? prof_f(p->memory_bandwidth_gbs) : -1;
	if (sd->memory_bandwidth_gbs < 0 && g)
		sd->memory_bandwidth_gbs = 2.0 * g->mem_clock_khz * 1e3 * (g->mem_bus_width / 8.0) / 1e9;
	sd->boost_clock_mhz = g ? g->clock_khz / 1000.0 : prof_u(p ? p->boost_clock_mhz : NULL);
	sd->tflops_bf16 = p ? prof_f(p->dense_tflops.bf16) : -1;
	sd->tflops_fp8 = p ? prof_f(p->dense_tflops.fp8) : -1;
	sd->tflops_fp4 = p ? prof_f(p->dense_tflops.fp4) : -1;
}

/* ---------------------------------------------------------------- one table, in stages */

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
	struct table t;
	bool have_table;
	char *written[3];
	/* the other ops' keys (rq->ops), one list per op */
	struct op_keys *opk;
	struct generate_op *ops;
	size_t nops;
};

static void run_release(struct run *R)
{
	for (size_t i = 0; i < R->nops; i++)
		op_keys_release(&R->opk[i]);
	free(R->opk);
	free(R->ops);
	free(R->pst.wrong);
	for (int k = 0; k < 3; k++)
		free(R->written[k]);
	if (R->have_table)
		table_release(&R->t);
	free(R->identity);
	free(R->journal);
	calibration_free(R->cal);
	model_fit_free(R->fit);
	free(R->fitv);
	lookup_list_release(&R->list);
	script_close(R->sc);
	free(R->gpus);
	device_free(R->own_dev);
	model_free(R->own_model);
}

void generate_request_defaults(struct generate_request *q)
{
	q->tp = q->ep = 1;
	q->format = "both";
	q->timeout = 30;
	q->script_mem_mib = 64;
	q->script_instructions = 100000000LL;
}

/* auto chose no backend, or the runner ignores the tactic: the heuristic's table */
static void heuristic_only(struct run *R)
{
	R->heuristic_only = *R->o;
	R->heuristic_only.profile = false;
	R->o = &R->heuristic_only;
}

/* The target version (with the flashinfer backend the FlashInfer that runs the kernels, so
 * the workers start first). */
static int run_version(struct run *R, struct diags *d)
{
	struct generate_session *S = R->S;
	int rc;
	if (R->o->profile && (rc = start_workers(S, R->o, d)))
		return rc;
	if (R->o->profile && S->backend == BACKEND_NONE) /* auto chose the heuristic's table */
		heuristic_only(R);
	const struct generate_request *o = R->o;
	const char *fi_want = o->flashinfer;
	if (o->profile && S->backend == BACKEND_FLASHINFER) {
		if (o->flashinfer && strcmp(o->flashinfer, S->wb.version))
			return diag_error(d, TT_USAGE, "flashinfer", NULL, 0, 0, "--flashinfer %s, but "
					  "FlashInfer %s times the kernels (%s): drop --flashinfer, or run "
					  "the Python that has %s (--python)", o->flashinfer, S->wb.version,
					  S->python, o->flashinfer);
		fi_want = S->wb.version;
	}
	struct data_installed_fi inst = { o->installed_fi, o->installed_fi_pkg };
	rc = data_pick_rules(S->data, fi_want, o->installed_fi ? &inst : NULL, &R->fv, &R->rules,
			     !o->quiet, d);
	hear(S, d);
	if (rc)
		return rc;
	R->version = fi_want ? fi_want : R->rules->release;
	return TT_OK;
}

static int run_fit(struct run *R, struct diags *d);

/* The device: the profiled GPU, --device auto's GPU 0, a profile file or a known profile. */
static int run_device(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	struct generate_session *S = R->S;
	const struct device_set *devs = &S->data->devices;
	const struct device_profile *prof = NULL;
	const struct gpu_info *g = NULL;
	int rc;
	if (o->profile) {
		if ((rc = start_workers(S, o, d)))
			return rc;
		if (strcmp(o->device, "auto")) {
			const struct device_profile *want = device_find(devs, o->device);
			if (!want || strcmp(want->name, S->wd.gpu.name))
				return diag_error(d, TT_GPU, "gpu", NULL, 0, 0, "--profile measures this "
						  "machine's GPU %d ('%s'), not '%s': use --device auto",
						  S->gpu_ids[0], S->wd.gpu.name, o->device);
		}
		g = &S->wd.gpu;
	} else if (!strcmp(o->device, "auto")) {
		int n;
		struct gpu_env env;
		char err[512];
		if ((rc = gpu_query(&R->gpus, &n, &env, err, sizeof err)))
			return diag_error(d, rc, "gpu", NULL, 0, 0, "--device auto: %s", err);
		g = &R->gpus[0]; /* FlashInfer names the file after device 0 (formats §1.1) */
	} else if (str_ends(o->device, ".yaml")) {
		if ((rc = device_load_file(o->device, &R->own_dev, d)))
			return rc;
		prof = R->own_dev;
	} else if (!(prof = device_find(devs, o->device))) {
		const char *near[3];
		size_t k = device_nearest(devs, o->device, near, 3);
		char *nt = nearest_text(near, k > 2 ? 2 : k);
		rc = diag_error(d, TT_INVALID, "device", NULL, 0, 0, "no profile for '%s'%s (or give a "
				"profile file, --device my-gpu.yaml)", o->device, nt);
		free(nt);
		return rc;
	}
	if (g) {
		prof = device_find(devs, g->name);
		if (prof && strcmp(prof->name, g->name))
			prof = NULL;
	}
	fill_device(&R->sdev, prof, g);
	if (o->calibration) {
		if ((rc = calibration_load(o->calibration, &R->cal, d)))
			return rc;
		if (strcmp(R->cal->device, R->sdev.name))
			warn(S, "calibration '%s' was measured on '%s', not '%s'", o->calibration,
			     R->cal->device, R->sdev.name);
		R->sdev.cal = R->cal;
	}
	return run_fit(R, d);
}

/* The model fit generate uses unless --model-fit names a file or `datasheet` (issue #30): this
 * GPU's fit from the user's folder or the shipped configs/fits, else a sister GPU's (same SM: the
 * fit's parameters, this GPU's own SM count, clocks and bandwidth from its profile). NULL: none. */
static char *find_fit(const struct run *R, bool *sister)
{
	const struct generate_request *o = R->o;
	*sister = false;
	if (o->model_fit && strcmp(o->model_fit, "auto"))
		return NULL;
	char *dirs[2];
	model_fit_dirs(R->S->data->root, dirs);
	char *p = model_fit_find((const char *const *)dirs, 2, R->sdev.name, (unsigned)R->sdev.sm,
				 sister);
	free(dirs[0]);
	free(dirs[1]);
	return p;
}

/* The model the heuristic runs with, as the script's device.fit: a fit (found, or --model-fit
 * FILE), or the datasheet model's defaults (--model-fit datasheet, or no fit for this GPU's SM).
 * check_fit says which; the provenance names it too (prov "model", "model_fit"). */
static int run_fit(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	const struct generate_session *S = R->S;
	bool sister = false;
	bool datasheet = o->model_fit && !strcmp(o->model_fit, "datasheet");
	char *found = datasheet ? NULL : find_fit(R, &sister);
	const char *path = found ? found
			   : o->model_fit && strcmp(o->model_fit, "auto") && !datasheet ? o->model_fit
			   : NULL;
	int rc = path ? model_fit_load(path, &R->fit, d) : TT_OK;
	R->fit_found = found != NULL;
	R->fit_sister = sister;
	free(found);
	if (rc || !R->fit)
		return rc;
	if (!R->fit_sister && strcmp(R->fit->device, R->sdev.name))
		warn(S, "model fit '%s' was fitted on '%s', not '%s'", R->fit->path, R->fit->device,
		     R->sdev.name);
	R->fitv = xcalloc(R->fit->params_count + 1, sizeof *R->fitv);
	for (unsigned i = 0; i < R->fit->params_count; i++)
		R->fitv[i] = (struct script_value){ R->fit->params[i].name, R->fit->params[i].value };
	R->sdev.fit = R->fitv;
	R->sdev.nfit = R->fit->params_count;
	R->sdev.groups = R->fit->measured;
	R->sdev.ngroups = R->fit->measured_count;
	return TT_OK;
}

/* Whether the fit was trained on measurements of bits-bit weights. */
static bool fit_measured_bits(const struct model_fit *f, unsigned bits)
{
	for (unsigned g = 0; g < f->measured_count; g++)
		for (unsigned i = 0; i < f->measured[g].points_count; i++)
			if (f->measured[g].points[i].b == (double)bits)
				return true;
	return false;
}

/* Back to the datasheet model's defaults. */
static void drop_fit(struct run *R)
{
	R->sdev.fit = NULL;
	R->sdev.nfit = 0;
	R->sdev.groups = NULL;
	R->sdev.ngroups = 0;
	free(R->fitv);
	R->fitv = NULL;
	model_fit_free(R->fit);
	R->fit = NULL;
}

/* A fit's params must be ones the heuristic declares (tunetab.heuristic{ params = ... }): a
 * --model-fit FILE that is not is an error. A fit found for this GPU serves the heuristic it
 * names and the weight widths it measured; otherwise the datasheet model's defaults. Then says
 * the model. */
static int check_fit(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	const struct generate_session *S = R->S;
	const char *h = script_heuristic_name(R->sc);
	char why[160] = "no fit for this GPU or its SM";
	if (o->model_fit && !strcmp(o->model_fit, "datasheet"))
		snprintf(why, sizeof why, "--model-fit datasheet");
	if (R->fit && R->fit_found && strcmp(R->fit->heuristic, h)) {
		snprintf(why, sizeof why, "the fit found for this GPU is for heuristic '%s', not '%s'",
			 R->fit->heuristic, h);
		drop_fit(R);
	}
	if (R->fit && R->fit_found && !fit_measured_bits(R->fit, R->dep.dt->weight_bits)) {
		/* a fit says nothing of kernels it never measured (the shipped H200 fit: bf16, fp8) */
		snprintf(why, sizeof why, "the fit found for this GPU measured no %u-bit weights (%s)",
			 R->dep.dt->weight_bits, R->dep.dt->name);
		drop_fit(R);
	}
	const struct script_param *p;
	size_t np = script_params(R->sc, &p);
	for (unsigned i = 0; R->fit && i < R->fit->params_count; i++) {
		bool known = false;
		for (size_t k = 0; k < np && !known; k++)
			known = !strcmp(p[k].name, R->fit->params[i].name);
		if (!known)
			return diag_error(d, TT_INVALID, "model-fit", R->fit->path, 0, 0, "'%s' is not a "
					  "parameter of heuristic '%s'", R->fit->params[i].name, h);
	}
	if (o->quiet)
		return TT_OK;
	if (!R->fit) {
		say(S, "tunetab: model: the datasheet model's defaults (%s)", why);
		return TT_OK;
	}
	const char *root = S->data->root; /* a shipped fit by its place in the data: configs/fits/... */
	size_t rl = strlen(root);
	const char *path = R->fit->path;
	say(S, "tunetab: model: fit %s (fitted on %s%s)",
	    !strncmp(path, root, rl) && path[rl] == '/' ? path + rl + 1 : path, R->fit->device,
	    R->fit_sister ? ", a GPU of the same architecture: this one's own SM count, clocks and "
	    "bandwidth come from its profile" : "");
	return TT_OK;
}

/* --keys: the keys name the runner (use_fused_finalize: with it off GEMM2's ids mean other
 * configs, cutlass-moe-tactics.md §3; top_k, tp_size, ep_size, activation_type: what the
 * flashinfer backend builds and routes), so they decide the runner timed and the tactic list.
 * An option given may only agree with them; keys of two runners are refused. */
static int keys_runner(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	struct deployment *dep = &R->dep;
	/* the options' values where given (--top-k, --tp, --ep, --fused-finalize), else -1 */
	long given[KR_COUNT] = {
		[KR_FINALIZE] = o->fused_finalize_set ? !o->no_fused_finalize : -1,
		[KR_TOP_K] = o->top_k ? o->top_k : -1, [KR_TP] = o->tp != 1 ? o->tp : -1,
		[KR_EP] = o->ep != 1 ? o->ep : -1, [KR_ACTIVATION] = -1,
	};
	static const char *const option[KR_COUNT] = { "--fused-finalize", "--top-k", "--tp", "--ep",
						      NULL };
	for (int f = 0; f < KR_COUNT; f++) {
		long v = R->list.runner[f];
		if (v == KEYS_MIXED)
			return diag_error(d, TT_INVALID, "keys-runner", o->keys, 0, 0, "the keys mix "
					  "two values of %s: two runners%s; generate each set in its "
					  "own run", keys_runner_fields[f], f == KR_FINALIZE ?
					  ", whose GEMM2 tactic lists differ" : "");
		if (v == KEYS_ABSENT)
			continue;
		if (given[f] >= 0 && given[f] != v) {
			char kv[24], ov[24];
			snprintf(kv, sizeof kv, "%s", v ? "True" : "False");
			snprintf(ov, sizeof ov, "%s", given[f] ? "on" : "off");
			if (f != KR_FINALIZE)
				snprintf(kv, sizeof kv, "%ld", v), snprintf(ov, sizeof ov, "%ld", given[f]);
			return diag_error(d, TT_USAGE, "keys-runner", o->keys, 0, 0, "the keys name "
					  "%s %s, %s says %s", keys_runner_fields[f], kv, option[f], ov);
		}
	}
	const long *r = R->list.runner;
	if (r[KR_ACTIVATION] > ACT_RELU2)
		return diag_error(d, TT_INVALID, "keys-runner", o->keys, 0, 0, "the keys name "
				  "activation_type %ld, an activation tunetab does not know (§3.3)",
				  r[KR_ACTIVATION]);
	if (r[KR_FINALIZE] >= 0)
		dep->no_fused_finalize = r[KR_FINALIZE] == 0;
	if (r[KR_TOP_K] > 0)
		dep->top_k = r[KR_TOP_K];
	if (r[KR_TP] > 0)
		dep->tp = r[KR_TP];
	if (r[KR_EP] > 0)
		dep->ep = r[KR_EP];
	if (r[KR_ACTIVATION] >= 0)
		dep->activation = (enum model_activation)r[KR_ACTIVATION];
	return TT_OK;
}

/* An empty ranking is not an error (candidates left out are never chosen, scripts/README.md),
 * but a heuristic that chose nothing leaves the entry where a run without a table is: said,
 * with the first few entries it happened to. */
static void warn_unranked(const struct run *R)
{
	if (R->cat->tactic_ignored)
		return; /* the heuristic was not asked */
	size_t n = 0;
	struct strbuf which = STRBUF_INIT;
	for (size_t i = 0; i < R->list.n; i++) {
		const struct lookup_entry *e = &R->list.v[i];
		if (e->ranked)
			continue;
		if (n < 4)
			sb_addf(&which, "%sGEMM%d at %ld tokens", n ? ", " : "", e->stage, e->tokens);
		n++;
	}
	if (n)
		warn(R->S, "heuristic '%s' chose nothing for %zu of %zu entries (rank() returned an "
		     "empty list: %s%s): they get FlashInfer's fallback, the stage's first candidate (what "
		     "tactic -1 selects)", script_heuristic_name(R->sc), n, R->list.n, which.buf,
		     n > 4 ? ", ..." : "");
	sb_release(&which);
}

/* The deployment, its keys (or --keys), and the heuristic's ranking of each key's candidates;
 * a shard keeps its part of the work list. */
static int run_rank(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	struct generate_session *S = R->S;
	const struct tt_data *data = S->data;
	struct shape_args sa = generate_shape_args(o, R->dt, "generate");
	int rc = shape_build(data, S->dtypes, &sa, R->sdev.sm, R->rules, &R->dep, &R->own_model, d);
	if (rc)
		return rc;
	const struct deployment *dep = &R->dep;
	R->cat = catalog_find(&data->catalogs, &R->fv, (unsigned)R->sdev.sm, R->dt);
	if (!R->cat)
		return diag_error(d, TT_INVALID, "catalog", NULL, 0, 0, "no tactic catalog for SM%d %s "
				  "in FlashInfer %s: FlashInfer has no cutlass MoE candidates tunetab "
				  "knows for it", R->sdev.sm, dtype_name(R->dt), R->version);
	const char *why;
	if (!catalog_dispatchable(R->cat, &why)) /* a table validate would refuse: said as such */
		return diag_error(d, TT_INVALID, "unrunnable", NULL, 0, 0, "FlashInfer %s cannot run %s "
				  "on SM%d: none of the tactics of catalog %s can be dispatched there%s%s%s",
				  R->version, dtype_name(R->dt), R->sdev.sm, R->cat->id, why ? " (" : "",
				  why ? why : "", why ? ")" : "");
	rc = o->keys ? lookup_keys_file(R->rules, o->keys, dep, S->dtypes, &R->list, d)
		     : lookup_deploy(R->rules, dep, &R->list, d);
	if (rc || (o->keys && (rc = keys_runner(R, d))))
		return rc;

	char *hpath = o->heuristic ? xstrdup(o->heuristic)
				   : xasprintf("%s/scripts/heuristics/default.lua", data->root);
	struct script_limits lim = { (size_t)o->script_mem_mib << 20,
				     (unsigned long long)o->script_instructions,
				     S->hooks ? S->hooks->script_print : NULL };
	rc = script_open(&R->sc, data->root, hpath, &lim, d);
	free(hpath);
	if (rc)
		return rc;
	const struct dtype_info *dti = dep->dt;
	struct script_deploy sdep = {
		.model = dep->model_name, .dtype = dti->name, .act_bits = (int)dti->act_bits,
		.weight_bits = (int)dti->weight_bits, .out_bits = 16, .hidden = dep->hidden,
		.inter = dep->tp ? dep->inter_total / dep->tp : 0,
		.experts = dep->ep ? dep->experts_total / dep->ep : 0, .experts_total = dep->experts_total,
		.top_k = dep->top_k, .tp = dep->tp, .ep = dep->ep,
		.gated = model_activation_gated(dep->activation),
		.activation = model_activation_name(dep->activation),
	};
	if (o->keys && R->list.n) {
		const struct lookup_entry *e0 = &R->list.v[0];
		sdep.inter = e0->inter;
		sdep.experts = e0->experts;
		sdep.hidden = e0->stage == 1 ? e0->k : e0->features;
		/* a key's ep_size (lookup_keys_file), else the deployment's, else no EP */
		if (e0->experts_total > e0->experts || !sdep.experts_total)
			sdep.experts_total = e0->experts_total;
	}
	if ((rc = check_fit(R, d)) || (rc = script_set_context(R->sc, &R->sdev, &sdep, d)))
		return rc;
	/* every shard builds the same list, so the parts are disjoint and together cover it
	 * (docs/fleet.md "Shards") */
	R->total_entries = R->list.n;
	if ((rc = choose_tactics(R->sc, R->cat, dep, &R->list, d)))
		return rc;
	choose_shard(&R->list, dep, (int)o->rounds, (int)o->top, R->sh->index, R->sh->count);
	warn_unranked(R);
	if (getenv("TUNETAB_DUMP_RANKING")) /* diagnostics: the heuristic's order per entry */
		for (size_t i = 0; i < R->list.n; i++) {
			const struct lookup_entry *e = &R->list.v[i];
			struct strbuf sb = STRBUF_INIT;
			sb_addf(&sb, "ranking GEMM%d %ld:", e->stage, e->tokens);
			for (int k = 0; k < e->ntop; k++)
				sb_addf(&sb, " %d", e->top[k]);
			say(S, "%s", sb.buf);
			sb_release(&sb);
		}
	return TT_OK;
}

/* What decides the table (journal.h): the journal's identity with the shard, the provenance's
 * run id without. */
static char *run_identity(const struct run *R, const char *shard)
{
	const struct generate_request *o = R->o;
	const struct deployment *dep = &R->dep;
	struct journal_run jr = {
		.version = R->version, .device = R->sdev.name, .model = dep->model_name,
		.dtype = dep->dt->name, .tp = dep->tp, .ep = dep->ep, .tp_rank = dep->tp_rank,
		.ep_rank = dep->ep_rank, .top_k = dep->top_k, .no_fused_finalize = dep->no_fused_finalize,
		.max_tokens = dep->max_tokens, .catalog = R->cat->id, .keys = o->keys, .top = o->top,
		.method = o->method, .rounds = o->rounds, .heuristic = o->heuristic,
		.model_fit = R->fit ? R->fit->path : NULL,
		.profile = o->profile, .backend = o->profile ? R->be.name : NULL, .shard = shard,
	};
	return journal_identity(&jr);
}

/* --profile: the best candidates of every entry timed in the workers, journalled. */
static int run_measure(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	struct generate_session *S = R->S;
	int rc = mkdir_p(R->outdir);
	if (rc)
		return diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot create '%s': %s", R->outdir,
				  strerror(rc));
	char *jname = firules_bundled_name(R->rules, R->version, R->sdev.name);
	R->journal = journal_path(R->outdir, jname);
	free(jname);
	char shard[32];
	snprintf(shard, sizeof shard, "%d/%d", R->sh->index, R->sh->count);
	char *jid = run_identity(R, shard);
	const struct generate_hooks *h = S->hooks;
	/* What the worker builds the runner from: the key's extras, by their names; where the
	 * version's key has none, the runner's arguments for this deployment (lookup.h). */
	struct strbuf fields = STRBUF_INIT, runner = STRBUF_INIT;
	if (R->rules->key.extras == EXTRAS_FIELDS) {
		for (unsigned i = 0; i < R->rules->key.extras_fields_count; i++)
			sb_addf(&fields, "%s%s", i ? "," : "", R->rules->key.extras_fields[i].name);
	} else if ((rc = lookup_runner_args(firules_newest(&S->data->rules), &R->dep, &fields,
					    &runner, d))) {
		free(jid);
		return rc;
	}
	struct timing_opts po = { .top_k = (int)o->top, .budget_s = o->budget, .method = o->method,
				   .rounds = (int)o->rounds, .reps = 8, .journal = R->journal,
				   .identity = jid, .command = o->command, .backend = R->be.text,
				   .on_entry = h ? h->entry : NULL, .ctx = h ? h->ctx : NULL,
				   .key_fields = fields.len ? fields.buf : NULL,
				   .runner = runner.len ? runner.buf : NULL,
				   .gate = S->backend == BACKEND_FLASHINFER && !o->no_gate,
				   /* FlashInfer's kernels: screen every candidate, race the best */
				   .screen = S->backend == BACKEND_FLASHINFER && o->top >= 0 &&
					     o->method != 1 };
	timing(S, "plan built and ranked; profiling starts");
	rc = timing_run(S->workers, S->nworkers, &R->list, &R->dep, &po, &R->pst, d);
	timing(S, "profiling done");
	if (h && h->entry)
		h->entry(h->ctx, NULL);
	sb_release(&fields);
	sb_release(&runner);
	free(jid);
	return rc;
}

/* ---------------------------------------------------------------- outputs */

/* The provenance of what was written (docs/fleet.md "Provenance file"). */
/* The keys of the other ops the server tunes at start (configs/ops; issue #39), each to be
 * stored with the op's fallback tactic: tunetab has no GPU of theirs to measure on here, and
 * an entry the server finds is not profiled again (its policy matching the op's). */
static int run_ops(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	const struct op_set *defs = &R->S->data->ops;
	R->opk = xcalloc(o->nops + 1, sizeof *R->opk);
	R->ops = xcalloc(o->nops + 1, sizeof *R->ops);
	for (size_t i = 0; i < o->nops; i++) {
		const struct op_use *so = &o->ops[i];
		if (!so->tunes)
			continue;
		const struct op_def *def = opdefs_find(defs, so->op);
		if (!def)
			return diag_error(d, TT_INTERNAL, "op", NULL, 0, 0, "the consumer's script names "
					  "op '%s', which configs/ops does not have", so->op);
		struct generate_op *g = &R->ops[R->nops];
		struct op_keys *k = &R->opk[R->nops++];
		g->op = def->name;
		g->runner = so->runner;
		if (!opdef_keys_known(def, &R->fv)) {
			g->covered = "not covered";
			g->why = def->flashinfer_min;
			if (!o->quiet)
				warn(R->S, "%s: tunetab knows its keys from FlashInfer %s on, not in %s: the "
				     "server profiles it at start", def->name, def->flashinfer_min, R->version);
			continue;
		}
		for (size_t c = 0; c < so->ncalls; c++) {
			int rc = op_call_keys(def, &so->calls[c], c, k, d);
			if (rc)
				return rc;
		}
		g->covered = "default";
		g->keys = k->n;
	}
	return TT_OK;
}

/* --profile with the flashinfer backend: every key of the other ops measured on this GPU
 * through FlashInfer's own runner (the worker's OPPROF: the candidates and the fallback timed
 * at the key's bucket, the winner through the correctness gate unless --no-gate). The
 * candidates: the runner's integer tactics for this SM (configs/ops), else the runner's own
 * list there (CuTe-DSL, the TensorRT-LLM-gen MoE: it depends on the GPU). */
static int run_ops_measure(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	struct generate_session *S = R->S;
	if (!o->profile || !R->nops)
		return TT_OK;
	if (!R->sc) { /* an ops-only table: the heuristic ranks the ops' tactics */
		char *hpath = o->heuristic ? xstrdup(o->heuristic)
					   : xasprintf("%s/scripts/heuristics/default.lua", S->data->root);
		struct script_limits lim = { (size_t)o->script_mem_mib << 20,
					     (unsigned long long)o->script_instructions,
					     S->hooks ? S->hooks->script_print : NULL };
		struct script_deploy sdep = { .model = o->model_profile ? o->model_profile->name : "",
					      .dtype = "nvfp4", .act_bits = 4, .weight_bits = 4,
					      .out_bits = 16 };
		int rc = script_open(&R->sc, S->data->root, hpath, &lim, d);
		free(hpath);
		if (!rc)
			rc = script_set_context(R->sc, &R->sdev, &sdep, d);
		if (rc)
			return rc;
	}
	if (S->backend != BACKEND_FLASHINFER) {
		if (o->ops_only)
			return diag_error(d, TT_USAGE, "generate", NULL, 0, 0, "only the flashinfer "
					  "backend times the server's other ops (the %s backend times "
					  "the CUTLASS MoE's GEMMs): --backend flashinfer", S->wb.name[0] ?
					  S->wb.name : "proxy");
		warn(S, "the other ops keep the fallback tactic: only the flashinfer backend times them");
		return TT_OK;
	}
	struct strbuf words = STRBUF_INIT;
	int rc = TT_OK;
	for (size_t i = 0; i < R->nops && !rc; i++) {
		struct generate_op *g = &R->ops[i];
		if (strcmp(g->covered, "default"))
			continue;
		const struct op_def *def = opdefs_find(&S->data->ops, g->op);
		const struct op_use *use = NULL;
		for (size_t u = 0; u < o->nops && !use; u++)
			if (o->ops[u].tunes && opdefs_find(&S->data->ops, o->ops[u].op) == def)
				use = &o->ops[u];
		const struct op_runner *runner = opdef_runner(def, g->runner);
		const struct op_tactics *tl = runner ? opdef_tactics(runner, (unsigned)R->sdev.sm) : NULL;
		size_t ncand = tl ? tl->count : 0;
		int *cands = xcalloc(ncand + 1, sizeof *cands);
		struct script_rank *ranked = xcalloc(ncand + 1, sizeof *ranked);
		size_t faster = 0;
		for (size_t k = 0; k < R->opk[i].n && !rc; k++) {
			struct op_key *key = &R->opk[i].v[k];
			const struct op_call *call = &use->calls[key->call];
			/* the candidates, the heuristic's best first where it ranks this op's list
			 * (rank_op; --top N times its best N), else FlashInfer's order */
			size_t nc = ncand, nr = 0;
			const struct op_field *fn = op_call_get(call, "n"), *fk = op_call_get(call, "k");
			if (ncand && tl->list_count && fn && fk && R->sc && script_has_rank_op(R->sc)) {
				struct script_op_gemm gq = { def->name, g->runner, key->tokens, (long)fn->i,
							     (long)fk->i };
				if ((rc = script_rank_op(R->sc, &gq, tl->list, tl->list_count,
							 tl->fallback_id, ranked, &nr, d)))
					break;
			}
			for (size_t c = 0; c < nr; c++)
				cands[c] = ranked[c].id;
			if (!nr)
				for (size_t c = 0; c < ncand; c++)
					cands[c] = (int)c;
			else
				nc = nr;
			if (o->top > 0 && (size_t)o->top < nc)
				nc = (size_t)o->top;
			sb_reset(&words);
			op_call_words(call, &words);
			struct worker_opprof res;
			rc = worker_opprof(&S->workers[0], words.buf, key->tokens, 10, !o->no_gate, cands,
					   nc, &res, d);
			if (rc)
				break;
			key->measured = true;
			key->time_us = res.win_us;
			key->fallback_us = res.fallback_us;
			snprintf(key->gate, sizeof key->gate, "%s", res.gate);
			if (strcmp(res.win, "-1")) {
				key->tactic = xstrdup(res.win);
				faster++;
			}
			if (o->verbose)
				say(S, "tunetab: %s %ld tokens: %s (%.2f us; the fallback %.2f us; %d "
				    "tactics timed; gate %s)%s%s", g->op, key->tokens, res.win, res.win_us,
				    res.fallback_us, res.timed, res.gate, res.detail[0] ? ": " : "",
				    res.detail);
		}
		free(cands);
		free(ranked);
		if (!rc) {
			g->covered = "measured";
			g->faster = faster;
		}
	}
	sb_release(&words);
	return rc;
}

/* The ops' entries: the fallback tactic (-1), with the op's profiling policy where the
 * version's JSON values carry one (0.7.1 on). */
static void ops_to_table(const struct run *R, struct table *t)
{
	const struct pyv fallback = { .kind = PV_INT, .i = -1 };
	bool policy = R->rules->json_cache.entry_value == VALUE_POLICY;
	struct arena a = ARENA_INIT;
	for (size_t i = 0; i < R->nops; i++) {
		const struct op_def *def = opdefs_find(&R->S->data->ops, R->ops[i].op);
		for (size_t k = 0; k < R->opk[i].n; k++) {
			const struct op_key *key = &R->opk[i].v[k];
			struct pyv measured;
			const struct pyv *tactic = &fallback;
			if (key->tactic && !table_json_tactic(key->tactic, &a, &measured))
				tactic = &measured;
			if (policy && *def->policy)
				table_add_policy(t, key->key, R->ops[i].runner, tactic, def->policy);
			else
				table_add(t, key->key, 0, R->ops[i].runner, tactic);
		}
	}
	arena_release(&a);
	table_sort(t);
}

/* The provenance's "ops": per op, what the table holds of it and the calls its keys are for
 * (the worker's job fields). */
static char *ops_json(const struct run *R)
{
	const struct generate_request *o = R->o;
	if (!o->nops && !o->consumer)
		return NULL;
	json_t *a = json_array();
	if (!o->ops_only && o->consumer && o->moe_tune) {
		/* the CUTLASS MoE as one op among the others: the call the server's warm-up makes */
		const struct deployment *dep = &R->dep;
		json_t *x = json_object(), *call = json_object();
		json_object_set_new(x, "op", json_string("trtllm::fused_moe::gemm1"));
		json_object_set_new(x, "runner", json_string("MoERunner"));
		json_object_set_new(x, "tuned_at_start", json_true());
		json_object_set_new(x, "covered", json_string(o->profile ? "measured" : "predicted"));
		json_object_set_new(x, "keys", json_integer((json_int_t)R->list.n));
		json_object_set_new(call, "op", json_string("trtllm::fused_moe::gemm1"));
		json_object_set_new(call, "runner", json_string("MoERunner"));
		json_object_set_new(call, "consumer", json_string(o->consumer));
		json_object_set_new(call, "tune", json_string(o->moe_tune));
		json_object_set_new(call, "m", json_integer(o->moe_m > 0 ? o->moe_m : (json_int_t)dep->max_tokens));
		json_object_set_new(call, "tune_max", json_integer((json_int_t)dep->max_tokens));
		json_object_set_new(call, "dtype", json_string(dep->dt->name));
		json_object_set_new(call, "input_view", dep->iv ? json_string(o->input_view) : json_null());
		json_object_set_new(call, "out", json_string(dep->out_torch ? dep->out_torch : "torch.bfloat16"));
		json_object_set_new(call, "hidden", json_integer(dep->hidden));
		json_object_set_new(call, "inter", json_integer(dep->inter_total / dep->tp));
		json_object_set_new(call, "experts", json_integer(dep->experts_total));
		json_object_set_new(call, "local_experts", json_integer(dep->experts_total / dep->ep));
		json_object_set_new(call, "top_k", json_integer(dep->top_k));
		json_object_set_new(call, "tp", json_integer(dep->tp));
		json_object_set_new(call, "ep", json_integer(dep->ep));
		json_object_set_new(call, "activation", json_string(model_activation_name(dep->activation)));
		json_object_set_new(call, "biases", json_integer(dep->biases));
		json_object_set_new(call, "finalize", json_integer(!dep->no_fused_finalize));
		json_t *calls = json_array();
		json_array_append_new(calls, call);
		json_object_set_new(x, "calls", calls);
		json_array_append_new(a, x);
	}
	for (size_t i = 0, g = 0; i < o->nops; i++) {
		const struct op_use *so = &o->ops[i];
		const struct op_def *def = opdefs_find(&R->S->data->ops, so->op);
		const struct generate_op *gop = so->tunes && g < R->nops ? &R->ops[g++] : NULL;
		json_t *x = json_object();
		json_object_set_new(x, "op", json_string(def ? def->name : so->op));
		json_object_set_new(x, "runner", json_string(so->runner));
		json_object_set_new(x, "tuned_at_start", json_boolean(so->tunes));
		json_object_set_new(x, "covered", json_string(!gop ? "not tuned" : gop->covered));
		if (!so->tunes && so->why)
			json_object_set_new(x, "why", json_string(so->why));
		else if (gop && gop->why)
			json_object_set_new(x, "why", json_pack("s+", "its keys are known from FlashInfer ",
								gop->why));
		json_object_set_new(x, "keys", json_integer(gop ? (json_int_t)gop->keys : 0));
		json_t *calls = json_array();
		for (size_t c = 0; c < so->ncalls; c++) {
			json_t *f = json_object();
			for (size_t j = 0; j < so->calls[c].n; j++) {
				const struct op_field *of = &so->calls[c].f[j];
				json_object_set_new(f, of->name, of->s ? json_string(of->s)
									: json_integer((json_int_t)of->i));
			}
			json_array_append_new(calls, f);
		}
		json_object_set_new(x, "calls", calls);
		json_array_append_new(a, x);
	}
	char *s = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(a);
	return s;
}

static void build_provenance(struct provenance *pv, const struct run *R)
{
	const struct generate_request *o = R->o;
	const struct deployment *dep = &R->dep;
	const struct shard *sh = R->sh;
	const struct worker_device *wd = &R->S->wd;
	memset(pv, 0, sizeof *pv);
	pv->tunetab_version = xstrdup(TUNETAB_VERSION);
	pv->flashinfer_version = xstrdup(R->version);
	pv->device = xstrdup(R->sdev.name);
	for (int k = 0; k < 2; k++)
		if (R->written[k]) {
			const char *base = strrchr(R->written[k], '/');
			*(k ? &pv->json_file : &pv->py_file) = xstrdup(base ? base + 1 : R->written[k]);
		}
	pv->ops_json = ops_json(R);
	struct prov_run_builder *b = prov_run_new();
	prov_run_str(b, "model", o->ops_only ? o->model_profile->name : dep->model_name);
	prov_run_str(b, "dtype", o->ops_only ? NULL : dep->dt->name);
	prov_run_int(b, "tp", dep->tp);
	prov_run_int(b, "ep", dep->ep);
	prov_run_int(b, "tp_rank", dep->tp_rank);
	prov_run_int(b, "ep_rank", dep->ep_rank);
	prov_run_int(b, "top_k", dep->top_k);
	prov_run_int(b, "max_tokens", dep->max_tokens);
	const char *kb = o->keys ? strrchr(o->keys, '/') : NULL;
	prov_run_str(b, "keys", !o->keys ? NULL : kb ? kb + 1 : o->keys);
	prov_run_str(b, "heuristic", R->sc ? script_heuristic_name(R->sc) : NULL);
	prov_run_str(b, "catalog", R->cat ? R->cat->id : NULL);
	prov_run_str(b, "calibration", R->cal ? R->cal->device : NULL);
	prov_run_str(b, "calibration_measured", R->cal ? R->cal->measured : NULL);
	/* the model the heuristic ran with: "fit" (and which) or "datasheet" */
	prov_run_str(b, "model", R->fit ? "fit" : "datasheet");
	if (R->fit) {
		const char *fb = strrchr(R->fit->path, '/');
		prov_run_str(b, "model_fit", fb ? fb + 1 : R->fit->path);
	}
	prov_run_int(b, "sm", R->sdev.sm);
	prov_run_bool(b, "profiled", o->profile);
	if (o->profile) {
		prov_run_str(b, "backend", R->be.text);
		prov_run_str(b, "method", method_name(o->method));
		prov_run_int(b, "top", o->top ? o->top : 4);
		prov_run_int(b, "rounds", o->rounds ? o->rounds : 15);
		prov_run_str(b, "gpu", wd->gpu.name);
		prov_run_int(b, "gpu_sm_count", wd->gpu.sm_count);
		prov_run_int(b, "gpu_clock_mhz", wd->gpu.clock_khz / 1000);
		prov_run_int(b, "cuda_driver", wd->env.driver_version);
		prov_run_int(b, "cuda_runtime", wd->env.runtime_version);
		prov_run_int(b, "cublaslt", wd->env.blaslt_version);
	}
	char id[17];
	snprintf(id, sizeof id, "%016llx",
		 (unsigned long long)hash_bytes(R->identity, strlen(R->identity)));
	size_t run = prov_add_run(pv, b, id, sh->count > 1 ? sh->index : 0, sh->count > 1 ? sh->count : 1,
				  sh->count > 1 ? sh->source : NULL);
	for (size_t i = 0; i < R->list.n; i++) {
		const struct lookup_entry *e = &R->list.v[i];
		char tactic[16];
		snprintf(tactic, sizeof tactic, "%d", e->tactic);
		struct prov_entry pe = {
			.key = e->key, .tactic = tactic, .run = run, .fallback_us = e->fallback_us,
			.time_us = -1, .lo_us = -1, .hi_us = -1,
		};
		if (e->kind == CHOICE_MEASURED || e->kind == CHOICE_FALLBACK) {
			pe.source = e->kind == CHOICE_MEASURED ? PROV_MEASURED : PROV_FALLBACK;
			pe.time_us = e->chosen_us;
			pe.lo_us = e->chosen_lo;
			pe.hi_us = e->chosen_hi;
			pe.ties = (int *)e->ties;
			pe.nties = (size_t)e->nties;
			pe.wrong = (int *)e->wrong;
			pe.nwrong = (size_t)e->nwrong;
		} else {
			pe.source = PROV_PREDICTED;
			pe.time_us = e->time_us;
		}
		prov_add_entry(pv, &pe);
	}
	struct arena a = ARENA_INIT;
	struct strbuf lit = STRBUF_INIT;
	for (size_t i = 0; i < R->nops; i++)
		for (size_t k = 0; k < R->opk[i].n; k++) {
			const struct op_key *key = &R->opk[i].v[k];
			struct prov_entry pe = { .key = key->key, .tactic = "-1", .run = run,
						 .source = PROV_DEFAULT, .time_us = -1, .lo_us = -1,
						 .hi_us = -1, .fallback_us = -1 };
			struct pyv tv;
			sb_reset(&lit);
			if (key->tactic && !table_json_tactic(key->tactic, &a, &tv)) {
				pyv_repr(&tv, &lit); /* the provenance keeps tactics as Python literals */
				pe.tactic = lit.buf;
			}
			if (key->measured) {
				pe.source = key->tactic ? PROV_MEASURED : PROV_FALLBACK;
				pe.time_us = prov_round_us(key->time_us);
				pe.fallback_us = prov_round_us(key->fallback_us);
			}
			prov_add_entry(pv, &pe);
		}
	sb_release(&lit);
	arena_release(&a);
}

/* The written bytes must pass validate for the target version before they are written. A
 * failure is the user's when cause names their input (invalid input), else tunetab's. */
static int check_bytes(const struct tt_data *data, const char *name, const struct strbuf *sb,
		       const char *version, const char *device, enum dtype dt, const char *cause,
		       struct diags *d)
{
	struct validate_data vd = { &data->devices, &data->catalogs, &data->rules, &data->ops };
	struct validate_opts vo = { .flashinfer = version, .device = device, .dtype = (int)dt };
	struct diags found = DIAGS_INIT;
	int rc = validate_bytes(&vd, name, sb->buf, sb->len, &vo, &found);
	if (rc) {
		if (cause)
			rc = diag_error(d, TT_INVALID, "generate", NULL, 0, 0, "generated %s does not "
					"validate because of %s; nothing written:", name, cause);
		else
			rc = diag_error(d, TT_INTERNAL, "generate", NULL, 0, 0, "generated %s does not "
					"validate (a tunetab bug); nothing written:", name);
		diags_append(d, &found);
	}
	diags_release(&found);
	return rc;
}

/* Before a module replaces a file in FlashInfer's package folder: that file (a table
 * FlashInfer shipped, or an earlier one) is copied to <name>.tunetab-backup, once: an
 * existing backup holds the original and is never overwritten. */
static int backup_shipped(const struct generate_session *S, const char *dir, const char *name,
			  bool quiet, struct diags *d)
{
	char *path = xasprintf("%s/%s", dir, name), *bak = xasprintf("%s.tunetab-backup", path);
	char *bytes = NULL;
	size_t len = 0;
	int rc = TT_OK, err;
	if (access(path, F_OK) == 0 && access(bak, F_OK) != 0) {
		if ((err = read_file(path, (size_t)1 << 30, &bytes, &len)) ||
		    (err = write_file_atomic(bak, bytes, len, 0644)))
			rc = diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot keep a backup of '%s': %s",
					path, strerror(err));
		else if (!quiet)
			say(S, "tunetab: kept FlashInfer's %s as %s", path, bak);
	}
	free(bytes);
	free(path);
	free(bak);
	return rc;
}

/* Stages one output of a run in set (util.h): the outputs of a run appear together. */
static int stage_output(struct file_set *set, const char *dir, const char *name,
			const struct strbuf *sb, char **path_out, struct diags *d)
{
	int err = mkdir_p(dir);
	if (err)
		return diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot create '%s': %s", dir,
				  strerror(err));
	char *path = xasprintf("%s/%s", dir, name);
	err = file_set_stage(set, path, sb->buf, sb->len, 0644);
	if (err) {
		int rc = diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot write '%s': %s", path,
				    strerror(err));
		free(path);
		return rc;
	}
	*path_out = path;
	return TT_OK;
}

/* The outputs' bytes, each checked before anything is written: the module (unless --format
 * json) and the JSON cache (unless --format py), with their names. */
struct outputs {
	struct strbuf py, js;
	char *py_name, *js_name;
};

static void outputs_release(struct outputs *out)
{
	sb_release(&out->py);
	sb_release(&out->js);
	free(out->py_name);
	free(out->js_name);
}

static int build_json(struct run *R, struct outputs *out, const char *keys_cause, struct diags *d)
{
	const struct generate_request *o = R->o;
	const struct fi_rules *rules = R->rules;
	if (!rules->json_cache.supported) {
		if (!strcmp(o->format, "json"))
			return diag_error(d, TT_INVALID, "generate", NULL, 0, 0, "FlashInfer %s has no "
					  "JSON autotune cache (0.6.7+)", R->version);
		if (!o->quiet)
			warn(R->S, "FlashInfer %s has no JSON autotune cache; wrote the module only",
			     R->version);
		return TT_OK;
	}
	/* what tunetab knows it stamps; the rest matches any environment ("*") */
	for (unsigned i = 0; i < rules->json_cache.metadata_count; i++) {
		const char *f = rules->json_cache.metadata[i];
		table_set_meta(&R->t, f, !strcmp(f, "flashinfer_version") ? R->version
					 : !strcmp(f, "gpu") ? R->sdev.name : "*");
	}
	for (int i = 0; i < o->nmeta; i++) {
		char *eq = strchr(o->metas[i], '=');
		char *k = xstrndup(o->metas[i], (size_t)(eq - o->metas[i]));
		table_set_meta(&R->t, k, eq + 1);
		free(k);
	}
	bool gen = false;
	for (unsigned i = 0; i < rules->json_cache.reserved_count; i++)
		gen |= !strcmp(rules->json_cache.reserved[i], "_generation");
	table_write_json(&R->t, gen, &out->js);
	out->js_name = names_json_cache(R->sdev.name);
	return check_bytes(R->S->data, out->js_name, &out->js, R->version, R->sdev.name, R->dt,
			   keys_cause ? keys_cause : o->nmeta ? "--metadata" : NULL, d);
}

static int build_outputs(struct run *R, struct outputs *out, struct diags *d)
{
	const struct generate_request *o = R->o;
	int rc = TT_OK;
	/* every rank's keys, with the decisions made for this rank's */
	if (!o->ops_only && (o->tp_rank_all || o->ep_rank_all) &&
	    (rc = lookup_all_ranks(R->rules, &R->dep, &R->list, o->tp_rank_all, o->ep_rank_all, d)))
		return rc;
	lookup_to_table(&R->list, &R->t);
	R->have_table = true;
	if (strcmp(o->format, "json") && R->nops && o->ops_only)
		return diag_error(d, TT_USAGE, "generate", NULL, 0, 0, "only the CUTLASS MoE has a "
				  "bundled module; the other ops go into the JSON cache (--format json)");
	char *keys_cause = o->keys ? xasprintf("the keys in %s", o->keys) : NULL;
	if (strcmp(o->format, "json")) {
		table_write_py(&R->t, &out->py);
		out->py_name = firules_bundled_name(R->rules, R->version, R->sdev.name);
		rc = check_bytes(R->S->data, out->py_name, &out->py, R->version, R->sdev.name, R->dt,
				 keys_cause, d);
	}
	if (!rc && strcmp(o->format, "py")) {
		ops_to_table(R, &R->t);
		rc = build_json(R, out, keys_cause, d);
	}
	free(keys_cause);
	return rc;
}

/* Every output built and checked first, then written together: no partial output. In
 * FlashInfer's own package folder only the module, only when asked, and the file it replaces
 * (a shipped table) kept as <name>.tunetab-backup (issue #15). */
static int run_outputs(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	const struct generate_session *S = R->S;
	struct outputs out = { STRBUF_INIT, STRBUF_INIT, NULL, NULL };
	struct file_set set = { 0 };
	int rc = build_outputs(R, &out, d);
	bool pkg = doctor_is_tuning_configs(R->outdir);
	if (!rc && pkg && !o->into_flashinfer)
		rc = diag_error(d, TT_USAGE, DIAG_SHOW_USAGE, NULL, 0, 0, "'%s' is FlashInfer's package folder "
				"(flashinfer/tuning_configs): tunetab writes there only with "
				"--into-flashinfer (the bundled module alone, a shipped file it replaces "
				"kept as a backup); or -o another folder", R->outdir);
	if (!rc && pkg && out.py_name)
		rc = backup_shipped(S, R->outdir, out.py_name, o->quiet, d);
	if (!rc && out.py_name)
		rc = stage_output(&set, R->outdir, out.py_name, &out.py, &R->written[0], d);
	if (!rc && out.js_name && !pkg)
		rc = stage_output(&set, R->outdir, out.js_name, &out.js, &R->written[1], d);
	if (!rc && pkg && out.js_name && !o->quiet)
		say(S, "tunetab: note: no JSON cache nor provenance file written into FlashInfer's "
		    "package folder; -o another folder for them");
	if (!rc && !pkg) {
		/* last: the sidecar describes the tables just written */
		struct provenance pv;
		build_provenance(&pv, R);
		struct strbuf pb = STRBUF_INIT;
		prov_write(&pv, &pb);
		char *pname = names_provenance(R->sdev.name);
		rc = stage_output(&set, R->outdir, pname, &pb, &R->written[2], d);
		free(pname);
		sb_release(&pb);
		prov_release(&pv);
	}
	if (!rc) {
		int err = file_set_commit(&set);
		if (err)
			rc = diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot write the outputs in "
					"'%s': %s", R->outdir, strerror(err));
	}
	file_set_abort(&set);
	outputs_release(&out);
	return rc;
}

/* --report: from the journal when measured (every timing, the heuristic's predictions, the
 * decisions), else from the ranked plan. */
static int run_report(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	const struct deployment *dep = &R->dep;
	struct report rep;
	int rc = TT_OK;
	if (o->profile) {
		struct diags rd = DIAGS_INIT;
		rc = report_from_journal(R->journal, &rep, &rd);
		diags_append(d, &rd);
		diags_release(&rd);
		hear(R->S, d);
		if (rc)
			return rc;
	} else {
		report_from_plan(&R->list, &rep);
		char *title = xasprintf("%s %s TP %ld EP %ld on %s, FlashInfer %s", dep->model_name,
					dep->dt->name, dep->tp, dep->ep, R->sdev.name, R->version);
		report_set_title(&rep, title);
		free(title);
		char num[32];
		report_info(&rep, "device", R->sdev.name);
		snprintf(num, sizeof num, "SM%d", R->sdev.sm);
		report_info(&rep, "compute capability", num);
		report_info(&rep, "FlashInfer", R->version);
		report_info(&rep, "model", dep->model_name);
		report_info(&rep, "dtype", dep->dt->name);
		snprintf(num, sizeof num, "%ld / %ld", dep->tp, dep->ep);
		report_info(&rep, "TP / EP", num);
		report_info(&rep, "heuristic", script_heuristic_name(R->sc));
		report_info(&rep, "tactic catalog", R->cat->id);
		report_info(&rep, "calibration", R->cal ? R->cal->path : "none");
		report_info(&rep, "command", o->command);
		report_info(&rep, "tunetab", TUNETAB_VERSION);
	}
	struct strbuf hb = STRBUF_INIT;
	report_write_html(&rep, &hb);
	int err = write_file_atomic(o->report, hb.buf, hb.len, 0644);
	if (err)
		rc = diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "%s: cannot write: %s", o->report,
				strerror(err));
	else if (!o->quiet)
		say(R->S, "tunetab: wrote %s (the report)", o->report);
	sb_release(&hb);
	report_release(&rep);
	return rc;
}

static void run_result(const struct run *R, struct generate_result *r)
{
	const struct deployment *dep = &R->dep;
	memset(r, 0, sizeof *r);
	r->ops_only = R->o->ops_only;
	r->ops = R->ops;
	r->nops = R->nops;
	r->device = R->sdev.name;
	r->sm = R->sdev.sm;
	r->version = R->version;
	r->written[0] = R->written[0];
	r->written[1] = R->written[1];
	r->written[2] = R->written[2];
	r->rules = R->rules;
	if (r->ops_only) {
		r->model = R->o->model_profile ? R->o->model_profile->name : "";
		r->shard = R->sh;
		return;
	}
	r->model = dep->model_name;
	r->dtype = dep->dt->name;
	r->tp = dep->tp;
	r->ep = dep->ep;
	r->heuristic = script_heuristic_name(R->sc);
	r->catalog = R->cat->id;
	r->keys = R->o->keys;
	r->max_tokens = dep->max_tokens;
	r->shard = R->sh;
	r->entries = R->list.n;
	r->total_entries = R->total_entries;
	for (size_t i = 0; i < R->list.n; i++) {
		r->differ += R->list.v[i].tactic != R->list.v[i].fallback;
		r->skipped += R->list.v[i].skipped_first;
	}
	r->nworkers = R->S->nworkers;
	r->profiled = R->o->profile;
	r->not_timed = R->not_timed;
	r->gate = R->o->profile && R->S->backend == BACKEND_FLASHINFER ? !R->o->no_gate : -1;
	r->stats = R->pst;
	r->backend = R->be.text;
	r->timed = R->be.timed;
	for (int k = 0; k < 3; k++)
		r->written[k] = R->written[k];
	r->rules = R->rules;
}

int generate_rank(const struct generate_request *rq, struct generate_session *S,
		  const struct script_value *fit, size_t nfit, const struct fit_group *groups,
		  size_t ngroups, struct lookup_list *out, struct diags *d)
{
	struct run R;
	struct shard whole = { .index = 0, .count = 1 };
	memset(&R, 0, sizeof R);
	memset(out, 0, sizeof *out);
	R.o = rq;
	R.S = S;
	R.sh = &whole;
	R.outdir = ".";
	if (dtype_parse(rq->dtype, &R.dt))
		return diag_error(d, TT_USAGE, DIAG_SHOW_USAGE, NULL, 0, 0, "unknown dtype '%s'", rq->dtype);
	int rc = run_version(&R, d);
	if (!rc)
		rc = run_device(&R, d);
	if (!rc && nfit) {
		R.sdev.fit = fit;
		R.sdev.nfit = nfit;
	}
	if (!rc && ngroups) {
		R.sdev.groups = groups;
		R.sdev.ngroups = ngroups;
	}
	if (!rc)
		rc = run_rank(&R, d);
	if (!rc) {
		*out = R.list;
		memset(&R.list, 0, sizeof R.list);
	}
	run_release(&R);
	return rc;
}

int generate_table(const struct generate_request *rq, struct generate_session *S,
		   const struct shard *sh, const char *outdir, struct diags *d)
{
	struct run R;
	memset(&R, 0, sizeof R);
	R.o = rq;
	R.S = S;
	R.sh = sh;
	R.outdir = outdir;
	if (!rq->ops_only && dtype_parse(rq->dtype, &R.dt))
		return diag_error(d, TT_USAGE, DIAG_SHOW_USAGE, NULL, 0, 0, "unknown dtype '%s'", rq->dtype);
	int rc = run_version(&R, d);
	if (!rc)
		rc = run_device(&R, d);
	if (!rc && !rq->ops_only)
		rc = run_rank(&R, d);
	if (!rc)
		rc = run_ops(&R, d);
	size_t op_keys = 0;
	for (size_t i = 0; i < R.nops; i++)
		op_keys += R.opk[i].n;
	if (!rc && rq->ops_only && !op_keys)
		rc = diag_error(d, TT_INVALID, "generate", NULL, 0, 0, "the server tunes no CUTLASS MoE "
				"here, and tunetab knows the keys of none of the other ops it tunes in "
				"FlashInfer %s: nothing to write", R.version);
	if (!rc && R.o->profile && S->backend == BACKEND_FLASHINFER && R.cat && R.cat->tactic_ignored) {
		/* catalog tactic_ignored: the runner skips profiling and sets one config whatever the
		 * tactic (DeepSeek fp8 block scale, cutlass-moe-tactics.md §1.1) */
		say(S, "tunetab: note: %s: FlashInfer's runner ignores the tactic (catalog %s: it skips "
		    "profiling and sets one config; cutlass-moe-tactics.md §1.1): nothing to time, the "
		    "table holds the fallback", R.dep.dt->name, R.cat->id);
		R.not_timed = true;
		heuristic_only(&R);
	}
	if (!rc && !rq->ops_only) {
		backend_describe(S, &R.be);
		R.identity = run_identity(&R, NULL);
		if (R.o->profile)
			rc = run_measure(&R, d);
	} else if (!rc) {
		backend_describe(S, &R.be);
		R.identity = xasprintf("ops %s %s", R.sdev.name, R.version);
	}
	if (!rc)
		rc = run_ops_measure(&R, d);
	if (!rc)
		rc = run_outputs(&R, d);
	if (!rc && R.o->report)
		rc = run_report(&R, d);
	timing(S, "outputs written");
	if (!rc && S->hooks && S->hooks->table) {
		struct generate_result res;
		run_result(&R, &res);
		S->hooks->table(S->hooks->ctx, &res);
	}
	if (!rc) /* on failure the caller tells d in order, the error with what followed it */
		hear(S, d);
	run_release(&R);
	return rc;
}

/* ---------------------------------------------------------------- fleet plans */

/* The device's items merged into its folder (tunetab merge's rules, docs/fleet.md). */
static int merge_into(const struct generate_session *S, const char *devdir, char *const *items,
		      size_t n, bool quiet, struct diags *d)
{
	const struct tt_data *data = S->data;
	struct validate_data vd = { &data->devices, &data->catalogs, &data->rules, &data->ops };
	struct merge_opts mo = { .out = devdir, .inputs = items, .ninputs = n,
				 .tunetab_version = TUNETAB_VERSION };
	struct merge_result r;
	struct diags md = DIAGS_INIT;
	int rc = merge_run(&vd, &mo, &r, &md);
	size_t nwritten = 0;
	if (!rc)
		rc = merge_write(&r, &nwritten, &md);
	if (!quiet || rc) {
		diags_append(d, &md);
		if (!rc)
			hear(S, d);
	}
	diags_release(&md);
	for (size_t k = 0; !quiet && k < nwritten; k++)
		say(S, "tunetab: wrote %s", r.outputs[k].path);
	if (!rc && !quiet)
		say(S, "tunetab: merged %zu items of '%s': %zu entries, %zu conflicts settled", n,
		    r.device, r.entries, r.nconflicts);
	merge_result_release(&r);
	return rc;
}

/* Which device this process is, for a plan: the profiled GPU, --device NAME, or GPU 0. */
static int fleet_device(const struct generate_request *o, struct generate_session *S,
		       struct generate_request *base, char *devname, size_t len, struct diags *d)
{
	int rc;
	if (base->profile) {
		if ((rc = start_workers(S, base, d)))
			return rc;
		snprintf(devname, len, "%s", S->wd.gpu.name);
		base->device = "auto";
	} else if (o->device && strcmp(o->device, "auto")) {
		const struct device_profile *dp = device_find(&S->data->devices, o->device);
		if (!dp)
			return diag_error(d, TT_INVALID, "device", NULL, 0, 0, "no profile for '%s'",
					  o->device);
		snprintf(devname, len, "%s", dp->name);
		base->device = devname;
	} else {
		struct gpu_info *gpus;
		int n;
		struct gpu_env env;
		char err[512];
		if ((rc = gpu_query(&gpus, &n, &env, err, sizeof err)))
			return diag_error(d, rc, "gpu", NULL, 0, 0, "--plan without --device NAME: %s", err);
		snprintf(devname, len, "%s", gpus[0].name);
		free(gpus);
		base->device = "auto";
	}
	return TT_OK;
}

/* Runs the plan's items this process can claim; returns the first failure's status. */
static int fleet_items(const struct generate_request *base, struct generate_session *S,
		      const struct fleet_plan *pl, char **items, size_t *failed, size_t *ran, struct diags *d)
{
	int rc = TT_OK;
	for (size_t k = 0; k < pl->deployments_count; k++) {
		char holder[320];
		int r = fleetplan_claim(items[k], holder, sizeof holder);
		if (r < 0)
			return diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot claim '%s': %s",
					  items[k], strerror(-r));
		if (r == CLAIM_DONE)
			continue;
		if (r == CLAIM_HELD) {
			if (!base->quiet)
				say(S, "tunetab: %s is taken by %s (if that process is gone, delete "
				    "%s/.claim)", items[k], holder, items[k]);
			continue;
		}
		const struct fleet_plan_item *x = &pl->deployments[k];
		struct generate_request io = *base;
		io.model = x->model;
		io.dtype = x->dtype;
		io.tp = x->tp ? x->tp : 1;
		io.ep = x->ep ? x->ep : 1;
		io.max_tokens = x->max_tokens;
		struct shard whole = { .index = 0, .count = 1 };
		if (!base->quiet)
			say(S, "tunetab: plan item %s", items[k]);
		struct diags id = DIAGS_INIT;
		int r2 = generate_table(&io, S, &whole, items[k], &id);
		/* an item's errors are told when it ends, as each item's own */
		if (S->hooks && S->hooks->diag)
			for (size_t i = 0; i < id.n; i++)
				S->hooks->diag(S->hooks->ctx, &id.v[i]);
		diags_release(&id);
		(*ran)++;
		if (r2) {
			fleetplan_unclaim(items[k]);
			(*failed)++;
			if (!rc)
				rc = r2;
			continue;
		}
		if ((r = fleetplan_finish(items[k])) < 0)
			return diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot mark '%s' done: %s",
					  items[k], strerror(-r));
	}
	return rc;
}

int generate_fleet_plan(const struct generate_request *o, struct generate_session *S,
		      struct diags *d)
{
	struct fleet_plan *pl = NULL;
	int rc = fleetplan_load(o->plan, &S->data->devices, &pl, d);
	hear(S, d);
	if (rc)
		return rc;
	struct generate_request base = *o;
	base.profile = o->profile || pl->profile;
	if (!base.flashinfer)
		base.flashinfer = pl->flashinfer;
	if (!base.top && pl->top)
		base.top = pl->top;
	if (!base.rounds && pl->rounds)
		base.rounds = pl->rounds;
	const char *root = o->outdir ? o->outdir : pl->output ? pl->output : ".";
	char devname[256] = "";
	if ((rc = fleet_device(o, S, &base, devname, sizeof devname, d))) {
		fleetplan_free(pl);
		return rc;
	}
	bool mine = false;
	for (unsigned i = 0; i < pl->devices_count; i++)
		mine |= !strcmp(pl->devices[i], devname);
	if (!mine) {
		if (!o->quiet)
			say(S, "tunetab: %s has no items for this process's '%s': nothing to do", o->plan,
			    devname);
		fleetplan_free(pl);
		return TT_OK;
	}
	char *dd = fleetplan_device_dir(devname);
	char *devdir = xasprintf("%s/%s", root, dd);
	free(dd);
	size_t n = pl->deployments_count, done = 0, ran = 0, failed = 0;
	char **items = xcalloc(n, sizeof *items);
	for (size_t k = 0; k < n; k++) {
		char *name = fleetplan_item_name(pl, k);
		items[k] = xasprintf("%s/items/%s", devdir, name);
		free(name);
	}
	rc = fleet_items(&base, S, pl, items, &failed, &ran, d);
	/* count again: an item another process held may have finished meanwhile. Each process
	 * marks its items done before it counts, so the last one to count sees them all. */
	for (size_t k = 0; k < n; k++)
		done += fleetplan_is_done(items[k]);
	if (!rc && done == n) {
		/* every process that sees the device complete merges: the merge is deterministic and
		 * written atomically, so two of them write the same bytes */
		rc = merge_into(S, devdir, items, n, o->quiet, d);
	} else if (!rc && !o->quiet) {
		say(S, "tunetab: %zu of %zu items of '%s' done; the process that finishes the last one "
		    "merges them into %s", done, n, devname, devdir);
	}
	if (!o->quiet && failed)
		say(S, "tunetab: %zu of the %zu items this process ran failed (their claims are dropped: "
		    "a re-run retries them)", failed, ran);
	for (size_t k = 0; k < n; k++)
		free(items[k]);
	free(items);
	free(devdir);
	fleetplan_free(pl);
	return rc;
}

/* ---------------------------------------------------------------- the summary */

/* What the table holds of the other ops (issue #39). */
static void ops_summary(const struct generate_result *r, struct strbuf *out)
{
	for (size_t i = 0; i < r->nops; i++) {
		const struct generate_op *g = &r->ops[i];
		if (!strcmp(g->covered, "measured"))
			sb_addf(out, "tunetab: %s (%s): %zu keys measured on this GPU through "
				"FlashInfer's runner: %zu faster than the fallback, %zu keep it\n", g->op,
				g->runner, g->keys, g->faster, g->keys - g->faster);
		else if (!strcmp(g->covered, "default"))
			sb_addf(out, "tunetab: %s (%s): %zu keys with the fallback tactic (-1), not "
				"measured (--profile --backend flashinfer on a GPU that runs the op measures "
				"them): the server finds them and does not "
				"profile them at start\n", g->op, g->runner, g->keys);
		else
			sb_addf(out, "tunetab: %s (%s): not covered: tunetab knows its keys from "
				"FlashInfer %s on, not in %s; the server profiles it at start\n", g->op,
				g->runner, g->why, r->version);
	}
}

void generate_summary(const struct generate_result *r, struct strbuf *out)
{
	if (r->ops_only) {
		sb_addf(out, "tunetab: %s on %s (SM%d), FlashInfer %s: no CUTLASS MoE keys (the server "
			"does not tune it)\n", r->model, r->device, r->sm, r->version);
		ops_summary(r, out);
		return;
	}
	sb_addf(out, "tunetab: %s on %s (SM%d), %s, TP %ld EP %ld, FlashInfer %s, heuristic '%s' "
		"(%s)\n", r->model, r->device, r->sm, r->dtype, r->tp, r->ep, r->version, r->heuristic,
		r->catalog);
	char scope[200];
	if (r->keys)
		snprintf(scope, sizeof scope, "the keys of %s", r->keys);
	else
		snprintf(scope, sizeof scope, "2 GEMM stages x token buckets up to %u", r->max_tokens);
	if (r->shard->count > 1) {
		size_t l = strlen(scope);
		snprintf(scope + l, sizeof scope - l, "; shard %d/%d of %zu", r->shard->index,
			 r->shard->count, r->total_entries);
	}
	sb_addf(out, "tunetab: %zu entries (%s); %zu differ from FlashInfer's fallback (tactic -1)%s\n",
		r->entries, scope, r->differ, r->skipped ? "; the heuristic's first choice was not "
		"dispatchable for some and was skipped" : "");
	if (r->profiled && r->nworkers > 1)
		sb_addf(out, "tunetab: %zu GPUs of this model measured from one queue\n", r->nworkers);
	const struct timing_stats *st = &r->stats;
	char pruned[96] = "";
	if (st->pruned)
		snprintf(pruned, sizeof pruned, ", %zu left out of a screen (over 2x the best a bucket "
			 "or two below)", st->pruned);
	if (r->profiled)
		sb_addf(out, "tunetab: profiled in %.1f s (backend %s: %s): %zu entries measured, %zu "
			"kept the fallback, %zu predicted (the backend cannot express the candidates, or "
			"the budget ran out); %zu timings, %zu resumed from the journal, %zu candidates "
			"failed, %zu not expressible%s\n", st->seconds, r->backend, r->timed,
			st->measured_entries, st->fallback_kept, st->predicted_entries, st->timed,
			st->resumed, st->failed_candidates, st->unsupported, pruned);
	if (r->profiled && r->gate == 0)
		sb_adds(out, "tunetab: correctness gate off (--no-gate): the fastest tactic was chosen "
			"whatever it computes\n");
	if (r->profiled && r->gate == 1) {
		sb_addf(out, "tunetab: correctness gate: %zu tactics checked in %.1f s (%.0f%% of "
			"profiling), %zu computed a wrong answer and were not chosen", st->gate_checked,
			st->gate_seconds, st->seconds > 0 ? 100.0 * st->gate_seconds / st->seconds : 0.0,
			st->nwrong);
		for (size_t i = 0; i < st->nwrong && i < 8; i++)
			sb_addf(out, "%s tactic %d at GEMM%d %ld tokens (max abs %.3g, %.3g of the "
				"reference's largest)", i ? ";" : ":", st->wrong[i].id, st->wrong[i].stage,
				st->wrong[i].tokens, st->wrong[i].max_abs, st->wrong[i].rel);
		if (st->nwrong > 8)
			sb_addf(out, "; %zu more (the journal)", st->nwrong - 8);
		if (st->gate_unchecked)
			sb_addf(out, "; %zu entries unchecked: %s", st->gate_unchecked, st->unchecked_why);
		sb_addc(out, '\n');
	}
	ops_summary(r, out);
}

void generate_written(const struct generate_result *r, struct strbuf *out)
{
	const struct fi_rules *rules = r->rules;
	if (r->written[0])
		sb_addf(out, "tunetab: wrote %s\n  FlashInfer imports it from <site-packages>/%s/ with "
			"%s=%s, only when not tuning (formats §1.1, §1.4); SGLang and vLLM tune at start: "
			"deploy the JSON cache\n", r->written[0], rules->bundled.package_dir,
			rules->bundled.env_var, rules->bundled.env_value);
	if (r->written[1])
		sb_addf(out, "tunetab: wrote %s\n  a server: tunetab install --for sglang|vllm --from "
			"%s -- LAUNCH (the command that starts it: install refuses keys it would not "
			"look up); your own FlashInfer code: autotune(True, cache=\"%s\") (formats §2.1)\n",
			r->written[1], r->written[1], r->written[1]);
	if (r->written[2])
		sb_addf(out, "tunetab: wrote %s (what was measured or predicted, for tunetab merge)\n",
			r->written[2]);
}
