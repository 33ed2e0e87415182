/* serve.c: a deployment derived from a server's launch command (serve.h). */
#include "deployment/server.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "base/version.h"
#include "data/consumer.h"
#include "data/model.h"
#include "gpu/gpu.h"
#include "script/script.h"
#include "deployment/python.h"
#include "flashinfer/fienv.h"

extern char **environ;

/* NAME=VALUE with NAME a shell variable name */
static bool env_word(const char *w)
{
	const char *eq = strchr(w, '=');
	if (!eq || eq == w || (w[0] >= '0' && w[0] <= '9'))
		return false;
	for (const char *p = w; p < eq; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

void serve_add_field(struct script_field **v, size_t *n, size_t *alloc, const char *name,
		      enum script_kind kind, const char *str, long long i)
{
	ALLOC_GROW(*v, *n + 1, *alloc);
	struct script_field *f = &(*v)[(*n)++];
	memset(f, 0, sizeof *f);
	f->name = xstrdup(name);
	f->kind = kind;
	f->s = str ? xstrdup(str) : NULL;
	f->i = i;
	f->b = i != 0;
}

/* NAME=VALUE as the string field NAME */
static void add_assignment(struct script_field **v, size_t *n, size_t *alloc, const char *word)
{
	const char *eq = strchr(word, '=');
	char *name = xstrndup(word, (size_t)(eq - word));
	serve_add_field(v, n, alloc, name, SK_STR, eq + 1, 0);
	free(name);
}

static const struct script_field *field(const struct script_field *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* The server's Python environment: FlashInfer's version and the consumer's. */
static void probe_env(const struct serve_request *q, const char *cmd_python,
		      struct serve_deployment *s)
{
	char why[512] = "";
	const char *from = NULL;
	char *py = NULL;
	if (q->python) {
		py = python_resolve(q->python);
		if (!py)
			py = xstrdup(q->python); /* its probe says why it cannot run */
		from = "--python";
	} else if (cmd_python && (py = python_resolve(cmd_python))) {
		from = "the launch command's interpreter";
	} else {
		py = python_find(NULL, &from, why, sizeof why);
	}
	struct fienv_summary env = { 0 };
	if (py && (q->python || !getenv("TUNETAB_TEST_IGNORE_INSTALLED")))
		fienv_summary(py, q->consumer, &env, why, sizeof why);
	s->python = py;
	s->python_from = xstrdup(from ? from : "none");
	s->python_why = why[0] && !env.flashinfer ? xstrdup(why) : NULL;
	if (q->flashinfer) {
		s->flashinfer = xstrdup(q->flashinfer);
		s->flashinfer_from = xstrdup("--flashinfer");
	} else if (env.flashinfer) {
		s->flashinfer = xstrdup(env.flashinfer);
		s->flashinfer_from = xasprintf("what %s imports", py);
	}
	if (q->consumer_version) {
		s->consumer_version = xstrdup(q->consumer_version);
		s->consumer_version_from = xstrdup("--consumer-version");
	} else if (env.consumer_version) {
		s->consumer_version = xstrdup(env.consumer_version);
		s->consumer_version_from = xasprintf("installed for %s", py);
	}
	for (size_t i = 0; i < env.nmodules; i++) {
		char *f = xasprintf("python.%s", env.modules[i].name);
		serve_add_field(&s->probed, &s->nprobed, &s->probed_alloc, f, SK_BOOL, NULL,
				env.modules[i].present);
		free(f);
	}
	fienv_summary_release(&env);
}

/* The GPU the server runs on: --device NAME (a profile, or the name as given with --sm), else
 * GPU 0 through the CUDA Runtime. */
static int find_device(const struct serve_request *q, const struct device_set *devices,
		       struct serve_deployment *s, long *mem_mib, struct diags *d)
{
	*mem_mib = 0;
	if (q->device && strcmp(q->device, "auto")) {
		const struct device_profile *p = device_find(devices, q->device);
		if (!p && !q->sm)
			return diag_error(d, TT_USAGE, "launch", NULL, 0, 0, "--device '%s' is not a "
					  "known GPU (tunetab devices): give --sm N too", q->device);
		s->device = xstrdup(p ? p->name : q->device);
		s->sm = q->sm ? (int)q->sm : (int)device_sm(p);
		if (p && p->memory_bytes)
			*mem_mib = (long)(*p->memory_bytes >> 20);
		else if (p && p->memory_mib)
			*mem_mib = (long)*p->memory_mib;
		return TT_OK;
	}
	struct gpu_info *g;
	int n;
	struct gpu_env env;
	char err[512];
	if (gpu_query(&g, &n, &env, err, sizeof err))
		return diag_error(d, TT_USAGE, "launch", NULL, 0, 0, "no GPU here (%s): give --device "
				  "NAME, the server's GPU", err);
	s->device = xstrdup(g[0].name);
	s->sm = q->sm ? (int)q->sm : g[0].cc_major * 10 + g[0].cc_minor;
	*mem_mib = (long)(g[0].total_mem >> 20);
	free(g);
	return TT_OK;
}

/* The resolve() result's fields into s; TT_SCRIPT naming the first one missing. */
static int take(const char *script, const struct script_field *v, size_t n,
		struct serve_deployment *s, struct diags *d)
{
	static const struct { const char *name; enum script_kind kind; size_t off; bool optional; } want[] = {
#define S(f, o) { #f, SK_STR, offsetof(struct serve_deployment, f), o }
#define I(f) { #f, SK_INT, offsetof(struct serve_deployment, f), false }
#define B(f) { #f, SK_BOOL, offsetof(struct serve_deployment, f), false }
		S(model_path, false), S(torch_dtype, false), S(quantization, false),
		S(moe_runner_backend, false), S(skip_ops, false), S(hf_config_class, false),
		I(tp), I(pp), I(dp), I(attn_dp), I(moe_ep), S(dtype, true), S(activation, true), S(input_view, true),
		B(biases), I(runner_tp), I(runner_ep), B(fused_finalize), S(fused_finalize_from, true),
		I(max_tokens), B(tunes), S(why_not, true), { "moe_experts", SK_INT,
		offsetof(struct serve_deployment, moe_experts), true }, { "moe_top_k", SK_INT,
		offsetof(struct serve_deployment, moe_top_k), true }, { "moe_tune", SK_STR,
		offsetof(struct serve_deployment, moe_tune), true }, { "moe_m", SK_INT,
		offsetof(struct serve_deployment, moe_m), true }, S(moe_unknown, true),
#undef S
#undef I
#undef B
	};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct script_field *f = field(v, n, want[i].name);
		char *at = (char *)s + want[i].off;
		if (f && f->kind != want[i].kind)
			return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve() returned '%s' "
					  "as a %s, not a %s", want[i].name, f->kind == SK_STR ? "string"
					  : f->kind == SK_INT ? "integer" : "boolean", want[i].kind == SK_STR
					  ? "string" : want[i].kind == SK_INT ? "integer" : "boolean");
		if (!f) {
			if (want[i].optional)
				continue;
			return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve() returned no "
					  "'%s'", want[i].name);
		}
		if (want[i].kind == SK_STR)
			*(char **)at = xstrdup(f->s);
		else if (want[i].kind == SK_INT)
			*(long *)at = (long)f->i;
		else
			*(bool *)at = f->b;
	}
	/* the rank files and the runner's shapes divide by these */
	const struct { const char *name; long v; } sizes[] = {
		{ "tp", s->tp }, { "pp", s->pp }, { "dp", s->dp }, { "attn_dp", s->attn_dp },
		{ "moe_ep", s->moe_ep }, { "runner_tp", s->runner_tp }, { "runner_ep", s->runner_ep },
	};
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		if (sizes[i].v < 1)
			return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve() returned "
					  "'%s' %ld: a parallel size is at least 1", sizes[i].name,
					  sizes[i].v);
	if (s->tunes && !s->moe_unknown && (!s->dtype || !s->activation))
		return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve() says the server tunes "
				  "but names no dtype or activation");
	if (!s->tunes && !s->why_not)
		return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve() says the server "
				  "does not tune but not why (why_not)");
	return TT_OK;
}

