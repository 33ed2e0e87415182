/* cmd_generate.c: `tunetab generate`: the tables FlashInfer is missing for a GPU and a MoE
 * deployment, chosen by a Lua heuristic, written atomically and validated first. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd/cli.h"
#include "inspect/doctor.h"
#include "data/dtypes.h"
#include "tune/fleet.h"
#include "tune/journal.h"
#include "flashinfer/merge.h"
#include "data/fleetplan.h"
#include "flashinfer/provenance.h"
#include "tune/report.h"
#include "tune/gen.h"
#include "tune/timing.h"
#include "tune/python.h"
#include "tune/backend.h"
#include "tune/worker.h"
#include <unistd.h>
#include "gpu/gpu.h"
#include "script/script.h"
#include "flashinfer/table.h"
#include "base/util.h"
#include "flashinfer/validate.h"

struct gen_opts {
	const char *device, *model, *dtype, *flashinfer, *format, *heuristic, *outdir, *keys;
	const char *weight_view, *calibration, *devices, *shard, *plan, *report;
	const char *backend, *python; /* --backend, --python */
	char *command;          /* the command line as typed (shell-quoted), for journal and report */
	long tp, ep, tp_rank, ep_rank, top_k, max_tokens;
	bool tp_rank_all, ep_rank_all; /* --tp-rank all, --ep-rank all */
	bool no_fused_finalize;        /* --fused-finalize off */
	char **metas;
	int nmeta;
	long script_mem_mib;
	long long script_instructions;
	int quiet, verbose, profile;
	int into_flashinfer;    /* -o may be FlashInfer's tuning_configs folder */
	long top, rounds;
	int method;
	double budget, timeout;
};

static double prof_u(const uint64_t *v)
{
	return v ? (double)*v : -1;
}

static double prof_f(const double *v)
{
	return v ? *v : -1;
}

static void fill_device(struct script_device *sd, const struct device_profile *p,
			const struct gpu_info *g)
{
	memset(sd, 0, sizeof *sd);
	sd->name = g ? g->name : p->name;
	sd->sm = g ? g->cc_major * 10 + g->cc_minor : (int)device_sm(p);
	/* a detected GPU's own numbers win over its profile's (devices-models.md "How to use") */
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

/* Before a module replaces a file in FlashInfer's package folder: that file (a table
 * FlashInfer shipped, or an earlier one) is copied to <name>.tunetab-backup, once: an
 * existing backup holds the original and is never overwritten. */
static int backup_shipped(const char *dir, const char *name, int quiet)
{
	char *path = xasprintf("%s/%s", dir, name), *bak = xasprintf("%s.tunetab-backup", path);
	char *bytes = NULL;
	size_t len = 0;
	int rc = TT_OK, err;
	if (access(path, F_OK) == 0 && access(bak, F_OK) != 0) {
		if ((err = read_file(path, (size_t)1 << 30, &bytes, &len)) ||
		    (err = write_file_atomic(bak, bytes, len, 0644)))
			rc = cli_error(TT_INTERNAL, "cannot keep a backup of '%s': %s", path, strerror(err));
		else if (!quiet)
			fprintf(stderr, "tunetab: kept FlashInfer's %s as %s\n", path, bak);
	}
	free(bytes);
	free(path);
	free(bak);
	return rc;
}

/* Stages one output of a run in set (util.h): the outputs of a run appear together. */
static int stage_output(struct file_set *set, const char *dir, const char *name,
			const struct strbuf *sb, char **path_out)
{
	int err = mkdir_p(dir);
	if (err)
		return cli_error(TT_INTERNAL, "cannot create '%s': %s", dir, strerror(err));
	char *path = xasprintf("%s/%s", dir, name);
	err = file_set_stage(set, path, sb->buf, sb->len, 0644);
	if (err) {
		int rc = cli_error(TT_INTERNAL, "cannot write '%s': %s", path, strerror(err));
		free(path);
		return rc;
	}
	*path_out = path;
	return TT_OK;
}

/* The written bytes must pass validate for the target version before they are written. */
static int check_bytes(const struct tt_data *data, const char *name, const struct strbuf *sb,
		       const char *version, const char *device, enum dtype dt, const char *cause)
{
	struct table t;
	struct diags d = DIAGS_INIT;
	int rc = table_read_mem(name, sb->buf, sb->len, &t, &d);
	if (!rc) {
		struct validate_data vd = { &data->devices, &data->catalogs, &data->schemas };
		struct validate_opts vo = { .flashinfer = version, .device = device, .dtype = (int)dt };
		struct validate_result r;
		rc = validate_table(&vd, &t, &vo, &r, &d);
	}
	size_t ne = diags_count(&d, SEV_ERROR);
	if ((rc || ne) && cause) {
		/* the user's keys or --metadata, not tunetab: invalid input (exit 1) */
		cli_error(TT_INVALID, "generated %s does not validate because of %s; nothing written:",
			  name, cause);
		cli_print_diags(&d);
		rc = TT_INVALID;
	} else if (rc || ne) {
		cli_error(TT_INTERNAL, "generated %s does not validate (a tunetab bug); nothing written:", name);
		cli_print_diags(&d);
		rc = TT_INTERNAL;
	}
	diags_release(&d);
	table_release(&t);
	return rc;
}

#define MAX_WORKERS 16

/* "0,2,3" -> {0,2,3}; 1 on anything else */
static int parse_gpu_list(const char *s, int *ids, size_t *n)
{
	*n = 0;
	for (const char *p = s;;) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || v < 0 || v > 1023 || *n == MAX_WORKERS)
			return 1;
		for (size_t k = 0; k < *n; k++)
			if (ids[k] == v)
				return 1;
		ids[(*n)++] = (int)v;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return 1;
		p = end + 1;
	}
}

/* The progress line (a TTY) or one line per entry (-v); called by profile_plan under a lock. */
struct progress {
	bool tty, verbose;
};

static void on_entry(void *ctx, const struct profile_event *ev)
{
	const struct progress *pg = ctx;
	const struct gen_entry *e = ev->e;
	if (pg->tty)
		fprintf(stderr, "\rtunetab: profiling GEMM%d %6ld tokens  %zu/%zu  ETA %4.0fs ", e->stage,
			e->tokens, ev->done, ev->total, ev->eta_s);
	if (!pg->verbose)
		return;
	fprintf(stderr, "tunetab: GPU %d GEMM%d %ld tokens:", ev->worker, e->stage, e->tokens);
	if (!ev->n)
		fprintf(stderr, " out of budget");
	size_t screened = 0; /* screening: those one sample dropped are only counted */
	for (size_t k = 0; k < ev->n; k++) {
		const struct prof_result *r = &ev->res[k];
		if (ev->n > 12 && r->status == PROF_OK && r->n == 1 && ev->ids[k] != e->tactic) {
			screened++;
			continue;
		}
		if (r->status == PROF_OK)
			fprintf(stderr, " %d=%.2fus[%.2f,%.2f]", ev->ids[k], r->median_us, r->lo_us, r->hi_us);
		else
			fprintf(stderr, " %d=%s(%s)", ev->ids[k],
				r->status == PROF_FAILED ? "failed" : "unsupported", r->why);
	}
	if (screened)
		fprintf(stderr, " (+%zu screened out)", screened);
	fprintf(stderr, " -> %d (%s)\n", e->tactic,
		e->kind == CHOICE_MEASURED ? "measured"
		: e->kind == CHOICE_FALLBACK ? "fallback kept" : "predicted");
}

