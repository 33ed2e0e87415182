/* cmd_doctor.c: `tunetab doctor`: in one command, what FlashInfer will look up on this
 * machine, what hits and what falls back to tactic -1, and the commands that fix it. */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "inspect/doctor.h"
#include "base/util.h"
#include "flashinfer/validate.h"
#include "tune/selftest.h"

struct doc_opts {
	const char *fidir, *flashinfer, *device, *cache, *model, *dtype, *weight_view;
	const char *backend, *python; /* --backend flashinfer: the self-test */
	long tp, ep, tp_rank, ep_rank, top_k, max_tokens;
	bool json, quiet;
};

static struct doctor_request request_of(const struct doc_opts *o)
{
	return (struct doctor_request){
		.fidir = o->fidir, .flashinfer = o->flashinfer, .device = o->device, .cache = o->cache,
		.model = o->model, .dtype = o->dtype, .weight_view = o->weight_view, .tp = o->tp,
		.ep = o->ep, .tp_rank = o->tp_rank, .ep_rank = o->ep_rank, .top_k = o->top_k,
		.max_tokens = o->max_tokens,
	};
}

static void print_module(const struct doctor_report *r, const struct fi_rules *rules)
{
	const struct doctor_module *mod = &r->mod;
	const char *version = r->version;
	printf("bundled module: %s\n", mod->path);
	if (!r->have_fi)
		printf("  not checked: no installed FlashInfer found to look in\n");
	else if (!mod->exists)
		printf("  missing: FlashInfer %s on this GPU imports this name and finds nothing, so every "
		       "bundled lookup falls back to tactic -1\n", version);
	else if (!mod->readable)
		printf("  broken: it does not parse as the module FlashInfer imports; the first lookup "
		       "raises (run: tunetab validate '%s')\n", mod->path);
	else if (mod->errors)
		printf("  present, but 'tunetab validate --flashinfer %s --device \"%s\"' finds %zu "
		       "error(s); the first: %s\n", version, r->device, mod->errors, mod->first_error);
	else
		printf("  present and valid for FlashInfer %s (%zu warning(s)), %zu entries\n", version,
		       mod->warnings, r->mt.n);
	for (size_t i = 0; i < mod->n_wrong_prefix; i++)
		printf("  wrong name: %s is never imported by FlashInfer %s (it imports %s): harmless, "
		       "and useless\n",
		       mod->wrong_prefix[i], version, mod->name);
	if (!mod->env_value)
		printf("%s: unset, so FlashInfer never reads the bundled module\n", rules->bundled.env_var);
	else if (!mod->env_ok)
		printf("%s='%s': not exactly \"%s\", so FlashInfer never reads the bundled module\n",
		       rules->bundled.env_var, mod->env_value, rules->bundled.env_value);
	else
		printf("%s=%s: set\n", rules->bundled.env_var, mod->env_value);
}

static void print_cache(const char *path, const struct doctor_cache *cache, const char *version)
{
	printf("JSON cache %s: ", path);
	switch (cache->verdict) {
	case CACHE_ACCEPTED: printf("accepted (every _metadata field matches or is \"*\")\n"); break;
	case CACHE_NO_METADATA: printf("accepted with no checks (no _metadata)\n"); break;
	case CACHE_UNVERIFIED: printf("no mismatch found, but tunetab cannot read some fields "
				      "of this environment (below)\n"); break;
	case CACHE_SOFT: printf("ignored on load (soft mismatch); FlashInfer's next tuned save "
				"replaces it\n"); break;
	case CACHE_HARD: printf("ignored on load and never saved to (hard mismatch)\n"); break;
	case CACHE_STRICT: printf("ignored: FlashInfer %s ignores a cache whose _metadata differs "
				  "in any field, a missing one included\n", version); break;
	case CACHE_UNSUPPORTED: printf("FlashInfer %s has no JSON cache (0.6.7+)\n", version); break;
	case CACHE_BROKEN: printf("not a readable JSON cache: autotune() raises on it (run: "
				  "tunetab validate '%s')\n", path); break;
	}
	for (size_t i = 0; i < cache->n_fields; i++) {
		const struct doctor_field *x = &cache->fields[i];
		printf("  %-22s saved %-24s here %-24s %s\n", x->name, x->saved[0] ? x->saved : "(missing)",
		       x->current[0] ? x->current : "(cannot tell)", field_status_name(x->status));
	}
	if (cache->errors && cache->verdict != CACHE_BROKEN)
		printf("  tunetab validate finds %zu error(s) in it; the first: %s\n", cache->errors,
		       cache->first_error);
}