/* resolve()'s unknowns ("unknowns.N.what", "unknowns.N.give"), in N order; an entry without
 * its what is the script's error. */
static int take_unknowns(const char *script, const struct script_field *v, size_t n,
			 struct serve_deployment *s, struct diags *d)
{
	for (long k = 1;; k++) {
		char what[48], give[48];
		snprintf(what, sizeof what, "unknowns.%ld.what", k);
		snprintf(give, sizeof give, "unknowns.%ld.give", k);
		const struct script_field *w = field(v, n, what), *g = field(v, n, give);
		if (!w && !g)
			return TT_OK;
		if (!w || w->kind != SK_STR || (g && g->kind != SK_STR))
			return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve() returned "
					  "unknowns[%ld] without a string 'what' (and 'give')", k);
		s->unknowns = xrealloc(s->unknowns, (s->nunknowns + 1) * sizeof *s->unknowns);
		s->unknowns[s->nunknowns].what = xstrdup(w->s);
		s->unknowns[s->nunknowns++].give = xstrdup(g ? g->s : "");
	}
}

/* resolve()'s ops list ("ops.N.FIELD", "ops.N.calls.M.FIELD") into s->ops, in N order. */
static int take_ops(const char *script, const struct script_field *v, size_t n,
		    struct serve_deployment *s, struct diags *d)
{
	for (size_t i = 0; i < n; i++) {
		const char *name = v[i].name;
		if (strncmp(name, "ops.", 4))
			continue;
		char *end;
		long k = strtol(name + 4, &end, 10);
		if (k < 1 || k > 64 || *end != '.')
			return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve() returned "
					  "'%s': ops is a list of at most 64 ops", name);
		if ((size_t)k > s->nops) {
			s->ops = xrealloc(s->ops, (size_t)k * sizeof *s->ops);
			memset(s->ops + s->nops, 0, ((size_t)k - s->nops) * sizeof *s->ops);
			s->nops = (size_t)k;
		}
		struct op_use *o = &s->ops[k - 1];
		const char *f = end + 1;
		if (!strncmp(f, "calls.", 6)) {
			long c = strtol(f + 6, &end, 10);
			if (c < 1 || c > 4096 || *end != '.')
				return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve() "
						  "returned '%s': calls is a list", name);
			if ((size_t)c > o->ncalls) {
				o->calls = xrealloc(o->calls, (size_t)c * sizeof *o->calls);
				memset(o->calls + o->ncalls, 0, ((size_t)c - o->ncalls) * sizeof *o->calls);
				o->ncalls = (size_t)c;
			}
			if (v[i].kind == SK_STR)
				op_call_set_str(&o->calls[c - 1], end + 1, v[i].s);
			else
				op_call_set_int(&o->calls[c - 1], end + 1, v[i].kind == SK_INT ? v[i].i : v[i].b);
			continue;
		}
		char **str = !strcmp(f, "op") ? &o->op : !strcmp(f, "runner") ? &o->runner
			     : !strcmp(f, "why") ? &o->why : !strcmp(f, "from") ? &o->from : NULL;
		if (str && v[i].kind == SK_STR) {
			free(*str);
			*str = xstrdup(v[i].s);
		} else if (!strcmp(f, "tunes") && v[i].kind == SK_BOOL) {
			o->tunes = v[i].b;
		} else if (!strcmp(f, "unknown") && v[i].kind == SK_BOOL) {
			o->unknown = v[i].b;
		} else {
			return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve() returned "
					  "'%s': not an op field (op, runner, tunes, unknown, why, from, "
					  "calls)", name);
		}
	}
	for (size_t k = 0; k < s->nops; k++) {
		struct op_use *o = &s->ops[k];
		if (!o->op || !o->runner)
			return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve()'s op %zu "
					  "names no op or runner", k + 1);
		if (!o->tunes && !o->why)
			return diag_error(d, TT_SCRIPT, "script", script, 0, 0, "resolve() says the "
					  "server does not tune %s but not why", o->op);
		/* every call carries the op's own fields (the worker's job, the provenance) */
		for (size_t c = 0; c < o->ncalls; c++) {
			op_call_set_str(&o->calls[c], "op", o->op);
			op_call_set_str(&o->calls[c], "runner", o->runner);
			op_call_set_str(&o->calls[c], "consumer", s->consumer);
		}
	}
	return TT_OK;
}