/* TUNETAB_PROF_TIMING=1: where a profiled run's wall time goes, on stderr (diagnostics). */
static void timing(const char *what)
{
	static int on = -1;
	static struct timespec t0;
	if (on < 0) {
		on = getenv("TUNETAB_PROF_TIMING") != NULL;
		clock_gettime(CLOCK_MONOTONIC, &t0);
	}
	if (!on || !what)
		return;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	fprintf(stderr, "tunetab-timing: %.3f s %s\n",
		(double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9, what);
}

/* What one process keeps across the items of a plan: the data, and the GPU workers (started
 * once: a CUDA context and cuBLASLt cost about half a second each time). */
struct session {
	struct tt_data data;
	struct dtype_set *dtypes;
	struct worker workers[MAX_WORKERS];
	size_t nworkers;
	struct worker_device wd;        /* the GPU of workers[0] */
	int gpu_ids[MAX_WORKERS];
	size_t ngpu_ids;
	bool all_gpus;
	const char *gpu_why;            /* the launcher variable that chose gpu_ids[0], or "" */
	bool started;                   /* workers started (or failed to) */
	enum backend_kind backend;      /* what the workers measure with */
	struct worker_backend wb;       /* the flashinfer worker's WHO */
	char *python, *script;          /* the flashinfer worker's */
};

static int start_worker(const struct session *S, const struct gen_opts *o, struct worker *w,
			int device, struct diags *d)
{
	if (S->backend == BACKEND_FLASHINFER)
		return worker_start_python(w, device, o->timeout, S->python, S->script, d);
	return worker_start(w, device, o->timeout, d);
}

/* --backend (README "Measurement backends"): flashinfer times FlashInfer's own kernels in a
 * Python worker, proxy the cuBLASLt stand-in; auto takes flashinfer when the Python found
 * answers with FlashInfer and a CUDA torch, else the proxy, and says which and why. With
 * TUNETAB_FAKE_GPU=1 and no --backend the fake backend stands in for the GPU. On success the
 * flashinfer worker is S->workers[0], started. */
static int choose_backend(struct session *S, const struct gen_opts *o, struct diags *d)
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
		int rc = start_worker(S, o, &S->workers[0], S->gpu_ids[0], d);
		if (rc)
			return rc;
		timing("flashinfer worker started");
		if (worker_who(&S->workers[0], &S->wb, d) == TT_OK) {
			S->nworkers = 1;
			timing("flashinfer worker answered (python, torch and flashinfer imported)");
			return TT_OK;
		}
		worker_stop(&S->workers[0]);
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
			fprintf(stderr, "tunetab: backend none, the heuristic's table: %s; for fp8 the proxy "
				"GEMM measured worse than the heuristic alone on FlashInfer's own kernels "
				"(--backend proxy measures anyway)\n", why);
		return TT_OK;
	}
	if (!o->quiet)
		fprintf(stderr, "tunetab: backend %s: %s\n", backend_kind_name(own), why);
	return TT_OK;
}

static void on_load_note(void *ctx, const char *text)
{
	const struct gen_opts *o = ctx;
	if (!o->quiet)
		fprintf(stderr, "tunetab: flashinfer: %s\n", text);
}

/* A worker's GPU, and for the flashinfer backend its fused-MoE module loaded (a phase that
 * compiles for minutes the first time). */
static int ready_worker(struct session *S, const struct gen_opts *o, struct worker *w,
			struct worker_device *wd, struct diags *d)
{
	int rc = worker_info(w, wd, d);
	if (rc || S->backend != BACKEND_FLASHINFER)
		return rc;
	double seconds; /* TUNETAB_PROF_TIMING shows the phase */
	return worker_load(w, o->dtype ? o->dtype : "bf16", on_load_note, (void *)o, &seconds, d);
}

/* --devices: a worker per further GPU. Only GPUs of the first one's model join (a table is
 * for one model); others are named and left out. */
static int start_more_workers(struct session *S, const struct gen_opts *o, struct diags *d)
{
	const struct worker_device *first = &S->wd;
	int want[MAX_WORKERS];
	size_t nwant = 0;
	if (S->all_gpus)
		for (int k = 0; k < first->visible && nwant < MAX_WORKERS; k++) {
			if (k != S->workers[0].device)
				want[nwant++] = k;
		}
	else
		for (size_t k = 1; k < S->ngpu_ids; k++)
			want[nwant++] = S->gpu_ids[k];
	for (size_t k = 0; k < nwant; k++) {
		struct worker_device wd;
		struct worker *w = &S->workers[S->nworkers];
		int rc = start_worker(S, o, w, want[k], d);
		if (rc)
			return rc;
		if ((rc = ready_worker(S, o, w, &wd, d))) {
			worker_stop(w);
			return rc;
		}
		if (strcmp(wd.name, first->name) || wd.cc_major != first->cc_major ||
		    wd.cc_minor != first->cc_minor || wd.sm_count != first->sm_count) {
			if (!o->quiet)
				cli_warn("GPU %d is a '%s', not a '%s' like GPU %d: left out (a table is "
					 "measured on one GPU model)", want[k], wd.name, first->name,
					 S->workers[0].device);
			worker_stop(w);
			continue;
		}
		S->nworkers++;
	}
	return TT_OK;
}

