/* check.c (command layer): a deployment's lookup plan (deploy/plan.h), and the plan against
 * the disk with its verdict (hits, no, cannot tell) and the one command that fixes it, shared by
 * `doctor --for` and `install --check`; in text, quiet (-q), or as the one JSON document of
 * --json, each from the same plan and check. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "deploy/plan.h"
#include "base/util.h"
#include "flashinfer/validate.h"

/* A string, or JSON null for NULL. */
static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* Whether the server tunes at start (and so reads the cache), and the words that follow
 * "tunes at start" in the report (*text, caller frees). */
static bool server_tunes(const struct lookup_plan *p, char **text)
{
	const struct install_job *j = &p->job;
	const struct consumer *cons = j->cons;
	const struct serve_deployment *s = p->serve;
	const char *note = cons->tuning_note ? cons->tuning_note : "";
	if (s && !serve_autotunes(s)) {
		*text = xasprintf("no: %s", s->why_not ? s->why_not : "");
		return false;
	}
	if (s || j->tunes) {
		*text = xasprintf("yes: %s", note);
		return true;
	}
	if (j->sm < (long)cons->min_sm) {
		*text = xasprintf("no, not on SM%ld (SM%u and up): this cache is not read", j->sm,
				  cons->min_sm);
		return false;
	}
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "no, not with --moe-runner-backend %s (it tunes with", j->backend ? j->backend : "?");
	for (unsigned i = 0; i < cons->tuning_backends_count; i++)
		sb_addf(&sb, "%s%s", i ? ", " : " ", cons->tuning_backends[i]);
	sb_adds(&sb, "): this cache is not read");
	*text = sb_detach(&sb);
	return false;
}

/* The server as the plan has it: version, GPU, whether it tunes (and so reads the cache) and
 * the runner whose keys it looks up. */
static void print_server(const struct lookup_plan *p)
{
	const struct install_job *j = &p->job;
	const struct consumer *cons = j->cons;
	const struct serve_deployment *s = p->serve;
	printf("%s %s (rule: %s), FlashInfer %s, %s (SM%d)\n", cons->name,
	       s ? s->consumer_version : j->v->min, j->v->read, j->flashinfer,
	       p->device ? p->device : "GPU unknown", p->sm);
	if (p->derived) {
		printf("  launch (the flags)  ");
		for (size_t i = 0; i < p->own_serve.nwords; i++)
			printf("%s%s", i ? " " : "", p->own_serve.words[i]);
		printf("\n");
	}
	char *env = install_finalize_env(j);
	if (env && !s)
		printf("  server environment  %s\n", env);
	free(env);
	char *tunes;
	server_tunes(p, &tunes);
	printf("  tunes at start      %s\n", tunes);
	free(tunes);
	if (s && s->tunes)
		printf("  server's MoE        %s%s%s, TP %ld EP %ld, use_fused_finalize %s (%s)\n",
		       s->dtype, s->input_view ? " with its input as " : "",
		       s->input_view ? s->input_view : "", s->runner_tp, s->runner_ep,
		       s->fused_finalize ? "on" : "off", s->fused_finalize_from);
}

void cli_plan_json(const struct lookup_plan *p, json_t *doc)
{
	const struct install_job *j = &p->job;
	const struct serve_deployment *s = p->serve;
	json_t *o = json_object();
	json_object_set_new(o, "consumer", json_string(j->cons->name));
	json_object_set_new(o, "version", json_string(s ? s->consumer_version : j->v->min));
	json_object_set_new(o, "rule", json_string(j->v->read));
	json_object_set_new(o, "flashinfer_version", str_or_null(j->flashinfer));
	json_object_set_new(o, "device", str_or_null(p->device));
	json_object_set_new(o, "sm", json_integer(p->sm));
	json_t *words = json_null();
	if (p->derived) {
		words = json_array();
		for (size_t i = 0; i < p->own_serve.nwords; i++)
			json_array_append_new(words, json_string(p->own_serve.words[i]));
	}
	json_object_set_new(o, "launch_from_flags", words);
	char *env = install_finalize_env(j);
	json_object_set_new(o, "environment", str_or_null(s ? NULL : env));
	free(env);
	char *tunes;
	json_object_set_new(o, "tunes_at_start", json_boolean(server_tunes(p, &tunes)));
	json_object_set_new(o, "tunes_at_start_text", json_string(tunes));
	free(tunes);
	json_object_set_new(o, "moe", !(s && s->tunes) ? json_null()
			    : json_pack("{s:s?, s:o, s:I, s:I, s:b, s:s?}", "dtype", s->dtype,
					"input_view", str_or_null(s->input_view), "tp",
					(json_int_t)s->runner_tp, "ep", (json_int_t)s->runner_ep,
					"use_fused_finalize", s->fused_finalize, "fused_finalize_from",
					s->fused_finalize_from));
	json_object_set_new(doc, "server", o);
	if (j->managed)
		json_object_set_new(doc, "store", json_pack("{s:s?, s:s?}", "environment",
							    j->store.env_hash, "folder", j->store.dir));
	else
		json_object_set_new(doc, "cache_folder", str_or_null(j->res.dir));
	json_object_set_new(doc, "keys_known", json_boolean(p->keys_known));
	json_object_set_new(doc, "rank_keyed", json_boolean(p->rank_keyed));
	json_object_set_new(doc, "rank_sets", p->keys_known ? json_integer((json_int_t)p->nkeysets)
							    : json_null());
}

