/* cmd_install.c: `tunetab install --for CONSUMER`: a JSON autotune cache written where that
 * serving stack will load it, for every rank, merged into what is there (install.h; the
 * consumers' rules are configs/consumers/<id>.yaml). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "consumer.h"
#include "device.h"
#include "fischema.h"
#include "install.h"
#include "util.h"

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

/* --check (and doctor --for): what the server will find, on stdout; 0 when every rank's
 * file is there, all alike, and holds every entry of the cache with its tactic. */
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

static int print_check(const struct consumer *cons, const struct consumer_version *v,
		       const struct install_result *r, const char *backend, long sm, int ff)
{
	bool tunes = cons->tuning_backends_count == 0;
	for (unsigned i = 0; i < cons->tuning_backends_count; i++)
		tunes |= !strcmp(cons->tuning_backends[i], backend);
	printf("%s (rule: %s)\n", cons->name, v->read);
	char *env = finalize_env(cons, ff);
	if (env)
		printf("  server environment  %s\n", env);
	free(env);
	if (tunes && sm >= (long)cons->min_sm)
		printf("  tunes at start with --moe-runner-backend %s on SM%ld: it loads its rank file, "
		       "profiles only shapes the file lacks, saves back\n", backend, sm);
	else
		printf("  does not tune the MoE at start with --moe-runner-backend %s on SM%ld (it does "
		       "with %s on SM%u and up): this cache is not read\n", backend, sm,
		       cons->tuning_backends_count ? cons->tuning_backends[0] : "?", cons->min_sm);
	printf("  cache folder        %s\n", r->dir);
	for (size_t i = 0; i < r->npaths; i++) {
		const char *b = strrchr(r->paths[i], '/');
		printf("  %-19s %s\n", b ? b + 1 : r->paths[i], r->exists[i] ? "present" : "missing");
	}
	size_t total = r->added + r->same + r->nconflicts;
	printf("  rank files          %zu of %zu present%s\n", r->existing, r->npaths,
	       r->differ ? "; contents differ: the server deletes them all and tunes from scratch"
			 : r->existing > 1 ? ", all alike" : "");
	printf("  entries             %zu of %zu with the same tactic, %zu with another, %zu missing\n",
	       r->same, total, r->nconflicts, r->added);
	bool ok = tunes && sm >= (long)cons->min_sm && r->existing == r->npaths && !r->differ &&
		  r->same == total;
	printf("verdict: %s\n", ok ? "every rank reads this cache" :
	       "the server will not read this cache as it is; fix: tunetab install with these "
	       "arguments (not --check) writes every rank's file");
	return ok ? TT_OK : TT_INVALID;
}