static void print_lookups(const struct doc_opts *o, const struct doctor_report *r)
{
	const struct doctor_lookup *lk = r->lookups;
	size_t n = r->n_lookups;
	printf("deployment: %s %s, TP %ld EP %ld: %zu lookups, %zu hit (%zu JSON cache, %zu "
	       "bundled module), %zu fall back to tactic -1\n", o->model, o->dtype, o->tp, o->ep,
	       n, r->hits, r->via_json, r->via_module, n - r->hits);
	/* per stage, runs of buckets with the same source: "1-64 module, 128-8192 FALLBACK" */
	for (int st = 1; st <= 2; st++) {
		printf("  GEMM%d tokens:", st);
		const char *sep = " ";
		for (size_t i = 0; i < n; i++) {
			if (lk[i].stage != st)
				continue;
			size_t j = i;
			while (j + 1 < n && lk[j + 1].stage == st && lk[j + 1].source == lk[i].source)
				j++;
			const char *what = lk[i].source == SRC_JSON ? "json cache"
					   : lk[i].source == SRC_BUNDLED ? "module" : "FALLBACK";
			if (j > i)
				printf("%s%ld-%ld %s", sep, lk[i].tokens, lk[j].tokens, what);
			else
				printf("%s%ld %s", sep, lk[i].tokens, what);
			sep = ", ";
			i = j;
		}
		printf("\n");
	}
	const char *last = "";
	for (size_t i = 0; i < n; i++)
		if (lk[i].source == SRC_FALLBACK && strcmp(lk[i].why, last)) {
			printf("  falls back: %s\n", lk[i].why);
			last = lk[i].why;
		}
}

/* What doctor found, before its verdict: FlashInfer, the GPU, the module, the cache and the
 * deployment's lookups. */
static void print_state(const struct doc_opts *o, const struct fi_rules *rules,
			const struct doctor_report *r)
{
	if (r->have_fi && !o->flashinfer)
		printf("FlashInfer %s at %s (version from %s)\n", r->version, r->fi.pkg, r->fi.version_from);
	else if (r->have_fi)
		printf("FlashInfer %s as asked (--flashinfer); installed: %s at %s\n", r->version,
		       r->fi.version, r->fi.pkg);
	else
		printf("FlashInfer %s as asked (--flashinfer); no installed package found\n", r->version);
	for (size_t i = 0; r->have_fi && i < r->fi.n_others; i++)
		printf("  also installed: %s (which one Python imports depends on sys.path)\n", r->fi.others[i]);
	printf("GPU: %s (%s)\n", r->device, r->device_from);
	print_module(r, rules);
	if (o->cache)
		print_cache(o->cache, &r->cache, r->version);
	if (o->model)
		print_lookups(o, r);
}

/* -q: the verdict and the commands that fix it only. */
static void print_text(const struct doc_opts *o, const struct fi_rules *rules,
		       const struct doctor_report *r)
{
	if (!o->quiet)
		print_state(o, rules, r);
	printf("verdict: %s\n", r->all_hit ? (o->model ? "every lookup hits" : "a usable table is in place")
					   : (o->model ? "some lookups fall back to tactic -1"
						       : "no usable table: every lookup falls back to tactic -1"));
	if (*r->next)
		printf("next:\n%s", r->next);
}

/* The deployment's lookups in FlashInfer's order (doctor --model). */
static int deployment_lookups(const struct tt_data *data, const struct doc_opts *o, enum dtype dt,
			      const struct doctor_report *r, const struct fi_rules *rules,
			      struct model_profile **own_model, struct lookup_list *lookups,
			      struct diags *d)
{
	struct deployment dep;
	struct shape_args da = {
		.cmd = "doctor", .model = o->model, .weight_view = o->weight_view, .dt = dt,
		.runner = { .tp = o->tp, .ep = o->ep, .tp_rank = o->tp_rank, .ep_rank = o->ep_rank,
			    .top_k = o->top_k, .max_tokens = (unsigned)o->max_tokens,
			    .fused_finalize = true }, /* FlashInfer's default */
	};
	int sm = r->profile ? (int)device_sm(r->profile) : 0;
	int rc = cli_deploy(data, data->dtypes, &da, sm, rules, &dep, own_model, d);
	return rc ? rc : lookup_deploy(rules, &dep, lookups, d);
}