/* The verdict of a check, in words and as --json names it. */
static const struct {
	const char *name, *text, *managed;
} verdicts[] = {
	[PLAN_HITS] = { "hits", "every rank reads this cache and every lookup hits",
			"every lookup hits the store" },
	[PLAN_NO] = { "no", "no: the server will not find its tactics here", NULL },
	[PLAN_CANNOT_TELL] = { "cannot tell", "cannot tell whether the server finds its tactics "
			       "here (what to give above)", NULL },
	[PLAN_DISAGREE] = { "disagree", "tunetab's model and FlashInfer's loader disagree (above): "
			    "the server gets the loader's answer; please report this to tunetab",
			    NULL },
};

static const char *verdict_text(enum plan_state st, bool managed)
{
	return managed && verdicts[st].managed ? verdicts[st].managed : verdicts[st].text;
}

/* A rank file's _metadata as FlashInfer judges it (plan_file.meta). */
static const char *meta_name(int meta)
{
	switch (meta) {
	case 0: return "accepted";
	case 1: return "soft mismatch";
	case 2: return "hard mismatch";
	case 3: return "strict mismatch";
	default: return "cannot tell";
	}
}

/* One op the server tunes at start, as the report's "op" line says it. */
static json_t *op_json(const struct plan_op *op, const struct plan_check *c, size_t o)
{
	json_t *x = json_object();
	json_object_set_new(x, "op", json_string(op->op));
	json_object_set_new(x, "runner", json_string(op->runner));
	json_object_set_new(x, "tuned_at_start", json_boolean(op->tunes));
	json_object_set_new(x, "keys_known", json_boolean(op->tunes && op->known));
	json_object_set_new(x, "keys", op->tunes && op->known ? json_integer((json_int_t)op->nkeys)
							      : json_null());
	bool counted = op->tunes && op->known && c->op_checked;
	json_object_set_new(x, "covered", counted ? json_integer((json_int_t)c->op_hits[o])
						  : json_null());
	/* what the entries there hold: measured (an op only a measurement covers), predicted or
	 * measured (the CUTLASS MoE: a file does not say which), FlashInfer's fallback (-1) */
	json_t *tuned = counted ? json_integer((json_int_t)(c->op_hits[o] - c->op_fallback[o]))
				: json_null();
	json_object_set_new(x, o ? "measured" : "predicted_or_measured", tuned);
	json_object_set_new(x, o ? "predicted_or_measured" : "measured", json_null());
	json_object_set_new(x, "fallback", counted ? json_integer((json_int_t)c->op_fallback[o])
						   : json_null());
	json_object_set_new(x, "profiled_at_start", counted
			    ? json_integer((json_int_t)(op->nkeys - c->op_hits[o])) : json_null());
	json_object_set_new(x, "profiled_again", counted
			    ? json_integer((json_int_t)c->op_reprofiled[o]) : json_null());
	json_object_set_new(x, "why", !op->tunes || !op->known ? json_string(op->why) : json_null());
	return x;
}

