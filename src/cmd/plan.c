/* plan.c (command layer): a deployment's lookup plan in words (deploy/plan.h): install's
 * files and why a table is refused, and doctor's verdict on what is there, shared by
 * `install` and `doctor --for` (`install --check`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "deploy/plan.h"
#include "base/util.h"
#include "flashinfer/validate.h"

void cli_print_install_notes(const struct install_job *j, struct diags *d, const char *from)
{
	cli_print_diags(d);
	diags_release(d);
	if (j->meta_as_is)
		fprintf(stderr, "tunetab: _metadata as in %s (this environment's not read: %s%s%s)\n",
			from ? from : "the table", j->python ? j->python : "", j->python ? ": " : "",
			j->why[0] ? j->why : "?");
}

void cli_print_plan_refusal(const struct plan_check *c, const struct lookup_plan *p)
{
	for (size_t i = 0; i < c->nfindings; i++)
		fprintf(stderr, "tunetab: %s\n", c->findings[i].what);
	if (c->state == PLAN_NO && p->rank_keyed && p->keys_known)
		fprintf(stderr, "tunetab: FlashInfer %s's keys carry the MoE TP/EP rank: every rank "
			"file must hold the keys of every rank (install writes them to each: the files "
			"stay alike)\n", p->job.flashinfer);
}

/* Each conflict, then the counts of the merge; `theirs` names the entries only they had. */
static void print_merge(const struct install_conflict *c, size_t n, bool replace, size_t added,
			size_t same, size_t theirs_only, const char *theirs)
{
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "tunetab: conflict: %s: ours %s, there %s; %s\n", c[i].key, c[i].ours,
			c[i].theirs, replace ? "replaced (--replace)" : "kept theirs (--replace to take ours)");
	fprintf(stderr, "tunetab: %zu entries added, %zu already there, %zu conflicts %s, %zu %s kept\n",
		added, same, n, replace ? "replaced" : "left as they were", theirs_only, theirs);
}

/* --dry-run: the paths that would be written; else writes them (all or nothing), then the
 * paths written (a NULL content is a file left as it is). */
static int write_files(const struct install_job *j, bool dry, char **paths, char **contents,
		       size_t n)
{
	struct diags d = DIAGS_INIT;
	int rc = dry ? TT_OK : install_write(j, &d);
	cli_print_diags(&d);
	diags_release(&d);
	for (size_t i = 0; !rc && i < n; i++)
		if (dry || !contents || contents[i])
			printf("%s\n", paths[i]);
	if (dry)
		fprintf(stderr, "tunetab: --dry-run: nothing written\n");
	return rc;
}

static int store_files(const struct install_job *j, bool replace, bool dry)
{
	const struct install_store *st = &j->store;
	fprintf(stderr, "tunetab: %s (rule: %s): FlashInfer's managed store for this environment "
		"(%s), %zu entries in %s\n", j->cons->name, j->managed->read, st->env_hash, st->n, st->dir);
	print_merge(st->conflicts, st->nconflicts, replace, st->added, st->same, st->theirs_only,
		    "other entries of the store");
	if (st->unencodable)
		fprintf(stderr, "tunetab: %zu entries without key_fields: served on lookup, not "
			"preloaded\n", st->unencodable);
	int rc = write_files(j, dry, st->paths, st->contents, st->n);
	if (rc || dry)
		return rc;
	fprintf(stderr, "tunetab: wrote %zu entries; start the server with %s=%s (or leave it "
		"unset where that is the default)\n", st->added + st->replaced,
		j->root_env ? j->root_env : "?", j->root);
	return TT_OK;
}

static int rank_files(const struct lookup_plan *p, const struct install_request *q, bool dry)
{
	const struct install_job *j = &p->job;
	const struct install_result *res = &j->res;
	const struct consumer_version *v = j->v;
	fprintf(stderr, "tunetab: %s %s%s (rule: %s): %zu %s in %s\n", j->cons->name,
		q->consumer_version ? q->consumer_version : v->min,
		q->consumer_version || v->below ? "" : " and up", v->read, res->npaths,
		res->npaths == 1 ? "file" : "rank files", res->dir);
	if (p->rank_keyed && p->keys_known)
		fprintf(stderr, "tunetab: FlashInfer %s's keys carry the MoE TP/EP rank: each file "
			"holds the keys of all %zu rank sets (%zu keys), so every rank finds its own "
			"and the files stay alike\n", j->flashinfer, p->nkeysets, p->nall);
	if (res->meta_mismatch)
		fprintf(stderr, "tunetab: the existing files' _metadata has a %s mismatch in '%s' with "
			"this environment (FlashInfer would ignore them): written with this "
			"environment's, their entries kept\n", res->meta_mismatch == 1 ? "soft" : "hard",
			res->meta_field);
	print_merge(res->conflicts, res->nconflicts, q->replace, res->added, res->same,
		    res->theirs_only, res->existing == 1 ? "entries of the existing file"
							 : "entries of the existing files");
	int rc = write_files(j, dry, res->paths, NULL, res->npaths);
	if (rc || dry)
		return rc;
	const char *root_env = j->root_env ? j->root_env : "?";
	char *env = install_finalize_env(j->cons, j->ff);
	if (j->cons->tuning_backends_count)
		fprintf(stderr, "tunetab: wrote %zu file%s; start the server with %s=%s and "
			"--moe-runner-backend %s%s%s\n", res->npaths, res->npaths == 1 ? "" : "s",
			root_env, j->root, q->backend, env ? "; " : "", env ? env : "");
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

int cli_install_files(const struct lookup_plan *p, const struct install_request *q, bool dry)
{
	return p->job.managed ? store_files(&p->job, q->replace, dry) : rank_files(p, q, dry);
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
		for (size_t i = 0; i < p->nflags_words; i++)
			printf("%s%s", i ? " " : "", p->flags_words[i]);
		printf("\n");
	}
	char *env = install_finalize_env(cons, j->ff);
	if (env && !s)
		printf("  server environment  %s\n", env);
	free(env);
	if (s && !serve_autotunes(s)) {
		printf("  tunes at start      no: %s\n", s->why_not);
	} else if (s) {
		printf("  tunes at start      yes: %s\n", cons->tuning_note ? cons->tuning_note : "");
	} else if (!j->tunes && j->sm < (long)cons->min_sm) {
		printf("  tunes at start      no, not on SM%ld (SM%u and up): this cache is not read\n",
		       j->sm, cons->min_sm);
	} else if (!j->tunes) {
		printf("  tunes at start      no, not with --moe-runner-backend %s (it tunes with",
		       j->backend ? j->backend : "?");
		for (unsigned i = 0; i < cons->tuning_backends_count; i++)
			printf("%s%s", i ? ", " : " ", cons->tuning_backends[i]);
		printf("): this cache is not read\n");
	}
	else
		printf("  tunes at start      yes: %s\n", cons->tuning_note ? cons->tuning_note : "");
	if (s && s->tunes)
		printf("  server's MoE        %s%s%s, TP %ld EP %ld, use_fused_finalize %s (%s)\n",
		       s->dtype, s->input_view ? " with its input as " : "",
		       s->input_view ? s->input_view : "", s->runner_tp, s->runner_ep,
		       s->fused_finalize ? "on" : "off", s->fused_finalize_from);
}