bool serve_autotunes(const struct serve_deployment *s)
{
	for (size_t i = 0; i < s->nops; i++)
		if (s->ops[i].tunes)
			return true;
	return s->tunes;
}

char *serve_why_no_autotune(const struct serve_deployment *s)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s does not tune FlashInfer at start for this command, so it reads no table: "
		"the CUTLASS MoE: %s", s->consumer_name, s->why_not ? s->why_not : "not tuned");
	for (size_t i = 0; i < s->nops; i++)
		sb_addf(&sb, "; %s: %s", s->ops[i].op, s->ops[i].why ? s->ops[i].why : "not tuned");
	return sb_detach(&sb);
}

static void model_facts(const struct hf_model *m, struct script_field **v, size_t *n, size_t *a)
{
	serve_add_field(v, n, a, "model.model_type", SK_STR, m->model_type, 0);
	serve_add_field(v, n, a, "model.architecture", SK_STR, m->architecture, 0);
	serve_add_field(v, n, a, "model.config_class", SK_STR, m->type->config_class, 0);
	serve_add_field(v, n, a, "model.config_path", SK_STR, m->config_path, 0);
	serve_add_field(v, n, a, "model.hidden", SK_INT, NULL, m->hidden);
	serve_add_field(v, n, a, "model.intermediate", SK_INT, NULL, m->inter);
	serve_add_field(v, n, a, "model.experts", SK_INT, NULL, m->experts);
	serve_add_field(v, n, a, "model.top_k", SK_INT, NULL, m->top_k);
	serve_add_field(v, n, a, "model.activation", SK_STR, m->activation, 0);
	serve_add_field(v, n, a, "model.biases", SK_BOOL, NULL, m->biases);
	serve_add_field(v, n, a, "model.torch_dtype", SK_STR, m->torch_dtype, 0);
	serve_add_field(v, n, a, "model.quantized", SK_BOOL, NULL, m->quantized);
	serve_add_field(v, n, a, "model.quant_method", SK_STR, m->quant_method, 0);
	serve_add_field(v, n, a, "model.quant_algo", SK_STR, m->quant_algo, 0);
	serve_add_field(v, n, a, "model.weight_block", SK_BOOL, NULL, m->weight_block);
	serve_add_field(v, n, a, "model.activation_scheme", SK_STR, m->activation_scheme, 0);
	serve_add_field(v, n, a, "model.exclude_from", SK_STR, m->exclude_from, 0);
	for (size_t i = 0; i < m->nexclude; i++) {
		char name[48];
		snprintf(name, sizeof name, "model.exclude.%zu", i + 1);
		serve_add_field(v, n, a, name, SK_STR, m->exclude[i], 0);
	}
	for (size_t i = 0; i < m->nscalars; i++) {
		const struct hf_scalar *x = &m->scalars[i];
		char *name = xasprintf("model.config.%s", x->name);
		serve_add_field(v, n, a, name, x->s ? SK_STR : x->is_bool ? SK_BOOL : SK_INT, x->s,
				x->i);
		free(name);
	}
}

