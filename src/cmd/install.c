/* cmd_install.c: `tunetab install --for CONSUMER`: a JSON autotune cache written where that
 * serving stack will load it, for every rank, merged into what is there (install.h; the
 * consumers' rules are configs/consumers/<id>.yaml). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "data/consumer.h"
#include "data/device.h"
#include "data/firules.h"
#include "deploy/install.h"
#include "tune/python.h"
#include "base/util.h"

struct vars {
	const char *names[32], *values[32];
	size_t n;
};

static void set_var(struct vars *v, const char *name, const char *value)
{
	v->names[v->n] = name;
	v->values[v->n++] = value;
}

static const char *get_var(void *vp, const char *name)
{
	struct vars *v = vp;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->names[i], name))
			return v->values[i];
	return NULL;
}

static int positive(const char *opt, const char *s, long *out)
{
	if (s && (parse_long(s, out) || *out < 1 || *out > 4096))
		return cli_usage_error("install", "%s wants a positive count, not '%s'", opt, s);
	return TT_OK;
}

/* skip ops as the consumer joins them: sorted, comma-separated. Caller frees. */
static char *sorted_list(const char *s)
{
	char *copy = xstrdup(s ? s : ""), *save = NULL;
	char *items[64];
	size_t n = 0;
	for (char *t = strtok_r(copy, ",", &save); t && n < 64; t = strtok_r(NULL, ",", &save))
		items[n++] = t;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(items[j - 1], items[j]) > 0; j--) {
			char *t = items[j];
			items[j] = items[j - 1];
			items[j - 1] = t;
		}
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s", "");
	for (size_t i = 0; i < n; i++)
		sb_addf(&sb, "%s%s", i ? "," : "", items[i]);
	free(copy);
	return sb_detach(&sb);
}

/* What the server's environment must say for keys built with use_fused_finalize ff (1, 0,
 * or -1 unknown), or NULL when nothing. Caller frees. */
static char *finalize_env(const struct consumer *cons, int ff)
{
	if (!cons->fused_finalize_env || ff < 0)
		return NULL;
	if (ff == (int)cons->fused_finalize_default)
		return xasprintf("%s unset or %d (the cache's keys are for use_fused_finalize %s, "
				 "the server's default)", cons->fused_finalize_env, ff, ff ? "on" : "off");
	return xasprintf("%s=%d (the cache's keys are for use_fused_finalize %s; without it the "
			 "server asks for %s and no key hits; or generate with --fused-finalize %s)",
			 cons->fused_finalize_env, ff, ff ? "on" : "off",
			 cons->fused_finalize_default ? "on" : "off", ff ? "off" : "on");
}

/* The command that fixes what --check found: these arguments without --check. Caller frees. */
static char *fix_command(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "tunetab install");
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--check"))
			sb_addf(&sb, " %s", argv[i]);
	return sb_detach(&sb);
}

struct check {
	const struct consumer *cons;
	const struct consumer_version *v;
	const char *backend, *env_from; /* env_from: where the environment's metadata came from */
	long sm;
	int ff;
	char *fix;
};

static bool print_tuning(const struct check *k)
{
	bool tunes = k->cons->tuning_backends_count == 0;
	for (unsigned i = 0; i < k->cons->tuning_backends_count; i++)
		tunes |= !strcmp(k->cons->tuning_backends[i], k->backend);
	printf("%s (rule: %s)\n", k->cons->name, k->v->read);
	char *env = finalize_env(k->cons, k->ff);
	if (env)
		printf("  server environment  %s\n", env);
	free(env);
	bool on = tunes && k->sm >= (long)k->cons->min_sm;
	if (on && k->cons->tuning_backends_count)
		printf("  tunes at start      with --moe-runner-backend %s on SM%ld: %s\n", k->backend,
		       k->sm, k->cons->tuning_note ? k->cons->tuning_note : "");
	else if (on)
		printf("  tunes at start      on SM%ld: %s\n", k->sm,
		       k->cons->tuning_note ? k->cons->tuning_note : "");
	else if (k->cons->tuning_backends_count)
		printf("  tunes at start      no, not with --moe-runner-backend %s on SM%ld (it does with "
		       "%s on SM%u and up): this cache is not read\n", k->backend, k->sm,
		       k->cons->tuning_backends[0], k->cons->min_sm);
	else
		printf("  tunes at start      no, not on SM%ld (SM%u and up): this cache is not read\n",
		       k->sm, k->cons->min_sm);
	return on;
}