static int start_workers(struct session *S, const struct gen_opts *o, struct diags *d)
{
	if (S->started) /* once per process: a failed start is not retried */
		return S->nworkers || S->backend == BACKEND_NONE ? TT_OK : TT_GPU;
	S->started = true;
	int rc = choose_backend(S, o, d);
	if (rc || S->backend == BACKEND_NONE)
		return rc;
	if (!S->nworkers) {
		if ((rc = start_worker(S, o, &S->workers[0], S->gpu_ids[0], d)))
			return rc;
		timing("worker process started");
		S->nworkers = 1;
	}
	if ((rc = ready_worker(S, o, &S->workers[0], &S->wd, d))) {
		if (S->gpu_why && *S->gpu_why)
			diags_add(d, SEV_NOTE, "gpu", NULL, 0, 0, "GPU %d is this process's local rank (%s): "
				  "start at most one process per visible GPU, or give --devices", S->gpu_ids[0],
				  S->gpu_why);
		return rc;
	}
	timing(S->backend == BACKEND_FLASHINFER ? "worker reported its GPU; fused-MoE module loaded"
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

static void backend_describe(const struct session *S, struct backend_desc *b)
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
	long v = S->wd.blaslt_version; /* cuBLASLt's 130100 is 13.1.0 */
	if (v > 0)
		snprintf(b->text, sizeof b->text, "proxy cuBLASLt %ld.%ld.%ld", v / 10000, v % 10000 / 100,
			 v % 100);
	else
		snprintf(b->text, sizeof b->text, "proxy");
}

static const char *method_name(int m)
{
	return m == 1 ? "flashinfer" : m == 2 ? "full" : "tunetab";
}

/* The provenance of what was written (docs/fleet.md "Provenance file"). */
static void build_provenance(struct provenance *pv, const struct gen_opts *o, const struct session *S,
			     const struct gen_plan *plan, const struct gen_deploy *dep,
			     const char *version, const struct script_device *sdev,
			     const struct catalog *cat, const struct script *sc,
			     const struct calibration *cal, const struct shard *sh,
			     const struct backend_desc *be, const char *identity, char *const written[2])
{
	memset(pv, 0, sizeof *pv);
	pv->tunetab_version = xstrdup(TUNETAB_VERSION);
	pv->flashinfer_version = xstrdup(version);
	pv->device = xstrdup(sdev->name);
	for (int k = 0; k < 2; k++)
		if (written[k]) {
			const char *base = strrchr(written[k], '/');
			*(k ? &pv->json_file : &pv->py_file) = xstrdup(base ? base + 1 : written[k]);
		}
	struct prov_run_builder *b = prov_run_new();
	prov_run_str(b, "model", dep->model_name);
	prov_run_str(b, "dtype", dep->dt->name);
	prov_run_int(b, "tp", dep->tp);
	prov_run_int(b, "ep", dep->ep);
	prov_run_int(b, "tp_rank", dep->tp_rank);
	prov_run_int(b, "ep_rank", dep->ep_rank);
	prov_run_int(b, "top_k", dep->top_k);
	prov_run_int(b, "max_tokens", dep->max_tokens);
	if (o->keys) {
		const char *kb = strrchr(o->keys, '/');
		prov_run_str(b, "keys", kb ? kb + 1 : o->keys);
	} else {
		prov_run_str(b, "keys", NULL);
	}
	prov_run_str(b, "heuristic", script_heuristic_name(sc));
	prov_run_str(b, "catalog", cat->id);
	prov_run_str(b, "calibration", cal ? cal->device : NULL);
	prov_run_str(b, "calibration_measured", cal ? cal->measured : NULL);
	prov_run_int(b, "sm", sdev->sm);
	prov_run_bool(b, "profiled", o->profile);
	if (o->profile) {
		prov_run_str(b, "backend", be->text);
		prov_run_str(b, "method", method_name(o->method));
		prov_run_int(b, "top", o->top ? o->top : 4);
		prov_run_int(b, "rounds", o->rounds ? o->rounds : 15);
		prov_run_str(b, "gpu", S->wd.name);
		prov_run_int(b, "gpu_sm_count", S->wd.sm_count);
		prov_run_int(b, "gpu_clock_mhz", (long long)S->wd.clock_mhz);
		prov_run_int(b, "cuda_driver", S->wd.driver_version);
		prov_run_int(b, "cuda_runtime", S->wd.runtime_version);
		prov_run_int(b, "cublaslt", S->wd.blaslt_version);
	}
	char id[17];
	snprintf(id, sizeof id, "%016llx", (unsigned long long)hash_bytes(identity, strlen(identity)));
	size_t run = prov_add_run(pv, b, id, sh->count > 1 ? sh->index : 0, sh->count > 1 ? sh->count : 1,
				  sh->count > 1 ? sh->source : NULL);
	for (size_t i = 0; i < plan->n; i++) {
		const struct gen_entry *e = &plan->v[i];
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
		} else {
			pe.source = PROV_PREDICTED;
			pe.time_us = e->time_us;
		}
		prov_add_entry(pv, &pe);
	}
}

/* One table: every key of the deployment (or of --keys), or a shard of them, chosen,
 * profiled when asked, checked and written under outdir. */