int serve_derive(const struct serve_request *q, const char *data_root,
		 const struct device_set *devices, struct serve_deployment *s, struct diags *d)
{
	memset(s, 0, sizeof *s);
	s->consumer = xstrdup(q->consumer);
	s->words = xcalloc(q->nwords ? q->nwords : 1, sizeof *s->words);
	for (s->nwords = 0; s->nwords < q->nwords; s->nwords++)
		s->words[s->nwords] = xstrdup(q->words[s->nwords]);
	size_t i = 0;
	if (i < q->nwords && !strcmp(q->words[i], "env"))
		i++;
	size_t env_alloc = 0;
	for (; i < q->nwords && env_word(q->words[i]); i++) {
		ALLOC_GROW(s->env, s->nenv + 1, env_alloc);
		s->env[s->nenv++] = xstrdup(q->words[i]);
	}
	if (i == q->nwords)
		return diag_error(d, TT_USAGE, "launch", NULL, 0, 0, "give the server's launch command "
				  "after '--' (e.g. -- python -m sglang.launch_server --model-path ...)");
	struct consumer *cons = NULL;
	struct script *sc = NULL;
	struct hf_types *types = NULL;
	struct script_field *opts = NULL, *facts = NULL, *res = NULL;
	size_t nopts = 0, nfacts = 0, facts_alloc = 0, nres = 0;
	char *script_path = xasprintf("%s/configs/consumers/%s.lua", data_root, q->consumer);
	char *config = NULL;
	int rc = consumer_load(data_root, q->consumer, &cons, d);
	if (rc)
		goto out;
	s->consumer_name = xstrdup(cons->name);
	if (access(script_path, R_OK)) {
		rc = diag_error(d, TT_USAGE, "launch", NULL, 0, 0, "tunetab reads no %s launch command "
				"(no %s): give the deployment's options instead", cons->name, script_path);
		goto out;
	}
	/* the server's environment: tunetab's own, then the command's VAR=VALUE words; parse()
	 * reads them by NAME, resolve() (below) as env.NAME */
	for (char **e = environ; e && *e; e++)
		if (strchr(*e, '='))
			add_assignment(&facts, &nfacts, &facts_alloc, *e);
	for (size_t k = 0; k < s->nenv; k++)
		add_assignment(&facts, &nfacts, &facts_alloc, s->env[k]);
	struct script_limits lim = { .mem_bytes = 64u << 20, .instructions = 100000000ull };
	if (!(rc = script_open_consumer(&sc, data_root, script_path, &lim, d)))
		rc = script_consumer_parse(sc, q->words + i, q->nwords - i, facts, nfacts, &opts, &nopts, d);
	if (rc)
		goto out;
	const struct script_field *mp = field(opts, nopts, "model_path");
	const struct script_field *rev = field(opts, nopts, "revision");
	const struct script_field *py = field(opts, nopts, "python");
	if (!mp || mp->kind != SK_STR) {
		rc = diag_error(d, TT_USAGE, "launch", NULL, 0, 0, "the launch command names no model "
				"(%s's model path option)", cons->name);
		goto out;
	}
	probe_env(q, py && py->kind == SK_STR ? py->s : NULL, s);
	/* the model's config.json */
	if (!(rc = hf_types_load(data_root, &types, d))) {
		config = q->model_config ? xstrdup(q->model_config)
					 : hf_config_find(mp->s, rev && rev->kind == SK_STR ? rev->s : NULL, d);
		if (!config)
			rc = TT_USAGE;
	}
	if (!rc)
		rc = hf_model_read(types, config, &s->model, d);
	long mem_mib = 0;
	if (!rc)
		rc = find_device(q, devices, s, &mem_mib, d);
	if (rc)
		goto out;
	if (!s->consumer_version) {
		const struct consumer_version *v = consumer_pick(cons, NULL);
		s->consumer_version = xstrdup(v->min);
		s->consumer_version_from = xasprintf("no %s installed for %s: the newest rule tunetab "
						     "has; give --consumer-version", cons->name,
						     s->python ? s->python : "any Python found");
	}
	/* what resolve() knows */
	for (size_t k = 0; k < nfacts; k++) { /* env.NAME */
		char *n = xasprintf("env.%s", facts[k].name);
		free(facts[k].name);
		facts[k].name = n;
	}
	for (size_t k = 0; k < s->nenv; k++) { /* launch_env.NAME: the command's own words */
		const char *eq = strchr(s->env[k], '=');
		char *n = xasprintf("launch_env.%.*s", (int)(eq - s->env[k]), s->env[k]);
		serve_add_field(&facts, &nfacts, &facts_alloc, n, SK_STR, eq + 1, 0);
		free(n);
	}
	model_facts(&s->model, &facts, &nfacts, &facts_alloc);
	serve_add_field(&facts, &nfacts, &facts_alloc, "gpu.name", SK_STR, s->device, 0);
	serve_add_field(&facts, &nfacts, &facts_alloc, "gpu.sm", SK_INT, NULL, s->sm);
	if (mem_mib) { /* SGLang's thresholds are in MiB, vLLM's in GiB */
		serve_add_field(&facts, &nfacts, &facts_alloc, "gpu.memory_mib", SK_INT, NULL, mem_mib);
		serve_add_field(&facts, &nfacts, &facts_alloc, "gpu.memory_gib", SK_INT, NULL,
				mem_mib >> 10);
	}
	serve_add_field(&facts, &nfacts, &facts_alloc, "flashinfer", SK_STR, s->flashinfer, 0);
	for (size_t k = 0; k < s->nprobed; k++)
		serve_add_field(&facts, &nfacts, &facts_alloc, s->probed[k].name, SK_BOOL, NULL,
			  s->probed[k].b);
	serve_add_field(&facts, &nfacts, &facts_alloc, "version", SK_STR, s->consumer_version, 0);
	/* the consumer's data (configs/consumers/<id>.yaml) its script reads, one home each */
	if (cons->fused_finalize_env) {
		serve_add_field(&facts, &nfacts, &facts_alloc, "consumer.fused_finalize_env", SK_STR,
				cons->fused_finalize_env, 0);
		serve_add_field(&facts, &nfacts, &facts_alloc, "consumer.fused_finalize_default",
				SK_BOOL, NULL, cons->fused_finalize_default);
	}
	rc = script_consumer_resolve(sc, facts, nfacts, &res, &nres, &s->notes, &s->nnotes, d);
	if (!rc)
		rc = take(script_path, res, nres, s, d);
	if (!rc)
		rc = take_ops(script_path, res, nres, s, d);
	if (!rc)
		rc = take_unknowns(script_path, res, nres, s, d);
	if (!rc && !s->flashinfer)
		rc = diag_error(d, TT_USAGE, "launch", NULL, 0, 0, "which FlashInfer does the server "
				"import? No Python with FlashInfer found (%s%s%s): give --python (the "
				"server's interpreter) or --flashinfer VERSION", s->python ? s->python
				: "none", s->python_why ? ": " : "", s->python_why ? s->python_why : "");
out:
	script_fields_free(opts, nopts);
	script_fields_free(facts, nfacts);
	script_fields_free(res, nres);
	script_close(sc);
	hf_types_free(types);
	consumer_free(cons);
	free(config);
	free(script_path);
	return rc;
}