int cli_print_plan_check(const struct lookup_plan *p, const struct tt_data *data, const char *fix)
{
	const struct validate_data vd = { &data->devices, &data->catalogs, &data->rules, &data->ops };
	struct plan_check c;
	plan_check_disk(p, &vd, &c);
	const struct install_job *j = &p->job;
	print_server(p);
	if (j->managed) {
		printf("  store               FlashInfer's managed store (one rank), environment %s\n",
		       j->store.env_hash);
		printf("  store folder        %s\n", j->store.dir);
	} else {
		size_t present = 0;
		for (size_t i = 0; i < c.nfiles; i++)
			present += c.files[i].exists;
		printf("  cache folder        %s\n", j->res.dir);
		if (c.nfiles)
			printf("  rank files          %zu of %zu present%s\n", present, c.nfiles,
			       c.differ ? ", contents differ" : present > 1 ? ", all alike" : "");
		if (p->rank_keyed && p->keys_known)
			printf("  keys                FlashInfer %s's keys carry the MoE TP/EP rank: %zu "
			       "rank sets\n", j->flashinfer, p->nkeysets);
		for (size_t i = 0; i < c.nfiles; i++) {
			const struct plan_file *f = &c.files[i];
			if (!f->exists)
				continue;
			printf("  metadata            %s\n", f->meta == 0 ? (j->env_meta ? "accepted by this "
			       "environment's FlashInfer rules" : "accepted (every field known or \"*\")")
			       : f->meta < 0 ? "cannot tell (below)" : "rejected (below)");
			break;
		}
	}
	if (p->keys_known && j->managed)
		printf("  lookups             %zu of the server's %zu keys have their entry\n", c.hits,
		       c.wanted);
	else if (p->keys_known && c.nfiles)
		printf("  lookups             %zu of %zu (%zu rank file%s x the keys each looks up) are "
		       "in the files\n", c.hits, c.wanted, c.nfiles, c.nfiles == 1 ? "" : "s");
	/* every op the server tunes at start, and what the cache holds of each (issue #39) */
	for (size_t o = 0; o < p->nops; o++) {
		const struct plan_op *op = &p->ops[o];
		printf("  op                  %s (%s): ", op->op, op->runner);
		if (!op->tunes)
			printf("not tuned at start: %s\n", op->why);
		else if (!op->known)
			printf("tuned at start; cannot tell its keys: %s\n", op->why);
		else if (!c.op_checked)
			printf("tuned at start, %zu keys\n", op->nkeys);
		else
			printf("tuned at start; the cache covers %zu of its %zu keys%s\n", c.op_hits[o],
			       op->nkeys, c.op_hits[o] < op->nkeys ? "" : " (not profiled at start)");
	}
	for (size_t i = 0; i < c.nfindings; i++)
		printf("  no                  %s\n", c.findings[i].what);
	for (size_t i = 0; i < c.nunknowns; i++)
		printf("  cannot tell         %s%s%s\n", c.unknowns[i].what,
		       c.unknowns[i].give[0] ? " — give " : "", c.unknowns[i].give);
	int rc;
	if (c.state == PLAN_HITS) {
		printf("verdict: %s\n", j->managed ? "every lookup hits the store"
						  : "every rank reads this cache and every lookup hits");
		rc = TT_OK;
	} else if (c.state == PLAN_NO) {
		printf("verdict: no: the server will not find its tactics here\n");
		rc = TT_INVALID;
	} else {
		printf("verdict: cannot tell whether the server finds its tactics here (what to give "
		       "above)\n");
		rc = TT_UNKNOWN;
	}
	if (c.state == PLAN_NO && fix && (p->serve ? serve_autotunes(p->serve) : j->tunes))
		printf("fix: %s\n", fix);
	plan_check_release(&c);
	return rc;
}
