/* plan.c: the lookup plan of one deployment, and the plan against the disk (plan.h). */
#include "deploy/plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "base/version.h"
#include "deployment/ranks.h"
#include "deployment/shape.h"
#include "flashinfer/cachefile.h"
#include "flashinfer/fijudge.h"
#include "flashinfer/metadata.h"
#include "flashinfer/validate.h"

static void add_unknown(struct plan_unknown *v, size_t *n, const char *give, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add_unknown(struct plan_unknown *v, size_t *n, const char *give, const char *fmt, ...)
{
	if (*n == PLAN_UNKNOWN_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v[*n].what, sizeof v[*n].what, fmt, ap);
	va_end(ap);
	snprintf(v[*n].give, sizeof v[*n].give, "%s", give);
	(*n)++;
}

static void add_finding(struct plan_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_finding(struct plan_check *c, const char *fmt, ...)
{
	if (c->nfindings == PLAN_FINDINGS_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->findings[c->nfindings].what, sizeof c->findings[0].what, fmt, ap);
	va_end(ap);
	c->nfindings++;
}

/* Whether the version's keys carry the MoE runner's TP or EP rank (§3.3: 0.6.18-0.7.1). */
static bool rules_rank_keyed(const struct fi_rules *s)
{
	for (unsigned i = 0; s->key.extras == EXTRAS_FIELDS && i < s->key.extras_fields_count; i++) {
		const char *src = s->key.extras_fields[i].source;
		if (src && (!strcmp(src, "$tp_rank") || !strcmp(src, "$ep_rank")))
			return true;
	}
	return false;
}

static size_t keyset_for(struct lookup_plan *p, long mtp, long mep)
{
	for (size_t i = 0; i < p->nkeysets; i++)
		if (p->keysets[i].moe_tp_rank == mtp && p->keysets[i].moe_ep_rank == mep)
			return i;
	p->keysets = xrealloc(p->keysets, (p->nkeysets + 1) * sizeof *p->keysets);
	p->keysets[p->nkeysets] = (struct plan_keyset){ .moe_tp_rank = mtp, .moe_ep_rank = mep };
	return p->nkeysets++;
}

/* The server's ranks in the job's file order (deployment/ranks.h, as install_merge's) and
 * the keyset of each. */
static void lay_out_ranks(struct lookup_plan *p, const struct serve_deployment *s)
{
	struct server_rank *sr;
	p->nranks = ranks_lay_out(&(struct rank_layout){ s->tp, s->pp, s->dp, s->attn_dp,
							 s->runner_tp, s->runner_ep }, &sr);
	p->ranks = xcalloc(p->nranks ? p->nranks : 1, sizeof *p->ranks);
	for (size_t i = 0; i < p->nranks; i++) {
		struct plan_rank *r = &p->ranks[i];
		r->moe_tp_rank = sr[i].moe_tp_rank;
		r->moe_ep_rank = sr[i].moe_ep_rank;
		r->keys = p->rank_keyed ? keyset_for(p, r->moe_tp_rank, r->moe_ep_rank)
					: keyset_for(p, 0, 0);
	}
	free(sr);
}

/* The key rules of FlashInfer `version`, or NULL (not a version, or older than every schema). */
static const struct fi_rules *rules_of(const struct tt_data *data, const char *version)
{
	struct fi_version fv;
	return version && !version_parse(version, &fv) ? firules_find(&data->rules, &fv, NULL) : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every keyset's keys, once each, sorted. */
static void union_keys(struct lookup_plan *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nkeysets; i++)
		n += p->keysets[i].n;
	char **v = xcalloc(n ? n : 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < p->nkeysets; i++)
		for (size_t j = 0; j < p->keysets[i].n; j++)
			v[k++] = p->keysets[i].v[j];
	qsort(v, k, sizeof *v, cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || strcmp(v[u - 1], v[i]))
			v[u++] = xstrdup(v[i]);
	p->all_keys = v;
	p->nall = u;
}

/* The other ops' keys (configs/ops; issue #39): the same on every rank. p->ops gets one entry
 * per op, the CUTLASS MoE first. */
static int op_keys(const struct tt_data *data, struct lookup_plan *p, struct op_keys *all,
		   struct diags *d)
{
	const struct serve_deployment *s = p->serve;
	struct plan_op *moe = &p->ops[p->nops++];
	const struct fr_op *g1 = lookup_moe_op(p->rules, 1), *g2 = lookup_moe_op(p->rules, 2);
	const char *g2_name = g2 ? strrchr(g2->op, ':') : NULL; /* "gemm2" of its op's name */
	snprintf(p->moe_op, sizeof p->moe_op, "%s%s%s", g1 ? g1->op : "?", g2_name ? "/" : "",
		 g2_name ? g2_name + 1 : "");
	moe->op = p->moe_op;
	moe->runner = g1 ? g1->runners[0] : "?";
	moe->def = opdefs_cutlass_moe(&data->ops);
	moe->tunes = s->tunes;
	if (!s->tunes)
		snprintf(moe->why, sizeof moe->why, "%s", s->why_not ? s->why_not : "");
	else if (s->moe_unknown) { /* tuned, at buckets tunetab cannot tell */
		snprintf(moe->why, sizeof moe->why, "%s", s->moe_unknown);
		add_unknown(p->unknowns, &p->nunknowns, "", "the keys %s looks up for %s at start: %s",
			    s->consumer_name, p->moe_op, moe->why);
	}
	for (size_t i = 0; i < s->nops && p->nops < PLAN_OPS_MAX; i++) {
		const struct op_use *so = &s->ops[i];
		const struct op_def *def = opdefs_find(&data->ops, so->op);
		struct plan_op *po = &p->ops[p->nops++];
		po->op = def ? def->name : so->op;
		po->runner = so->runner;
		po->def = def;
		po->tunes = so->tunes;
		if (!so->tunes || so->unknown) {
			snprintf(po->why, sizeof po->why, "%s", so->why ? so->why : "");
			if (so->unknown) /* tuned, laid out as tunetab does not know (#47) */
				add_unknown(p->unknowns, &p->nunknowns, "", "the keys %s looks up for "
					    "%s at start: %s", s->consumer_name, po->op, po->why);
			continue;
		}
		struct fi_version v;
		if (!def || version_parse(s->flashinfer, &v) || !opdef_keys_known(def, &v)) {
			snprintf(po->why, sizeof po->why, "tunetab knows its keys from FlashInfer %s on, "
				 "not in %s", def ? def->flashinfer_min : "?", s->flashinfer);
			add_unknown(p->unknowns, &p->nunknowns, "", "the keys %s looks up for %s at "
				    "start: %s", s->consumer_name, po->op, po->why);
			continue;
		}
		size_t before = all->n;
		for (size_t c = 0; c < so->ncalls; c++) {
			int rc = op_call_keys(def, &so->calls[c], c, all, d);
			if (rc)
				return rc;
		}
		po->known = true;
		po->nkeys = all->n - before;
		po->keys = (char **)(uintptr_t)before; /* an index until the keyset holds them */
	}
	return TT_OK;
}

/* The server's keys, per keyset: the CUTLASS MoE's (per MoE rank where the version's keys
 * hold it), then the other ops' (the same on every rank). */
static int server_keys(const struct tt_data *data, struct lookup_plan *p, struct diags *d)
{
	struct op_keys ops = { 0 };
	int rc = op_keys(data, p, &ops, d);
	for (size_t i = 0; i < p->nkeysets && !rc; i++) {
		struct plan_keyset *ks = &p->keysets[i];
		struct lookup_list keys = { 0 };
		if (p->serve->tunes && !p->serve->moe_unknown)
			rc = server_moe_keys(data, p->serve, p->rules, ks->moe_tp_rank, ks->moe_ep_rank,
					      &keys, d);
		if (rc) {
			lookup_list_release(&keys);
			break;
		}
		ks->v = xcalloc(keys.n + ops.n + 1, sizeof *ks->v);
		for (size_t k = 0; k < keys.n; k++)
			ks->v[ks->n++] = xstrdup(keys.v[k].key);
		ks->nmoe = ks->n;
		if (i == 0) {
			p->ops[0].known = p->serve->tunes && !p->serve->moe_unknown;
			p->ops[0].keys = ks->v;
			p->ops[0].nkeys = keys.n;
			for (size_t o = 1; o < p->nops; o++)
				if (p->ops[o].known)
					p->ops[o].keys = ks->v + ks->n + (uintptr_t)p->ops[o].keys;
		}
		for (size_t k = 0; k < ops.n; k++)
			ks->v[ks->n++] = xstrdup(ops.v[k].key);
		lookup_list_release(&keys);
	}
	op_keys_release(&ops);
	if (rc)
		return rc;
	union_keys(p);
	p->keys_known = true;
	return TT_OK;
}

/* A cache of the plan's keys (what a check looks for): placeholders, no tactic. */
static struct fi_cache *wanted_cache(const struct lookup_plan *p, const char *fi)
{
	struct fi_cache *c = fi_cache_new();
	struct fi_meta *m = fi_meta_new();
	fi_meta_set(m, "flashinfer_version", fi);
	fi_meta_set(m, "gpu", p->device);
	fi_cache_set_meta(c, m);
	for (size_t i = 0; i < p->nall; i++)
		fi_cache_set_entry(c, p->all_keys[i], lookup_moe_op(p->rules, 1)->runners[0], -1);
	for (size_t o = 1; o < p->nops; o++) /* the other ops' keys name their runner */
		for (size_t k = 0; p->ops[o].known && k < p->ops[o].nkeys; k++)
			fi_cache_set_entry(c, p->ops[o].keys[k], p->ops[o].runner, -1);
	return c;
}

/* install's flags as the launch command they describe (the consumer's flags_command), derived
 * as a pasted one would be: the plan's server. TT_OK with p->own_serve filled; else why not
 * in p->derive_why. */
static int derive_flags(const struct tt_data *data, const struct plan_request *r,
			struct lookup_plan *p)
{
	const struct install_job *j = &p->job;
	struct diags dd = DIAGS_INIT;
	const char *meta_gpu = fi_meta_str(j->meta, "gpu");
	struct serve_request sq = r->q->server;
	sq.flashinfer = j->flashinfer;
	sq.model_config = r->model_config;
	sq.device = r->device ? r->device : meta_gpu;
	int rc = !r->q->flags.model_path || sq.device
			 ? serve_derive_flags(&sq, &r->q->flags, data->root, &data->devices,
					      &p->own_serve, &dd)
			 : diag_error(&dd, TT_USAGE, "plan", NULL, 0, 0, "no GPU named: give --device");
	if (rc && dd.n && !strcmp(dd.v[dd.n - 1].id, "flags")) { /* no command of the flags */
		snprintf(p->derive_why, sizeof p->derive_why, "%s", dd.v[dd.n - 1].msg);
		diags_release(&dd);
		return rc;
	}
	if (rc) {
		/* the reason, not its remedy (the unknown names that): up to its first ": " */
		const char *m = dd.n ? dd.v[dd.n - 1].msg : "?", *colon = strstr(m, ": ");
		snprintf(p->derive_why, sizeof p->derive_why, "%.*s", colon ? (int)(colon - m) : 1000, m);
		serve_release(&p->own_serve);
	} else {
		p->derived = true;
		p->device = p->own_serve.device;
		p->sm = p->own_serve.sm;
		p->serve = &p->own_serve; /* the keys are this server's */
		lay_out_ranks(p, p->serve);
		if (p->nranks != (j->managed ? 1 : j->res.npaths)) { /* not the flags' ranks */
			snprintf(p->derive_why, sizeof p->derive_why, "the command read from the flags "
				 "runs %zu ranks, the flags %zu", p->nranks, j->res.npaths);
			rc = TT_INVALID;
		}
	}
	diags_release(&dd);
	return rc;
}

int plan_build(const struct tt_data *data, const struct plan_request *r, struct lookup_plan *p,
	       struct diags *d)
{
	memset(p, 0, sizeof *p);
	const struct serve_deployment *s = r->serve;
	p->serve = s;
	struct install_request q = *r->q;
	struct fi_cache *placeholder = NULL;
	int rc = TT_OK;
	if (s) {
		p->device = s->device;
		p->sm = s->sm;
		if (!(p->rules = rules_of(data, s->flashinfer)))
			return diag_error(d, TT_INVALID, "plan", NULL, 0, 0, "FlashInfer '%s' has no key "
					  "rules in tunetab (schemas/flashinfer)", s->flashinfer);
		p->rank_keyed = rules_rank_keyed(p->rules);
		lay_out_ranks(p, s);
		if (serve_autotunes(s) && (rc = server_keys(data, p, d)))
			return rc;
		if (!q.cache) {
			placeholder = wanted_cache(p, s->flashinfer);
			q.cache = placeholder;
		}
	}
	rc = install_prepare(&q, data->root, &data->devices, &data->rules, &p->job, d);
	p->table = placeholder ? NULL : r->q->from;
	fi_cache_free(placeholder);
	if (rc)
		return rc;
	struct install_job *j = &p->job;
	if (!s) {
		p->rules = rules_of(data, j->flashinfer);
		p->sm = (int)j->sm;
		const struct device_profile *dp = r->device ? device_find(&data->devices, r->device) : NULL;
		const char *gpu = fi_meta_str(j->meta, "gpu");
		p->device = dp ? dp->name : r->device ? r->device : gpu;
		p->rank_keyed = p->rules && rules_rank_keyed(p->rules);
		bool derived = p->rules && !derive_flags(data, r, p);
		if (derived && serve_autotunes(&p->own_serve) && (rc = server_keys(data, p, d)))
			return rc;
		if (derived) { /* p->serve is the server the flags describe (derive_flags) */
			const char *cls = r->q->flags.hf_config_class;
			if (cls && strcmp(cls, p->own_serve.hf_config_class))
				snprintf(p->flags_differ, sizeof p->flags_differ, "--hf-config-class %s, but "
					 "the model's config.json is a %s: the server hashes that into its "
					 "folder's name, so it opens another folder", cls,
					 p->own_serve.hf_config_class);
		} else {
			for (size_t i = 0; i < p->nkeysets; i++)
				free_strings(p->keysets[i].v, p->keysets[i].n);
			free(p->keysets);
			free(p->ranks);
			p->keysets = NULL;
			p->nkeysets = 0;
			p->serve = NULL;
			p->nranks = j->managed ? 1 : j->res.npaths;
			p->ranks = xcalloc(p->nranks ? p->nranks : 1, sizeof *p->ranks);
			if (!j->cons->flags_command_count) /* no server: the user's own code */
				add_unknown(p->unknowns, &p->nunknowns, "", "which keys your code looks "
					    "up with %s: tunetab sees only the table (FlashInfer logs 'Config "
					    "cache hit ... source=config file' for each that hits)", j->cons->name);
			else
				add_unknown(p->unknowns, &p->nunknowns, "the server's launch command after "
					    "'--', or --model-config FILE and --device NAME with these flags",
					    "which keys %s looks up: they follow from the model's shapes, its "
					    "dtype and the MoE runner the server builds, and install's flags "
					    "alone do not say (%s)", j->cons->name,
					    p->derive_why[0] ? p->derive_why : "not derived");
		}
	}
	for (size_t i = 0; !j->managed && i < p->nranks && i < j->res.npaths; i++)
		p->ranks[i].path = j->res.paths[i];
	/* the inputs whose effect tunetab cannot tell (the consumer's closed world, issue #47) */
	for (size_t i = 0; p->serve && i < p->serve->nunknowns; i++)
		add_unknown(p->unknowns, &p->nunknowns, p->serve->unknowns[i].give, "%s",
			    p->serve->unknowns[i].what);
	/* what only the server's own code computes */
	if (!j->managed && j->v->key_found && !q.cache_file)
		add_unknown(p->unknowns, &p->nunknowns, "--cache-file with the path the server logs "
			    "at start", "which folder %s %s opens: its name is a hash of the whole "
			    "engine config, which only %s computes (tunetab took %s, the one folder "
			    "there)", j->cons->name, j->v->min, j->cons->name,
			    j->key ? j->key : "none");
	return TT_OK;
}

void plan_release(struct lookup_plan *p)
{
	install_job_release(&p->job);
	if (p->derived)
		serve_release(&p->own_serve);
	for (size_t i = 0; i < p->nkeysets; i++)
		free_strings(p->keysets[i].v, p->keysets[i].n);
	free(p->keysets);
	free(p->ranks);
	free_strings(p->all_keys, p->nall);
	memset(p, 0, sizeof *p);
}

/* --- the plan against the disk ------------------------------------------------------------ */

/* How FlashInfer at rules judges a file's _metadata (§2.3) when it runs on the plan's GPU
 * with the plan's version, the other fields from the environment read (env, may be NULL:
 * then a field neither "*" nor certainly wrong cannot be told). 0 accepted, 1 soft, 2 hard,
 * 3 rejected (strict versions), -1 cannot tell; *field names the field that decided. */
static int judge_metadata(const struct lookup_plan *p, const struct fi_cache *doc,
			  const struct fi_meta *env, char *field, size_t fieldn)
{
	field[0] = '\0';
	const struct fi_meta *saved = fi_cache_meta(doc);
	if (!saved)
		return 0; /* accepted with no checks */
	const struct fr_json *jr = &p->rules->json_cache;
	int worst = 0;
	bool unknown = false;
	for (unsigned i = 0; i < jr->metadata_count; i++) {
		const char *f = jr->metadata[i];
		const char *cur = !strcmp(f, "gpu") ? p->device
				  : !strcmp(f, "flashinfer_version") ? p->job.flashinfer
				  : fi_meta_str(env, f);
		int level = fi_meta_level(fi_meta_judge(saved, f, cur));
		if (level < 0) {
			if (!unknown)
				snprintf(field, fieldn, "%s", f);
			unknown = true; /* only the environment says */
			continue;
		}
		if (level && jr->mismatch == MISMATCH_STRICT)
			level = 3;
		if (level > worst) {
			worst = level;
			snprintf(field, fieldn, "%s", f);
		}
	}
	return worst ? worst : unknown ? -1 : 0;
}

/* The validate errors of buf for the plan's GPU and version. */
static size_t invalid_for_gpu(const struct lookup_plan *p, const void *vd, const char *name,
			      const char *buf, size_t len, char *first, size_t firstn)
{
	struct diags dd = DIAGS_INIT;
	struct validate_opts o = { .flashinfer = p->job.flashinfer, .device = p->device, .dtype = -1 };
	validate_bytes(vd, name, buf, len, &o, &dd);
	size_t n = 0;
	first[0] = '\0';
	for (size_t i = 0; i < dd.n; i++)
		if (dd.v[i].sev == SEV_ERROR && n++ == 0)
			snprintf(first, firstn, "%s [%s]", dd.v[i].msg, dd.v[i].id);
	diags_release(&dd);
	return n;
}

/* The fields the missed keys differ in from the file's nearest keys, as findings. */
static void miss_findings(const struct lookup_plan *p, struct plan_check *c, const char *where,
			  const char *holder, char **want, size_t nwant, char **have, size_t nhave)
{
	struct install_cause causes[INSTALL_CAUSES_MAX];
	size_t ncauses = 0, unmatched = 0;
	size_t missing = install_missing(p->rules, (const char *const *)want, nwant,
					 (const char *const *)have, nhave, causes, &ncauses, &unmatched);
	if (!missing)
		return;
	for (size_t i = 0; i < ncauses; i++) {
		const char *f = causes[i].field;
		const char *why = "";
		if (!strcmp(f, "use_fused_finalize") && p->serve)
			why = p->serve->fused_finalize_from;
		else if (!strcmp(f, "tp_rank") || !strcmp(f, "ep_rank"))
			why = "FlashInfer's keys carry the rank in this version: every rank looks up "
			      "its own";
		else if (!strcmp(f, "tp_size") || !strcmp(f, "ep_size") || !strcmp(f, "fc1") ||
			 !strcmp(f, "fc2"))
			why = "a table of another TP/EP or model";
		else if (!strcmp(f, "x_dtype") || !strcmp(f, "weight_dtype") || !strcmp(f, "input") ||
			 !strncmp(f, "use_", 4))
			why = "a table of another dtype";
		else if (!strcmp(f, "tokens"))
			why = "another max token bucket";
		add_finding(c, "%s: %zu key%s differ in %s: the server looks up %s, %s holds %s%s%s%s",
			    where, causes[i].count, causes[i].count == 1 ? "" : "s", f, causes[i].want,
			    holder, causes[i].have, why[0] ? " (" : "", why, why[0] ? ")" : "");
	}
	if (unmatched)
		add_finding(c, "%s: %zu key%s of an op it has no key of", where, unmatched,
			    unmatched == 1 ? "" : "s");
}

/* validate's errors of `name` for the server's GPU and version, as a finding. */
static void invalid_finding(struct plan_check *c, const struct lookup_plan *p, const char *name,
			    size_t n, const char *first)
{
	add_finding(c, "%s: validate finds %zu error%s for %s (SM%d) and FlashInfer %s; the first: %s",
		    name, n, n == 1 ? "" : "s", p->device, p->sm, p->job.flashinfer, first);
}

static void finish(struct plan_check *c, const struct lookup_plan *p)
{
	if (p->flags_differ[0])
		add_finding(c, "%s", p->flags_differ);
	for (size_t i = 0; i < p->nunknowns && c->nunknowns < PLAN_UNKNOWN_MAX; i++)
		c->unknowns[c->nunknowns++] = p->unknowns[i];
	c->state = c->nfindings ? PLAN_NO : c->nunknowns ? PLAN_CANNOT_TELL : PLAN_HITS;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* The plan op the keyset's j-th key is of: the CUTLASS MoE's first, then the other ops' in
 * order (server_keys). */
static const struct plan_op *key_op(const struct lookup_plan *p, const struct plan_keyset *ks,
				    size_t j)
{
	if (j < ks->nmoe)
		return &p->ops[0];
	j -= ks->nmoe;
	for (size_t o = 1; o < p->nops; o++) {
		if (!p->ops[o].known)
			continue;
		if (j < p->ops[o].nkeys)
			return &p->ops[o];
		j -= p->ops[o].nkeys;
	}
	return NULL;
}

/* Whether the server looks the entries up in FlashInfer's tune mode, which compares each
 * one's profiling policy with its op's: the managed store always (autotune_v2 mode="tune"),
 * rank files unless the consumer skips tuning when they all load (consumer data). */
static bool policy_compared(const struct lookup_plan *p)
{
	return p->job.managed || !p->job.v->skips_tuning_when_loaded;
}

/* Whether the server uses an entry of op po found with the profiling policy `stored` (JSON
 * text, NULL: none) in a file or the store (validate_policy_used, the rule's one home); when
 * not and why (may be NULL) is empty, it says so. */
static bool entry_used(const struct lookup_plan *p, const struct plan_op *po, const char *stored,
		       enum policy_source from, char *why, size_t whyn)
{
	if (!po || !po->def || !policy_compared(p) ||
	    validate_policy_used(p->rules, po->def, stored, from))
		return true;
	if (why && !why[0])
		snprintf(why, whyn, "%s requests the profiling policy %s, the first has %s%s%s",
			 po->op, po->def->policy, stored ? stored : "none",
			 !stored && from == POLICY_FILE ? ", read as " : "",
			 !stored && from == POLICY_FILE ? po->def->policy_unset : "");
	return false;
}

/* The finding of entries found but profiled again (why: the first of them, entry_used). */
static void reprofiled_finding(struct plan_check *c, const struct lookup_plan *p, const char *where,
			       size_t n, size_t of, const char *why)
{
	add_finding(c, "%s: %zu of its %zu lookups are there, but %s's start-up tuning (FlashInfer's "
		    "tune mode) profiles them again: %s (autotuner/autotuner.py:2394-2400)", where, n,
		    of, p->job.cons->name, why);
}

/* The store's entry files of our keys that are there: those the server profiles again. */
static void store_policies(const struct lookup_plan *p, size_t *n, char *why, size_t whyn)
{
	const struct install_store *st = &p->job.store;
	const struct plan_keyset *ks = p->keys_known && p->nkeysets ? &p->keysets[0] : NULL;
	for (size_t i = 0; ks && i < st->n; i++) {
		char *buf = NULL, *pol = NULL, *key = NULL;
		size_t len;
		if (!st->exists[i] || read_file(st->paths[i], 0, &buf, &len) ||
		    !(key = fi_store_entry_key(buf, &pol))) {
			free(buf);
			continue;
		}
		for (size_t j = 0; j < ks->n; j++)
			if (!strcmp(ks->v[j], key)) {
				*n += !entry_used(p, key_op(p, ks, j), pol, POLICY_STORE, why, whyn);
				break;
			}
		free(key);
		free(pol);
		free(buf);
	}
}

static void check_store(const struct lookup_plan *p, struct plan_check *c)
{
	const struct install_store *st = &p->job.store;
	c->wanted = st->n;
	const struct fi_merge *m = &st->merge;
	size_t there = m->same + m->nconflicts;
	char why[400] = "";
	store_policies(p, &c->reprofiled, why, sizeof why);
	c->hits = there - c->reprofiled;
	if (c->reprofiled)
		reprofiled_finding(c, p, st->dir, c->reprofiled, c->wanted, why);
	if (!st->manifest_exists)
		add_finding(c, "%s has no manifest.json: FlashInfer's managed store is not there for "
			    "this environment (%s)", st->dir, st->env_hash);
	if (there < c->wanted)
		add_finding(c, "%zu of %s%s %zu keys have no entry file in %s", c->wanted - there,
			    p->table ? p->table : "the server", p->table ? "'s" : "'s", c->wanted, st->dir);
	if (p->table && m->nconflicts)
		add_finding(c, "%zu entr%s of %s hold%s another tactic in the store (the first: %s, "
			    "there %s)", m->nconflicts, m->nconflicts == 1 ? "y" : "ies", p->table,
			    m->nconflicts == 1 ? "s" : "",
			    m->conflicts[0].key, m->conflicts[0].theirs);
}

bool plan_op_measured(const struct lookup_plan *p, size_t o)
{
	return o > 0 && o < p->nops && p->ops[o].tunes && p->ops[o].known && p->ops[o].nkeys;
}

/* The keys of v[0..n) not in drop (sorted), as pointers into v (*out of them); caller frees
 * the array. */
static char **keys_without(char **v, size_t n, char **drop, size_t ndrop, size_t *out)
{
	char **w = xcalloc(n + 1, sizeof *w);
	*out = 0;
	for (size_t i = 0; i < n; i++)
		if (!ndrop || !bsearch(&v[i], drop, ndrop, sizeof *drop, cmp_str))
			w[(*out)++] = v[i];
	return w;
}

/* One file's keys (sorted) against the plan's ops: the first file counted fills c's op_hits
 * and op_fallback; an op only a measurement covers that lacks keys sets c->measure, one of
 * which the file holds none c->op_left. Returns those ops' keys (sorted, pointers into the
 * plan; *nleft; caller frees): an op finding each, not a key finding per key. */
static char **count_ops(const struct lookup_plan *p, struct plan_check *c,
			const struct fi_cache *doc, const char **sorted, size_t nhave, size_t *nleft)
{
	size_t local[PLAN_OPS_MAX] = { 0 }, held[PLAN_OPS_MAX] = { 0 }, n = 0;
	for (size_t o = 0; o < p->nops; o++)
		for (size_t k = 0; p->ops[o].known && k < p->ops[o].nkeys; k++) {
			if (!bsearch(&p->ops[o].keys[k], sorted, nhave, sizeof *sorted, cmp_str))
				continue;
			held[o]++;
			char *pol = NULL;
			bool used = !fi_cache_entry_policy(doc, p->ops[o].keys[k], &pol) ||
				    entry_used(p, &p->ops[o], pol, POLICY_FILE, NULL, 0);
			free(pol);
			if (!used) { /* there, another profiling policy: profiled again */
				if (!c->op_checked)
					c->op_reprofiled[o]++;
				continue;
			}
			local[o]++;
			long long t;
			if (!c->op_checked && !fi_cache_tactic(doc, p->ops[o].keys[k], &t) && t == -1)
				c->op_fallback[o]++;
		}
	for (size_t o = 0; o < p->nops; o++) {
		if (!c->op_checked)
			c->op_hits[o] = local[o];
		if (plan_op_measured(p, o) && local[o] < p->ops[o].nkeys)
			c->measure = true;
		if (plan_op_measured(p, o) && !held[o]) {
			c->op_left[o] = true;
			n += p->ops[o].nkeys;
		}
	}
	c->op_checked = true;
	char **left = xcalloc(n + 1, sizeof *left);
	*nleft = 0;
	for (size_t o = 0; o < p->nops; o++)
		for (size_t k = 0; plan_op_measured(p, o) && !held[o] && k < p->ops[o].nkeys; k++)
			left[(*nleft)++] = p->ops[o].keys[k];
	qsort(left, *nleft, sizeof *left, cmp_str);
	return left;
}

void plan_check_disk(const struct lookup_plan *p, const void *vd, struct plan_check *c)
{
	memset(c, 0, sizeof *c);
	const struct install_job *j = &p->job;
	if (p->serve ? !serve_autotunes(p->serve) : !j->tunes) {
		add_finding(c, "%s does not tune FlashInfer at start here, so it reads no cache: %s",
			    j->cons->name, p->serve && p->serve->why_not ? p->serve->why_not
			    : "not on this SM or MoE runner backend");
		finish(c, p);
		return;
	}
	if (j->interrupted)
		add_finding(c, "an interrupted install left its journal in %s: the files may be mixed; "
			    "run the install again to restore them", j->managed ? j->store.dir : j->res.dir);
	if (j->managed) {
		check_store(p, c);
		finish(c, p);
		return;
	}
	c->nfiles = p->nranks;
	c->files = xcalloc(c->nfiles ? c->nfiles : 1, sizeof *c->files);
	struct fi_cache *first = NULL;
	char *first_buf = NULL; /* the first present file's bytes and its index */
	size_t first_len = 0, first_i = 0;
	size_t present = 0, missing_files = 0, unloaded = 0, cannot = 0;
	for (size_t i = 0; i < p->nranks; i++) {
		struct plan_file *f = &c->files[i];
		const struct plan_rank *r = &p->ranks[i];
		f->path = r->path;
		const struct plan_keyset *ks = p->keys_known ? &p->keysets[r->keys] : NULL;
		f->wanted = ks ? ks->n : 0;
		c->wanted += f->wanted;
		struct stat st;
		if (!stat(r->path, &st) && S_ISDIR(st.st_mode)) {
			f->exists = true;
			present++;
			add_finding(c, "%s is a folder where the rank file should be: the server cannot "
				    "load its tactics from it, and FlashInfer's save_configs raises on it",
				    r->path);
			continue;
		}
		char *buf = NULL;
		size_t len = 0;
		int e = read_file(r->path, 0, &buf, &len);
		if (e) {
			if (e != ENOENT)
				add_finding(c, "%s cannot be read: %s", r->path, path_strerror(r->path, e));
			missing_files++;
			continue;
		}
		f->exists = true;
		present++;
		struct fi_cache_error err;
		struct fi_cache *doc = fi_cache_parse(buf, len, &err);
		if (!doc) {
			add_finding(c, "%s:%d:%d: not a FlashInfer autotune cache (%s): the server "
				    "cannot load it (FlashInfer's load_configs raises on it)", r->path,
				    err.line, err.col, err.text);
			free(buf);
			continue;
		}
		f->parsed = true;
		if (first_buf && len == first_len && !memcmp(buf, first_buf, len)) {
			/* the same bytes as the first file (install writes every rank's alike): its
			 * _metadata verdict and validate's findings are that file's */
			const struct plan_file *o = &c->files[first_i];
			f->meta = o->meta;
			memcpy(f->meta_field, o->meta_field, sizeof f->meta_field);
			f->invalid = o->invalid;
			memcpy(f->first_invalid, o->first_invalid, sizeof f->first_invalid);
		} else {
			f->meta = judge_metadata(p, doc, j->env_meta, f->meta_field, sizeof f->meta_field);
			f->invalid = invalid_for_gpu(p, vd, base_name(r->path), buf, len, f->first_invalid,
						     sizeof f->first_invalid);
		}
		unloaded += f->meta > 0;
		cannot += f->meta < 0;
		size_t nhave;
		char **have = fi_cache_keys(doc, &nhave);
		if (ks) {
			const char **sorted = xcalloc(nhave ? nhave : 1, sizeof *sorted);
			memcpy(sorted, have, nhave * sizeof *have);
			qsort(sorted, nhave, sizeof *sorted, cmp_str);
			/* a hit: there, with the profiling policy its op requests (else profiled again) */
			f->in_file = xcalloc(ks->n ? ks->n : 1, sizeof *f->in_file);
			for (size_t k = 0; k < ks->n; k++) {
				char *pol;
				if (!fi_cache_entry_policy(doc, ks->v[k], &pol))
					continue;
				if (entry_used(p, key_op(p, ks, k), pol, POLICY_FILE, f->first_reprofiled,
					       sizeof f->first_reprofiled)) {
					f->in_file[k] = true;
					f->hits++;
				} else {
					f->reprofiled++;
				}
				free(pol);
			}
			size_t nleft, nwant;
			char **left = count_ops(p, c, doc, sorted, nhave, &nleft);
			char **want = keys_without(ks->v, ks->n, left, nleft, &nwant);
			free(sorted);
			c->hits += f->hits;
			c->reprofiled += f->reprofiled;
			/* the causes once per keyset: the first rank file of it */
			bool first_of_set = true;
			for (size_t q = 0; q < i; q++)
				first_of_set &= !(p->ranks[q].keys == r->keys && c->files[q].exists);
			if (f->hits < f->wanted && first_of_set)
				miss_findings(p, c, base_name(r->path), "the file", want, nwant, have,
					      nhave);
			free(want);
			free(left);
		}
		free_strings(have, nhave);
		if (!first) {
			first = doc;
			first_buf = buf, first_len = len, first_i = i;
			continue;
		}
		c->differ |= !fi_cache_equal(first, doc);
		fi_cache_free(doc);
		free(buf);
	}
	fi_cache_free(first);
	free(first_buf);
	for (size_t o = 0; o < p->nops; o++)
		if (c->op_left[o])
			add_finding(c, "%s (%s): the files hold none of its %zu keys, so the server "
				    "profiles them at start; tunetab writes this op's entries only "
				    "measured (--profile with FlashInfer's runner, on a GPU of this "
				    "kind); --write-fallbacks writes FlashInfer's default tactic (-1) "
				    "instead, which the server then runs there without profiling",
				    p->ops[o].op, p->ops[o].runner, p->ops[o].nkeys);
	for (size_t o = 0; !c->op_checked && o < p->nops; o++)
		c->measure |= plan_op_measured(p, o); /* no file to count in */
	for (size_t i = 0; missing_files && i < p->nranks; i++)
		if (!c->files[i].exists) {
			add_finding(c, "%zu of %zu rank files missing (the first: %s)%s", missing_files,
				    p->nranks, p->ranks[i].path, present ? "" : ": nothing was installed "
				    "for this deployment");
			break;
		}
	if (c->differ)
		add_finding(c, "the rank files' contents differ: the server drops them all and tunes "
			    "from scratch (SGLang's _drop_diverged_autotune_cache; vLLM tunes every "
			    "shape)");
	for (size_t i = 0; i < c->nfiles; i++) {
		const struct plan_file *f = &c->files[i];
		if (f->exists && f->meta > 0) {
			add_finding(c, "%s: _metadata.%s: a %s mismatch with the server's environment: "
				    "FlashInfer %s ignores the whole file", base_name(f->path),
				    f->meta_field, f->meta == 1 ? "soft" : f->meta == 2 ? "hard" : "strict",
				    j->flashinfer);
			break;
		}
	}
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i].invalid) {
			invalid_finding(c, p, base_name(c->files[i].path), c->files[i].invalid,
					c->files[i].first_invalid);
			break;
		}
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i].reprofiled) {
			reprofiled_finding(c, p, base_name(c->files[i].path), c->files[i].reprofiled,
					   c->files[i].wanted, c->files[i].first_reprofiled);
			break;
		}
	if (cannot && !unloaded) {
		const char *field = "";
		for (size_t i = 0; i < c->nfiles && !field[0]; i++)
			if (c->files[i].meta < 0)
				field = c->files[i].meta_field;
		add_unknown(c->unknowns, &c->nunknowns, "--python (the server's interpreter, which "
			    "tunetab asks FlashInfer's _collect_metadata)", "whether FlashInfer accepts "
			    "the files' _metadata: '%s' (and the fields after it) are this environment's, "
			    "and no FlashInfer was found here to read them%s%s", field,
			    j->why[0] ? ": " : "", j->why);
	}
	const struct fi_merge *m = &j->res.merge;
	if (p->table && present && m->added)
		add_finding(c, "%zu of the %zu entries of %s are not in the files", m->added,
			    m->added + m->same + m->nconflicts, p->table);
	if (p->table && present && m->nconflicts)
		add_finding(c, "%zu entr%s of %s hold%s another tactic in the files (the first: %s, there "
			    "%s)", m->nconflicts, m->nconflicts == 1 ? "y" : "ies", p->table,
			    m->nconflicts == 1 ? "s" : "",
			    m->conflicts[0].key, m->conflicts[0].theirs);
	if (p->keys_known && c->hits < c->wanted && !c->nfindings)
		add_finding(c, "%zu of the server's %zu lookups are not in the files", c->wanted - c->hits,
			    c->wanted);
	if (!present && p->keys_known) {
		struct install_diagnosis g;
		install_diagnose(j, (const char *const *)p->keysets[0].v, p->keysets[0].n, p->rules, &g);
		for (size_t i = 0; i < g.nfolders; i++)
			add_finding(c, "found instead: %s: %s; %zu of its keys are the server's",
				    g.folders[i].dir, g.folders[i].why, g.folders[i].hits);
		install_diagnosis_release(&g);
	}
	finish(c, p);
}