void serve_release(struct serve_deployment *s)
{
	char **strs[] = { &s->consumer, &s->consumer_name, &s->consumer_version,
			  &s->consumer_version_from, &s->python, &s->python_from, &s->python_why, &s->flashinfer,
			  &s->flashinfer_from, &s->device, &s->model_path, &s->torch_dtype,
			  &s->quantization, &s->moe_runner_backend, &s->skip_ops, &s->hf_config_class,
			  &s->dtype, &s->activation, &s->input_view, &s->fused_finalize_from, &s->why_not,
			  &s->moe_tune, &s->moe_unknown };
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		free(*strs[i]);
	hf_model_release(&s->model);
	script_fields_free(s->probed, s->nprobed);
	for (size_t i = 0; i < s->nwords; i++)
		free(s->words[i]);
	free(s->words);
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	free(s->notes);
	for (size_t i = 0; i < s->nenv; i++)
		free(s->env[i]);
	free(s->env);
	for (size_t i = 0; i < s->nunknowns; i++) {
		free(s->unknowns[i].what);
		free(s->unknowns[i].give);
	}
	free(s->unknowns);
	for (size_t i = 0; i < s->nops; i++) {
		struct op_use *o = &s->ops[i];
		free(o->op);
		free(o->runner);
		free(o->why);
		free(o->from);
		for (size_t c = 0; c < o->ncalls; c++)
			op_call_release(&o->calls[c]);
		free(o->calls);
	}
	free(s->ops);
	memset(s, 0, sizeof *s);
}