static int generate_one(const struct gen_opts *o, struct session *S, const struct shard *sh,
			const char *outdir)
{
	struct tt_data *data = &S->data;
	struct dtype_set *dtypes = S->dtypes;
	enum dtype dt;
	if (dtype_parse(o->dtype, &dt))
		return cli_usage_error("generate", "unknown dtype '%s'", o->dtype);
	int rc = TT_OK;
	struct diags d = DIAGS_INIT;
	struct device_profile *own_dev = NULL;
	struct model_profile *own_model = NULL;
	struct gpu_info *gpus = NULL;
	struct script *sc = NULL;
	struct gen_plan plan = { 0 };
	struct calibration *cal = NULL;
	struct table t;
	bool have_table = false;
	char *written[3] = { NULL, NULL, NULL };
	char *identity = NULL, *journal = NULL;

	/* target version: with the flashinfer backend the FlashInfer that runs the kernels, so the
	 * worker starts first */
	if (o->profile && (rc = start_workers(S, o, &d)))
		goto out;
	struct gen_opts heuristic_only;
	if (o->profile && S->backend == BACKEND_NONE) { /* auto chose the heuristic's table */
		heuristic_only = *o;
		heuristic_only.profile = 0;
		o = &heuristic_only;
	}
	const char *fi_want = o->flashinfer;
	if (o->profile && S->backend == BACKEND_FLASHINFER) {
		if (o->flashinfer && strcmp(o->flashinfer, S->wb.version)) {
			rc = cli_error(TT_USAGE, "--flashinfer %s, but FlashInfer %s times the kernels (%s): "
				       "drop --flashinfer, or run the Python that has %s (--python)",
				       o->flashinfer, S->wb.version, S->python, o->flashinfer);
			goto out;
		}
		fi_want = S->wb.version;
	}
	struct fi_version fv;
	const struct fi_schema *schema;
	if ((rc = cli_pick_schema(data, fi_want, &fv, &schema, !o->quiet)))
		goto out;
	const char *version = fi_want ? fi_want : schema->release;

	/* device; with --profile the GPU worker starts first and the parent never touches CUDA */
	const struct device_profile *prof = NULL;
	const struct gpu_info *g = NULL;
	struct gpu_info wgpu;
	if (o->profile) {
		if ((rc = start_workers(S, o, &d)))
			goto out;
		const struct worker_device *wd = &S->wd;
		memset(&wgpu, 0, sizeof wgpu);
		snprintf(wgpu.name, sizeof wgpu.name, "%s", wd->name);
		wgpu.cc_major = wd->cc_major;
		wgpu.cc_minor = wd->cc_minor;
		wgpu.sm_count = wd->sm_count;
		wgpu.smem_per_block_optin = (size_t)wd->smem_optin;
		wgpu.smem_per_sm = (size_t)wd->smem_sm;
		wgpu.l2_bytes = (size_t)wd->l2;
		wgpu.total_mem = (size_t)wd->mem;
		wgpu.clock_khz = (int)(wd->clock_mhz * 1000);
		if (strcmp(o->device, "auto")) {
			const struct device_profile *want = device_find(&data->devices, o->device);
			if (!want || strcmp(want->name, wd->name)) {
				rc = cli_error(TT_GPU, "--profile measures this machine's GPU %d ('%s'), not '%s': "
					       "use --device auto", S->gpu_ids[0], wd->name, o->device);
				goto out;
			}
		}
		g = &wgpu;
		prof = device_find(&data->devices, g->name);
		if (prof && strcmp(prof->name, g->name))
			prof = NULL;
	} else if (!strcmp(o->device, "auto")) {
		int n;
		struct gpu_env env;
		char err[512];
		if ((rc = gpu_query(&gpus, &n, &env, err, sizeof err))) {
			rc = cli_error(rc, "--device auto: %s", err);
			goto out;
		}
		g = &gpus[0]; /* FlashInfer names the file after device 0 (formats §1.1) */
		prof = device_find(&data->devices, g->name);
		if (prof && strcmp(prof->name, g->name))
			prof = NULL;
	} else if (str_ends(o->device, ".yaml")) {
		if ((rc = device_load_file(o->device, &own_dev, &d)))
			goto out;
		prof = own_dev;
	} else {
		prof = device_find(&data->devices, o->device);
		if (!prof) {
			const char *near[3];
			size_t k = device_nearest(&data->devices, o->device, near, 3);
			char *nt = nearest_text(near, k > 2 ? 2 : k);
			rc = cli_error(TT_INVALID, "no profile for '%s'%s (or give a profile file, "
				       "--device my-gpu.yaml)", o->device, nt);
			free(nt);
			goto out;
		}
	}
	struct script_device sdev;
	fill_device(&sdev, prof, g);
	if (o->calibration) {
		if ((rc = calibration_load(o->calibration, &cal, &d)))
			goto out;
		if (strcmp(cal->device, sdev.name))
			cli_warn("calibration '%s' was measured on '%s', not '%s'", o->calibration, cal->device,
				 sdev.name);
		sdev.cal = cal;
	}

	/* model and deployment */
	struct gen_deploy dep;
	struct deploy_args da = { .cmd = "generate", .model = o->model, .weight_view = o->weight_view,
				  .dt = dt, .tp = o->tp, .ep = o->ep, .tp_rank = o->tp_rank,
				  .ep_rank = o->ep_rank, .top_k = o->top_k, .max_tokens = o->max_tokens,
				  .no_fused_finalize = o->no_fused_finalize };
	if ((rc = cli_deploy(data, dtypes, &da, sdev.sm, schema, &dep, &own_model, &d)))
		goto out;
	const struct dtype_info *dti = dep.dt;

	const struct catalog *cat = catalog_find(&data->catalogs, &fv, (unsigned)sdev.sm, dt);
	if (!cat) {
		rc = cli_error(TT_INVALID, "no tactic catalog for SM%d %s in FlashInfer %s: FlashInfer "
			       "has no cutlass MoE candidates tunetab knows for it", sdev.sm,
			       dtype_name(dt), version);
		goto out;
	}
	rc = o->keys ? gen_plan_keys(schema, o->keys, &dep, dtypes, &plan, &d)
		     : gen_plan_deploy(schema, &dep, &plan, &d);
	if (rc)
		goto out;

	/* heuristic */
	char *hpath = o->heuristic ? xstrdup(o->heuristic)
				   : xasprintf("%s/scripts/heuristics/default.lua", data->root);
	struct script_limits lim = { (size_t)o->script_mem_mib << 20,
				     (unsigned long long)o->script_instructions };
	rc = script_open(&sc, data->root, hpath, &lim, &d);
	free(hpath);
	if (rc)
		goto out;
	struct script_deploy sdep = {
		.model = dep.model_name, .dtype = dti->name, .act_bits = (int)dti->act_bits,
		.weight_bits = (int)dti->weight_bits, .out_bits = 16, .hidden = dep.hidden,
		.inter = dep.tp ? dep.inter_total / dep.tp : 0,
		.experts = dep.ep ? dep.experts_total / dep.ep : 0, .experts_total = dep.experts_total,
		.top_k = dep.top_k, .tp = dep.tp, .ep = dep.ep,
		.gated = model_activation_gated(dep.activation),
		.activation = model_activation_name(dep.activation),
	};
	if (o->keys && plan.n) {
		sdep.inter = plan.v[0].inter;
		sdep.experts = plan.v[0].experts;
		sdep.hidden = plan.v[0].stage == 1 ? plan.v[0].k : plan.v[0].features;
		if (!sdep.experts_total)
			sdep.experts_total = sdep.experts;
	}
	if ((rc = script_set_context(sc, &sdev, &sdep, &d)))
		goto out;
	/* a shard keeps its part of the work list: every shard builds the same list, so the
	 * parts are disjoint and together cover it (docs/fleet.md "Shards") */
	size_t total_entries = plan.n;
	if ((rc = gen_choose(sc, cat, &dep, &plan, &d)))
		goto out;
	gen_plan_shard(&plan, &dep, (int)o->rounds, (int)o->top, sh->index, sh->count);
	if (getenv("TUNETAB_DUMP_RANKING")) /* diagnostics: the heuristic's order per entry */
		for (size_t i = 0; i < plan.n; i++) {
			fprintf(stderr, "ranking GEMM%d %ld:", plan.v[i].stage, plan.v[i].tokens);
			for (int k = 0; k < plan.v[i].ntop; k++)
				fprintf(stderr, " %d", plan.v[i].top[k]);
			fprintf(stderr, "\n");
		}
	/* what decides the table: the journal's identity, and (without the shard) the run id */
	struct backend_desc be;
	backend_describe(S, &be);
	struct strbuf idb = STRBUF_INIT;
	journal_identity_add(&idb, "version", "%s", version);
	journal_identity_add(&idb, "device", "%s", sdev.name);
	journal_identity_add(&idb, "model", "%s", dep.model_name);
	journal_identity_add(&idb, "dtype", "%s", dti->name);
	journal_identity_add(&idb, "tp", "%ld", dep.tp);
	journal_identity_add(&idb, "ep", "%ld", dep.ep);
	journal_identity_add(&idb, "tp_rank", "%ld", dep.tp_rank);
	journal_identity_add(&idb, "ep_rank", "%ld", dep.ep_rank);
	if (dep.no_fused_finalize) /* absent when on: journals from before keep their identity */
		journal_identity_add(&idb, "fused_finalize", "0");
	journal_identity_add(&idb, "top_k", "%ld", dep.top_k);
	journal_identity_add(&idb, "max", "%u", dep.max_tokens);
	journal_identity_add(&idb, "catalog", "%s", cat->id);
	journal_identity_add(&idb, "keys", "%s", o->keys ? o->keys : "-");
	journal_identity_add(&idb, "top", "%ld", o->top ? o->top : 4);
	journal_identity_add(&idb, "method", "%d", o->method);
	journal_identity_add(&idb, "rounds", "%ld", o->rounds);
	journal_identity_add(&idb, "heuristic", "%s", o->heuristic ? o->heuristic : "default");
	journal_identity_add(&idb, "profile", "%d", o->profile);
	journal_identity_add(&idb, "backend", "%s", o->profile ? be.name : "-");
	identity = sb_detach(&idb);
	struct profile_stats pst;
	memset(&pst, 0, sizeof pst);
	if (o->profile) {
		if ((rc = mkdir_p(outdir))) {
			rc = cli_error(TT_INTERNAL, "cannot create '%s': %s", outdir, strerror(rc));
			goto out;
		}
		char *jname = fischema_bundled_name(schema, version, sdev.name);
		journal = journal_path(outdir, jname);
		struct strbuf jidb = STRBUF_INIT;
		sb_adds(&jidb, identity);
		journal_identity_add(&jidb, "shard", "%d/%d", sh->index, sh->count);
		char *jid = sb_detach(&jidb);
		struct progress pg = { .tty = !o->quiet && !o->verbose && isatty(2), .verbose = o->verbose };
		struct profile_opts po = { .top_k = (int)o->top, .budget_s = o->budget, .method = o->method,
					   .rounds = (int)o->rounds, .reps = 8, .journal = journal,
					   .identity = jid, .command = o->command, .backend = be.text,
					   .on_entry = on_entry, .ctx = &pg,
					   /* FlashInfer's kernels: screen every candidate, race the best */
					   .screen = S->backend == BACKEND_FLASHINFER && o->top >= 0 &&
						     o->method != 1 };
		timing("plan built and ranked; profiling starts");
		rc = profile_plan(S->workers, S->nworkers, &plan, &dep, &po, &pst, &d);
		timing("profiling done");
		if (pg.tty)
			fputc('\n', stderr);
		free(jname);
		free(jid);
		if (rc)
			goto out;
	}

	/* outputs */
	/* every rank's keys, with the decisions made for this rank's */
	if ((o->tp_rank_all || o->ep_rank_all) &&
	    (rc = gen_plan_all_ranks(schema, &dep, &plan, o->tp_rank_all, o->ep_rank_all, &d)))
		goto out;
	gen_to_table(&plan, &t);
	have_table = true;
	size_t differ = 0, skipped = 0;
	for (size_t i = 0; i < plan.n; i++) {
		differ += plan.v[i].tactic != plan.v[i].fallback;
		skipped += plan.v[i].skipped_first;
	}
	/* every output is built and checked before the first is written: no partial output */
	struct strbuf py_sb = STRBUF_INIT, js_sb = STRBUF_INIT;
	char *py_name = NULL, *js_name = NULL;
	char *keys_cause = o->keys ? xasprintf("the keys in %s", o->keys) : NULL;
	if (strcmp(o->format, "json")) {
		table_write_py(&t, &py_sb);
		py_name = fischema_bundled_name(schema, version, sdev.name);
		rc = check_bytes(data, py_name, &py_sb, version, sdev.name, dt, keys_cause);
	}
	if (!rc && strcmp(o->format, "py")) {
		if (!schema->json_cache.supported) {
			if (!strcmp(o->format, "json"))
				rc = cli_error(TT_INVALID, "FlashInfer %s has no JSON autotune cache (0.6.7+)",
					       version);
			else if (!o->quiet)
				cli_warn("FlashInfer %s has no JSON autotune cache; wrote the module only",
					 version);
		} else {
			/* what tunetab knows it stamps; the rest matches any environment ("*") */
			for (unsigned i = 0; i < schema->json_cache.metadata_count; i++) {
				const char *f = schema->json_cache.metadata[i];
				table_set_meta(&t, f, !strcmp(f, "flashinfer_version") ? version
						      : !strcmp(f, "gpu") ? sdev.name : "*");
			}
			for (int i = 0; i < o->nmeta; i++) {
				char *eq = strchr(o->metas[i], '=');
				*eq = '\0';
				table_set_meta(&t, o->metas[i], eq + 1);
				*eq = '=';
			}
			bool gen = false;
			for (unsigned i = 0; i < schema->json_cache.reserved_count; i++)
				gen |= !strcmp(schema->json_cache.reserved[i], "_generation");
			table_write_json(&t, gen, &js_sb);
			char *dev_part = fischema_bundled_name(schema, version, sdev.name);
			/* flashinfer_autotune_<DEVICE>.json: JSON caches have no name rule (formats §2.1) */
			char *stem = strstr(dev_part, schema->bundled.stem);
			js_name = xasprintf("flashinfer_autotune_%.*s.json",
					    (int)(strlen(stem) - strlen(schema->bundled.stem) - 3),
					    stem + strlen(schema->bundled.stem));
			free(dev_part);
			rc = check_bytes(data, js_name, &js_sb, version, sdev.name, dt,
					 keys_cause ? keys_cause : o->nmeta ? "--metadata" : NULL);
		}
	}
	struct file_set set = { 0 };
	/* FlashInfer's own package folder: only the module, only when asked, and the file it
	 * replaces (a shipped table) is kept as <name>.tunetab-backup (issue #15) */
	bool pkg = doctor_is_tuning_configs(outdir);
	if (!rc && pkg && !o->into_flashinfer)
		rc = cli_usage_error("generate", "'%s' is FlashInfer's package folder "
				     "(flashinfer/tuning_configs): tunetab writes there only with "
				     "--into-flashinfer (the bundled module alone, a shipped file it "
				     "replaces kept as a backup); or -o another folder", outdir);
	if (!rc && pkg && py_name)
		rc = backup_shipped(outdir, py_name, o->quiet);
	if (!rc && py_name)
		rc = stage_output(&set, outdir, py_name, &py_sb, &written[0]);
	if (!rc && js_name && !pkg)
		rc = stage_output(&set, outdir, js_name, &js_sb, &written[1]);
	if (!rc && pkg && js_name && !o->quiet)
		fprintf(stderr, "tunetab: note: no JSON cache nor provenance file written into "
			"FlashInfer's package folder; -o another folder for them\n");
	if (!rc && !pkg) {
		/* last: the sidecar describes the tables just written */
		struct provenance pv;
		build_provenance(&pv, o, S, &plan, &dep, version, &sdev, cat, sc, cal, sh, &be, identity,
				 written);
		struct strbuf pb = STRBUF_INIT;
		prov_write(&pv, &pb);
		char *pname = prov_file_name(sdev.name);
		rc = stage_output(&set, outdir, pname, &pb, &written[2]);
		free(pname);
		sb_release(&pb);
		prov_release(&pv);
	}
	if (!rc) {
		int err = file_set_commit(&set);
		if (err)
			rc = cli_error(TT_INTERNAL, "cannot write the outputs in '%s': %s", outdir,
				       strerror(err));
	}
	file_set_abort(&set);
	free(py_name);
	free(js_name);
	sb_release(&py_sb);
	sb_release(&js_sb);
	free(keys_cause);
	if (!rc && o->report) {
		/* the report: from the journal when measured (every timing, the heuristic's
		 * predictions, the decisions), else from the ranked plan */
		struct report rep;
		struct diags rd = DIAGS_INIT;
		if (o->profile) {
			rc = report_from_journal(journal, &rep, &rd);
		} else {
			report_from_plan(&plan, &rep);
			char *title = xasprintf("%s %s TP %ld EP %ld on %s, FlashInfer %s", dep.model_name,
						dti->name, dep.tp, dep.ep, sdev.name, version);
			report_set_title(&rep, title);
			free(title);
			char num[32];
			report_info(&rep, "device", sdev.name);
			snprintf(num, sizeof num, "SM%d", sdev.sm);
			report_info(&rep, "compute capability", num);
			report_info(&rep, "FlashInfer", version);
			report_info(&rep, "model", dep.model_name);
			report_info(&rep, "dtype", dti->name);
			snprintf(num, sizeof num, "%ld / %ld", dep.tp, dep.ep);
			report_info(&rep, "TP / EP", num);
			report_info(&rep, "heuristic", script_heuristic_name(sc));
			report_info(&rep, "tactic catalog", cat->id);
			report_info(&rep, "calibration", cal ? cal->path : "none");
			report_info(&rep, "command", o->command);
			report_info(&rep, "tunetab", TUNETAB_VERSION);
		}
		cli_print_diags(&rd);
		diags_release(&rd);
		if (!rc) {
			struct strbuf hb = STRBUF_INIT;
			report_write_html(&rep, &hb);
			int err = write_file_atomic(o->report, hb.buf, hb.len, 0644);
			if (err)
				rc = cli_error(TT_INTERNAL, "%s: cannot write: %s", o->report, strerror(err));
			else if (!o->quiet)
				fprintf(stderr, "tunetab: wrote %s (the report)\n", o->report);
			sb_release(&hb);
		}
		report_release(&rep);
	}
	timing("outputs written");
	if (!rc && !o->quiet) {
		fprintf(stderr, "tunetab: %s on %s (SM%d), %s, TP %ld EP %ld, FlashInfer %s, "
			"heuristic '%s' (%s)\n", dep.model_name, sdev.name, sdev.sm, dti->name, dep.tp,
			dep.ep, version, script_heuristic_name(sc), cat->id);
		char scope[200];
		if (o->keys)
			snprintf(scope, sizeof scope, "the keys of %s", o->keys);
		else
			snprintf(scope, sizeof scope, "2 GEMM stages x token buckets up to %u", dep.max_tokens);
		if (sh->count > 1) {
			size_t l = strlen(scope);
			snprintf(scope + l, sizeof scope - l, "; shard %d/%d of %zu", sh->index, sh->count,
				 total_entries);
		}
		fprintf(stderr, "tunetab: %zu entries (%s); %zu differ from FlashInfer's fallback "
			"(tactic -1)%s\n", plan.n, scope, differ,
			skipped ? "; the heuristic's first choice was not dispatchable for some and was skipped" : "");
		if (o->profile && S->nworkers > 1)
			fprintf(stderr, "tunetab: %zu GPUs of this model measured from one queue\n", S->nworkers);
		char pruned[96] = "";
		if (pst.pruned)
			snprintf(pruned, sizeof pruned, ", %zu left out of a screen (over 2x the best a "
				 "bucket or two below)", pst.pruned);
		if (o->profile)
			fprintf(stderr, "tunetab: profiled in %.1f s (backend %s: %s): %zu entries measured, "
				"%zu kept the fallback, %zu predicted (the backend cannot express the candidates, "
				"or the budget ran out); %zu timings, %zu resumed from the journal, %zu candidates "
				"failed, %zu not expressible%s\n", pst.seconds, be.text, be.timed,
				pst.measured_entries, pst.fallback_kept, pst.predicted_entries, pst.timed,
				pst.resumed, pst.failed_candidates, pst.unsupported, pruned);
		if (written[0])
			fprintf(stderr, "tunetab: wrote %s\n  FlashInfer imports it from <site-packages>/%s/ "
				"with %s=%s, only when not tuning (formats §1.1, §1.4); SGLang and vLLM "
				"tune at start: deploy the JSON cache\n", written[0],
				schema->bundled.package_dir, schema->bundled.env_var,
				schema->bundled.env_value);
		if (written[1])
			fprintf(stderr, "tunetab: wrote %s\n  SGLang: tunetab install --for sglang --from %s "
				"...; FlashInfer: flashinfer.autotune(cache=\"%s\") or "
				"AutoTuner.get().load_configs(...) (formats §2.1)\n", written[1],
				written[1], written[1]);
		if (written[2])
			fprintf(stderr, "tunetab: wrote %s (what was measured or predicted, for tunetab merge)\n",
				written[2]);
	}
out:
	for (int k = 0; k < 3; k++)
		free(written[k]);
	if (have_table)
		table_release(&t);
	free(identity);
	free(journal);
	calibration_free(cal);
	cli_print_diags(&d);
	diags_release(&d);
	gen_plan_release(&plan);
	script_close(sc);
	free(gpus);
	device_free(own_dev);
	model_free(own_model);
	return rc;
}

