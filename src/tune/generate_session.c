/* generate_session.c: the session of `tunetab generate` and its GPU workers: the backend
 * chosen, the first worker and those of further GPUs started (generate_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/generate_int.h"
#include "base/util.h"
#include "deployment/python.h"

static void stop_early(struct generate_session *S);

int generate_session_init(struct generate_session *S, struct tt_data *data,
			  const struct generate_hooks *hooks, struct diags *d)
{
	S->data = data;
	S->hooks = hooks;
	gen_timing(S, NULL); /* the clock starts */
	int rc = TT_OK;
	if (!data->dtypes) { /* data loaded without its dtypes: loaded into it now */
		char *path = xasprintf("%s/configs/dtypes.yaml", data->root);
		rc = dtypes_load(path, &data->dtypes, d);
		free(path);
	}
	S->dtypes = data->dtypes;
	return rc;
}

void generate_session_release(struct generate_session *S)
{
	gen_timing(S, "done; stopping the workers");
	stop_early(S);
	for (size_t k = 0; k < S->nworkers; k++)
		worker_detach(&S->workers[k]);
	S->nworkers = 0;
	free(S->python);
	free(S->script);
	S->python = S->script = NULL;
	S->dtypes = NULL; /* the data's */
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
		gen_timing(S, "flashinfer worker started");
		if (worker_who(&S->workers[0], &S->wb, d) == TT_OK) {
			S->nworkers = 1;
			gen_timing(S, "flashinfer worker answered (python, torch and flashinfer imported)");
			if (!o->quiet)
				gen_say(S, "tunetab: backend flashinfer: FlashInfer %s, torch %s, python %s (from %s)",
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
			gen_say(S, "tunetab: backend none, the heuristic's table: %s; for fp8 the proxy GEMM "
			    "measured worse than the heuristic alone on FlashInfer's own kernels "
			    "(--backend proxy measures anyway)", why);
		return TT_OK;
	}
	if (!o->quiet)
		gen_say(S, "tunetab: backend %s: %s", backend_kind_name(own), why);
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
		gen_say(c->S, "tunetab: flashinfer: %s", text);
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
				gen_warn(S, "GPU %d is a '%s', not a '%s' like GPU %d: left out (a table is "
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

int gen_start_workers(struct generate_session *S, const struct generate_request *o,
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
		gen_timing(S, "worker process started");
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
	gen_timing(S, S->backend == BACKEND_FLASHINFER ? "worker reported its GPU; fused-MoE module loaded"
						   : "worker reported its GPU");
	return start_more_workers(S, o, d);
}

void gen_backend_describe(const struct generate_session *S, struct backend_desc *b)
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

const char *gen_method_name(int m)
{
	return m == 1 ? "flashinfer" : m == 2 ? "full" : m == 3 ? "sequential" : "tunetab";
}