int serve_model_profile(const struct serve_deployment *s, struct model_profile *m, struct diags *d)
{
	memset(m, 0, sizeof *m);
	if (model_activation_parse(s->activation, &m->activation))
		return diag_error(d, TT_SCRIPT, "script", NULL, 0, 0, "resolve() named activation '%s', "
				  "which configs/models does not know", s->activation);
	m->id = s->model.model_type;
	m->name = s->model_path;
	m->hidden_size = (unsigned)s->model.hidden;
	m->moe_intermediate_size = (unsigned)s->model.inter;
	m->routed_experts = (unsigned)(s->moe_experts > 0 ? s->moe_experts : s->model.experts);
	m->top_k = (unsigned)(s->moe_top_k > 0 ? s->moe_top_k : s->model.top_k);
	m->path = s->model.config_path;
	return TT_OK;
}

/* The template variables of install's flags (configs/consumers flags_options). */
struct flag_vars {
	const struct serve_flags *f;
	char num[6][24];
};

static const char *flag_var(void *ctx, const char *name)
{
	struct flag_vars *x = ctx;
	const struct serve_flags *f = x->f;
	/* dp_size: SGLang's --dp-size, the attention-DP size or the DP replicas (not both) */
	const long v[] = { f->tp, f->pp, f->dp, f->attn_dp, f->ep, f->attn_dp > 1 ? f->attn_dp : f->dp };
	const char *names[] = { "tp", "pp", "dp", "attn_dp", "moe_ep", "dp_size" };
	for (int i = 0; i < 6; i++)
		if (!strcmp(name, names[i])) {
			snprintf(x->num[i], sizeof x->num[i], "%ld", v[i] > 0 ? v[i] : 1);
			return x->num[i];
		}
	if (!strcmp(name, "model_path"))
		return f->model_path;
	if (!strcmp(name, "torch_dtype")) /* the launch option's spelling: no "torch." */
		return f->torch_dtype && !strncmp(f->torch_dtype, "torch.", 6) ? f->torch_dtype + 6
									       : f->torch_dtype;
	if (!strcmp(name, "quantization"))
		return f->quantization;
	if (!strcmp(name, "moe_runner_backend"))
		return f->backend;
	return NULL;
}