/* doctor --backend flashinfer: the measurement backend's self-test (tune/selftest.h). */
static int self_test(const struct doc_opts *o)
{
	if (strcmp(o->backend, "flashinfer"))
		return cli_usage_error("doctor", "--backend takes flashinfer (the proxy has no "
				       "dtypes to test), not '%s'", o->backend);
	if (o->fidir || o->flashinfer || o->cache || o->dtype || o->json || o->quiet || o->tp != 1 ||
	    o->ep != 1)
		return cli_usage_error("doctor", "--backend flashinfer takes --python and --model only");
	struct tt_data data;
	int rc = cli_load_data(&data, DATA_ALL);
	if (rc)
		return rc;
	struct diags d = DIAGS_INIT;
	struct selftest_report r;
	const char *model = o->model ? o->model : "qwen3-30b-a3b";
	fprintf(stderr, "tunetab: self-test of the flashinfer backend: %s at 1 token, one worker "
		"per dtype (seconds each)\n", model);
	rc = selftest_run(&data, model, o->python, &r, &d);
	if (!rc) {
		printf("flashinfer backend on %s: FlashInfer %s, torch %s (%s, GEMM1 and GEMM2 at "
		       "1 token)\n", r.gpu[0] ? r.gpu : "GPU 0", r.flashinfer, r.torch, model);
		for (size_t i = 0; i < r.n; i++) {
			const struct selftest_line *l = &r.v[i];
			printf("  %-12s %s: %s\n", l->dtype, selftest_status_name(l->status), l->detail);
			if (l->status == ST_WRONG || l->status == ST_FAILED)
				rc = TT_INVALID;
		}
	}
	cli_print_diags(&d);
	diags_release(&d);
	selftest_release(&r);
	cli_release_data(&data);
	return rc;
}

/* "--NAME" of the option doctor's table gives id. */
static const char *option_name(int id)
{
	static char buf[64];
	for (const struct cli_option *o = cli_find_command("doctor")->options; o->name; o++)
		if (o->id == id) {
			snprintf(buf, sizeof buf, "--%s", o->name);
			return buf;
		}
	return "?";
}

/* doctor --for CONSUMER: the serving stack's lookup plan against the files (src/cmd/for.c),
 * with doctor's own options: those that describe the deployment, none that write. */
static int doctor_for(int argc, char **argv)
{
	struct for_args a = { .cmd = "doctor", .check = 1 };
	int c, plain = 0;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "doctor")) != -1) {
		switch (c) {
		case 'c': a.consumer_id = optarg; break;
		case 'i': a.from = optarg; break;
		case 'V': a.cversion = optarg; break;
		case 'f': a.fiv = optarg; break;
		case 's': a.sm_s = optarg; break;
		case 'm': a.model_path = optarg; break;
		case 'H': a.hf = optarg; break;
		case 'T': a.tdtype = optarg; break;
		case 'Q': a.quant = optarg; break;
		case 'b': a.backend = optarg; break;
		case 't': a.tp_s = optarg; break;
		case 'p': a.pp_s = optarg; break;
		case 'd': a.dp_s = optarg; break;
		case 'a': a.adp_s = optarg; break;
		case 'e': a.ep_s = optarg; break;
		case 'k': a.skip = optarg; break;
		case 'C': a.cache_dir = optarg; break;
		case 'F': a.cache_file = optarg; break;
		case 'M': a.meta_mode = optarg; break;
		case 'P': a.python = optarg; break;
		case 'G': a.model_config = optarg; break;
		case 'D': a.device = optarg; break;
		case 'j': a.json = 1; break;
		case 'q': a.quiet = 1; break;
		case ':': return cli_usage_error("doctor", "option '%s' needs a value", argv[optind - 1]);
		case '?': return cli_usage_error("doctor", "unknown option '%s'%s", argv[optind - 1],
						 cli_stamp_hint(argv[optind - 1]));
		default: /* said once every option is read: an unknown one first */
			if (!plain)
				plain = c;
		}
	}
	if (plain)
		return cli_usage_error("doctor", "%s is not for --for: it describes a deployment by "
				       "model and dtype (doctor without --for)", option_name(plain));
	int rc = cli_for_check(&a, argc, argv, optind);
	return rc ? rc : cli_for_run(&a, argc, argv);
}

