/* cmd_install.c: `tunetab install --for CONSUMER`: a JSON autotune cache written where that
 * serving stack will load it, for every rank, merged into what is there (install.h; the
 * consumers' rules are configs/consumers/<id>.yaml). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "deploy/install.h"
#include "base/util.h"

static int positive(const char *opt, const char *s, long *out)
{
	if (s && (parse_long(s, out) || *out < 1 || *out > 4096))
		return cli_usage_error("install", "%s wants a positive count, not '%s'", opt, s);
	return TT_OK;
}

static bool print_tuning(const struct install_job *j, const char *backend)
{
	const struct consumer *cons = j->cons;
	printf("%s (rule: %s)\n", cons->name, j->v->read);
	char *env = install_finalize_env(cons, j->ff);
	if (env)
		printf("  server environment  %s\n", env);
	free(env);
	if (j->tunes && cons->tuning_backends_count)
		printf("  tunes at start      with --moe-runner-backend %s on SM%ld: %s\n", backend,
		       j->sm, cons->tuning_note ? cons->tuning_note : "");
	else if (j->tunes)
		printf("  tunes at start      on SM%ld: %s\n", j->sm,
		       cons->tuning_note ? cons->tuning_note : "");
	else if (cons->tuning_backends_count)
		printf("  tunes at start      no, not with --moe-runner-backend %s on SM%ld (it does with "
		       "%s on SM%u and up): this cache is not read\n", backend, j->sm,
		       cons->tuning_backends[0], cons->min_sm);
	else
		printf("  tunes at start      no, not on SM%ld (SM%u and up): this cache is not read\n",
		       j->sm, cons->min_sm);
	return j->tunes;
}

/* --check: whether the server reads this cache and every entry hits, and the fix. */
static int print_check(const struct install_job *j, const char *backend, int argc, char **argv)
{
	bool on = print_tuning(j, backend);
	size_t same, other, missing;
	if (j->managed) {
		const struct install_store *r = &j->store;
		printf("  store               FlashInfer's managed store (one rank)\n");
		printf("  environment         %s (FlashInfer's own _collect_metadata, %s)\n", r->env_hash,
		       j->env_from);
		printf("  store folder        %s\n", r->dir);
		printf("  manifest.json       %s\n", r->manifest_exists ? "present" : "missing");
		same = r->same, other = r->nconflicts, missing = r->added;
	} else {
		const struct install_result *r = &j->res;
		printf("  store               one JSON file per rank\n");
		printf("  cache folder        %s\n", r->dir);
		for (size_t i = 0; i < r->npaths; i++) {
			const char *b = strrchr(r->paths[i], '/');
			printf("  %-19s %s\n", b ? b + 1 : r->paths[i], r->exists[i] ? "present" : "missing");
		}
		printf("  rank files          %zu of %zu present%s\n", r->existing, r->npaths,
		       r->differ ? "; contents differ: the server drops them all and tunes from scratch"
				 : r->existing > 1 ? ", all alike" : "");
		if (r->existing && !j->env_from[0])
			printf("  metadata            not checked: no FlashInfer found here to read this "
			       "environment's (give --python)\n");
		else if (r->existing && !r->meta_mismatch)
			printf("  metadata            matches this environment (FlashInfer's own "
			       "_collect_metadata, %s)\n", j->env_from);
		else if (r->existing)
			printf("  metadata            %s mismatch in '%s': FlashInfer ignores the whole "
			       "file\n", r->meta_mismatch == 1 ? "soft" : "hard", r->meta_field);
		same = r->same, other = r->nconflicts, missing = r->added;
	}
	printf("  entries             %zu of %zu with the same tactic, %zu with another, %zu missing\n",
	       same, same + other + missing, other, missing);
	bool ok = install_check_ok(j);
	printf("verdict: %s\n", j->managed ? (ok ? "every lookup hits the store"
						  : "the server will not find these tactics as they are")
				 : (ok ? "every rank reads this cache and every entry hits"
				       : "the server will not use this cache as it is"));
	if (!ok && on) { /* the fix: these arguments without --check */
		printf("fix: tunetab install");
		for (int i = 1; i < argc; i++)
			if (strcmp(argv[i], "--check"))
				printf(" %s", argv[i]);
		printf("\n");
	}
	return ok ? TT_OK : TT_INVALID;
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

/* --dry-run: the paths that would be written; else writes them, then the paths written (a
 * NULL content is a file left as it is). */
static int write_files(const struct install_job *j, bool dry, char **paths, char **contents,
		       size_t n, struct diags *d)
{
	int rc = dry ? TT_OK : install_write(j, d);
	for (size_t i = 0; !rc && i < n; i++)
		if (dry || !contents || contents[i])
			printf("%s\n", paths[i]);
	if (dry)
		fprintf(stderr, "tunetab: --dry-run: nothing written\n");
	return rc;
}

/* The managed store's plan in words; with dry-run its paths, else written. */
static int install_store_files(const struct install_job *j, bool replace, bool dry,
			       struct diags *d)
{
	const struct install_store *st = &j->store;
	fprintf(stderr, "tunetab: %s (rule: %s): FlashInfer's managed store for this environment "
		"(%s), %zu entries in %s\n", j->cons->name, j->managed->read, st->env_hash, st->n, st->dir);
	print_merge(st->conflicts, st->nconflicts, replace, st->added, st->same, st->theirs_only,
		    "other entries of the store");
	if (st->unencodable)
		fprintf(stderr, "tunetab: %zu entries without key_fields: served on lookup, not "
			"preloaded\n", st->unencodable);
	int rc = write_files(j, dry, st->paths, st->contents, st->n, d);
	if (rc || dry)
		return rc;
	fprintf(stderr, "tunetab: wrote %zu entries; start the server with %s=%s (or leave it "
		"unset where that is the default)\n", st->added + st->replaced,
		j->root_env ? j->root_env : "?", j->root);
	return TT_OK;
}

/* The rank files' plan in words; with dry-run their paths, else written. */
static int install_rank_files(const struct install_job *j, const struct install_request *q,
			      bool dry, struct diags *d)
{
	const struct install_result *res = &j->res;
	const struct consumer_version *v = j->v;
	fprintf(stderr, "tunetab: %s %s%s (rule: %s): %zu %s in %s\n", j->cons->name,
		q->consumer_version ? q->consumer_version : v->min,
		q->consumer_version || v->below ? "" : " and up", v->read, res->npaths,
		res->npaths == 1 ? "file" : "rank files", res->dir);
	if (res->meta_mismatch)
		fprintf(stderr, "tunetab: the existing files' _metadata has a %s mismatch in '%s' with "
			"this environment (FlashInfer would ignore them): written with this "
			"environment's, their entries kept\n", res->meta_mismatch == 1 ? "soft" : "hard",
			res->meta_field);
	print_merge(res->conflicts, res->nconflicts, q->replace, res->added, res->same,
		    res->theirs_only, res->existing == 1 ? "entries of the existing file"
							 : "entries of the existing files");
	int rc = write_files(j, dry, res->paths, NULL, res->npaths, d);
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

/* What the command line asked. */
struct install_args {
	const char *consumer_id, *from, *cversion, *fiv, *sm_s, *model_path, *hf, *tdtype, *quant;
	const char *backend, *tp_s, *pp_s, *dp_s, *adp_s, *ep_s, *skip, *cache_dir, *cache_file;
	const char *meta_mode, *python, *model_config, *device, *outdir;
	int replace, dry, check, force, profile;
	struct serve_request launch;
	bool have_launch;
};

static int parse_install(int argc, char **argv, struct install_args *a)
{
	int c;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "install")) != -1) {
		switch (c) {
		case 'c': a->consumer_id = optarg; break;
		case 'i': a->from = optarg; break;
		case 'V': a->cversion = optarg; break;
		case 'f': a->fiv = optarg; break;
		case 's': a->sm_s = optarg; break;
		case 'm': a->model_path = optarg; break;
		case 'H': a->hf = optarg; break;
		case 'T': a->tdtype = optarg; break;
		case 'q': a->quant = optarg; break;
		case 'b': a->backend = optarg; break;
		case 't': a->tp_s = optarg; break;
		case 'p': a->pp_s = optarg; break;
		case 'd': a->dp_s = optarg; break;
		case 'a': a->adp_s = optarg; break;
		case 'e': a->ep_s = optarg; break;
		case 'k': a->skip = optarg; break;
		case 'C': a->cache_dir = optarg; break;
		case 'F': a->cache_file = optarg; break;
		case 'M': a->meta_mode = optarg; break;
		case 'P': a->python = optarg; break;
		case 'G': a->model_config = optarg; break;
		case 'D': a->device = optarg; break;
		case 'o': a->outdir = optarg; break;
		case 'R': a->profile = 1; break;
		case 'x': a->force = 1; break;
		case 'r': a->replace = 1; break;
		case 'n': a->dry = 1; break;
		case 'K': a->check = 1; break;
		case ':': return cli_usage_error("install", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("install", "unknown option '%s'", argv[optind - 1]);
		}
	}
	a->have_launch = cli_launch_words(argc, argv, optind, &a->launch);
	if (optind < argc && !a->have_launch)
		return cli_usage_error("install", "unexpected argument '%s'", argv[optind]);
	if (!a->consumer_id)
		return cli_usage_error("install", "--for is required");
	if (!a->from && !a->have_launch)
		return cli_usage_error("install", "--from is required (or the server's launch command "
				       "after '--', which install generates the table for)");
	if (a->have_launch && (a->model_path || a->hf || a->tdtype || a->quant || a->backend ||
			       a->tp_s || a->pp_s || a->dp_s || a->adp_s || a->ep_s || a->skip ||
			       a->sm_s))
		return cli_usage_error("install", "with a launch command the deployment is the "
				       "server's: no --model-path, --hf-config-class, --tp, --pp, --dp, "
				       "--attn-dp, --ep, --torch-dtype, --quantization, "
				       "--moe-runner-backend, --skip-ops or --sm");
	if (!a->have_launch && (a->model_config || a->device || a->outdir || a->profile))
		return cli_usage_error("install", "--model-config, --device, --profile and -o go with a "
				       "launch command (-- LAUNCH...)");
	if ((a->profile || a->outdir) && a->from)
		return cli_usage_error("install", "--profile and -o generate the table: not with --from");
	if (a->meta_mode && strcmp(a->meta_mode, "env") && strcmp(a->meta_mode, "wildcard") &&
	    strcmp(a->meta_mode, "from"))
		return cli_usage_error("install", "--metadata is env, wildcard or from, not '%s'",
				       a->meta_mode);
	if (a->cache_file && (!strchr(a->cache_file, '/') ||
			      a->cache_file[strlen(a->cache_file) - 1] == '/'))
		return cli_usage_error("install", "--cache-file wants a file path with its folder "
				       "(./%s for this folder)", a->cache_file);
	return TT_OK;
}

