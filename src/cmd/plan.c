/* plan.c (command layer): install's side of a deployment's lookup plan (deploy/plan.h) in
 * words: its notes, why a table is refused, the merge and the files written; in text, quiet
 * (-q), or as the one JSON document of --json. The plan itself and its check against the disk
 * (doctor --for, install --check) are printed by check.c. */
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

void cli_print_install_notes(const struct install_job *j, struct diags *d, const char *from,
			     const struct cli_install_out *o)
{
	cli_print_diags_quiet(d, o->quiet);
	diags_release(d);
	if (!j->meta_as_is)
		return;
	char *why = xasprintf("%s%s%s", j->python ? j->python : "", j->python ? ": " : "",
			      j->why[0] ? j->why : "?");
	if (!o->quiet)
		fprintf(stderr, "tunetab: _metadata as in %s (this environment's not read: %s)\n",
			from ? from : "the table", why);
	if (o->doc)
		json_object_set_new(o->doc, "metadata_as_is",
				    json_pack("{s:s, s:s}", "from", from ? from : "the table",
					      "why_not_read", why));
	free(why);
}

void cli_print_install_untuned(const struct install_job *j, bool from_file,
			       const struct cli_install_out *o)
{
	const struct install_untuned *u = &j->untuned;
	if (o->doc) {
		json_t *ops = json_array();
		for (size_t i = 0; i < u->nops; i++)
			json_array_append_new(ops, json_pack("{s:s, s:s, s:I}", "op", u->ops[i].op,
							     "runner", u->ops[i].runner, "entries",
							     (json_int_t)u->ops[i].n));
		json_object_set_new(o->doc, "unmeasured", json_pack("{s:I, s:b, s:o, s:I}", "entries",
								     (json_int_t)u->n, "written",
								     u->kept, "ops", ops,
								     "fallback_without_provenance",
								     (json_int_t)u->unknown));
	}
	if (u->unknown && !o->quiet)
		fprintf(stderr, "tunetab: note: no tunetab provenance beside the table, so whether its "
			"%zu entr%s holding FlashInfer's default tactic (-1) were measured is not known: "
			"written as they are (the server does not profile those shapes)\n", u->unknown,
			u->unknown == 1 ? "y" : "ies");
	if (!u->n || o->quiet)
		return;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < u->nops; i++)
		sb_addf(&sb, "%s%zu of %s (%s)", i ? ", " : "", u->ops[i].n, u->ops[i].op,
			u->ops[i].runner);
	if (u->kept)
		fprintf(stderr, "tunetab: writing the entries nobody measured too (--write-fallbacks): "
			"%s; the server does not tune those shapes at start and runs FlashInfer's "
			"default tactic (-1) there\n", sb.buf);
	else
		fprintf(stderr, "tunetab: left out the entries nobody measured (FlashInfer's default "
			"tactic, -1): %s; the server tunes those shapes at start, as without tunetab "
			"(%s on a GPU of this kind measures them; --write-fallbacks writes them, and the "
			"server then runs FlashInfer's default tactic there without profiling)\n", sb.buf,
			from_file ? "generate --profile --backend flashinfer" : "install --profile");
	sb_release(&sb);
}

void cli_print_plan_refusal(const struct plan_check *c, const struct lookup_plan *p,
			    const struct cli_install_out *o)
{
	json_t *a = o->doc ? json_array() : NULL;
	for (size_t i = 0; i < c->nfindings; i++) {
		fprintf(stderr, "tunetab: %s\n", c->findings[i].what);
		if (a)
			json_array_append_new(a, json_string(c->findings[i].what));
	}
	if (a)
		json_object_set_new(o->doc, "refusals", a);
	if (c->state == PLAN_NO && p->rank_keyed && p->keys_known)
		fprintf(stderr, "tunetab: FlashInfer %s's keys carry the MoE TP/EP rank: every rank "
			"file must hold the keys of every rank (install writes them to each: the files "
			"stay alike)\n", p->job.flashinfer);
}

/* Each conflict, then the counts of the merge; `theirs` names the entries only they had.
 * doc: "entries" and "conflicts". */
