/* cmd_doctor.c: `tunetab doctor`: in one command, what FlashInfer will look up on this
 * machine, what hits and what falls back to tactic -1, and the commands that fix it. */
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "inspect/doctor.h"
#include "gpu/gpu.h"
#include "base/util.h"
#include "flashinfer/validate.h"

struct doc_opts {
	const char *fidir, *flashinfer, *device, *cache, *model, *dtype, *weight_view;
	long tp, ep, tp_rank, ep_rank, top_k, max_tokens;
	bool json;
};

static const char *source_name(enum lookup_source s)
{
	return s == SRC_JSON ? "json-cache" : s == SRC_BUNDLED ? "bundled-module" : "fallback";
}

/* The generate line that writes what is missing, with the deployment's own options. */
static char *generate_line(const struct doc_opts *o, const char *device, const char *version,
			   const char *format, const char *outdir)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "tunetab generate --device \"%s\" --model %s --dtype %s", device,
		o->model ? o->model : "MODEL", o->dtype ? o->dtype : "DTYPE");
	if (o->tp != 1)
		sb_addf(&sb, " --tp %ld", o->tp);
	if (o->ep != 1)
		sb_addf(&sb, " --ep %ld", o->ep);
	if (o->tp_rank)
		sb_addf(&sb, " --tp-rank %ld", o->tp_rank);
	if (o->ep_rank)
		sb_addf(&sb, " --ep-rank %ld", o->ep_rank);
	if (o->top_k)
		sb_addf(&sb, " --top-k %ld", o->top_k);
	if (o->max_tokens)
		sb_addf(&sb, " --max-tokens %ld", o->max_tokens);
	if (o->weight_view)
		sb_addf(&sb, " --weight-view %s", o->weight_view);
	sb_addf(&sb, " --flashinfer %s --format %s -o %s", version, format, outdir);
	return sb_detach(&sb);
}

int cmd_doctor(int argc, char **argv)
{
	/* doctor --for CONSUMER ...: the serving stack's chain, as install --check sees it */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--for") || !strncmp(argv[i], "--for=", 6)) {
			char **args = xcalloc((size_t)argc + 2, sizeof *args);
			for (int k = 0; k < argc; k++)
				args[k] = argv[k];
			args[argc] = (char *)"--check";
			int rc = cmd_install(argc + 1, args);
			free(args);
			return rc;
		}
	struct doc_opts o = { .tp = 1, .ep = 1, .device = "auto" };
	int c;
	long v;
	opterr = 0;
	optind = 1;