/* The launch command's table: generated into dir (heuristic, or measured with --profile). */
struct gen_ctx {
	char *json;   /* the JSON cache written */
};

static void gen_table(void *ctx, const struct generate_result *r)
{
	struct gen_ctx *g = ctx;
	if (r->written[1])
		g->json = xstrdup(r->written[1]);
	struct strbuf sb = STRBUF_INIT;
	generate_summary(r, &sb);
	fputs(sb.buf ? sb.buf : "", stderr);
	sb_release(&sb);
}

static void gen_line(void *ctx, const char *text)
{
	fprintf(stderr, "%s\n", text);
}

static void gen_diag(void *ctx, const struct diag *x)
{
	struct diags one = { (struct diag *)x, 1, 1 };
	cli_print_diags(&one);
}

static int generate_for(struct tt_data *data, const struct serve_deployment *s, bool profile,
			const char *outdir, char **json)
{
	struct model_profile m;
	struct diags d = DIAGS_INIT;
	int rc = serve_model_profile(s, &m, &d);
	struct generate_request o = { .profile = profile,
				      .command = "tunetab install (its launch command's table)" };
	generate_request_defaults(&o);
	o.format = "json";
	cli_launch_request(s, &m, &o);
	struct gen_ctx g = { NULL };
	struct generate_hooks hooks = { &g, gen_line, gen_diag, NULL, gen_table, cli_script_print };
	struct generate_session S;
	memset(&S, 0, sizeof S);
	S.gpu_ids[S.ngpu_ids++] = 0;
	struct shard sh = { .index = 0, .count = 1 };
	if (!rc)
		rc = generate_session_init(&S, data, &hooks, &d);
	if (!rc)
		rc = generate_table(&o, &S, &sh, outdir, &d);
	generate_session_release(&S);
	cli_print_diags(&d);
	diags_release(&d);
	if (!rc && !g.json)
		rc = cli_error(TT_INTERNAL, "generate wrote no JSON cache");
	*json = g.json;
	return rc;
}

