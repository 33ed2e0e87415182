/* for.c: `install --for` and `doctor --for`: one deployment (the server's launch command after
 * "--", or install's flags read as the launch command they describe), its lookup plan
 * (deploy/plan.h), and that plan checked against the files (doctor, install --check) or
 * applied (install). Each command parses its own options into struct for_args; this file
 * runs the library calls in order and prints (src/cmd/plan.c prints the plan's parts).
 * --json: one JSON document on stdout, whatever happened once the options parse (its "exit"
 * is the exit status); -q: no steps on stderr. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "deploy/plan.h"
#include "base/util.h"
#include "flashinfer/validate.h"

static int positive(const char *cmd, const char *opt, const char *s, long *out)
{
	return s && (parse_long(s, out) || *out < 1 || *out > 4096)
		       ? cli_usage_error(cmd, "%s wants a positive count, not '%s'", opt, s) : TT_OK;
}

int cli_for_check(struct for_args *a, int argc, char **argv, int optind_)
{
	a->have_launch = cli_launch_words(argc, argv, optind_, &a->launch);
	if (optind_ < argc && !a->have_launch)
		return cli_usage_error(a->cmd, "unexpected argument '%s'", argv[optind_]);
	if (!a->consumer_id)
		return cli_usage_error(a->cmd, "--for is required");
	if (!a->from && !a->have_launch)
		return cli_usage_error(a->cmd, "--from is required (or the server's launch command "
				       "after '--', which install generates the table for)");
	if (a->have_launch && (a->model_path || a->hf || a->tdtype || a->quant || a->backend ||
			       a->tp_s || a->pp_s || a->dp_s || a->adp_s || a->ep_s || a->skip ||
			       a->sm_s))
		return cli_usage_error(a->cmd, "with a launch command the deployment is the "
				       "server's: no --model-path, --hf-config-class, --tp, --pp, --dp, "
				       "--attn-dp, --ep, --torch-dtype, --quantization, "
				       "--moe-runner-backend, --skip-ops or --sm");
	if ((a->outdir || a->profile) && (!a->have_launch || a->from))
		return cli_usage_error(a->cmd, "--profile and -o generate the table for a launch "
				       "command (-- LAUNCH...): not with --from");
	if (a->meta_mode && strcmp(a->meta_mode, "env") && strcmp(a->meta_mode, "wildcard") &&
	    strcmp(a->meta_mode, "from"))
		return cli_usage_error(a->cmd, "--stamp is env, wildcard or from, not '%s'",
				       a->meta_mode);
	if (a->cache_file && (!strchr(a->cache_file, '/') ||
			      a->cache_file[strlen(a->cache_file) - 1] == '/'))
		return cli_usage_error(a->cmd, "--cache-file wants a file path with its folder "
				       "(./%s for this folder)", a->cache_file);
	return TT_OK;
}

/* The deployment as install's flags give it: the request (q) the plan is built from. */
static int flags_request(const struct for_args *a, const struct tt_data *data,
			 struct install_request *q)
{
	long tp = 1, pp = 1, dp = 1, adp = 1, ep = 1, sm = 0;
	int rc;
	if ((rc = positive(a->cmd, "--tp", a->tp_s, &tp)) ||
	    (rc = positive(a->cmd, "--pp", a->pp_s, &pp)) ||
	    (rc = positive(a->cmd, "--dp", a->dp_s, &dp)) ||
	    (rc = positive(a->cmd, "--attn-dp", a->adp_s, &adp)) ||
	    (rc = positive(a->cmd, "--ep", a->ep_s, &ep)))
		return rc;
	if (a->sm_s && (parse_long(a->sm_s, &sm) || sm < 10 || sm > 200))
		return cli_usage_error(a->cmd, "--sm wants an SM version such as 90, not '%s'", a->sm_s);
	if (tp * pp * dp > 4096)
		return cli_usage_error(a->cmd, "%ld ranks is more than tunetab writes", tp * pp * dp);
	if (adp > 1) { /* the consumer's attention-DP rules (configs/consumers/<id>.yaml attn_dp) */
		struct consumer *cons = NULL;
		struct diags d = DIAGS_INIT;
		if (consumer_load(data->root, a->consumer_id, &cons, &d) == TT_OK) {
			if (!cons->attn_dp)
				rc = cli_usage_error(a->cmd, "--attn-dp: %s has no attention data "
						     "parallelism", cons->name);
			else if (dp > 1)
				rc = cli_usage_error(a->cmd, "--attn-dp and --dp together: %s refuses "
						     "attention DP with DP replicas (%s)", cons->name,
						     cons->attn_dp);
			else if (tp % adp)
				rc = cli_usage_error(a->cmd, "--attn-dp %ld does not divide --tp %ld",
						     adp, tp);
		}
		consumer_free(cons);
		diags_release(&d); /* an unknown consumer: install_prepare says so */
		if (rc)
			return rc;
	}
	*q = (struct install_request){
		.server = { .consumer = a->consumer_id, .consumer_version = a->cversion,
			    .flashinfer = a->fiv, .python = a->python, .sm = sm },
		.from = a->from,
		.flags = { .model_path = a->model_path, .hf_config_class = a->hf,
		.torch_dtype = a->tdtype ? a->tdtype : "bfloat16",
		.quantization = a->quant ? a->quant : "None",
		.backend = a->backend ? a->backend : "flashinfer_cutlass",
		.skip_ops = a->skip ? a->skip : "", .tp = tp, .pp = pp, .dp = dp, .attn_dp = adp,
		.ep = ep }, .cache_dir = a->cache_dir, .cache_file = a->cache_file,
		.metadata = a->meta_mode, .replace = a->replace, .check = a->check, .dry_run = a->dry,
		.write_fallbacks = a->write_fallbacks,
	};
	return TT_OK;
}