#define NUM(field, what, lo)                                                                      \
	do {                                                                                      \
		if (parse_long(optarg, &v) || v < (lo))                                           \
			return cli_usage_error("doctor", "%s must be an integer >= %d, not '%s'", what, \
					       lo, optarg);                                       \
		o.field = v;                                                                      \
	} while (0)
	while ((c = cli_getopt(argc, argv, "doctor")) != -1) {
		switch (c) {
		case 'd': o.fidir = optarg; break;
		case 'f': o.flashinfer = optarg; break;
		case 'D': o.device = optarg; break;
		case 'c': o.cache = optarg; break;
		case 'M': o.model = optarg; break;
		case 't': o.dtype = optarg; break;
		case 'w': o.weight_view = optarg; break;
		case 'j': o.json = true; break;
		case 'T': NUM(tp, "--tp", 1); break;
		case 'E': NUM(ep, "--ep", 1); break;
		case 'r': NUM(tp_rank, "--tp-rank", 0); break;
		case 'R': NUM(ep_rank, "--ep-rank", 0); break;
		case 'k':
			NUM(top_k, "--top-k", 1);
			if (v > CLI_TOP_K_LIMIT)
				return cli_usage_error("doctor", "--top-k must be at most %ld, not '%s'",
						       CLI_TOP_K_LIMIT, optarg);
			break;
		case 'm':
			NUM(max_tokens, "--max-tokens", 1);
			if (v > CLI_MAX_TOKENS_LIMIT)
				return cli_usage_error("doctor", "--max-tokens must be at most %ld, not '%s'",
						       CLI_MAX_TOKENS_LIMIT, optarg);
			break;
		default:
			return cli_usage_error("doctor", "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
#undef NUM
	if (optind < argc)
		return cli_usage_error("doctor", "unexpected argument '%s'", argv[optind]);
	if (o.fidir && o.flashinfer)
		return cli_usage_error("doctor", "give --flashinfer-dir or --flashinfer, not both");
	if (o.model && !o.dtype)
		return cli_usage_error("doctor", "--model needs --dtype");
	if (o.tp_rank >= o.tp || o.ep_rank >= o.ep)
		return cli_usage_error("doctor", "ranks must be below --tp/--ep");
	enum dtype dt = DT_BF16;
	if (o.dtype && dtype_parse(o.dtype, &dt))
		return cli_usage_error("doctor", "unknown dtype '%s'", o.dtype);

	struct tt_data data;
	int rc = cli_load_data(&data, DATA_ALL);
	if (rc)
		return rc;
	struct diags d = DIAGS_INIT;
	struct doctor_fi fi;
	bool have_fi = false;
	struct dtype_set *dtypes = NULL;
	struct model_profile *own_model = NULL;
	struct gen_plan plan = { 0 };
	struct doctor_module mod = { 0 };
	struct doctor_cache cache = { 0 };
	struct table mt = { 0 }, ct = { 0 };
	struct doctor_lookup *lk = NULL;
	json_t *jo = json_object();
	char devname[256] = "";
	const char *device_from;

	/* FlashInfer: the installed package (and its version), or the version asked for */
	if (o.flashinfer) {
		have_fi = doctor_find_flashinfer(NULL, &fi, &d) == TT_OK;
		diags_release(&d);
		d = (struct diags)DIAGS_INIT;
	} else {
		if ((rc = doctor_find_flashinfer(o.fidir, &fi, &d)))
			goto out;
		have_fi = true;
	}
	const char *version = o.flashinfer ? o.flashinfer : fi.version;
	struct fi_version fv;
	const struct fi_schema *schema;
	if ((rc = cli_pick_schema(&data, version, &fv, &schema, false)))
		goto out;

	/* the GPU: FlashInfer names the module after device 0 (formats §1.1) */
	if (!strcmp(o.device, "auto")) {
		struct gpu_info *g;
		int n;
		struct gpu_env env;
		char err[512];
		if ((rc = gpu_query(&g, &n, &env, err, sizeof err))) {
			rc = cli_error(rc, "--device auto: %s; give --device NAME", err);
			goto out;
		}
		snprintf(devname, sizeof devname, "%s", g[0].name);
		free(g);
		device_from = "GPU 0";
	} else {
		const struct device_profile *p = device_find(&data.devices, o.device);
		snprintf(devname, sizeof devname, "%s", p ? p->name : o.device);
		device_from = p ? "from --device" : "from --device, not a known profile: the name taken as given";
	}
	const struct device_profile *prof = device_find(&data.devices, devname);
	struct validate_data vd = { &data.devices, &data.catalogs, &data.schemas };

	doctor_module(have_fi ? &fi : NULL, schema, version, devname, &vd, &mod, &mt, &d);
	if (o.cache)
		doctor_cache(have_fi ? &fi : NULL, schema, version, devname, &vd, o.cache, &cache, &ct, &d);

	/* the deployment's lookups */
	size_t hits = 0, via_json = 0, via_module = 0;
	if (o.model) {
		char *dpath = xasprintf("%s/configs/dtypes.yaml", data.root);
		rc = dtypes_load(dpath, &dtypes, &d);
		free(dpath);
		if (rc)
			goto out;
		struct gen_deploy dep;
		struct deploy_args da = { .cmd = "doctor", .model = o.model, .weight_view = o.weight_view,
					  .dt = dt, .tp = o.tp, .ep = o.ep, .tp_rank = o.tp_rank,
					  .ep_rank = o.ep_rank, .top_k = o.top_k, .max_tokens = o.max_tokens };
		int sm = prof ? (int)device_sm(prof) : 0;
		if ((rc = cli_deploy(&data, dtypes, &da, sm, schema, &dep, &own_model, &d)))
			goto out;
		if ((rc = gen_plan_deploy(schema, &dep, &plan, &d)))
			goto out;
		lk = xcalloc(plan.n ? plan.n : 1, sizeof *lk);
		doctor_lookups(&plan, schema, &mod, &mt, o.cache ? &cache : NULL, &ct, lk);
		for (size_t i = 0; i < plan.n; i++) {
			hits += lk[i].source != SRC_FALLBACK;
			via_json += lk[i].source == SRC_JSON;
			via_module += lk[i].source == SRC_BUNDLED;
		}
	}
	bool module_ok = mod.usable && mod.errors == 0;
	bool cache_ok = o.cache && cache.usable && cache.errors == 0;
	bool all_hit = o.model ? hits == plan.n && plan.n > 0 : (module_ok || cache_ok);
	rc = all_hit ? TT_OK : TT_INVALID;

	/* the commands that fix what was found */
	struct strbuf next = STRBUF_INIT;
	char *tc_dir = have_fi ? xasprintf("%s%s", fi.pkg, strchr(schema->bundled.package_dir, '/'))
			       : xasprintf("<site-packages>/%s", schema->bundled.package_dir);
	if (!mod.exists || !mod.readable || mod.errors || (o.model && hits < plan.n && !cache_ok)) {
		char *g = generate_line(&o, devname, version, "py", tc_dir);
		sb_addf(&next, "%s\n", g);
		free(g);
	}
	if (!mod.env_ok)
		sb_addf(&next, "export %s=%s\n", schema->bundled.env_var, schema->bundled.env_value);
	if (o.cache && !cache.usable && cache.verdict != CACHE_UNSUPPORTED) {
		char *g = generate_line(&o, devname, version, "json", "DIR");
		sb_addf(&next, "%s   # a cache stamped for this environment (unknown fields \"*\"); "
			"or give autotune() a new cache path\n", g);
		free(g);
	}

	if (o.json) {
		json_t *f = json_object();
		json_object_set_new(f, "version", json_string(version));
		json_object_set_new(f, "package", have_fi ? json_string(fi.pkg) : json_null());
		json_object_set_new(f, "version_from", have_fi && !o.flashinfer ? json_string(fi.version_from)
										   : json_string("--flashinfer"));
		json_t *others = json_array();
		for (size_t i = 0; have_fi && i < fi.n_others; i++)
			json_array_append_new(others, json_string(fi.others[i]));
		json_object_set_new(f, "other_installs", others);
		json_object_set_new(jo, "flashinfer", f);
		json_t *dv = json_object();
		json_object_set_new(dv, "name", json_string(devname));
		json_object_set_new(dv, "from", json_string(device_from));
		json_object_set_new(jo, "device", dv);
		json_t *m = json_object();
		json_object_set_new(m, "module", json_string(mod.name));
		json_object_set_new(m, "path", json_string(mod.path));
		json_object_set_new(m, "exists", have_fi ? json_boolean(mod.exists) : json_null());
		json_object_set_new(m, "imports", mod.exists ? json_boolean(mod.readable) : json_null());
		json_object_set_new(m, "errors", json_integer((json_int_t)mod.errors));
		json_object_set_new(m, "warnings", json_integer((json_int_t)mod.warnings));
		json_object_set_new(m, "first_error", mod.errors ? json_string(mod.first_error) : json_null());
		json_t *wp = json_array();
		for (size_t i = 0; i < mod.n_wrong_prefix; i++)
			json_array_append_new(wp, json_string(mod.wrong_prefix[i]));
		json_object_set_new(m, "wrong_prefix", wp);
		json_object_set_new(m, "env_var", json_string(schema->bundled.env_var));
		json_object_set_new(m, "env_value", mod.env_value ? json_string(mod.env_value) : json_null());
		json_object_set_new(m, "env_ok", json_boolean(mod.env_ok));
		json_object_set_new(m, "usable", json_boolean(mod.usable));
		json_object_set_new(jo, "bundled", m);
		if (o.cache) {
			json_t *cj = json_object();
			json_object_set_new(cj, "path", json_string(o.cache));
			json_object_set_new(cj, "verdict", json_string(cache_verdict_name(cache.verdict)));
			json_object_set_new(cj, "usable", json_boolean(cache.usable));
			json_object_set_new(cj, "errors", json_integer((json_int_t)cache.errors));
			json_t *fl = json_array();
			for (size_t i = 0; i < cache.n_fields; i++) {
				const struct doctor_field *x = &cache.fields[i];
				json_t *fo = json_object();
				json_object_set_new(fo, "field", json_string(x->name));
				json_object_set_new(fo, "saved", x->saved[0] ? json_string(x->saved) : json_null());
				json_object_set_new(fo, "current", x->current[0] ? json_string(x->current) : json_null());
				json_object_set_new(fo, "status", json_string(field_status_name(x->status)));
				json_array_append_new(fl, fo);
			}
			json_object_set_new(cj, "fields", fl);
			json_object_set_new(jo, "cache", cj);
		}
		if (o.model) {
			json_t *la = json_array();
			for (size_t i = 0; i < plan.n; i++) {
				json_t *x = json_object();
				json_object_set_new(x, "stage", json_integer(lk[i].stage));
				json_object_set_new(x, "tokens", json_integer(lk[i].tokens));
				json_object_set_new(x, "source", json_string(source_name(lk[i].source)));
				if (lk[i].source == SRC_FALLBACK)
					json_object_set_new(x, "why", json_string(lk[i].why));
				json_object_set_new(x, "key", json_string(lk[i].key));
				json_array_append_new(la, x);
			}
			json_object_set_new(jo, "lookups", la);
			json_object_set_new(jo, "hits", json_integer((json_int_t)hits));
			json_object_set_new(jo, "fallbacks", json_integer((json_int_t)(plan.n - hits)));
		}
		json_object_set_new(jo, "all_hit", json_boolean(all_hit));
		json_object_set_new(jo, "next", json_string(next.buf ? next.buf : ""));
		char *s = json_dumps(jo, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		printf("%s\n", s);
		free(s);
	} else {
		if (have_fi && !o.flashinfer)
			printf("FlashInfer %s at %s (version from %s)\n", version, fi.pkg, fi.version_from);
		else if (have_fi)
			printf("FlashInfer %s as asked (--flashinfer); installed: %s at %s\n", version, fi.version,
			       fi.pkg);
		else
			printf("FlashInfer %s as asked (--flashinfer); no installed package found\n", version);
		for (size_t i = 0; have_fi && i < fi.n_others; i++)
			printf("  also installed: %s (which one Python imports depends on sys.path)\n", fi.others[i]);
		printf("GPU: %s (%s)\n", devname, device_from);
		printf("bundled module: %s\n", mod.path);
		if (!have_fi)
			printf("  not checked: no installed FlashInfer found to look in\n");
		else if (!mod.exists)
			printf("  missing: FlashInfer %s on this GPU imports this name and finds nothing, so every "
			       "bundled lookup falls back to tactic -1\n", version);
		else if (!mod.readable)
			printf("  broken: it does not parse as the module FlashInfer imports; the first lookup "
			       "raises (run: tunetab validate '%s')\n", mod.path);
		else if (mod.errors)
			printf("  present, but 'tunetab validate --flashinfer %s --device \"%s\"' finds %zu "
			       "error(s); the first: %s\n", version, devname, mod.errors, mod.first_error);
		else
			printf("  present and valid for FlashInfer %s (%zu warning(s)), %zu entries\n", version,
			       mod.warnings, mt.n);
		for (size_t i = 0; i < mod.n_wrong_prefix; i++)
			printf("  wrong name: %s is never imported by FlashInfer %s (it imports %s): harmless, "
			       "and useless\n",
			       mod.wrong_prefix[i], version, mod.name);
		if (!mod.env_value)
			printf("%s: unset, so FlashInfer never reads the bundled module\n", schema->bundled.env_var);
		else if (!mod.env_ok)
			printf("%s='%s': not exactly \"%s\", so FlashInfer never reads the bundled module\n",
			       schema->bundled.env_var, mod.env_value, schema->bundled.env_value);
		else
			printf("%s=%s: set\n", schema->bundled.env_var, mod.env_value);
		if (o.cache) {
			printf("JSON cache %s: ", o.cache);
			switch (cache.verdict) {
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
						  "tunetab validate '%s')\n", o.cache); break;
			}
			for (size_t i = 0; i < cache.n_fields; i++) {
				const struct doctor_field *x = &cache.fields[i];
				printf("  %-22s saved %-24s here %-24s %s\n", x->name, x->saved[0] ? x->saved : "(missing)",
				       x->current[0] ? x->current : "(cannot tell)", field_status_name(x->status));
			}
			if (cache.errors && cache.verdict != CACHE_BROKEN)
				printf("  tunetab validate finds %zu error(s) in it; the first: %s\n", cache.errors,
				       cache.first_error);
		}
		if (o.model) {
			printf("deployment: %s %s, TP %ld EP %ld: %zu lookups, %zu hit (%zu JSON cache, %zu "
			       "bundled module), %zu fall back to tactic -1\n", o.model, o.dtype, o.tp, o.ep,
			       plan.n, hits, via_json, via_module, plan.n - hits);
			/* per stage, runs of buckets with the same source: "1-64 module, 128-8192 FALLBACK" */
			for (int st = 1; st <= 2; st++) {
				printf("  GEMM%d tokens:", st);
				const char *sep = " ";
				for (size_t i = 0; i < plan.n; i++) {
					if (lk[i].stage != st)
						continue;
					size_t j = i;
					while (j + 1 < plan.n && lk[j + 1].stage == st && lk[j + 1].source == lk[i].source)
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
			for (size_t i = 0; i < plan.n; i++)
				if (lk[i].source == SRC_FALLBACK && strcmp(lk[i].why, last)) {
					printf("  falls back: %s\n", lk[i].why);
					last = lk[i].why;
				}
		}
		printf("verdict: %s\n", all_hit ? (o.model ? "every lookup hits" : "a usable table is in place")
					       : (o.model ? "some lookups fall back to tactic -1"
							  : "no usable table: every lookup falls back to tactic -1"));
		if (next.len)
			printf("next:\n%s", next.buf);
	}
	sb_release(&next);
	free(tc_dir);
out:
	json_decref(jo);
	cli_print_diags(&d);
	diags_release(&d);
	free(lk);
	if (mt.path || mt.n)
		table_release(&mt);
	if (ct.path || ct.n)
		table_release(&ct);
	doctor_module_release(&mod);
	gen_plan_release(&plan);
	model_free(own_model);
	dtypes_free(dtypes);
	cli_release_data(&data);
	return rc;
}