static void print_meta(const struct check *k, int mismatch, const char *field)
{
	if (!k->env_from)
		printf("  metadata            not checked: %s\n", "no FlashInfer found here to read "
		       "this environment's (give --python)");
	else if (!mismatch)
		printf("  metadata            matches this environment (FlashInfer's own _collect_metadata, "
		       "%s)\n", k->env_from);
	else
		printf("  metadata            %s mismatch in '%s': FlashInfer ignores the whole file\n",
		       mismatch == 1 ? "soft" : "hard", field);
}

static int print_check(const struct check *k, const struct install_result *r)
{
	bool on = print_tuning(k);
	printf("  store               one JSON file per rank\n");
	printf("  cache folder        %s\n", r->dir);
	for (size_t i = 0; i < r->npaths; i++) {
		const char *b = strrchr(r->paths[i], '/');
		printf("  %-19s %s\n", b ? b + 1 : r->paths[i], r->exists[i] ? "present" : "missing");
	}
	size_t total = r->added + r->same + r->nconflicts;
	printf("  rank files          %zu of %zu present%s\n", r->existing, r->npaths,
	       r->differ ? "; contents differ: the server drops them all and tunes from scratch"
			 : r->existing > 1 ? ", all alike" : "");
	if (r->existing)
		print_meta(k, r->meta_mismatch, r->meta_field);
	printf("  entries             %zu of %zu with the same tactic, %zu with another, %zu missing\n",
	       r->same, total, r->nconflicts, r->added);
	bool ok = on && r->existing == r->npaths && !r->differ && r->same == total &&
		  !r->meta_mismatch;
	printf("verdict: %s\n", ok ? "every rank reads this cache and every entry hits" :
	       "the server will not use this cache as it is");
	if (!ok && on)
		printf("fix: %s\n", k->fix);
	return ok ? TT_OK : TT_INVALID;
}

static int print_check_store(const struct check *k, const struct install_store *r)
{
	bool on = print_tuning(k);
	printf("  store               FlashInfer's managed store (one rank)\n");
	printf("  environment         %s (FlashInfer's own _collect_metadata, %s)\n", r->env_hash,
	       k->env_from);
	printf("  store folder        %s\n", r->dir);
	printf("  manifest.json       %s\n", r->manifest_exists ? "present" : "missing");
	size_t total = r->added + r->same + r->nconflicts;
	printf("  entries             %zu of %zu with the same tactic, %zu with another, %zu missing\n",
	       r->same, total, r->nconflicts, r->added);
	bool ok = on && r->same == total;
	printf("verdict: %s\n", ok ? "every lookup hits the store" :
	       "the server will not find these tactics as they are");
	if (!ok && on)
		printf("fix: %s\n", k->fix);
	return ok ? TT_OK : TT_INVALID;
}

/* FlashInfer's workspace arch for an SM (jit/env.py + compilation_context.py): "90a". */
static void fi_arch_of(long sm, char *out, size_t n)
{
	if (sm >= 90 && sm != 120)
		snprintf(out, n, "%lda", sm);
	else if (sm == 120)
		snprintf(out, n, "120f");
	else
		snprintf(out, n, "%ld", sm);
}

/* Stages path (its folder made first) into set. */
static int stage(struct file_set *set, const char *path, const char *content)
{
	char *d = xstrdup(path);
	*strrchr(d, '/') = '\0';
	int e = mkdir_p(d);
	free(d);
	return e ? e : file_set_stage(set, path, content, strlen(content), 0644);
}

/* Writes the planned files as one set (contents[i], or shared for all; a NULL content is
 * left as it is), with extra_path first when given; prints the written paths on stdout. */