/* The check as --json has it: everything the text report says. */
static void check_json(const struct lookup_plan *p, const struct plan_check *c, const char *fix,
		       json_t *doc)
{
	const struct install_job *j = &p->job;
	cli_plan_json(p, doc);
	json_t *files = json_array();
	size_t present = 0;
	for (size_t i = 0; i < c->nfiles; i++) {
		const struct plan_file *f = &c->files[i];
		present += f->exists;
		json_t *x = json_object();
		json_object_set_new(x, "index", json_integer((json_int_t)i));
		json_object_set_new(x, "path", json_string(f->path));
		json_object_set_new(x, "exists", json_boolean(f->exists));
		json_object_set_new(x, "metadata", f->exists ? json_string(meta_name(f->meta)) : json_null());
		json_object_set_new(x, "metadata_field", f->exists && f->meta_field[0]
				    ? json_string(f->meta_field) : json_null());
		json_object_set_new(x, "lookups", p->keys_known ? json_integer((json_int_t)f->wanted)
								: json_null());
		json_object_set_new(x, "hits", p->keys_known ? json_integer((json_int_t)f->hits)
							     : json_null());
		json_object_set_new(x, "profiled_again", p->keys_known
				    ? json_integer((json_int_t)f->reprofiled) : json_null());
		json_object_set_new(x, "invalid", json_integer((json_int_t)f->invalid));
		json_object_set_new(x, "first_invalid", f->invalid ? json_string(f->first_invalid)
								   : json_null());
		json_array_append_new(files, x);
	}
	json_object_set_new(doc, "files", files);
	json_object_set_new(doc, "files_present", json_integer((json_int_t)present));
	json_object_set_new(doc, "files_differ", json_boolean(c->differ));
	json_object_set_new(doc, "environment_metadata", json_boolean(j->env_meta != NULL));
	json_object_set_new(doc, "lookups", p->keys_known && (j->managed || c->nfiles)
			    ? json_pack("{s:I, s:I, s:I}", "wanted", (json_int_t)c->wanted, "hits",
					(json_int_t)c->hits, "profiled_again", (json_int_t)c->reprofiled)
			    : json_null());
	json_t *ops = json_array();
	for (size_t o = 0; o < p->nops; o++)
		json_array_append_new(ops, op_json(&p->ops[o], c, o));
	json_object_set_new(doc, "ops", ops);
	json_t *no = json_array(), *unknown = json_array();
	for (size_t i = 0; i < c->nfindings; i++)
		json_array_append_new(no, json_string(c->findings[i].what));
	for (size_t i = 0; i < c->nunknowns; i++)
		json_array_append_new(unknown, json_pack("{s:s, s:o}", "what", c->unknowns[i].what,
							 "give", c->unknowns[i].give[0]
							 ? json_string(c->unknowns[i].give) : json_null()));
	json_t *dis = json_array();
	for (size_t i = 0; i < c->ndisagree; i++)
		json_array_append_new(dis, json_string(c->disagree[i]));
	json_object_set_new(doc, "judged_by", json_pack("{s:b, s:s, s:I}", "flashinfer_loader",
							c->judged, "text", c->judge, "not_judged",
							(json_int_t)c->not_judged));
	json_object_set_new(doc, "disagreements", dis);
	json_object_set_new(doc, "findings", no);
	json_object_set_new(doc, "cannot_tell", unknown);
	json_object_set_new(doc, "verdict", json_string(verdicts[c->state].name));
	json_object_set_new(doc, "verdict_text", json_string(verdict_text(c->state, j->managed)));
	json_object_set_new(doc, "fix", str_or_null(fix));
}

/* An op tuned at start against the first file: how many of its keys are there, what those
 * entries hold (measured, predicted, FlashInfer's fallback), how many the server profiles. */
static void print_op_cover(const struct plan_op *op, const struct plan_check *c, size_t o)
{
	size_t hits = c->op_hits[o], fb = c->op_fallback[o];
	printf("tuned at start; the cache covers %zu of its %zu keys%s", hits, op->nkeys,
	       hits < op->nkeys ? "" : " (not profiled at start)");
	if (hits)
		printf(": %zu %s, %zu fallback%s", hits - fb, o ? "measured" : "predicted or measured",
		       fb, fb ? " (-1, FlashInfer's default tactic: the server runs it there, unprofiled)" : "");
	if (hits < op->nkeys)
		printf("%sthe server profiles %s%zu at start", hits ? "; " : ": ", hits ? "the other " : "",
		       op->nkeys - hits);
	printf("\n");
}

/* Whose verdict it is: FlashInfer's own loader's (plan_judge), or tunetab's model alone. */
static void print_judged_by(const struct lookup_plan *p, const struct plan_check *c)
{
	if (!c->judged) {
		printf("  judged by           tunetab's model (FlashInfer's loader not asked: %s)\n",
		       c->judge);
		return;
	}
	printf("  judged by           %s: %s", c->judge, c->ndisagree ? "disagrees with tunetab's "
	       "model (below)" : "agrees with tunetab's model");
	if (c->not_judged)
		printf(" (%zu lookups it could not judge)", c->not_judged);
	if (!p->keys_known)
		printf(" (whether each file loads: the lookups are not known)");
	printf("\n");
}

/* The check's report before its findings: the server, where it reads, what of it is there,
 * and every op it tunes at start. */