int cmd_doctor(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--for") || !strncmp(argv[i], "--for=", 6))
			return doctor_for(argc, argv);
	struct doc_opts o = { .tp = 1, .ep = 1, .device = "auto" };
	int c, for_only = 0;
	opterr = 0;
	optind = 1;
#define NUM(field, what, lo, hi) CLI_LONG_OPT("doctor", o.field, what, lo, hi)
	while ((c = cli_getopt(argc, argv, "doctor")) != -1) {
		switch (c) {
		case 0x201: o.fidir = optarg; break;
		case 'f': o.flashinfer = optarg; break;
		case 'D': o.device = optarg; break;
		case 0x202: o.cache = optarg; break;
		case 0x203: o.model = optarg; break;
		case 0x204: o.dtype = optarg; break;
		case 0x209: o.weight_view = optarg; break;
		case 'j': o.json = true; break;
		case 'q': o.quiet = true; break;
		case 0x20a: o.backend = optarg; break;
		case 'P': o.python = optarg; break;
		case 't': NUM(tp, "--tp", 1, LONG_MAX); break;
		case 'e': NUM(ep, "--ep", 1, LONG_MAX); break;
		case 0x205: NUM(tp_rank, "--tp-rank", 0, LONG_MAX); break;
		case 0x206: NUM(ep_rank, "--ep-rank", 0, LONG_MAX); break;
		case 0x207: NUM(top_k, "--top-k", 1, CLI_TOP_K_LIMIT); break;
		case 0x208: NUM(max_tokens, "--max-tokens", 1, CLI_MAX_TOKENS_LIMIT); break;
		case '?': case ':':
			return cli_usage_error("doctor", "unknown option or missing value '%s'", argv[optind - 1]);
		default: /* said once every option is read: an unknown one first */
			if (!for_only)
				for_only = c;
		}
	}
#undef NUM
	if (for_only)
		return cli_usage_error("doctor", "%s describes a server's deployment: it goes with "
				       "--for CONSUMER", option_name(for_only));
	if (optind < argc)
		return cli_usage_error("doctor", "unexpected argument '%s'", argv[optind]);
	if (o.fidir && o.flashinfer)
		return cli_usage_error("doctor", "give --flashinfer-dir or --flashinfer, not both");
	if (o.model && !o.dtype)
		return cli_usage_error("doctor", "--model needs --dtype");
	if (o.tp_rank >= o.tp || o.ep_rank >= o.ep)
		return cli_usage_error("doctor", "ranks must be below --tp/--ep");
	if (o.backend)
		return self_test(&o);
	enum dtype dt = DT_BF16;
	if (o.dtype && dtype_parse(o.dtype, &dt))
		return cli_usage_error("doctor", "unknown dtype '%s'", o.dtype);

	struct tt_data data;
	int rc = cli_load_data(&data, DATA_ALL);
	if (rc)
		return rc;
	struct diags d = DIAGS_INIT;
	struct doctor_request q = request_of(&o);
	struct doctor_report r = { 0 };
	struct model_profile *own_model = NULL;
	struct lookup_list lookups = { 0 };
	struct fi_version fv;
	const struct fi_rules *rules;

	/* FlashInfer: the installed package (and its version), or the version asked for */
	if ((rc = doctor_find(&q, &r, &d)) ||
	    (rc = cli_pick_schema(&data, r.version, &fv, &rules, false)) ||
	    (rc = doctor_device(&q, &data.devices, &r, &d)))
		goto out;
	if (o.model &&
	    (rc = deployment_lookups(&data, &o, dt, &r, rules, &own_model, &lookups, &d)))
		goto out;
	struct validate_data vd = { &data.devices, &data.catalogs, &data.rules, &data.ops };
	doctor_examine(&q, rules, &vd, o.model ? &lookups : NULL, &r);
	rc = r.all_hit ? TT_OK : TT_INVALID;
	if (o.json) {
		char *js = doctor_report_json(&q, rules, &r);
		printf("%s\n", js);
		free(js);
	} else {
		print_text(&o, rules, &r);
	}
out:
	cli_print_diags(&d);
	diags_release(&d);
	doctor_report_release(&r);
	lookup_list_release(&lookups);
	model_free(own_model);
	cli_release_data(&data);
	return rc;
}
