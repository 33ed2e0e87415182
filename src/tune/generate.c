/* generate.c: `tunetab generate` as a library call (generate.h): target, deployment, keys,
 * the heuristic's ranking, profiling, then the outputs (generate_outputs.c). It prints
 * nothing: what the user should hear goes through the caller's hooks. The GPU workers are
 * generate_session.c's, the other ops' keys and timings generate_ops.c's, fleet plans
 * generate_fleet.c's, the summary text generate_summary.c's (generate_int.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tune/generate_int.h"
#include "base/util.h"
#include "data/calibration.h"
#include "data/modelfit.h"
#include "flashinfer/tableset.h"
#include "gpu/gpu.h"
#include "script/script.h"
#include "tune/journal.h"

/* ---------------------------------------------------------------- telling the caller */

void gen_say(const struct generate_session *S, const char *fmt, ...)
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
void gen_hear(const struct generate_session *S, struct diags *d)
{
	const struct generate_hooks *h = S->hooks;
	diags_flush(d, h ? h->diag : NULL, h ? h->ctx : NULL);
}

void gen_warn(const struct generate_session *S, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = xvasprintf(fmt, ap);
	va_end(ap);
	struct diags d = DIAGS_INIT;
	diags_add(&d, SEV_WARNING, "generate", NULL, 0, 0, "%s", text);
	gen_hear(S, &d);
	diags_release(&d);
	free(text);
}

/* TUNETAB_PROF_TIMING=1: where a profiled run's wall time goes (diagnostics). */
void gen_timing(const struct generate_session *S, const char *what)
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

/* ---------------------------------------------------------------- deployment and device */