/* The server's keys as a cache of placeholders (what a check looks for), or the cache given
 * checked against them. */
static json_t *wanted_cache(const struct serve_deployment *s, const struct lookup_list *keys)
{
	json_t *c = json_object();
	json_t *m = json_object();
	json_object_set_new(m, "flashinfer_version", json_string(s->flashinfer));
	json_object_set_new(m, "gpu", json_string(s->device));
	json_object_set_new(c, "_metadata", m);
	for (size_t i = 0; i < keys->n; i++)
		json_object_set_new(c, keys->v[i].key, json_pack("[si]", "MoERunner", -1));
	return c;
}

static const char **key_strings(const struct lookup_list *keys)
{
	const char **v = xcalloc(keys->n ? keys->n : 1, sizeof *v);
	for (size_t i = 0; i < keys->n; i++)
		v[i] = keys->v[i].key;
	return v;
}

/* A cause in words: what the server looks up against what the files hold. */
static void print_cause(const struct install_cause *c, const struct serve_deployment *s,
			const char *indent)
{
	const char *f = c->field;
	printf("%s%zu key%s differ in %s: the server looks up %s, the files hold %s", indent,
	       c->count, c->count == 1 ? "" : "s", f, c->want, c->have);
	if (!strcmp(f, "use_fused_finalize"))
		printf(" (the server's use_fused_finalize: %s)", s->fused_finalize_from);
	else if (!strcmp(f, "tp_size") || !strcmp(f, "ep_size") || !strcmp(f, "fc1") ||
		 !strcmp(f, "fc2"))
		printf(" (the server runs its experts at MoE TP %ld, EP %ld: a table of another "
		       "TP/EP or model)", s->runner_tp, s->runner_ep);
	else if (!strcmp(f, "x_dtype") || !strcmp(f, "weight_dtype") || !strcmp(f, "input") ||
		 !strncmp(f, "use_", 4))
		printf(" (the server runs %s%s%s: a table of another dtype)", s->dtype,
		       s->input_view ? " with its input as " : "", s->input_view ? s->input_view : "");
	else if (!strcmp(f, "tokens"))
		printf(" (the server tunes token buckets up to %ld)", s->max_tokens);
	else if (!strcmp(f, "activation_type"))
		printf(" (the server's activation: %s)", s->activation);
	printf("\n");
}

