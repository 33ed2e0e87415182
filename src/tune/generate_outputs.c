/* generate_outputs.c: the outputs of one table: the module, the JSON cache and the
 * provenance file built, checked with the validate rules and written as one set; the
 * HTML report (generate_int.h). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune/generate_int.h"
#include "base/util.h"
#include "data/calibration.h"
#include "data/modelfit.h"
#include "flashinfer/names.h"
#include "flashinfer/provenance.h"
#include "flashinfer/tableset.h"
#include "flashinfer/validate.h"
#include "inspect/doctor.h"
#include "script/script.h"
#include "tune/report.h"

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
				table_add_policy(t, key->key, R->ops[i].runner, tactic, def->policy, NULL);
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
		const struct fr_op *gemm1 = lookup_moe_op(R->rules, 1); /* the version's names */
		json_object_set_new(x, "op", json_string(gemm1->op));
		json_object_set_new(x, "runner", json_string(gemm1->runners[0]));
		json_object_set_new(x, "tuned_at_start", json_true());
		json_object_set_new(x, "covered", json_string(o->profile ? "measured" : "predicted"));
		json_object_set_new(x, "keys", json_integer((json_int_t)R->list.n));
		json_object_set_new(call, "op", json_string(gemm1->op));
		json_object_set_new(call, "runner", json_string(gemm1->runners[0]));
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
		json_object_set_new(call, "finalize", json_integer(dep->fused_finalize));
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

/* The provenance of what was written (docs/fleet.md "Provenance file"). */
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
		prov_run_str(b, "method", gen_method_name(o->method));
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
		/* the bucket's pair choice, with both of its entries (every rank's) */
		for (size_t k = 0; R->have_pairs && k < R->pairs.n && !pe.layer; k++)
			if (R->pairs.v[k].tokens == e->tokens)
				pe.layer = pairs_bucket_json(&R->pairs, &R->pairs.v[k]);
		prov_add_entry(pv, &pe);
		free(pe.layer);
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
			gen_say(S, "tunetab: kept FlashInfer's %s as %s", path, bak);
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
		return diag_error(d, err == ENOTDIR ? TT_INVALID : TT_INTERNAL, "io", NULL, 0, 0, "cannot create '%s': %s",
				  dir, path_strerror(dir, err));
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
			gen_warn(R->S, "FlashInfer %s has no JSON autotune cache; wrote the module only",
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
	/* a measured entry as FlashInfer saves one it profiled: with the op's policy and, from
	 * the version that writes it on, its selection record */
	const struct op_def *moe = opdefs_cutlass_moe(&R->S->data->ops);
	const char *policy = moe && *moe->policy && firules_saves_selection(R->rules, &R->fv)
				     ? moe->policy : NULL;
	lookup_to_table(R->rules, &R->list, policy, &R->t);
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
int gen_run_outputs(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	const struct generate_session *S = R->S;
	struct outputs out = { STRBUF_INIT, STRBUF_INIT, NULL, NULL };
	struct file_set set = { 0 };
	int rc = build_outputs(R, &out, d);
	bool pkg = doctor_is_tuning_configs(R->outdir);
	if (!pkg) { /* a kill mid-commit leaves the undo log the next run rolls back (tableset.h) */
		char *undo = file_set_undo_path(R->outdir, TABLESET_GENERATE);
		file_set_undo(&set, undo);
		free(undo);
	}
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
		gen_say(S, "tunetab: note: no JSON cache nor provenance file written into FlashInfer's "
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
int gen_run_report(struct run *R, struct diags *d)
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
		gen_hear(R->S, d);
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
		gen_say(R->S, "tunetab: wrote %s (the report)", o->report);
	sb_release(&hb);
	report_release(&rep);
	return rc;
}