struct shape_args generate_shape_args(const struct generate_request *o, enum dtype dt,
				      const char *cmd)
{
	return (struct shape_args){
		.cmd = cmd, .model = o->model, .weight_view = o->weight_view,
		.model_profile = o->model_profile, .biases = o->biases, .input_view = o->input_view,
		.dt = dt, .experts = o->experts, .runner = o->runner,
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
	o->runner.out_torch = s->torch_dtype;
	o->runner.tp = s->runner_tp;
	o->runner.ep = s->runner_ep;
	o->flashinfer = s->flashinfer;
	o->runner.max_tokens = (unsigned)s->max_tokens;
	o->runner.fused_finalize = s->fused_finalize;
	o->ops = s->ops;
	o->nops = s->nops;
	o->consumer = s->consumer;
	o->moe_tune = s->moe_tune;
	o->moe_m = s->moe_m;
	o->ops_only = !s->tunes || s->moe_unknown; /* its keys unknown: not written */
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

static void run_release(struct run *R)
{
	for (size_t i = 0; i < R->nops; i++)
		op_keys_release(&R->opk[i]);
	free(R->opk);
	free(R->ops);
	free(R->pst.wrong);
	pairs_release(&R->pairs);
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
	q->runner.tp = q->runner.ep = 1;
	q->runner.fused_finalize = true; /* FlashInfer's default */
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
	if (R->o->profile && (rc = gen_start_workers(S, R->o, d)))
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
	gen_hear(S, d);
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
		if ((rc = gen_start_workers(S, o, d)))
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
			gen_warn(S, "calibration '%s' was measured on '%s', not '%s'", o->calibration,
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
		gen_warn(S, "model fit '%s' was fitted on '%s', not '%s'", R->fit->path, R->fit->device,
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
		gen_say(S, "tunetab: model: the datasheet model's defaults (%s)", why);
		return TT_OK;
	}
	const char *root = S->data->root; /* a shipped fit by its place in the data: configs/fits/... */
	size_t rl = strlen(root);
	const char *path = R->fit->path;
	gen_say(S, "tunetab: model: fit %s (fitted on %s%s)",
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
		[KR_FINALIZE] = o->given & GIVEN_FUSED_FINALIZE ? o->runner.fused_finalize : -1,
		[KR_TOP_K] = o->runner.top_k ? o->runner.top_k : -1,
		[KR_TP] = o->runner.tp != 1 ? o->runner.tp : -1,
		[KR_EP] = o->runner.ep != 1 ? o->runner.ep : -1, [KR_ACTIVATION] = -1,
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
		dep->fused_finalize = r[KR_FINALIZE] != 0;
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
		gen_warn(R->S, "heuristic '%s' chose nothing for %zu of %zu entries (rank() returned an "
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
		.model = dep->model_name, .dtype = dti->name, .act_bits = (long)dti->act_bits,
		.weight_bits = (long)dti->weight_bits, .out_bits = 16, .hidden = dep->hidden,
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
			gen_say(S, "%s", sb.buf);
			sb_release(&sb);
		}
	return TT_OK;
}

/* What decides the table (journal.h): the journal's identity with the shard, the provenance's
 * run id without. */
static char *run_identity(const struct run *R, const char *shard)
{
	const struct generate_request *o = R->o;
	struct journal_run jr = {
		.version = R->version, .device = R->sdev.name, .shape = &R->dep, .catalog = R->cat->id,
		.keys = o->keys, .top = o->top, .method = o->method, .rounds = o->rounds, .heuristic = o->heuristic,
		.model_fit = R->fit ? R->fit->path : NULL,
		.profile = o->profile, .backend = o->profile ? R->be.name : NULL, .shard = shard,
	};
	return journal_identity(&jr);
}

/* Whether the layer's pair choice runs (--routing; pairs.h): robust or a histogram where asked
 * or, by default, for EP > 1 on the flashinfer backend. */
static bool pairs_wanted(const struct run *R)
{
	const char *r = R->o->routing;
	if (r)
		return strcmp(r, "balanced") != 0;
	return R->S->backend == BACKEND_FLASHINFER && R->dep.ep > 1 && R->o->method != 1 &&
	       R->o->top >= 0;
}

/* The routing loads of the layer's pair choice (pairs.h), checked before anything is timed:
 * *on false where it does not run. */
static int pairs_loads(struct run *R, struct routing *loads, bool *on, struct diags *d)
{
	const char *r = R->o->routing;
	memset(loads, 0, sizeof *loads);
	*on = pairs_wanted(R);
	if (!*on)
		return TT_OK;
	if (R->S->backend != BACKEND_FLASHINFER)
		return diag_error(d, TT_USAGE, DIAG_SHOW_USAGE, NULL, 0, 0, "--routing %s times "
				  "FlashInfer's whole MoE layer: it needs --backend flashinfer", r);
	if (r && strcmp(r, "robust"))
		return routing_read(loads, r, R->dep.experts_total, R->dep.ep, R->dep.ep_rank,
				    R->dep.top_k, d);
	routing_defaults(loads, R->dep.experts_total, R->dep.ep, R->dep.ep_rank);
	return TT_OK;
}

/* The layer's pair choice after the per-GEMM profiles (pairs.h), on the first worker. */
static int run_pairs(struct run *R, const struct timing_opts *po, struct routing *loads,
		     struct diags *d)
{
	gen_timing(R->S, "the layer's tactic pairs: timing starts");
	int rc = pairs_run(&R->S->workers[0], &R->list, &R->dep, po, loads, &R->pairs, d);
	R->have_pairs = true;
	gen_timing(R->S, "the layer's tactic pairs: done");
	return rc;
}

/* --profile: the best candidates of every entry timed in the workers, journalled. */
static int run_measure(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	struct generate_session *S = R->S;
	int rc = mkdir_p(R->outdir);
	if (rc)
		return diag_error(d, rc == ENOTDIR ? TT_INVALID : TT_INTERNAL, "io", NULL, 0, 0, "cannot create '%s': %s",
				  R->outdir, path_strerror(R->outdir, rc));
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
	struct routing loads;
	bool paired;
	rc = pairs_loads(R, &loads, &paired, d);
	gen_timing(S, "plan built and ranked; profiling starts");
	if (!rc)
		rc = timing_run(S->workers, S->nworkers, &R->list, &R->dep, &po, &R->pst, d);
	gen_timing(S, "profiling done");
	if (!rc && paired)
		rc = run_pairs(R, &po, &loads, d);
	routing_release(&loads);
	if (h && h->entry)
		h->entry(h->ctx, NULL);
	sb_release(&fields);
	sb_release(&runner);
	free(jid);
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
	r->pairs = R->have_pairs ? &R->pairs : NULL;
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
	/* the set a run killed mid-commit left in the folder, put back first (tableset.h) */
	int rc = tableset_recover(outdir, d);
	gen_hear(S, d);
	if (!rc)
		rc = run_version(&R, d);
	if (!rc)
		rc = run_device(&R, d);
	if (!rc && !rq->ops_only)
		rc = run_rank(&R, d);
	if (!rc)
		rc = gen_run_ops(&R, d);
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
		gen_say(S, "tunetab: note: %s: FlashInfer's runner ignores the tactic (catalog %s: it skips "
		    "profiling and sets one config; cutlass-moe-tactics.md §1.1): nothing to time, the "
		    "table holds the fallback", R.dep.dt->name, R.cat->id);
		R.not_timed = true;
		heuristic_only(&R);
	}
	if (!rc && !rq->ops_only) {
		gen_backend_describe(S, &R.be);
		R.identity = run_identity(&R, NULL);
		if (R.o->profile)
			rc = run_measure(&R, d);
	} else if (!rc) {
		gen_backend_describe(S, &R.be);
		R.identity = xasprintf("ops %s %s", R.sdev.name, R.version);
	}
	if (!rc)
		rc = gen_run_ops_measure(&R, d);
	if (!rc)
		rc = gen_run_outputs(&R, d);
	if (!rc && R.o->report)
		rc = gen_run_report(&R, d);
	gen_timing(S, "outputs written");
	if (!rc && S->hooks && S->hooks->table) {
		struct generate_result res;
		run_result(&R, &res);
		S->hooks->table(S->hooks->ctx, &res);
	}
	if (!rc) /* on failure the caller tells d in order, the error with what followed it */
		gen_hear(S, d);
	run_release(&R);
	return rc;
}