/* The deployment as the server's launch command gives it. */
static void launch_request(const struct for_args *a, const struct serve_deployment *s,
			   const char *from, const struct fi_cache *cache, const char *file,
			   struct install_request *q)
{
	*q = (struct install_request){
		.server = { .consumer = a->consumer_id, .words = s->words, .nwords = s->nwords,
			    .consumer_version = s->consumer_version, .flashinfer = s->flashinfer,
			    .python = s->python, .sm = s->sm },
		.cache = cache, .from = from, .table_file = file,
		.write_fallbacks = a->write_fallbacks,
		.flags = serve_flags_of(s),
		.cache_dir = a->cache_dir,
		.cache_file = a->cache_file, .metadata = a->meta_mode,
		.replace = a->replace || (!a->from && !a->check), .check = a->check, .dry_run = a->dry,
	};
}

/* The table to install: --from, or generated for the launch command (every rank's keys;
 * --dry-run generates nothing: the plan's keys stand in). */
static int load_table(const struct for_args *a, struct tt_data *data,
		      const struct serve_deployment *s, struct fi_cache **cache, char **generated)
{
	*cache = NULL;
	if (a->check || (!a->from && (a->dry || !s || !serve_autotunes(s))))
		return TT_OK;
	const char *from = a->from;
	if (!from) {
		int rc = cli_launch_generate(data, s, a->profile, a->outdir, a->quiet, generated);
		if (rc)
			return rc;
		from = *generated;
	}
	struct fi_cache_error err;
	if ((*cache = fi_cache_load(from, &err)))
		return TT_OK;
	return cli_error(TT_INVALID, "%s:%d:%d: %s", from, err.line, err.col, err.text);
}

/* install proper: the table against the plan (refused unless --force), then written. */
static int apply(const struct for_args *a, const struct tt_data *data, struct lookup_plan *p,
		 const struct install_request *q, const char *fix, const struct cli_install_out *o)
{
	const struct validate_data vd = { &data->devices, &data->catalogs, &data->rules, &data->ops };
	struct plan_check c;
	bool checked = !a->dry || a->from, no = false;
	if (checked) {
		const char *name = a->from ? a->from : "the generated table";
		plan_check_table(p, p->job.ours, name, &vd, &c);
		cli_print_plan_refusal(&c, p, o);
		no = c.state == PLAN_NO;
		plan_check_release(&c);
	}
	if (o->doc) {
		cli_plan_json(p, o->doc);
		json_object_set_new(o->doc, "table", json_string(q->from));
		json_object_set_new(o->doc, "dry_run", json_boolean(a->dry));
		json_object_set_new(o->doc, "written", json_false());
		json_object_set_new(o->doc, "table_checked", json_boolean(checked));
		json_object_set_new(o->doc, "refused", json_boolean(no && !a->force));
		json_object_set_new(o->doc, "forced", json_boolean(no && a->force));
		if (!json_object_get(o->doc, "refusals"))
			json_object_set_new(o->doc, "refusals", json_array());
		json_object_set_new(o->doc, "fix", no && !a->force && fix ? json_string(fix) : json_null());
		json_t *unknown = json_array();
		for (size_t i = 0; i < p->nunknowns; i++)
			json_array_append_new(unknown, json_pack("{s:s, s:o}", "what", p->unknowns[i].what,
								 "give", p->unknowns[i].give[0]
								 ? json_string(p->unknowns[i].give)
								 : json_null()));
		json_object_set_new(o->doc, "cannot_tell", unknown);
	}
	cli_print_install_untuned(&p->job, a->from != NULL, o);
	if (no && !a->force)
		return cli_error(TT_INVALID, "not installed: that server would not use this table "
				 "(--force installs it anyway)%s%s", fix ? "; to install the table of "
				 "exactly its keys: " : "", fix ? fix : "");
	if (no)
		fprintf(stderr, "tunetab: installed anyway (--force)\n");
	if (checked && p->job.untuned.n && !fi_cache_count(p->job.ours) && !p->job.res.dropped &&
	    !p->job.res.nbad) {
		/* every entry was one nobody measured, and nothing there to mend: the server tunes
		 * as without tunetab */
		if (!o->quiet)
			fprintf(stderr, "tunetab: nothing written: every entry of the table was one nobody measured\n");
		if (o->doc)
			json_object_set_new(o->doc, "written", json_false());
		return TT_OK;
	}
	for (size_t i = 0; i < p->nunknowns; i++) /* installed all the same: said, where it helps */
		if (p->unknowns[i].give[0])
			cli_warn("cannot tell %s — give %s", p->unknowns[i].what, p->unknowns[i].give);
	cli_print_install_merge(p, q, o);
	struct diags wd = DIAGS_INIT;
	int wrote = a->dry ? TT_OK : install_write(&p->job, &wd);
	int rc = cli_print_install_written(p, q, a->dry, wrote, &wd, o);
	diags_release(&wd);
	return rc;
}