struct serve_flags serve_flags_of(const struct serve_deployment *s)
{
	return (struct serve_flags){
		.model_path = s->model_path, .hf_config_class = s->hf_config_class,
		.torch_dtype = s->torch_dtype, .quantization = s->quantization,
		.backend = s->moe_runner_backend, .skip_ops = s->skip_ops, .tp = s->tp, .pp = s->pp,
		.dp = s->dp, .attn_dp = s->attn_dp, .ep = s->moe_ep,
	};
}

int serve_derive_flags(const struct serve_request *q, const struct serve_flags *f,
		       const char *data_root, const struct device_set *devices,
		       struct serve_deployment *out, struct diags *d)
{
	memset(out, 0, sizeof *out);
	if (!f->model_path)
		return diag_error(d, TT_INVALID, "flags", NULL, 0, 0, "no --model-path given");
	struct consumer *cons = NULL;
	int rc = consumer_load(data_root, q->consumer, &cons, d);
	if (rc)
		return rc;
	struct diags dd = DIAGS_INIT;
	struct flag_vars x = { .f = f };
	size_t n = 0;
	char **words = consumer_flags_words(cons, flag_var, &x, &n, &dd);
	consumer_free(cons);
	if (!words) {
		rc = diag_error(d, TT_INVALID, "flags", NULL, 0, 0, "%s", dd.n ? dd.v[0].msg
				: "this consumer has no launch command of its flags");
		diags_release(&dd);
		return rc;
	}
	diags_release(&dd);
	struct serve_request sq = *q;
	sq.words = words;
	sq.nwords = n;
	rc = serve_derive(&sq, data_root, devices, out, d);
	for (size_t i = 0; i < n; i++)
		free(words[i]);
	free(words);
	return rc;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The same fields with the same values, in any order (a Lua table's). */
static bool call_same(const struct op_call *a, const struct op_call *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct op_field *x = &a->f[i], *y = op_call_get(b, x->name);
		if (!y || !str_same(x->s, y->s) || (!x->s && x->i != y->i))
			return false;
	}
	return true;
}

bool serve_equal(const struct serve_deployment *a, const struct serve_deployment *b,
		 const char **field)
{
#define SAME_STR(f) if (!str_same(a->f, b->f)) return *field = #f, false
#define SAME_NUM(f) if (a->f != b->f) return *field = #f, false
	SAME_STR(consumer); SAME_STR(consumer_version); SAME_STR(flashinfer);
	SAME_STR(device); SAME_NUM(sm);
	SAME_STR(model.config_path); SAME_STR(model.model_type); SAME_STR(model.architecture);
	SAME_NUM(model.hidden); SAME_NUM(model.inter); SAME_NUM(model.experts);
	SAME_NUM(model.top_k); SAME_STR(model.activation); SAME_NUM(model.biases);
	SAME_STR(model.torch_dtype); SAME_NUM(model.quantized); SAME_STR(model.quant_method);
	SAME_STR(model.quant_algo); SAME_NUM(model.weight_block);
	SAME_STR(model_path); SAME_STR(torch_dtype); SAME_STR(quantization);
	SAME_STR(moe_runner_backend); SAME_STR(skip_ops); SAME_STR(hf_config_class);
	SAME_NUM(tp); SAME_NUM(pp); SAME_NUM(dp); SAME_NUM(attn_dp); SAME_NUM(moe_ep);
	SAME_STR(dtype); SAME_STR(activation); SAME_STR(input_view); SAME_NUM(biases);
	SAME_NUM(runner_tp); SAME_NUM(runner_ep); SAME_NUM(fused_finalize);
	SAME_NUM(max_tokens); SAME_STR(moe_tune); SAME_NUM(moe_m); SAME_NUM(moe_experts);
	SAME_NUM(moe_top_k); SAME_NUM(tunes); SAME_STR(why_not); SAME_STR(moe_unknown); SAME_NUM(nops);
	SAME_NUM(nunknowns);
#undef SAME_STR
#undef SAME_NUM
	for (size_t i = 0; i < a->nunknowns; i++)
		if (strcmp(a->unknowns[i].what, b->unknowns[i].what) ||
		    strcmp(a->unknowns[i].give, b->unknowns[i].give))
			return *field = "unknowns", false;
	for (size_t i = 0; i < a->nops; i++) {
		const struct op_use *x = &a->ops[i], *y = &b->ops[i];
		if (!str_same(x->op, y->op) || !str_same(x->runner, y->runner) ||
		    x->tunes != y->tunes || x->unknown != y->unknown || !str_same(x->why, y->why) ||
		    x->ncalls != y->ncalls)
			return *field = "ops", false;
		for (size_t c = 0; c < x->ncalls; c++)
			if (!call_same(&x->calls[c], &y->calls[c]))
				return *field = "ops.calls", false;
	}
	*field = NULL;
	return true;
}