/* --plan: the items of the plan for this process's GPU, each claimed through a file in the
 * output tree, generated into its own folder; whoever finishes a device's last item merges
 * them into the device's folder (docs/fleet.md "Plans"). */
/* The device's items merged into its folder (tunetab merge's rules, docs/fleet.md). */
static int merge_into(const struct session *S, const char *devdir, char *const *items, size_t n,
		      int quiet)
{
	struct validate_data vd = { &S->data.devices, &S->data.catalogs, &S->data.schemas };
	struct merge_opts mo = { .out = devdir, .inputs = items, .ninputs = n,
				 .tunetab_version = TUNETAB_VERSION };
	struct merge_result r;
	struct diags d = DIAGS_INIT;
	int rc = merge_run(&vd, &mo, &r, &d);
	size_t nwritten = 0;
	if (!rc)
		rc = merge_write(&r, &nwritten, &d);
	if (!quiet || rc)
		cli_print_diags(&d);
	diags_release(&d);
	for (size_t k = 0; !quiet && k < nwritten; k++)
		fprintf(stderr, "tunetab: wrote %s\n", r.outputs[k].path);
	if (!rc && !quiet)
		fprintf(stderr, "tunetab: merged %zu items of '%s': %zu entries, %zu conflicts settled\n",
			n, r.device, r.entries, r.nconflicts);
	merge_result_release(&r);
	return rc;
}