/* The deployment derived from the launch command, for --json (what cli_launch_print says). */
static json_t *deployment_json(const struct serve_request *sq, const struct serve_deployment *s)
{
	json_t *words = json_array(), *notes = json_array();
	for (size_t i = 0; i < sq->nwords; i++)
		json_array_append_new(words, json_string(sq->words[i]));
	for (size_t i = 0; i < s->nnotes; i++)
		json_array_append_new(notes, json_string(s->notes[i]));
	const struct hf_model *m = &s->model;
	json_t *o = json_object();
	json_object_set_new(o, "launch", words);
	json_object_set_new(o, "consumer_version_from", json_pack("s?", s->consumer_version_from));
	json_object_set_new(o, "flashinfer_from", json_pack("s?", s->flashinfer_from));
	json_object_set_new(o, "model", json_pack("{s:s?, s:s?, s:s?, s:s?, s:I, s:I, s:I, s:I, s:s?, s:s?}",
						  "path", s->model_path, "model_type", m->model_type,
						  "config_class", s->hf_config_class, "config",
						  m->config_path, "experts", (json_int_t)m->experts,
						  "top_k", (json_int_t)m->top_k, "hidden",
						  (json_int_t)m->hidden, "expert_intermediate",
						  (json_int_t)m->inter, "activation", m->activation,
						  "quantization", m->quantized ? m->quant_method : NULL));
	json_object_set_new(o, "parallel", json_pack("{s:I, s:I, s:I, s:I, s:I}", "tp",
						     (json_int_t)s->tp, "pp", (json_int_t)s->pp, "dp",
						     (json_int_t)s->dp, "attn_dp", (json_int_t)s->attn_dp,
						     "moe_ep", (json_int_t)s->moe_ep));
	json_object_set_new(o, "torch_dtype", json_pack("s?", s->torch_dtype));
	json_object_set_new(o, "quantization", json_pack("s?", s->quantization));
	json_object_set_new(o, "moe_runner_backend", json_pack("s?", s->moe_runner_backend));
	json_object_set_new(o, "max_tokens", s->tunes && !s->moe_unknown ? json_integer(s->max_tokens)
			    : json_null());
	json_object_set_new(o, "notes", notes);
	return o;
}