static int write_set(const char *dir, char **paths, char **contents, const char *shared,
		     size_t n, const char *extra_path, const char *extra)
{
	struct file_set set = { 0 };
	int e = extra_path ? stage(&set, extra_path, extra) : 0;
	for (size_t i = 0; i < n && !e; i++) {
		const char *c = contents ? contents[i] : shared;
		if (c)
			e = stage(&set, paths[i], c);
	}
	if (!e)
		e = file_set_commit(&set);
	file_set_abort(&set);
	if (e)
		return cli_error(TT_INTERNAL, "cannot write the cache in '%s': %s", dir, strerror(e));
	for (size_t i = 0; i < n; i++)
		if (!contents || contents[i])
			printf("%s\n", paths[i]);
	return TT_OK;
}

static void print_conflicts(const struct install_conflict *c, size_t n, bool replace)
{
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "tunetab: conflict: %s: ours %s, there %s; %s\n", c[i].key, c[i].ours,
			c[i].theirs, replace ? "replaced (--replace)" : "kept theirs (--replace to take ours)");
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
	struct diags d = DIAGS_INIT;
	struct consumer *cons = NULL, *fi_cons = NULL;
	struct install_result res = { 0 };
	struct install_store store = { 0 };
	json_t *ours = NULL, *fienv = NULL, *meta = NULL;
	char *root = NULL, *skipped = sorted_list(skip), *python = NULL, *key = NULL;
	char *torch_dtype = NULL, *fix = NULL;
	char num[6][24], why[512] = "", arch[32];
	const char *env_from = NULL, *root_env = NULL;
	if ((rc = consumer_load(data.root, consumer_id, &cons, &d)))
		goto out;
	const struct consumer_version *v = consumer_pick(cons, cversion);
	if (!v) {
		rc = cli_error(TT_INVALID, "%s: no rule for %s %s in %s", consumer_id, cons->name,
			       cversion, cli_rel(&data, cons->path));
		goto out;
	}
	json_error_t err;
	ours = json_load_file(from, 0, &err);
	if (!json_is_object(ours)) {
		rc = ours ? cli_error(TT_INVALID, "%s:1:1: not a JSON object: not a FlashInfer autotune cache", from)
			  : cli_error(TT_INVALID, "%s:%d:%d: %s", from,
				      err.line > 0 ? err.line : 1, err.column > 0 ? err.column : 1, err.text);
		goto out;
	}
	meta = json_incref(json_object_get(ours, "_metadata")); /* the table's own */
	const char *meta_fi = json_string_value(json_object_get(meta, "flashinfer_version"));
	const char *meta_gpu = json_string_value(json_object_get(meta, "gpu"));
	if (meta_fi && !strcmp(meta_fi, "*"))
		meta_fi = NULL;

	/* this environment as FlashInfer sees it: its version, the _metadata it stamps */
	const char *pyfrom = NULL;
	if (!python_arg && getenv("TUNETAB_TEST_IGNORE_INSTALLED")) /* tests: not this machine's */
		snprintf(why, sizeof why, "TUNETAB_TEST_IGNORE_INSTALLED is set");
	else if ((python = python_find(python_arg, &pyfrom, why, sizeof why)))
		fienv = python_fi_env(python, why, sizeof why);
	json_t *env_meta = json_object_get(fienv, "metadata");
	const char *env_fi = json_string_value(json_object_get(fienv, "version"));
	static char env_from_buf[600];
	if (env_meta) {
		snprintf(env_from_buf, sizeof env_from_buf, "%s (%s)", python, pyfrom);
		env_from = env_from_buf;
	}
	if (!fiv && env_fi && meta_fi && strcmp(env_fi, meta_fi)) {
		rc = cli_error(TT_INVALID, "%s holds keys for FlashInfer %s, but this environment "
			       "imports FlashInfer %s (%s): keys of another version do not hit; generate "
			       "for it (tunetab generate --flashinfer %s ...) or give --flashinfer",
			       from, meta_fi, env_fi, python, env_fi);
		goto out;
	}
	if (!fiv)
		fiv = env_fi ? env_fi : meta_fi;
	if (!fiv) {
		rc = cli_usage_error("install", "%s names no FlashInfer version and none is installed "
				     "here: give --flashinfer (the version the server imports)", from);
		goto out;
	}
	/* the _metadata our entries carry */
	if (meta_mode && !strcmp(meta_mode, "env") && !env_meta) {
		rc = cli_error(TT_INVALID, "--metadata env: cannot read this environment's FlashInfer "
			       "metadata: %s", why[0] ? why : "no FlashInfer found");
		goto out;
	}
	if ((!meta_mode || !strcmp(meta_mode, "env")) && env_meta) {
		json_t *m = json_deep_copy(env_meta);
		const char *g = json_string_value(json_object_get(m, "gpu"));
		if ((!g || !strcmp(g, "unknown")) && meta_gpu) /* no GPU here: the table's own */
			json_object_set_new(m, "gpu", json_string(meta_gpu));
		json_object_set_new(ours, "_metadata", m);
	} else if (meta_mode && !strcmp(meta_mode, "wildcard")) {
		json_t *m = json_object();
		const char *k;
		json_t *x;
		json_object_foreach(meta, k, x)
			json_object_set_new(m, k, json_string("*"));
		json_object_set_new(ours, "_metadata", m);
	} else if (!meta_mode && !check) {
		fprintf(stderr, "tunetab: _metadata as in %s (this environment's not read: %s%s%s)\n",
			from, python ? python : "", python ? ": " : "", why[0] ? why : "?");
	}
	/* the version's key rules, to read what the cache's keys say (its flag) */
	struct fi_version fv;
	bool newer;
	const struct fi_schema *schema = version_parse(fiv, &fv) ? NULL
					 : fischema_find(&data.schemas, &fv, &newer);
	int ff = schema ? install_keys_fused_finalize(ours, schema) : -1;
	if (!sm) {
		const struct device_profile *p = meta_gpu ? device_find(&data.devices, meta_gpu) : NULL;
		if (!p) {
			rc = cli_usage_error("install", "%s names no known GPU (_metadata.gpu): give --sm",
					     from);
			goto out;
		}
		sm = device_sm(p);
	}
	const char *ws = json_string_value(json_object_get(fienv, "workspace_dir"));
	if (ws && strrchr(ws, '/'))
		snprintf(arch, sizeof arch, "%s", strrchr(ws, '/') + 1);
	else
		fi_arch_of(sm, arch, sizeof arch);
	torch_dtype = strncmp(tdtype, "torch.", 6) ? xasprintf("torch.%s", tdtype) : xstrdup(tdtype);
	struct vars vars = { 0 };
	snprintf(num[0], sizeof num[0], "%ld", sm);
	snprintf(num[1], sizeof num[1], "%ld", tp);
	snprintf(num[2], sizeof num[2], "%ld", pp);
	snprintf(num[3], sizeof num[3], "%ld", adp);
	snprintf(num[4], sizeof num[4], "%ld", ep);
	set_var(&vars, "flashinfer", fiv);
	set_var(&vars, "fi_arch", arch);
	set_var(&vars, "sm", num[0]);
	set_var(&vars, "model_path", model_path);
	set_var(&vars, "torch_dtype", torch_dtype);
	set_var(&vars, "quantization", quant);
	set_var(&vars, "moe_runner_backend", backend);
	set_var(&vars, "tp", num[1]);
	set_var(&vars, "pp", num[2]);
	set_var(&vars, "attn_dp", num[3]);
	set_var(&vars, "moe_ep", num[4]);
	set_var(&vars, "hf_config_class", hf);
	set_var(&vars, "skip_ops", skipped);
	fix = fix_command(argc, argv);
	struct check k = { .cons = cons, .v = v, .backend = backend, .sm = sm, .ff = ff,
			   .env_from = env_from, .fix = fix };

	/* one rank on a FlashInfer with the managed store: there, unless a file is named */
	const struct consumer_managed *mg = cache_file ? NULL
					    : consumer_managed_for(v, (unsigned)(tp * pp * dp), fiv);
	if (mg) {
		if ((rc = consumer_load(data.root, "flashinfer", &fi_cons, &d)))
			goto out;
		if (!fi_cons->managed_store) {
			rc = cli_error(TT_INVALID, "%s has no managed_store", cli_rel(&data, fi_cons->path));
			goto out;
		}
		if (!env_meta) {
			rc = cli_error(TT_INVALID, "%s with one rank reads FlashInfer's managed store (%s), "
				       "named by this environment's exact _metadata, and tunetab cannot read "
				       "it: %s; run where the server runs (or give --python), or name a "
				       "JSON file with --cache-file", cons->name, mg->read,
				       why[0] ? why : "no FlashInfer found");
			goto out;
		}
		root = cache_dir ? xstrdup(cache_dir)
				 : consumer_root(mg->root, mg->root_count, get_var, &vars, &root_env, &d);
		root_env = consumer_root_env(mg->root, mg->root_count);
		if (!root) {
			rc = TT_USAGE;
			goto out;
		}
		json_t *m = json_object_get(ours, "_metadata");
		if (meta_mode && strcmp(meta_mode, "env")) {
			rc = cli_usage_error("install", "the managed store wants this environment's exact "
					     "_metadata: --metadata %s does not apply", meta_mode);
			goto out;
		}
		if ((rc = install_store_plan(fi_cons->managed_store, root, m, ours, replace, &store, &d)))
			goto out;
		if (check) {
			rc = print_check_store(&k, &store);
			goto out;
		}
		fprintf(stderr, "tunetab: %s (rule: %s): FlashInfer's managed store for this environment "
			"(%s), %zu entries in %s\n", cons->name, mg->read, store.env_hash, store.n, store.dir);
		print_conflicts(store.conflicts, store.nconflicts, replace);
		fprintf(stderr, "tunetab: %zu entries added, %zu already there, %zu conflicts %s, %zu "
			"other entries of the store kept\n", store.added, store.same, store.nconflicts,
			replace ? "replaced" : "left as they were", store.theirs_only);
		if (store.unencodable)
			fprintf(stderr, "tunetab: %zu entries without key_fields: served on lookup, not "
				"preloaded\n", store.unencodable);
		if (dry) {
			for (size_t i = 0; i < store.n; i++)
				printf("%s\n", store.paths[i]);
			fprintf(stderr, "tunetab: --dry-run: nothing written\n");
			goto out;
		}
		if ((rc = write_set(store.dir, store.paths, store.contents, NULL, store.n,
				    store.manifest_exists ? NULL : store.manifest_path, store.manifest)))
			goto out;
		fprintf(stderr, "tunetab: wrote %zu entries; start the server with %s=%s (or leave it "
			"unset where that is the default)\n", store.added + store.replaced,
			root_env ? root_env : "?", root);
		goto out;
	}

	/* one JSON file per rank (or the one file named) */
	struct consumer_version fv_file = { 0 };
	char *cf_dir = NULL;
	if (cache_file) {
		cf_dir = xstrdup(cache_file);
		*strrchr(cf_dir, '/') = '\0';
		if (!v->dir || !v->key_found) { /* the file your code names */
			fv_file = *v;
			fv_file.dir = cf_dir;
			fv_file.file = (char *)(strrchr(cache_file, '/') + 1);
			fv_file.key_found = false;
			fv_file.key_parts_count = 0;
			v = &fv_file;
			tp = pp = dp = 1;
		} else { /* the rank file the server logged: its folder is <root>/<key> */
			const char *b = strrchr(cf_dir, '/');
			key = xstrdup(b ? b + 1 : cf_dir);
			root = b ? xstrndup(cf_dir, (size_t)(b - cf_dir)) : xstrdup(".");
		}
	}
	if (!v->dir) {
		rc = cli_usage_error("install", "%s %s keeps no cache file of its own here: give "
				     "--cache-file (the path your code passes to autotune(cache=...)); "
				     "tunetab generate --into-flashinfer writes the bundled module", cons->name, fiv);
		free(cf_dir);
		goto out;
	}
	if (!root && !cache_file)
		root = cache_dir ? xstrdup(cache_dir)
				 : consumer_root(v->root, v->root_count, get_var, &vars, &root_env, &d);
	if (!root_env)
		root_env = consumer_root_env(v->root, v->root_count);
	if (!root && v != &fv_file) {
		rc = TT_USAGE;
		free(cf_dir);
		goto out;
	}
	set_var(&vars, "root", root ? root : cf_dir);
	if (v->key_found && !key) {
		size_t n;
		char list[1024];
		if (!(key = install_find_key(root, v->key_hex, &n, list, sizeof list))) {
			rc = cli_error(TT_INVALID, "%s names its cache folder by a hash of its whole config, "
				       "which only %s computes; %s: start %s once with this deployment (it "
				       "logs '%s<path>'), then give that path with --cache-file",
				       cons->name, cons->name,
				       n ? "several folders are there" : "none is there yet",
				       cons->name, v->key_log ? v->key_log : "");
			if (n)
				fprintf(stderr, "tunetab: folders in %s: %s\n", root, list);
			free(cf_dir);
			goto out;
		}
	}
	if (key)
		set_var(&vars, "key", key);
	/* a variable given no value (model path, config class) stays NULL: rendering a
	 * template that needs it fails, naming it */
	rc = install_plan(v, get_var, &vars, (int)tp, (int)pp, (int)dp, ours, env_meta, replace, &res,
			  &d);
	free(cf_dir);
	if (rc) {
		if (rc == TT_USAGE) {
			cli_print_diags(&d);
			diags_release(&d);
			rc = cli_usage_error("install", "%s needs that value: --model-path (as the server is "
					     "started), --hf-config-class (the model config's class, e.g. "
					     "Qwen3MoeConfig)", cons->name);
		}
		goto out;
	}
	if (check) {
		rc = print_check(&k, &res);
		goto out;
	}
	fprintf(stderr, "tunetab: %s %s%s (rule: %s): %zu %s in %s\n", cons->name,
		cversion ? cversion : v->min, cversion || v->below ? "" : " and up", v->read, res.npaths,
		res.npaths == 1 ? "file" : "rank files", res.dir);
	if (res.meta_mismatch)
		fprintf(stderr, "tunetab: the existing files' _metadata has a %s mismatch in '%s' with "
			"this environment (FlashInfer would ignore them): written with this "
			"environment's, their entries kept\n", res.meta_mismatch == 1 ? "soft" : "hard",
			res.meta_field);
	print_conflicts(res.conflicts, res.nconflicts, replace);
	fprintf(stderr, "tunetab: %zu entries added, %zu already there, %zu conflicts %s, %zu entries "
		"of the existing file%s kept\n", res.added, res.same, res.nconflicts,
		replace ? "replaced" : "left as they were", res.theirs_only,
		res.existing == 1 ? "" : "s");
	if (dry) {
		for (size_t i = 0; i < res.npaths; i++)
			printf("%s\n", res.paths[i]);
		fprintf(stderr, "tunetab: --dry-run: nothing written\n");
		goto out;
	}
	if ((rc = write_set(res.dir, res.paths, NULL, res.bytes, res.npaths, NULL, NULL)))
		goto out;
	char *env = finalize_env(cons, ff);
	if (cons->tuning_backends_count)
		fprintf(stderr, "tunetab: wrote %zu file%s; start the server with %s=%s and "
			"--moe-runner-backend %s%s%s\n", res.npaths, res.npaths == 1 ? "" : "s",
			root_env ? root_env : "?", root, backend, env ? "; " : "", env ? env : "");
	else if (v == &fv_file)
		fprintf(stderr, "tunetab: wrote %s; pass it to autotune(True, cache=...) or "
			"AutoTuner.get().load_configs(...)\n", res.paths[0]);
	else
		fprintf(stderr, "tunetab: wrote %zu file%s; start the server with the same "
			"deployment (and %s=%s if that is not its default)\n", res.npaths,
			res.npaths == 1 ? "" : "s", root_env ? root_env : "?", root);
	free(env);
out:
	cli_print_diags(&d);
	diags_release(&d);
	install_result_release(&res);
	install_store_release(&store);
	json_decref(ours);
	json_decref(meta);
	json_decref(fienv);
	consumer_free(cons);
	consumer_free(fi_cons);
	free(root);
	free(key);
	free(python);
	free(skipped);
	free(torch_dtype);
	free(fix);
	cli_release_data(&data);
	return rc;
}