/* install --check / doctor --for with a launch command: every key the server looks up
 * against the files it opens; exit 1 names each cause and the one command that fixes it. */
static int check_launch(const struct install_job *j, const struct serve_deployment *s,
			const struct install_diagnosis *g, const char *fix)
{
	const struct consumer *cons = j->cons;
	printf("%s %s (rule: %s), FlashInfer %s, %s (SM%d)\n", cons->name, s->consumer_version,
	       j->v->read, s->flashinfer, s->device, s->sm);
	bool ok = g->hits == g->wanted && !j->interrupted;
	if (j->managed) {
		const struct install_store *r = &j->store;
		printf("  store               FlashInfer's managed store (one rank), environment %s\n",
		       r->env_hash);
		printf("  store folder        %s\n", r->dir);
	} else {
		const struct install_result *r = &j->res;
		printf("  cache folder        %s\n", r->dir);
		printf("  rank files          %zu of %zu present%s\n", r->existing, r->npaths,
		       r->differ ? "; contents differ: the server drops them all and tunes from scratch"
				 : r->existing > 1 ? ", all alike" : "");
		for (size_t i = 0; i < r->npaths; i++)
			if (!r->exists[i])
				printf("  missing             %s\n", r->paths[i]);
		ok = ok && r->existing == r->npaths && !r->differ;
		if (r->existing && j->env_from[0] && r->meta_mismatch) {
			printf("  metadata            %s mismatch in '%s' with this environment "
			       "(FlashInfer's own _collect_metadata, %s): FlashInfer ignores the whole "
			       "file\n", r->meta_mismatch == 1 ? "soft" : "hard", r->meta_field, j->env_from);
			ok = false;
		} else if (r->existing && g->meta_fi[0]) {
			printf("  metadata            the files say flashinfer_version %s, the server "
			       "imports %s: FlashInfer ignores the whole file (a hard mismatch)\n",
			       g->meta_fi, s->flashinfer);
			ok = false;
		} else if (r->existing && j->env_from[0]) {
			printf("  metadata            matches this environment (%s)\n", j->env_from);
		} else if (r->existing) {
			printf("  metadata            not checked against the server's environment (no "
			       "FlashInfer found here: give --python)\n");
		}
	}
	printf("  lookups             %zu of %zu of the server's keys are in the files\n", g->hits,
	       g->wanted);
	for (size_t i = 0; i < g->ncauses; i++)
		print_cause(&g->causes[i], s, "  cause               ");
	if (!j->managed && !j->res.existing)
		printf("  cause               no rank file there: nothing was installed for this "
		       "deployment (its cache key: model path, torch dtype, quantization, backend, "
		       "TP/PP/DP/EP, config class, skip ops)\n");
	else if (g->unmatched)
		printf("  cause               %zu key%s of an op the files have no key of\n", g->unmatched,
		       g->unmatched == 1 ? "" : "s");
	for (size_t i = 0; i < g->nfolders; i++) {
		const struct install_folder *f = &g->folders[i];
		printf("  found instead       %s: %s; %zu of its keys are the server's\n", f->dir, f->why,
		       f->hits);
		for (size_t k = 0; k < f->ncauses; k++)
			print_cause(&f->causes[k], s, "                        ");
	}
	printf("verdict: %s\n", ok ? "every rank reads this cache and every lookup hits"
				   : "the server will not find its tactics here");
	if (!ok)
		printf("fix: %s\n", fix);
	return ok ? TT_OK : TT_INVALID;
}