void plan_check_table(const struct lookup_plan *p, const struct fi_cache *table,
		      const char *name, const void *vd, struct plan_check *c)
{
	memset(c, 0, sizeof *c);
	char *buf = fi_cache_compact(table);
	char first[320];
	size_t n = invalid_for_gpu(p, vd, name, buf, strlen(buf), first, sizeof first);
	free(buf);
	if (n)
		invalid_finding(c, p, name, n, first);
	if (p->keys_known) {
		size_t nhave;
		char **have = fi_cache_keys(table, &nhave);
		/* the entries install leaves out (nobody measured them) stay the server's to tune */
		const struct install_untuned *u = &p->job.untuned;
		for (size_t i = 0; i < p->nkeysets; i++) {
			c->wanted += p->keysets[i].n;
			char where[300];
			if (p->rank_keyed)
				snprintf(where, sizeof where, "%s (for MoE TP rank %ld, EP rank %ld)", name,
					 p->keysets[i].moe_tp_rank, p->keysets[i].moe_ep_rank);
			else
				snprintf(where, sizeof where, "%s", name);
			size_t nwant;
			char **want = keys_without(p->keysets[i].v, p->keysets[i].n, u->keys,
						   u->kept ? 0 : u->n, &nwant);
			miss_findings(p, c, where, "the table", want, nwant, have, nhave);
			free(want);
		}
		free_strings(have, nhave);
		/* entries the server would find, but profile again (their policy) */
		char why[400] = "";
		for (size_t i = 0; i < p->nkeysets && !c->reprofiled; i++) {
			const struct plan_keyset *ks = &p->keysets[i];
			for (size_t k = 0; k < ks->n; k++) {
				char *pol;
				if (fi_cache_entry_policy(table, ks->v[k], &pol) &&
				    !entry_used(p, key_op(p, ks, k), pol, POLICY_FILE, why, sizeof why))
					c->reprofiled++;
				free(pol);
			}
			if (c->reprofiled)
				reprofiled_finding(c, p, name, c->reprofiled, ks->n, why);
		}
	}
	finish(c, p);
}