int cmd_install(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "for", required_argument, NULL, 'c' },
		{ "from", required_argument, NULL, 'i' },
		{ "consumer-version", required_argument, NULL, 'V' },
		{ "flashinfer", required_argument, NULL, 'f' },
		{ "sm", required_argument, NULL, 's' },
		{ "model-path", required_argument, NULL, 'm' },
		{ "hf-config-class", required_argument, NULL, 'H' },
		{ "torch-dtype", required_argument, NULL, 'T' },
		{ "quantization", required_argument, NULL, 'q' },
		{ "moe-runner-backend", required_argument, NULL, 'b' },
		{ "tp", required_argument, NULL, 't' },
		{ "pp", required_argument, NULL, 'p' },
		{ "dp", required_argument, NULL, 'd' },
		{ "attn-dp", required_argument, NULL, 'a' },
		{ "ep", required_argument, NULL, 'e' },
		{ "skip-ops", required_argument, NULL, 'k' },
		{ "cache-dir", required_argument, NULL, 'C' },
		{ "replace", no_argument, NULL, 'r' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "check", no_argument, NULL, 'K' },
		{ 0 },
	};
	const char *consumer_id = NULL, *from = NULL, *cversion = NULL, *fiv = NULL, *sm_s = NULL;
	const char *model_path = NULL, *hf = NULL, *tdtype = "bfloat16", *quant = "None";
	const char *backend = "flashinfer_cutlass", *tp_s = NULL, *pp_s = NULL, *dp_s = NULL;
	const char *adp_s = NULL, *ep_s = NULL, *skip = "", *cache_dir = NULL;
	int replace = 0, dry = 0, check = 0, c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
	struct consumer *cons = NULL;
	struct install_result res = { 0 };
	json_t *ours = NULL;
	char *root = NULL, *skipped = sorted_list(skip);
	char num[6][24];
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
	json_t *meta = json_object_get(ours, "_metadata");
	const char *meta_fi = json_string_value(json_object_get(meta, "flashinfer_version"));
	const char *meta_gpu = json_string_value(json_object_get(meta, "gpu"));
	if (!fiv)
		fiv = meta_fi && strcmp(meta_fi, "*") ? meta_fi : NULL;
	if (!fiv) {
		rc = cli_usage_error("install", "%s names no FlashInfer version: give --flashinfer "
				     "(the version the server imports)", from);
		goto out;
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
	if (cache_dir) {
		root = xstrdup(cache_dir);
	} else if (getenv(v->root_env) && *getenv(v->root_env)) {
		root = xstrdup(getenv(v->root_env)); /* used as given, as the consumer does */
	} else if (!strncmp(v->root_default, "~/", 2) && getenv("HOME")) {
		root = xasprintf("%s/%s", getenv("HOME"), v->root_default + 2);
	} else {
		root = xstrdup(v->root_default);
	}
	char *torch_dtype = strncmp(tdtype, "torch.", 6) ? xasprintf("torch.%s", tdtype) : xstrdup(tdtype);
	struct vars vars = { 0 };
	snprintf(num[0], sizeof num[0], "%ld", sm);
	snprintf(num[1], sizeof num[1], "%ld", tp);
	snprintf(num[2], sizeof num[2], "%ld", pp);
	snprintf(num[3], sizeof num[3], "%ld", adp);
	snprintf(num[4], sizeof num[4], "%ld", ep);
	set_var(&vars, "root", root);
	set_var(&vars, "flashinfer", fiv);
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
	/* a variable given no value (model path, config class) stays NULL: rendering a
	 * template that needs it fails, naming it */
	rc = install_plan(v, get_var, &vars, (int)tp, (int)pp, (int)dp, ours, replace, &res, &d);
	free(torch_dtype);
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
		rc = print_check(cons, v, &res, backend, sm, ff);
		goto out;
	}
	fprintf(stderr, "tunetab: %s %s (rule: %s): %zu rank file%s in %s\n", cons->name,
		cversion ? cversion : v->min, v->read, res.npaths, res.npaths == 1 ? "" : "s", res.dir);
	for (size_t i = 0; i < res.nconflicts; i++)
		fprintf(stderr, "tunetab: conflict: %s: ours %s, there %s; %s\n", res.conflicts[i].key,
			res.conflicts[i].ours, res.conflicts[i].theirs,
			replace ? "replaced (--replace)" : "kept theirs (--replace to take ours)");
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
	int e = mkdir_p(res.dir);
	struct file_set set = { 0 };
	for (size_t i = 0; i < res.npaths && !e; i++)
		e = file_set_stage(&set, res.paths[i], res.bytes, res.len, 0644);
	if (!e)
		e = file_set_commit(&set);
	file_set_abort(&set);
	if (e) {
		rc = cli_error(TT_INTERNAL, "cannot write the cache in '%s': %s", res.dir, strerror(e));
		goto out;
	}
	for (size_t i = 0; i < res.npaths; i++)
		printf("%s\n", res.paths[i]);
	char *env = finalize_env(cons, ff);
	fprintf(stderr, "tunetab: wrote %zu file%s; start the server with %s=%s and "
		"--moe-runner-backend %s%s%s\n", res.npaths, res.npaths == 1 ? "" : "s", v->root_env,
		root, backend, env ? "; " : "", env ? env : "");
	free(env);
out:
	cli_print_diags(&d);
	diags_release(&d);
	install_result_release(&res);
	json_decref(ours);
	consumer_free(cons);
	free(root);
	free(skipped);
	cli_release_data(&data);
	return rc;
}