static int install_launch(struct install_args *a)
{
	struct tt_data data;
	int rc = cli_load_data(&data, DATA_ALL);
	if (rc)
		return rc;
	struct serve_request *sq = &a->launch;
	sq->consumer = a->consumer_id;
	sq->consumer_version = a->cversion;
	sq->flashinfer = a->fiv;
	sq->python = a->python;
	sq->model_config = a->model_config;
	sq->device = a->device;
	struct serve_deployment s;
	struct lookup_list keys = { 0 };
	const struct fi_rules *rules = NULL;
	json_t *cache = NULL;
	char *generated = NULL, *tmp = NULL, *fix = NULL;
	const char **want = NULL;
	struct install_job j;
	memset(&j, 0, sizeof j);
	struct install_diagnosis g = { 0 };
	struct diags d = DIAGS_INIT;
	if ((rc = cli_launch_derive(&data, sq, &s, false)))
		goto out;
	fix = cli_launch_fix(a->consumer_id, sq, a->cache_dir, NULL);
	if (!s.tunes && !a->dry) {
		rc = cli_error(TT_INVALID, "%s does not tune FlashInfer's CUTLASS MoE at start for this "
			       "command, so it reads no table: %s", s.consumer_name, s.why_not);
		goto out;
	}
	struct fi_version fv;
	int keys_rc = s.tunes ? cli_launch_keys(&data, &s, &keys, &rules) : TT_OK;
	if (keys_rc && !a->dry) {
		rc = keys_rc;
		goto out;
	}
	if (!rules && (rc = cli_pick_schema(&data, s.flashinfer, &fv, &rules, false)))
		goto out;
	want = key_strings(&keys);
	/* --check looks for the server's keys; --dry-run without them (the server does not tune,
	 * or tunetab cannot build its keys) still shows where its files are */
	if (!s.tunes || keys_rc || a->check) {
		cache = wanted_cache(&s, &keys);
	} else {
		const char *from = a->from;
		if (!from) {
			const char *dir = a->outdir;
			if (!dir) {
				char tmpl[] = "/tmp/tunetab-install.XXXXXX";
				if (!mkdtemp(tmpl)) {
					rc = cli_error(TT_INTERNAL, "cannot make a temporary folder: %s",
						       strerror(errno));
					goto out;
				}
				dir = tmp = xstrdup(tmpl);
			}
			if ((rc = generate_for(&data, &s, a->profile, dir, &generated)))
				goto out;
			from = generated;
		}
		json_error_t err;
		cache = json_load_file(from, 0, &err);
		if (!json_is_object(cache)) {
			rc = cli_error(TT_INVALID, "%s:%d:%d: %s", from, err.line > 0 ? err.line : 1,
				       err.column > 0 ? err.column : 1, cache ? "not a JSON object" : err.text);
			goto out;
		}
		/* a table whose keys the server will not look up is refused */
		size_t nhave;
		char **have = install_entry_keys(cache, &nhave);
		struct install_cause causes[INSTALL_CAUSES_MAX];
		size_t ncauses = 0, unmatched = 0;
		size_t missing = install_missing(rules, want, keys.n, (const char *const *)have, nhave,
						 causes, &ncauses, &unmatched);
		install_keys_free(have, nhave);
		if (missing) {
			fprintf(stderr, "tunetab: %s: %zu of the %zu keys the server looks up are not in "
				"it\n", from, missing, keys.n);
			for (size_t i = 0; i < ncauses; i++) {
				fflush(stdout);
				fprintf(stderr, "tunetab: %zu key%s differ in %s: the server looks up %s, "
					"the table holds %s\n", causes[i].count, causes[i].count == 1 ? ""
					: "s", causes[i].field, causes[i].want, causes[i].have);
			}
			if (!a->force) {
				rc = cli_error(TT_INVALID, "not installed: that server would not use this "
					       "table (--force installs it anyway); to install the table of "
					       "exactly its keys: %s", fix);
				goto out;
			}
			fprintf(stderr, "tunetab: installed anyway (--force)\n");
		}
	}
	char torch_dtype[64];
	snprintf(torch_dtype, sizeof torch_dtype, "%s", s.torch_dtype);
	struct install_request q = {
		.consumer = a->consumer_id, .cache = cache, .from = a->from ? a->from : generated
		? generated : "(the server's keys)", .consumer_version = s.consumer_version,
		.flashinfer = s.flashinfer, .sm = s.sm, .model_path = s.model_path,
		.hf_config_class = s.hf_config_class, .torch_dtype = torch_dtype,
		.quantization = s.quantization, .backend = s.moe_runner_backend,
		.skip_ops = s.skip_ops, .tp = s.tp, .pp = s.pp, .dp = s.dp, .attn_dp = s.attn_dp,
		.ep = s.moe_ep, .cache_dir = a->cache_dir, .cache_file = a->cache_file,
		.metadata = a->meta_mode, .python = s.python, .replace = a->replace || !a->from,
		.check = a->check, .dry_run = a->dry,
	};
	rc = install_prepare(&q, data.root, &data.devices, &data.rules, &j, &d);
	diags_flush(&d, gen_diag, NULL); /* a folder restored: before what is written there */
	if (j.meta_as_is)
		fprintf(stderr, "tunetab: _metadata as in %s (this environment's not read: %s%s%s)\n",
			q.from, j.python ? j.python : "", j.python ? ": " : "", j.why[0] ? j.why : "?");
	if (!rc && a->check) {
		cli_print_diags(&d);
		diags_release(&d);
		install_diagnose(&j, want, keys.n, rules, &g);
		rc = check_launch(&j, &s, &g, fix);
	} else if (!rc) {
		rc = j.managed ? install_store_files(&j, q.replace, a->dry, &d)
			       : install_rank_files(&j, &q, a->dry, &d);
	}
	if (!rc && !s.tunes)
		rc = cli_error(TT_INVALID, "%s does not tune FlashInfer's CUTLASS MoE at start for this "
			       "command, so it reads no table: %s", s.consumer_name, s.why_not);
	else if (!rc && keys_rc)
		rc = keys_rc; /* said above: tunetab cannot build its keys */
out:
	free(want);
	cli_print_diags(&d);
	diags_release(&d);
	if (j.usage[0])
		cli_usage_error("install", "%s", j.usage);
	install_diagnosis_release(&g);
	install_job_release(&j);
	json_decref(cache);
	lookup_list_release(&keys);
	if (tmp) { /* the generated tables were only the way here */
		DIR *dh = opendir(tmp);
		struct dirent *de;
		while (dh && (de = readdir(dh)))
			if (de->d_name[0] != '.') {
				char *f = xasprintf("%s/%s", tmp, de->d_name);
				unlink(f);
				free(f);
			}
		if (dh)
			closedir(dh);
		rmdir(tmp);
		free(tmp);
	}
	free(generated);
	free(fix);
	serve_release(&s);
	cli_release_data(&data);
	return rc;
}