void plan_check_release(struct plan_check *c)
{
	for (size_t i = 0; i < c->nfiles; i++)
		free(c->files[i].in_file);
	free(c->files);
	memset(c, 0, sizeof *c);
}

/* --- FlashInfer's own loader as the judge ------------------------------------------------- */

/* The profiling policy each op requests, as configs/ops has it (none: not compared), by the
 * op string of its keys (the CUTLASS MoE's: both GEMMs'). */
static size_t judge_ops(const struct lookup_plan *p, const struct tt_data *data,
			struct fijudge_op *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < data->ops.n; i++) {
		const struct op_def *d = data->ops.v[i];
		if (!d->policy || !d->policy[0])
			continue;
		for (int st = 1; st <= 2 && n < max; st++) {
			const struct fr_op *o = lookup_moe_op(p->rules, st);
			if (!strcmp(d->builder, "cutlass_moe") && o)
				out[n++] = (struct fijudge_op){ o->op, d->policy };
		}
		if (strcmp(d->builder, "cutlass_moe") && n < max)
			out[n++] = (struct fijudge_op){ d->name, d->policy };
	}
	return n;
}

/* Why the loader is not asked, or NULL when it is. */
static const char *judge_why_not(const struct lookup_plan *p, const struct plan_check *c,
				 char *buf, size_t n)
{
	const struct install_job *j = &p->job;
	size_t present = 0;
	for (size_t i = 0; i < c->nfiles; i++)
		present += c->files[i].exists;
	if (p->serve ? !serve_autotunes(p->serve) : !j->tunes)
		return "the server reads no cache here";
	if (j->managed)
		return "FlashInfer's managed store, which load_configs does not read";
	if (!present)
		return "no rank file to load";
	if (!j->fienv.version)
		snprintf(buf, n, "no FlashInfer in the server's Python (%s)", j->why[0] ? j->why
			 : "no Python found");
	else if (strcmp(j->fienv.version, j->flashinfer))
		snprintf(buf, n, "%s imports FlashInfer %s, the plan is for %s", j->python,
			 j->fienv.version, j->flashinfer);
	else
		return NULL;
	return buf;
}