static int generate_plan(const struct gen_opts *o, struct session *S)
{
	struct diags d = DIAGS_INIT;
	struct plan *pl = NULL;
	int rc = plan_load(o->plan, &S->data.devices, &pl, &d);
	cli_print_diags(&d);
	diags_release(&d);
	if (rc)
		return rc;
	struct gen_opts base = *o;
	base.profile = o->profile || pl->profile;
	if (!base.flashinfer)
		base.flashinfer = pl->flashinfer;
	if (!base.top && pl->top)
		base.top = pl->top;
	if (!base.rounds && pl->rounds)
		base.rounds = pl->rounds;
	const char *root = o->outdir ? o->outdir : pl->output ? pl->output : ".";
	/* which device this process is */
	char devname[256] = "";
	if (base.profile) {
		if ((rc = start_workers(S, &base, &d))) {
			cli_print_diags(&d);
			diags_release(&d);
			plan_free(pl);
			return rc;
		}
		snprintf(devname, sizeof devname, "%s", S->wd.name);
		base.device = "auto";
	} else if (o->device && strcmp(o->device, "auto")) {
		const struct device_profile *dp = device_find(&S->data.devices, o->device);
		if (!dp) {
			plan_free(pl);
			return cli_error(TT_INVALID, "no profile for '%s'", o->device);
		}
		snprintf(devname, sizeof devname, "%s", dp->name);
		base.device = devname;
	} else {
		struct gpu_info *gpus;
		int n;
		struct gpu_env env;
		char err[512];
		if ((rc = gpu_query(&gpus, &n, &env, err, sizeof err))) {
			plan_free(pl);
			return cli_error(rc, "--plan without --device NAME: %s", err);
		}
		snprintf(devname, sizeof devname, "%s", gpus[0].name);
		free(gpus);
		base.device = "auto";
	}
	bool mine = false;
	for (unsigned i = 0; i < pl->devices_count; i++)
		mine |= !strcmp(pl->devices[i], devname);
	if (!mine) {
		if (!o->quiet)
			fprintf(stderr, "tunetab: %s has no items for this process's '%s': nothing to do\n",
				o->plan, devname);
		plan_free(pl);
		return TT_OK;
	}
	char *dd = plan_device_dir(devname);
	char *devdir = xasprintf("%s/%s", root, dd);
	free(dd);
	size_t n = pl->deployments_count, done = 0, ran = 0, failed = 0;
	char **items = xcalloc(n, sizeof *items);
	for (size_t k = 0; k < n; k++) {
		char *name = plan_item_name(pl, k);
		items[k] = xasprintf("%s/items/%s", devdir, name);
		free(name);
		char holder[320];
		int r = plan_claim(items[k], holder, sizeof holder);
		if (r < 0) {
			rc = cli_error(TT_INTERNAL, "cannot claim '%s': %s", items[k], strerror(-r));
			break;
		}
		if (r == CLAIM_DONE) {
			done++;
			continue;
		}
		if (r == CLAIM_HELD) {
			if (!o->quiet)
				fprintf(stderr, "tunetab: %s is taken by %s (if that process is gone, delete "
					"%s/.claim)\n", items[k], holder, items[k]);
			continue;
		}
		const struct plan_deployment *x = &pl->deployments[k];
		struct gen_opts io = base;
		io.model = x->model;
		io.dtype = x->dtype;
		io.tp = x->tp ? x->tp : 1;
		io.ep = x->ep ? x->ep : 1;
		io.max_tokens = x->max_tokens;
		struct shard whole = { .index = 0, .count = 1 };
		if (!o->quiet)
			fprintf(stderr, "tunetab: plan item %s\n", items[k]);
		int r2 = generate_one(&io, S, &whole, items[k]);
		ran++;
		if (r2) {
			plan_unclaim(items[k]);
			failed++;
			if (!rc)
				rc = r2;
			continue;
		}
		if ((r = plan_finish(items[k])) < 0) {
			rc = cli_error(TT_INTERNAL, "cannot mark '%s' done: %s", items[k], strerror(-r));
			break;
		}
		done++;
	}
	/* count again: an item another process held may have finished meanwhile. Each process
	 * marks its items done before it counts, so the last one to count sees them all. */
	done = 0;
	for (size_t k = 0; k < n; k++)
		done += plan_is_done(items[k]);
	if (!rc && done == n) {
		/* every process that sees the device complete merges: the merge is deterministic and
		 * written atomically, so two of them write the same bytes */
		rc = merge_into(S, devdir, items, n, o->quiet);
	} else if (!rc && !o->quiet) {
		fprintf(stderr, "tunetab: %zu of %zu items of '%s' done; the process that finishes the "
			"last one merges them into %s\n", done, n, devname, devdir);
	}
	if (!o->quiet && failed)
		fprintf(stderr, "tunetab: %zu of the %zu items this process ran failed (their claims are "
			"dropped: a re-run retries them)\n", failed, ran);
	for (size_t k = 0; k < n; k++)
		free(items[k]);
	free(items);
	free(devdir);
	plan_free(pl);
	return rc;
}