static void print_merge(const struct fi_merge *m, bool replace, size_t theirs_only,
			const char *theirs, const struct cli_install_out *o)
{
	const struct fi_conflict *c = m->conflicts;
	size_t n = m->nconflicts;
	for (size_t i = 0; !o->quiet && i < n; i++)
		fprintf(stderr, "tunetab: conflict: %s: ours %s, there %s; %s\n", c[i].key, c[i].ours,
			c[i].theirs, replace ? "replaced (--replace)" : "kept theirs (--replace to take ours)");
	if (!o->quiet)
		fprintf(stderr, "tunetab: %zu entries added, %zu already there, %zu conflicts %s, %zu %s "
			"kept\n", m->added, m->same, n, replace ? "replaced" : "left as they were", theirs_only,
			theirs);
	if (!o->doc)
		return;
	json_object_set_new(o->doc, "entries",
			    json_pack("{s:I, s:I, s:I, s:I, s:I}", "added", (json_int_t)m->added,
				      "already_there", (json_int_t)m->same, "replaced",
				      (json_int_t)m->replaced, "conflicts_kept_theirs",
				      (json_int_t)m->kept_theirs, "theirs_only_kept",
				      (json_int_t)theirs_only));
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s}", "key", c[i].key, "ours",
						   c[i].ours, "theirs", c[i].theirs, "kept",
						   replace ? "ours" : "theirs"));
	json_object_set_new(o->doc, "conflicts", a);
}

/* After the write (status wrote, its diagnostics in wd; dry: none): the paths written, or with
 * dry those that would be (a NULL content is a file left as it is). doc: "files" (each with
 * whether it is there now and whether install writes it) and "written". */
static int print_files(bool dry, int wrote, struct diags *wd, char **paths, char **contents,
		       const bool *exists, size_t n, const struct cli_install_out *o)
{
	int rc = dry ? TT_OK : wrote;
	if (wd)
		cli_print_diags_quiet(wd, o->quiet);
	json_t *files = o->doc ? json_array() : NULL;
	for (size_t i = 0; i < n; i++) {
		bool writes = dry || !contents || contents[i];
		if (files)
			json_array_append_new(files, json_pack("{s:I, s:s, s:b, s:b}", "index",
							       (json_int_t)i, "path", paths[i],
							       "exists", exists && exists[i],
							       "write", writes));
		else if (!rc && writes && !o->quiet)
			printf("%s\n", paths[i]);
	}
	if (dry && !o->quiet)
		fprintf(stderr, "tunetab: --dry-run: nothing written\n");
	if (files) {
		json_object_set_new(o->doc, "files", files);
		json_object_set_new(o->doc, "written", json_boolean(!dry && !rc));
	}
	return rc;
}

static void store_plan(const struct install_job *j, bool replace, const struct cli_install_out *o)
{
	const struct install_store *st = &j->store;
	if (!o->quiet)
		fprintf(stderr, "tunetab: %s (rule: %s): FlashInfer's managed store for this "
			"environment (%s), %zu entries in %s\n", j->cons->name, j->managed->read,
			st->env_hash, st->n, st->dir);
	print_merge(&st->merge, replace, st->theirs_only, "other entries of the store", o);
	if (st->unencodable && !o->quiet)
		fprintf(stderr, "tunetab: %zu entries without key_fields: served on lookup, not "
			"preloaded\n", st->unencodable);
	if (o->doc) {
		json_object_set_new(o->doc, "manifest", json_pack("{s:s?, s:b}", "path",
								  st->manifest_path, "exists",
								  st->manifest_exists));
		json_object_set_new(o->doc, "without_key_fields", json_integer((json_int_t)st->unencodable));
		json_object_set_new(o->doc, "root", str_or_null(j->root));
		json_object_set_new(o->doc, "root_variable", str_or_null(j->root_env));
	}
}

static int store_written(const struct install_job *j, bool dry, int wrote, struct diags *wd,
			 const struct cli_install_out *o)
{
	const struct install_store *st = &j->store;
	int rc = print_files(dry, wrote, wd, st->paths, st->contents, st->exists, st->n, o);
	if (rc || dry)
		return rc;
	if (!o->quiet)
		fprintf(stderr, "tunetab: wrote %zu entries; start the server with %s=%s (or leave it "
			"unset where that is the default)\n", st->merge.added + st->merge.replaced,
			j->root_env ? j->root_env : "?", j->root);
	return TT_OK;
}