/* A rank file as tunetab's model has FlashInfer take it (NULL: it cannot tell). */
static const char *model_load(const struct plan_file *f, char *buf, size_t n)
{
	if (!f->parsed)
		return "raises (not a JSON object it reads)";
	if (f->meta < 0)
		return NULL;
	if (!f->meta)
		return "loads it";
	snprintf(buf, n, "ignores it (_metadata.%s: a %s mismatch)", f->meta_field,
		 f->meta == 1 ? "soft" : f->meta == 2 ? "hard" : "strict");
	return buf;
}

static const char *loader_load(const struct fijudge_file *f, char *buf, size_t n)
{
	switch (f->load) {
	case FIJ_LOADED: return "loads it";
	case FIJ_MISSING: return "finds no file";
	case FIJ_IGNORED: snprintf(buf, n, "ignores it (%s)", f->detail ? f->detail : "?"); break;
	case FIJ_RAISES: snprintf(buf, n, "raises %s", f->detail ? f->detail : "?"); break;
	}
	return buf;
}

static void add_disagree(struct plan_check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_disagree(struct plan_check *c, const char *fmt, ...)
{
	if (c->ndisagree == PLAN_DISAGREE_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->disagree[c->ndisagree], sizeof c->disagree[0], fmt, ap);
	va_end(ap);
	c->ndisagree++;
}

/* The loader's answer against the model's, file by file: a file loaded or not, then (both
 * loading it) each lookup found or not; each kind said once, for the first file, with how many
 * rank files answer so. */
static void judge_compare(const struct lookup_plan *p, struct plan_check *c,
			  const struct fijudge_result *r)
{
	const char *fi = r->flashinfer;
	size_t load_files = 0, first_load = 0;
	size_t miss_files = 0, miss_keys = 0, extra_files = 0, extra_keys = 0;
	const char *first_miss = NULL, *first_extra = NULL;
	const struct fijudge_key *miss_key = NULL;
	char mb[200], lb[600];
	for (size_t i = 0; i < c->nfiles && i < r->nfiles; i++) {
		const struct plan_file *f = &c->files[i];
		const struct fijudge_file *a = &r->files[i];
		const char *model = f->exists ? model_load(f, mb, sizeof mb) : NULL;
		if (!model || a->load == FIJ_MISSING)
			continue; /* not there, or the model cannot tell */
		if ((a->load == FIJ_LOADED) != !strcmp(model, "loads it")) {
			first_load = load_files++ ? first_load : i;
			continue;
		}
		/* a file validate finds errors in is a "no" already: its lookups are not compared */
		size_t m = 0, e = 0;
		bool compare = a->load == FIJ_LOADED && f->in_file && !f->invalid;
		char *const *keys = compare ? p->keysets[p->ranks[i].keys].v : NULL;
		for (size_t k = 0; compare && k < a->nkeys; k++) {
			const struct fijudge_key *x = &a->keys[k];
			c->not_judged += x->hit < 0;
			if (x->hit == 0 && f->in_file[k]) { /* the model's hit, the loader's miss */
				if (!m++ && !first_miss)
					first_miss = keys[k], miss_key = x;
			} else if (x->hit == 1 && !f->in_file[k]) {
				if (!e++ && !first_extra)
					first_extra = keys[k];
			}
		}
		miss_files += m > 0, miss_keys += m;
		extra_files += e > 0, extra_keys += e;
	}
	if (load_files) {
		const struct plan_file *f = &c->files[first_load];
		add_disagree(c, "%s: tunetab's model: FlashInfer %s; FlashInfer %s's loader: %s "
			     "(so in %zu of %zu rank files)", base_name(f->path), model_load(f, mb, sizeof mb),
			     fi, loader_load(&r->files[first_load], lb, sizeof lb), load_files, c->nfiles);
	}
	if (miss_keys)
		add_disagree(c, "%zu lookups in %zu rank files: tunetab's model: in the file (a hit); "
			     "FlashInfer %s's loader: a miss (%s)%s%s; the first: %s", miss_keys,
			     miss_files, fi, miss_key->why ? miss_key->why : "?",
			     miss_key->looked_up ? "; it looks up " : "",
			     miss_key->looked_up ? miss_key->looked_up : "", first_miss);
	if (extra_keys)
		add_disagree(c, "%zu lookups in %zu rank files: tunetab's model: not in the file; "
			     "FlashInfer %s's loader: a hit; the first: %s", extra_keys, extra_files, fi,
			     first_extra);
}

void plan_judge(const struct lookup_plan *p, const struct tt_data *data, struct plan_check *c)
{
	const struct install_job *j = &p->job;
	const char *why = judge_why_not(p, c, c->judge, sizeof c->judge);
	if (why) {
		if (why != c->judge)
			snprintf(c->judge, sizeof c->judge, "%s", why);
		return;
	}
	struct fijudge_op ops[2 * PLAN_OPS_MAX];
	struct fijudge_keys *sets = xcalloc(p->nkeysets ? p->nkeysets : 1, sizeof *sets);
	const char **paths = xcalloc(p->nranks ? p->nranks : 1, sizeof *paths);
	size_t *set = xcalloc(p->nranks ? p->nranks : 1, sizeof *set);
	for (size_t i = 0; p->keys_known && i < p->nkeysets; i++)
		sets[i] = (struct fijudge_keys){ p->keysets[i].v, p->keysets[i].n };
	for (size_t i = 0; i < p->nranks; i++) {
		paths[i] = p->ranks[i].path ? p->ranks[i].path : ""; /* none: "missing" */
		set[i] = p->keys_known ? p->ranks[i].keys : 0; /* not known: one empty set */
	}
	struct fijudge_request q = { .python = j->python, .flashinfer = j->flashinfer,
				     .gpu = p->device, .ops = ops,
				     .nops = judge_ops(p, data, ops, 2 * PLAN_OPS_MAX),
				     .keysets = sets, .nkeysets = p->keys_known ? p->nkeysets : 1,
				     .paths = paths, .keyset = set, .npaths = p->nranks };
	struct fijudge_result r;
	char reason[512];
	if (fijudge_run(&q, &r, reason, sizeof reason)) {
		c->judged = true;
		snprintf(c->judge, sizeof c->judge, "FlashInfer %s's loader at %s", r.flashinfer,
			 r.package);
		judge_compare(p, c, &r);
		if (c->ndisagree)
			c->state = PLAN_DISAGREE;
		fijudge_release(&r);
	} else {
		snprintf(c->judge, sizeof c->judge, "%s", reason);
	}
	free(sets);
	free(paths);
	free(set);
}