static const char *real_env(const char *name)
{
	return getenv(name);
}

int cmd_generate(int argc, char **argv)
{
	struct gen_opts o = { .tp = 1, .ep = 1, .format = "both", .outdir = NULL, .timeout = 30,
			      .script_mem_mib = 64, .script_instructions = 100000000LL };
	o.metas = xcalloc((size_t)argc + 1, sizeof *o.metas);
	int c, rc = TT_OK;
	long v;
	opterr = 0;
	optind = 1;
#define NUM(field, what, lo)                                                                 \
	do {                                                                                 \
		if (parse_long(optarg, &v) || v < (lo)) {                                   \
			free(o.metas);                                                       \
			return cli_usage_error("generate", "%s must be an integer >= %d, not '%s'", \
					       what, lo, optarg);                            \
		}                                                                            \
		o.field = v;                                                                 \
	} while (0)
#define LIMIT(what, hi)                                                                      \
	do {                                                                                 \
		if (v > (hi)) {                                                              \
			free(o.metas);                                                       \
			return cli_usage_error("generate", "%s must be at most %ld, not '%s'", \
					       what, (long)(hi), optarg);                    \
		}                                                                            \
	} while (0)
	while ((c = cli_getopt(argc, argv, "generate")) != -1) {
		switch (c) {
		case 'D': o.device = optarg; break;
		case 'M': o.model = optarg; break;
		case 't': o.dtype = optarg; break;
		case 'T': NUM(tp, "--tp", 1); break;
		case 'E': NUM(ep, "--ep", 1); break;
		case 'r':
			if (!strcmp(optarg, "all"))
				o.tp_rank_all = true;
			else
				NUM(tp_rank, "--tp-rank", 0);
			break;
		case 'R':
			if (!strcmp(optarg, "all"))
				o.ep_rank_all = true;
			else
				NUM(ep_rank, "--ep-rank", 0);
			break;
		case 'k': NUM(top_k, "--top-k", 1); LIMIT("--top-k", CLI_TOP_K_LIMIT); break;
		case 'm': NUM(max_tokens, "--max-tokens", 1); LIMIT("--max-tokens", CLI_MAX_TOKENS_LIMIT); break;
		case 'S': NUM(script_mem_mib, "--script-mem", 1); LIMIT("--script-mem", CLI_SCRIPT_MEM_LIMIT); break;
		case 'I': NUM(script_instructions, "--script-instructions", 1000); break;
		case 'f': o.flashinfer = optarg; break;
		case 'F': o.format = optarg; break;
		case 'H': o.heuristic = optarg; break;
		case 'o': o.outdir = optarg; break;
		case 'K': o.keys = optarg; break;
		case 'w': o.weight_view = optarg; break;
		case 'q': o.quiet = 1; break;
		case 'v': o.verbose = 1; break;
		case 'P': o.profile = 1; break;
		case 'J': o.into_flashinfer = 1; break;
		case 'Q':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				free(o.metas);
				return cli_usage_error("generate", "--fused-finalize must be on or off, not "
						       "'%s'", optarg);
			}
			o.no_fused_finalize = !strcmp(optarg, "off");
			break;
		case 'C': o.calibration = optarg; break;
		case 'G': o.devices = optarg; break;
		case 'Z': o.shard = optarg; break;
		case 'L': o.plan = optarg; break;
		case 'Y': o.report = optarg; break;
		case 'p': o.python = optarg; break;
		case 'b':
			if (strcmp(optarg, "auto") && strcmp(optarg, "flashinfer") && strcmp(optarg, "proxy")) {
				free(o.metas);
				return cli_usage_error("generate", "--backend must be auto, flashinfer or proxy");
			}
			o.backend = optarg;
			break;
		case 'O':
			if (!strcmp(optarg, "all")) {
				o.top = -1;
				break;
			}
			NUM(top, "--top", 1);
			break;
		case 'X':
			if (!strcmp(optarg, "tunetab") || !strcmp(optarg, "flashinfer") || !strcmp(optarg, "full")) {
				o.method = !strcmp(optarg, "flashinfer") ? 1 : !strcmp(optarg, "full") ? 2 : 0;
			} else {
				free(o.metas);
				return cli_usage_error("generate", "--method must be tunetab, full or flashinfer");
			}
			break;
		case 'U': NUM(rounds, "--rounds", 3); break;
		case 'B': NUM(budget, "--budget", 1); break;
		case 'W': NUM(timeout, "--timeout", 1); LIMIT("--timeout", CLI_TIMEOUT_LIMIT); break;
		case 'a':
			if (!strchr(optarg, '=')) {
				free(o.metas);
				return cli_usage_error("generate", "--metadata wants KEY=VALUE, not '%s'", optarg);
			}
			o.metas[o.nmeta++] = optarg;
			break;
		default:
			free(o.metas);
			return cli_usage_error("generate", "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
#undef NUM
#undef LIMIT
	if (optind < argc) {
		free(o.metas);
		return cli_usage_error("generate", "unexpected argument '%s'", argv[optind]);
	}
	if (strcmp(o.format, "py") && strcmp(o.format, "json") && strcmp(o.format, "both")) {
		free(o.metas);
		return cli_usage_error("generate", "--format must be py, json or both");
	}
	if (o.plan && (o.model || o.keys || o.dtype || o.shard || o.report)) {
		free(o.metas);
		return cli_usage_error("generate", "--plan gives the deployments: no --model, --keys, "
				       "--dtype, --shard or --report with it");
	}
	if (!o.plan && (!o.device || !o.dtype || (!o.model && !o.keys))) {
		free(o.metas);
		return cli_usage_error("generate", "--device, --dtype and --model (or --keys) are required");
	}
	if (o.tp_rank >= o.tp || o.ep_rank >= o.ep) {
		free(o.metas);
		return cli_usage_error("generate", "ranks must be below --tp/--ep");
	}
	if ((o.tp_rank_all || o.ep_rank_all) && (o.keys || o.shard || o.plan)) {
		free(o.metas);
		return cli_usage_error("generate", "--tp-rank all and --ep-rank all build a deployment's "
				       "table: not with --keys, --shard or --plan");
	}
	enum dtype dt;
	if (o.dtype && dtype_parse(o.dtype, &dt)) {
		free(o.metas);
		return cli_usage_error("generate", "unknown dtype '%s'", o.dtype);
	}
	timing(NULL); /* the clock starts */
	struct session S;
	memset(&S, 0, sizeof S);
	S.all_gpus = o.devices && !strcmp(o.devices, "all");
	if (o.devices && !S.all_gpus && parse_gpu_list(o.devices, S.gpu_ids, &S.ngpu_ids)) {
		free(o.metas);
		return cli_usage_error("generate", "--devices wants 'all' or GPU indices like 0,1,3 "
				       "(at most %d), not '%s'", MAX_WORKERS, o.devices);
	}
	if ((o.backend || o.python) && !o.profile) {
		free(o.metas);
		return cli_usage_error("generate", "--backend and --python only apply with --profile");
	}
	if (o.devices && !o.profile) {
		free(o.metas);
		return cli_usage_error("generate", "--devices only applies with --profile");
	}
	/* the shard: --shard, else (profiling only) the launcher's rank and count */
	struct shard sh;
	char err[512];
	if (o.shard) {
		if (fleet_parse_shard(o.shard, &sh, err, sizeof err)) {
			free(o.metas);
			return cli_usage_error("generate", "%s", err);
		}
	} else if (o.profile && !o.plan) {
		if (fleet_shard_from_env(real_env, &sh, err, sizeof err)) {
			free(o.metas);
			return cli_error(TT_USAGE, "%s", err);
		}
	} else {
		memset(&sh, 0, sizeof sh);
		sh.count = 1;
	}
	/* the GPU: --devices, else the one the launcher gave this process */
	const char *gpu_why = "";
	if (!S.ngpu_ids)
		S.gpu_ids[S.ngpu_ids++] = o.profile && !S.all_gpus ? fleet_local_gpu(real_env, &gpu_why) : 0;
	if (!o.quiet && sh.count > 1)
		fprintf(stderr, "tunetab: shard %d/%d (%s)\n", sh.index, sh.count, sh.source);
	S.gpu_why = gpu_why;
	if (!o.quiet && *gpu_why)
		fprintf(stderr, "tunetab: GPU %d (%s)\n", S.gpu_ids[0], gpu_why);
	o.command = cli_command_line(argc, argv);
	timing("options parsed");
	if ((rc = cli_load_data(&S.data, DATA_ALL))) {
		free(o.metas);
		free(o.command);
		return rc;
	}
	struct diags d = DIAGS_INIT;
	char *dpath = xasprintf("%s/configs/dtypes.yaml", S.data.root);
	rc = dtypes_load(dpath, &S.dtypes, &d);
	free(dpath);
	if (!rc) {
		if (o.plan) {
			rc = generate_plan(&o, &S);
		} else {
			const char *base = o.outdir ? o.outdir : ".";
			char *outdir = sh.count > 1 ? xasprintf("%s/shard-%d-of-%d", base, sh.index, sh.count)
						    : xstrdup(base);
			rc = generate_one(&o, &S, &sh, outdir);
			free(outdir);
		}
	}
	timing("done; stopping the workers");
	for (size_t k = 0; k < S.nworkers; k++)
		worker_detach(&S.workers[k]);
	free(S.python);
	free(S.script);
	cli_print_diags(&d);
	diags_release(&d);
	dtypes_free(S.dtypes);
	cli_release_data(&S.data);
	free(o.metas);
	free(o.command);
	return rc;
}
