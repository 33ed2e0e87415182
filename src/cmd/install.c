/* cmd_install.c: `tunetab install --for CONSUMER`: a JSON autotune cache written where that
 * serving stack will load it, for every rank, merged into what is there (install.h; the
 * consumers' rules are configs/consumers/<id>.yaml). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int cmd_install(int argc, char **argv)
{
	const char *consumer_id = NULL, *from = NULL, *cversion = NULL, *fiv = NULL, *sm_s = NULL;
	const char *model_path = NULL, *hf = NULL, *tdtype = "bfloat16", *quant = "None";
	const char *backend = "flashinfer_cutlass", *tp_s = NULL, *pp_s = NULL, *dp_s = NULL;
	const char *adp_s = NULL, *ep_s = NULL, *skip = "", *cache_dir = NULL, *cache_file = NULL;
	const char *meta_mode = NULL, *python_arg = NULL;
	int replace = 0, dry = 0, check = 0, c;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "install")) != -1) {
		switch (c) {
		case 'c': consumer_id = optarg; break;
		case 'i': from = optarg; break;
		case 'V': cversion = optarg; break;
		case 'f': fiv = optarg; break;
		case 's': sm_s = optarg; break;
		case 'm': model_path = optarg; break;
		case 'H': hf = optarg; break;
		case 'T': tdtype = optarg; break;
		case 'q': quant = optarg; break;
		case 'b': backend = optarg; break;
		case 't': tp_s = optarg; break;
		case 'p': pp_s = optarg; break;
		case 'd': dp_s = optarg; break;
		case 'a': adp_s = optarg; break;
		case 'e': ep_s = optarg; break;
		case 'k': skip = optarg; break;
		case 'C': cache_dir = optarg; break;
		case 'F': cache_file = optarg; break;
		case 'M': meta_mode = optarg; break;
		case 'P': python_arg = optarg; break;
		case 'r': replace = 1; break;
		case 'n': dry = 1; break;
		case 'K': check = 1; break;
		case ':': return cli_usage_error("install", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("install", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("install", "unexpected argument '%s'", argv[optind]);
	if (!consumer_id || !from)
		return cli_usage_error("install", "--for and --from are required");
	if (meta_mode && strcmp(meta_mode, "env") && strcmp(meta_mode, "wildcard") &&
	    strcmp(meta_mode, "from"))
		return cli_usage_error("install", "--metadata is env, wildcard or from, not '%s'", meta_mode);
	if (cache_file && (!strchr(cache_file, '/') || cache_file[strlen(cache_file) - 1] == '/'))
		return cli_usage_error("install", "--cache-file wants a file path with its folder "
				       "(./%s for this folder)", cache_file);
	long tp = 1, pp = 1, dp = 1, adp = 1, ep = 1, sm = 0;
	int rc;
	if ((rc = positive("--tp", tp_s, &tp)) || (rc = positive("--pp", pp_s, &pp)) ||
	    (rc = positive("--dp", dp_s, &dp)) || (rc = positive("--attn-dp", adp_s, &adp)) ||
	    (rc = positive("--ep", ep_s, &ep)))
		return rc;
	if (sm_s && (parse_long(sm_s, &sm) || sm < 10 || sm > 200))
		return cli_usage_error("install", "--sm wants an SM version such as 90, not '%s'", sm_s);
	if (tp * pp * dp > 4096)
		return cli_usage_error("install", "%ld ranks is more than tunetab writes", tp * pp * dp);

	struct tt_data data;
	if ((rc = cli_load_data(&data, DATA_DEVICES | DATA_SCHEMAS)))
		return rc;
	struct install_request q = {
		.consumer = consumer_id, .from = from, .consumer_version = cversion, .flashinfer = fiv,
		.sm = sm, .model_path = model_path, .hf_config_class = hf, .torch_dtype = tdtype,
		.quantization = quant, .backend = backend, .skip_ops = skip, .tp = tp, .pp = pp,
		.dp = dp, .attn_dp = adp, .ep = ep, .cache_dir = cache_dir, .cache_file = cache_file,
		.metadata = meta_mode, .python = python_arg, .replace = replace, .check = check,
	};
	struct diags d = DIAGS_INIT;
	struct install_job j;
	rc = install_prepare(&q, data.root, &data.devices, &data.rules, &j, &d);
	if (j.meta_as_is)
		fprintf(stderr, "tunetab: _metadata as in %s (this environment's not read: %s%s%s)\n",
			from, j.python ? j.python : "", j.python ? ": " : "", j.why[0] ? j.why : "?");
	if (!rc && check)
		rc = print_check(&j, backend, argc, argv);
	else if (!rc)
		rc = j.managed ? install_store_files(&j, replace, dry, &d)
			       : install_rank_files(&j, &q, dry, &d);
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