static void print_check_state(const struct lookup_plan *p, const struct plan_check *c)
{
	const struct install_job *j = &p->job;
	print_server(p);
	if (j->managed) {
		printf("  store               FlashInfer's managed store (one rank), environment %s\n",
		       j->store.env_hash);
		printf("  store folder        %s\n", j->store.dir);
	} else {
		size_t present = 0;
		for (size_t i = 0; i < c->nfiles; i++)
			present += c->files[i].exists;
		printf("  cache folder        %s\n", j->res.dir);
		if (c->nfiles)
			printf("  rank files          %zu of %zu present%s\n", present, c->nfiles,
			       c->differ ? ", contents differ" : present > 1 ? ", all alike" : "");
		if (p->rank_keyed && p->keys_known)
			printf("  keys                FlashInfer %s's keys carry the MoE TP/EP rank: %zu "
			       "rank sets\n", j->flashinfer, p->nkeysets);
		for (size_t i = 0; i < c->nfiles; i++) {
			const struct plan_file *f = &c->files[i];
			if (!f->exists)
				continue;
			printf("  metadata            %s\n", f->meta == 0 ? (j->env_meta ? "accepted by this "
			       "environment's FlashInfer rules" : "accepted (every field known or \"*\")")
			       : f->meta < 0 ? "cannot tell (below)" : "rejected (below)");
			break;
		}
	}
	if (p->keys_known && j->managed)
		printf("  lookups             %zu of the server's %zu keys have their entry%s\n", c->hits,
		       c->wanted, c->reprofiled ? " with their op's profiling policy" : "");
	else if (p->keys_known && c->nfiles)
		printf("  lookups             %zu of %zu (%zu rank file%s x the keys each looks up) are "
		       "in the files%s\n", c->hits, c->wanted, c->nfiles, c->nfiles == 1 ? "" : "s",
		       c->reprofiled ? " with their op's profiling policy" : "");
	if (p->keys_known && c->reprofiled)
		printf("  lookups             %zu more are there with another profiling policy: "
		       "profiled again at start\n", c->reprofiled);
	/* every op the server tunes at start, and what the cache holds of each (issue #39) */
	for (size_t o = 0; o < p->nops; o++) {
		const struct plan_op *op = &p->ops[o];
		printf("  op                  %s (%s): ", op->op, op->runner);
		if (!op->tunes)
			printf("not tuned at start: %s\n", op->why);
		else if (!op->known)
			printf("tuned at start; cannot tell its keys: %s\n", op->why);
		else if (!c->op_checked)
			printf("tuned at start, %zu keys\n", op->nkeys);
		else if (c->op_reprofiled[o])
			printf("tuned at start; the cache covers %zu of its %zu keys; %zu more are there "
			       "with another profiling policy than its %s: profiled again at start\n",
			       c->op_hits[o], op->nkeys, c->op_reprofiled[o],
			       op->def ? op->def->policy : "?");
		else
			print_op_cover(op, c, o);
	}
	print_judged_by(p, c);
}

/* The check in words; quiet: only its findings, the verdict and the fix. */
static void print_check(const struct lookup_plan *p, const struct plan_check *c, const char *fix,
			bool quiet)
{
	if (!quiet)
		print_check_state(p, c);
	for (size_t i = 0; i < c->nfindings; i++)
		printf("  no                  %s\n", c->findings[i].what);
	for (size_t i = 0; i < c->ndisagree; i++)
		printf("  disagree            %s\n", c->disagree[i]);
	for (size_t i = 0; i < c->nunknowns; i++)
		printf("  cannot tell         %s%s%s\n", c->unknowns[i].what,
		       c->unknowns[i].give[0] ? " — give " : "", c->unknowns[i].give);
	printf("verdict: %s\n", verdict_text(c->state, p->job.managed));
	if (fix)
		printf("fix: %s\n", fix);
}

int cli_print_plan_check(const struct lookup_plan *p, const struct tt_data *data, const char *fix,
			 const char *fix_measure, const struct cli_install_out *o)
{
	const struct validate_data vd = { &data->devices, &data->catalogs, &data->rules, &data->ops };
	struct plan_check c;
	plan_check_disk(p, &vd, &c);
	plan_judge(p, data, &c);
	const struct install_job *j = &p->job;
	/* a plain install leaves the entries nobody measured to the server: measure them */
	if (c.measure && fix_measure)
		fix = fix_measure;
	/* the fix only where it fixes: a "no" of a server that reads the cache */
	if (!(c.state == PLAN_NO && fix && (p->serve ? serve_autotunes(p->serve) : j->tunes)))
		fix = NULL;
	if (o->doc)
		check_json(p, &c, fix, o->doc);
	else
		print_check(p, &c, fix, o->quiet);
	int rc = c.state == PLAN_HITS ? TT_OK : c.state == PLAN_CANNOT_TELL ? TT_UNKNOWN : TT_INVALID;
	plan_check_release(&c);
	return rc;
}