static void rank_plan(const struct lookup_plan *p, const struct install_request *q,
		      const struct cli_install_out *o)
{
	const struct install_job *j = &p->job;
	const struct install_result *res = &j->res;
	const struct consumer_version *v = j->v;
	if (!o->quiet)
		fprintf(stderr, "tunetab: %s %s%s (rule: %s): %zu %s in %s\n", j->cons->name,
			q->server.consumer_version ? q->server.consumer_version : v->min,
			q->server.consumer_version || v->below ? "" : " and up", v->read, res->npaths,
			res->npaths == 1 ? "file" : "rank files", res->dir);
	if (p->rank_keyed && p->keys_known && !o->quiet)
		fprintf(stderr, "tunetab: FlashInfer %s's keys carry the MoE TP/EP rank: each file "
			"holds the keys of all %zu rank sets (%zu keys), so every rank finds its own "
			"and the files stay alike\n", j->flashinfer, p->nkeysets, p->nall);
	if (res->meta_mismatch && !o->quiet)
		fprintf(stderr, "tunetab: the existing files' _metadata has a %s mismatch in '%s' with "
			"this environment (FlashInfer would ignore them): written with this "
			"environment's, their entries kept\n", res->meta_mismatch == 1 ? "soft" : "hard",
			res->meta_field);
	if (o->doc)
		json_object_set_new(o->doc, "existing_metadata_mismatch", !res->meta_mismatch
				    ? json_null() : json_pack("{s:s, s:s}", "kind",
							      res->meta_mismatch == 1 ? "soft" : "hard",
							      "field", res->meta_field));
	if (res->dropped && !o->quiet)
		fprintf(stderr, "tunetab: removed %zu entr%s of the existing files holding FlashInfer's "
			"default tactic (-1) for keys nobody measured here: the server profiles them at "
			"start (--write-fallbacks keeps them)\n", res->dropped,
			res->dropped == 1 ? "y" : "ies");
	if (o->doc)
		json_object_set_new(o->doc, "unmeasured_removed", json_integer((json_int_t)res->dropped));
	print_merge(&res->merge, q->replace, res->theirs_only, res->existing == 1
		    ? "entries of the existing file" : "entries of the existing files", o);
}

static int rank_written(const struct lookup_plan *p, const struct install_request *q, bool dry,
			int wrote, struct diags *wd, const struct cli_install_out *o)
{
	const struct install_job *j = &p->job;
	const struct install_result *res = &j->res;
	int rc = print_files(dry, wrote, wd, res->paths, NULL, res->exists, res->npaths, o);
	char *env = install_finalize_env(j);
	if (o->doc) {
		json_object_set_new(o->doc, "root", str_or_null(j->root));
		json_object_set_new(o->doc, "root_variable", str_or_null(j->root_env));
		json_object_set_new(o->doc, "server_environment", str_or_null(env));
	}
	if (rc || dry || o->quiet) {
		free(env);
		return rc;
	}
	const char *root_env = j->root_env ? j->root_env : "?";
	if (j->cons->tuning_backends_count)
		fprintf(stderr, "tunetab: wrote %zu file%s; start the server with %s=%s and "
			"--moe-runner-backend %s%s%s\n", res->npaths, res->npaths == 1 ? "" : "s",
			root_env, j->root, q->flags.backend, env ? "; " : "", env ? env : "");
	else if (j->own_file)
		fprintf(stderr, "tunetab: wrote %s; pass it to autotune(True, cache=...) or "
			"AutoTuner.get().load_configs(...)\n", res->paths[0]);
	else
		fprintf(stderr, "tunetab: wrote %zu file%s; start the server with the same "
			"deployment (and %s=%s if that is not its default)\n", res->npaths,
			res->npaths == 1 ? "" : "s", root_env, j->root);
	free(env);
	return TT_OK;
}

void cli_print_install_merge(const struct lookup_plan *p, const struct install_request *q,
			    const struct cli_install_out *o)
{
	if (p->job.managed)
		store_plan(&p->job, q->replace, o);
	else
		rank_plan(p, q, o);
}

int cli_print_install_written(const struct lookup_plan *p, const struct install_request *q,
			      bool dry, int wrote, struct diags *wd, const struct cli_install_out *o)
{
	return p->job.managed ? store_written(&p->job, dry, wrote, wd, o)
			      : rank_written(p, q, dry, wrote, wd, o);
}