int cmd_install(int argc, char **argv)
{
	struct install_args a = { .tdtype = NULL };
	int rc = parse_install(argc, argv, &a);
	if (rc)
		return rc;
	if (a.have_launch)
		return install_launch(&a);
	const char *tdtype = a.tdtype ? a.tdtype : "bfloat16", *quant = a.quant ? a.quant : "None";
	const char *backend = a.backend ? a.backend : "flashinfer_cutlass", *skip = a.skip ? a.skip : "";
	long tp = 1, pp = 1, dp = 1, adp = 1, ep = 1, sm = 0;
	if ((rc = positive("--tp", a.tp_s, &tp)) || (rc = positive("--pp", a.pp_s, &pp)) ||
	    (rc = positive("--dp", a.dp_s, &dp)) || (rc = positive("--attn-dp", a.adp_s, &adp)) ||
	    (rc = positive("--ep", a.ep_s, &ep)))
		return rc;
	if (a.sm_s && (parse_long(a.sm_s, &sm) || sm < 10 || sm > 200))
		return cli_usage_error("install", "--sm wants an SM version such as 90, not '%s'", a.sm_s);
	if (tp * pp * dp > 4096)
		return cli_usage_error("install", "%ld ranks is more than tunetab writes", tp * pp * dp);
	if (adp > 1 && dp > 1)
		return cli_usage_error("install", "--attn-dp and --dp together: SGLang refuses attention "
				       "DP with DP replicas (parallel_hook.py:287-292)");
	if (adp > 1 && tp % adp)
		return cli_usage_error("install", "--attn-dp %ld does not divide --tp %ld", adp, tp);

	struct tt_data data;
	if ((rc = cli_load_data(&data, DATA_DEVICES | DATA_SCHEMAS)))
		return rc;
	struct install_request q = {
		.consumer = a.consumer_id, .from = a.from, .consumer_version = a.cversion,
		.flashinfer = a.fiv, .sm = sm, .model_path = a.model_path, .hf_config_class = a.hf,
		.torch_dtype = tdtype, .quantization = quant, .backend = backend, .skip_ops = skip,
		.tp = tp, .pp = pp, .dp = dp, .attn_dp = adp, .ep = ep, .cache_dir = a.cache_dir,
		.cache_file = a.cache_file, .metadata = a.meta_mode, .python = a.python,
		.replace = a.replace, .check = a.check, .dry_run = a.dry,
	};
	struct diags d = DIAGS_INIT;
	struct install_job j;
	rc = install_prepare(&q, data.root, &data.devices, &data.rules, &j, &d);
	diags_flush(&d, gen_diag, NULL); /* a folder restored: before what is written there */
	if (j.meta_as_is)
		fprintf(stderr, "tunetab: _metadata as in %s (this environment's not read: %s%s%s)\n",
			a.from, j.python ? j.python : "", j.python ? ": " : "", j.why[0] ? j.why : "?");
	if (!rc && a.check)
		rc = print_check(&j, backend, argc, argv);
	else if (!rc)
		rc = j.managed ? install_store_files(&j, a.replace, a.dry, &d)
			       : install_rank_files(&j, &q, a.dry, &d);
	cli_print_diags(&d);
	diags_release(&d);
	if (j.usage[0])
		cli_usage_error("install", "%s", j.usage);
	if (j.nfolders)
		fprintf(stderr, "tunetab: folders in %s: %s\n", j.root, j.folders);
	install_job_release(&j);
	cli_release_data(&data);
	return rc;
}