static int install_launch(struct for_args *a, struct tt_data *data,
			  const struct cli_install_out *o)
{
	struct serve_request *sq = &a->launch; /* its words: cli_for_check's */
	*sq = (struct serve_request){ .consumer = a->consumer_id, .words = sq->words,
				      .nwords = sq->nwords, .consumer_version = a->cversion,
				      .flashinfer = a->fiv, .python = a->python,
				      .model_config = a->model_config, .device = a->device };
	struct serve_deployment s;
	struct fi_cache *cache = NULL;
	char *generated = NULL, *fix = NULL, *fix_measure = NULL;
	struct lookup_plan p;
	memset(&p, 0, sizeof p);
	struct diags d = DIAGS_INIT;
	int rc = cli_launch_derive(data, sq, &s, o->quiet);
	if (rc)
		goto out;
	if (o->doc)
		json_object_set_new(o->doc, "deployment", deployment_json(sq, &s));
	fix = cli_launch_fix(a->consumer_id, sq, a->cache_dir, NULL);
	fix_measure = cli_launch_fix(a->consumer_id, sq, a->cache_dir, "--profile");
	if (!serve_autotunes(&s) && !a->dry && !a->check) {
		char *why = serve_why_no_autotune(&s);
		rc = cli_error(TT_INVALID, "%s", why);
		free(why);
		goto out;
	}
	if (s.tunes && s.moe_unknown && !a->from && !a->check && !a->dry) {
		/* a command the server takes, tuned at buckets tunetab cannot tell (#47) */
		rc = cli_error(TT_UNKNOWN, "cannot tell the keys %s looks up for the CUTLASS MoE at "
			       "start: %s; nothing written", s.consumer_name, s.moe_unknown);
		goto out;
	}
	if ((rc = load_table(a, data, &s, &cache, &generated)))
		goto out;
	struct install_request q;
	launch_request(a, &s, a->from ? a->from : !generated ? "(the server's keys)" : a->outdir ?
		       generated : "the table generated for this command", cache,
		       a->from ? a->from : generated, &q);
	struct plan_request pr = { .serve = &s, .q = &q };
	rc = plan_build(data, &pr, &p, &d);
	cli_print_install_notes(&p.job, &d, q.from, o);
	if (!rc && a->check)
		rc = cli_print_plan_check(&p, data, fix, fix_measure, o);
	else if (!rc)
		rc = apply(a, data, &p, &q, fix, o);
	if (!rc && !a->check && !serve_autotunes(&s)) {
		char *why = serve_why_no_autotune(&s);
		rc = cli_error(TT_INVALID, "%s", why);
		free(why);
	}
	if (!rc && a->dry && !a->from && !a->check && !o->quiet)
		fprintf(stderr, "tunetab: --dry-run: the table (%zu keys) is generated when installing "
			"for real\n", p.nall);
out:
	if (p.job.usage[0])
		cli_usage_error(a->cmd, "%s", p.job.usage);
	plan_release(&p);
	fi_cache_free(cache);
	cli_launch_generated_release(a->outdir, generated);
	free(fix);
	free(fix_measure);
	serve_release(&s);
	return rc;
}

static int install_flags(struct for_args *a, struct tt_data *data, int argc, char **argv,
			 const struct cli_install_out *o)
{
	struct install_request q;
	int rc = flags_request(a, data, &q);
	if (rc)
		return rc;
	struct diags d = DIAGS_INIT;
	struct lookup_plan p;
	struct plan_request pr = { .q = &q, .device = a->device, .model_config = a->model_config };
	rc = plan_build(data, &pr, &p, &d);
	cli_print_install_notes(&p.job, &d, a->from, o);
	char *fix = NULL;
	if (!rc && a->check) {
		/* the same flags, ours replacing what is there (and the text of it: no --json) */
		struct strbuf sb = STRBUF_INIT;
		sb_adds(&sb, "tunetab install");
		for (int i = 1; i < argc; i++)
			if (strcmp(argv[i], "--check") && strcmp(argv[i], "--json") &&
			    strcmp(argv[i], "-q") && strcmp(argv[i], "--quiet")) {
				sb_addc(&sb, ' ');
				sb_add_shell(&sb, argv[i]);
			}
		if (!a->replace)
			sb_adds(&sb, " --replace");
		fix = sb_detach(&sb);
		rc = cli_print_plan_check(&p, data, fix, NULL, o);
	} else if (!rc) {
		rc = apply(a, data, &p, &q, NULL, o);
	}
	if (p.job.usage[0])
		cli_usage_error(a->cmd, "%s", p.job.usage);
	if (p.job.nfolders)
		fprintf(stderr, "tunetab: folders in %s: %s\n", p.job.root, p.job.folders);
	if (p.job.nfolders && o->doc)
		json_object_set_new(o->doc, "key_folders", json_pack("{s:s?, s:s?}", "root", p.job.root,
								     "folders", p.job.folders));
	free(fix);
	plan_release(&p);
	return rc;
}

int cli_for_run(struct for_args *a, int argc, char **argv)
{
	int rc;
	struct cli_install_out o = { .quiet = a->quiet, .doc = a->json ? json_object() : NULL };
	json_t *notes = json_array(), *errors = json_array();
	if (o.doc) {
		json_object_set_new(o.doc, "mode", json_string(a->check ? "check" : a->dry ? "dry-run"
									      : "install"));
		json_object_set_new(o.doc, "consumer_id", json_string(a->consumer_id));
		cli_capture(notes, errors);
	}
	struct tt_data data;
	if (!(rc = cli_load_data(&data, DATA_ALL))) {
		rc = a->have_launch ? install_launch(a, &data, &o)
				   : install_flags(a, &data, argc, argv, &o);
		cli_release_data(&data);
	}
	cli_capture(NULL, NULL);
	if (o.doc) {
		json_object_set_new(o.doc, "notes", json_incref(notes));
		json_object_set_new(o.doc, "errors", json_incref(errors));
		json_object_set_new(o.doc, "exit", json_integer(rc));
		cli_print_json(o.doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	}
	json_decref(notes);
	json_decref(errors);
	return rc;
}
