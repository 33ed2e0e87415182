/* validate.c: the checks of `tunetab validate` (docs/commands/validate.md "Checks" lists every id). */
#include "flashinfer/validate.h"

#include "flashinfer/provenance.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flashinfer/key.h"
#include "flashinfer/tableset.h"
#include "base/util.h"

const struct check_info validate_checks[] = {
	{ "syntax", "the file is not valid Python (module) or JSON (cache)" },
	{ "best-configs", "the module has no 'best_configs' dict" },
	{ "file-name", "the file name is not the one the target version imports for the device" },
	{ "unknown-device", "the device in the file name (or _metadata.gpu) is one no known GPU reports" },
	{ "device-mismatch", "--device, the file name and _metadata.gpu disagree" },
	{ "never-loaded", "the target version can never load this file or hit any of its keys (reported once)" },
	{ "key-type", "a key is not a str" },
	{ "duplicate-key", "a key appears twice; Python keeps the last value" },
	{ "key-syntax", "a key is not a Python tuple literal" },
	{ "key-canonical", "a key differs from Python's str() of its own tuple, so lookups miss it" },
	{ "key-form", "3- vs 4-tuple key, or extras, not what the target version builds" },
	{ "extras", "extras arity or field types differ from the version's layout" },
	{ "unknown-op", "the op is not one the version tunes with these tables" },
	{ "unknown-runner", "the runner class does not serve the op" },
	{ "profile-arity", "the profile does not have the op's number of input shapes" },
	{ "shape", "inconsistent dimensions: experts in fc1/fc2, hidden size, packing, gated fc1" },
	{ "token-bucket", "the token dimension is a value the version's bucket mapper never produces" },
	{ "value-shape", "a value is not (runner, tactic) / [\"Runner\", tactic]" },
	{ "runner-id", "the runner slot is not 0" },
	{ "tactic-range", "the tactic is outside the GEMM stage's id range for the SM and dtype" },
	{ "tactic-not-dispatchable", "the tactic exists but can never run (throws when profiled or run)" },
	{ "tactic-relative", "a GEMM2 id this version reads as a relative (local) index" },
	{ "no-catalog", "no tactic catalog for the device's SM and dtype in this version" },
	{ "coverage", "token buckets missing in a shape family, or a family with one GEMM stage only" },
	{ "json-top-level", "the JSON top level is not an object" },
	{ "json-reserved", "misuse of _metadata, _records or _generation, or a '_' key read as an entry" },
	{ "json-value", "an entry value FlashInfer's loader raises on" },
	{ "json-metadata", "_metadata values that are not strings, missing or mismatching fields" },
	{ "json-generation", "_generation is not the SHA-256 of the file's content" },
	{ "op-policy", "an entry without the profiling policy its op requests (configs/ops): a server tuning at start profiles it again" },
	{ "no-entries", "the table has no entries: a server finds nothing in it" },
	{ NULL, NULL },
};

struct vctx {
	const struct validate_data *data;
	const struct table *t;
	const struct validate_opts *o;
	struct validate_result *r;
	struct diags *d;
	struct fi_version v;
	struct arena a;
	/* tactic lists per dtype for the device's SM, expanded on demand */
	struct tactic_list lists[DT_COUNT][2]; /* [dtype][use_fused_finalize] */
	int list_state[DT_COUNT][2]; /* 0 unknown, 1 loaded, -1 none */
	bool reported_no_catalog[DT_COUNT];
	const struct op_def *moe_def; /* the CUTLASS MoE's (configs/ops), or NULL */
	struct strbuf canon;  /* scratch: a key's canonical spelling */
	struct strbuf sig;    /* scratch: a key without its token count */
};

#define ERR(c, id, line, col, ...) diags_add((c)->d, SEV_ERROR, id, (c)->t->path, line, col, __VA_ARGS__)
#define WARN(c, id, line, col, ...) diags_add((c)->d, SEV_WARNING, id, (c)->t->path, line, col, __VA_ARGS__)
#define NOTE(c, id, line, col, ...) diags_add((c)->d, SEV_NOTE, id, (c)->t->path, line, col, __VA_ARGS__)

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* --- the profiling policy: whether tune mode uses an entry it finds ---------------------- */

/* A policy item as a number, where Python's == compares it as one (bool, int, float). */
static bool py_number(const json_t *j, double *v)
{
	if (json_is_boolean(j))
		*v = json_is_true(j);
	else if (json_is_number(j))
		*v = json_number_value(j);
	else
		return false;
	return true;
}

/* Python's == of the tuples FlashInfer compares (tuple(value[2]) against the op's): item by
 * item, numbers by value (1 == 1.0 == True), strings by their bytes, None only to None. A
 * stored policy that is no list never equals. */
static bool policy_equal(const json_t *want, const json_t *got)
{
	if (!json_is_array(want) || !json_is_array(got) ||
	    json_array_size(want) != json_array_size(got))
		return false;
	for (size_t i = 0; i < json_array_size(want); i++) {
		const json_t *a = json_array_get(want, i), *b = json_array_get(got, i);
		double x, y;
		bool an = py_number(a, &x), bn = py_number(b, &y);
		if (an != bn || (an && x != y) || (!an && !json_equal((json_t *)a, (json_t *)b)))
			return false;
	}
	return true;
}

bool validate_policy_used(const struct fi_rules *rules, const struct op_def *op,
			  const char *stored, enum policy_source from)
{
	if (rules && rules->json_cache.entry_value != VALUE_POLICY)
		return true; /* values carry no policy: nothing is compared */
	const char *got = stored ? stored : from == POLICY_FILE ? op->policy_unset : NULL;
	if (!got)
		return false; /* a managed entry without one: None never equals the op's tuple */
	if (!strcmp(got, op->policy))
		return true;
	json_t *a = json_loads(op->policy, JSON_DECODE_ANY, NULL);
	json_t *b = json_loads(got, JSON_DECODE_ANY, NULL);
	bool same = policy_equal(a, b);
	json_decref(a);
	json_decref(b);
	return same;
}

/* "v0_1_trtllm_fused_moe_NVIDIA_B200.py" -> prefix "v0_1_", device part "NVIDIA_B200". */
static bool split_bundled_name(const char *name, const char *stem, char *prefix, size_t pn,
			       char *dev, size_t dn)
{
	size_t plen, dl;
	const char *d0;
	if (!firules_split_bundled(name, stem, &plen, &d0, &dl) || plen >= pn || dl >= dn)
		return false;
	memcpy(prefix, name, plen);
	prefix[plen] = '\0';
	memcpy(dev, d0, dl);
	dev[dl] = '\0';
	return true;
}

/* The device part of a bundled file name (firules_device_part), into out. */
static void file_part_of(const char *name, char *out, size_t n)
{
	char *part = firules_device_part(name);
	snprintf(out, n, "%s", part);
	free(part);
}

static const struct device_profile *device_by_file_part(const struct device_set *set, const char *part)
{
	for (size_t i = 0; i < set->n; i++) {
		char buf[256];
		file_part_of(set->v[i]->name, buf, sizeof buf);
		if (strcmp(buf, part) == 0)
			return set->v[i];
	}
	return NULL;
}

static void device_near_text(const struct device_set *set, const char *name, char *out, size_t n)
{
	const char *near[3];
	size_t k = device_nearest(set, name, near, 3);
	char *t = nearest_text(near, k);
	snprintf(out, n, "%s", t);
	free(t);
}

static const char *meta_value(const struct table *t, const char *name)
{
	for (size_t i = 0; i < t->n_meta; i++)
		if (strcmp(t->meta[i].name, name) == 0)
			return t->meta[i].value;
	return NULL;
}

static const struct table_meta *meta_field(const struct table *t, const char *name)
{
	for (size_t i = 0; i < t->n_meta; i++)
		if (strcmp(t->meta[i].name, name) == 0)
			return &t->meta[i];
	return NULL;
}

static int pick_version(struct vctx *c)
{
	const struct firules_set *ss = c->data->rules;
	const char *v = c->o->flashinfer;
	c->r->version_from = "--flashinfer";
	if (!v && c->t->kind == TABLE_JSON) {
		const char *mv = meta_value(c->t, "flashinfer_version");
		if (mv && strcmp(mv, "*") && version_parse(mv, &c->v) == 0) {
			v = mv;
			c->r->version_from = "_metadata.flashinfer_version";
		}
	}
	if (!v && c->o->provenance_version) {
		v = c->o->provenance_version;
		c->r->version_from = "tunetab provenance";
	}
	if (!v) {
		v = firules_newest(ss)->release;
		c->r->version_from = "newest known";
	}
	if (version_parse(v, &c->v))
		return diag_error(c->d, TT_USAGE, "usage", NULL, 0, 0,
				  "'%s' is not a FlashInfer version (want e.g. 0.6.18)", v);
	snprintf(c->r->version, sizeof c->r->version, "%s", v);
	bool newer;
	c->r->rules = firules_find(ss, &c->v, &newer);
	if (!c->r->rules)
		return diag_error(c->d, TT_USAGE, "usage", NULL, 0, 0,
				  "FlashInfer %s predates tuning-table support (the oldest known "
				  "rules start at %s)", v, ss->v[0]->versions.min);
	if (newer)
		diags_add(c->d, SEV_WARNING, "version", NULL, 0, 0,
			  "FlashInfer %s is newer than every known version; applying the rules of "
			  "%s", v, c->r->rules->id);
	return TT_OK;
}

static void set_device(struct vctx *c, const char *name, const char *from)
{
	snprintf(c->r->device_name, sizeof c->r->device_name, "%s", name);
	c->r->device_from = from;
	c->r->device = device_find(c->data->devices, name);
}

/* File name rule (§1.1, §1.6 rule 1) and the device it names. */
static void check_file_name(struct vctx *c)
{
	const struct fi_rules *s = c->r->rules;
	const char *name = base_name(c->t->path);
	char prefix[64], part[256];
	bool bundled = split_bundled_name(name, s->bundled.stem, prefix, sizeof prefix, part,
					  sizeof part);
	if (c->o->device) {
		const struct device_profile *p = device_find(c->data->devices, c->o->device);
		set_device(c, p ? p->name : c->o->device, "--device");
		if (!p) {
			char near[512];
			device_near_text(c->data->devices, c->o->device, near, sizeof near);
			WARN(c, "unknown-device", 0, 0, "no known GPU reports the device name '%s'%s",
			     c->o->device, near);
		}
	}
	if (c->t->kind != TABLE_PY)
		return;
	if (!bundled) {
		ERR(c, "file-name", 0, 0, "'%s' is not a bundled table name: FlashInfer %s imports "
		    "'%s%s<DEVICE>.py' from %s/", name, c->r->version,
		    s->bundled.prefix_rule == PREFIX_VERSION ? "v<version>_" : s->bundled.prefix,
		    s->bundled.stem, s->bundled.package_dir);
		return;
	}
	/* the device named by the file */
	const struct device_profile *fp = device_by_file_part(c->data->devices, part);
	if (!c->r->device_from) {
		if (fp) {
			set_device(c, fp->name, "file name");
		} else {
			char guess[256];
			snprintf(guess, sizeof guess, "%s", part);
			for (char *p = guess; *p; p++)
				if (*p == '_')
					*p = ' ';
			set_device(c, guess, "file name");
		}
	} else {
		/* §1.1: FlashInfer on --device imports exactly one name; any other is never read */
		char want[256];
		file_part_of(c->r->device_name, want, sizeof want);
		if (strcmp(want, part) != 0) {
			char *expect = firules_bundled_name(s, c->r->version, c->r->device_name);
			ERR(c, "device-mismatch", 0, 0, "the file name is for '%s' but --device is "
			    "'%s': FlashInfer on that GPU imports %s and never reads this file",
			    fp ? fp->name : part, c->r->device_name, expect);
			free(expect);
		}
	}
	if (strchr(part, ' '))
		ERR(c, "file-name", 0, 0, "the device part '%s' has a space: FlashInfer replaces "
		    "every space with '_' (formats §1.1)", part);
	if (strchr(part, '.'))
		ERR(c, "file-name", 0, 0, "the device part '%s' has a '.', which Python reads as a "
		    "sub-package: the import can never succeed (formats §1.1)", part);
	if (!fp) {
		char near[512], guess[256];
		snprintf(guess, sizeof guess, "%s", part);
		for (char *p = guess; *p; p++)
			if (*p == '_')
				*p = ' ';
		device_near_text(c->data->devices, guess, near, sizeof near);
		WARN(c, "unknown-device", 0, 0, "no known GPU reports a name that becomes '%s'%s",
		     part, near);
	}
	char *want = firules_bundled_name(s, c->r->version, c->r->device_name[0] ? c->r->device_name : part);
	if (strcmp(want, name) != 0 && strcmp(prefix, s->bundled.prefix_rule == PREFIX_VERSION ? "" : s->bundled.prefix) != 0) {
		char wp[64];
		snprintf(wp, sizeof wp, "%.*s", (int)(strstr(want, s->bundled.stem) - want), want);
		c->r->never_loaded = true;
		ERR(c, "never-loaded", 0, 0, "FlashInfer %s imports '%s' but this file is named with "
		    "prefix '%s' instead of '%s': it is never found, so every lookup falls back to "
		    "tactic -1 (formats §1.1)", c->r->version, want, prefix, wp);
	}
	free(want);
}

/* The list GEMM2's ids index: without FINALIZE copies only when the key says False (keys
 * without the field are for FlashInfer's default, True). */
static int catalog_for(struct vctx *c, enum dtype dt, int ff, const struct tactic_list **out)
{
	*out = NULL;
	if (!c->r->device)
		return -1;
	if (c->list_state[dt][ff] == 0) {
		const struct catalog *cat = catalog_find(c->data->catalogs, &c->v,
							 device_sm(c->r->device), dt);
		c->list_state[dt][ff] = -1;
		if (cat) {
			struct diags tmp = DIAGS_INIT;
			if (catalog_expand_finalize(cat, ff, &c->lists[dt][ff], &tmp) == 0)
				c->list_state[dt][ff] = 1;
			diags_release(&tmp);
		}
	}
	if (c->list_state[dt][ff] == 1)
		*out = &c->lists[dt][ff];
	return c->list_state[dt][ff] == 1 ? 0 : -1;
}

static void describe(const struct tactic *t, char *buf, size_t n)
{
	tactic_describe(t, buf, n);
}

/* Tactic checks against the catalog (§3.6; tactics §1.1, §3). */
/* The tactic lists a key's entries are checked against: one per dtype the key can mean
 * (a bf16 key reads the same as an fp8 one), each NULL where no catalog covers it. */
struct key_lists {
	int n;
	enum dtype dts[2];
	const struct tactic_list *l[2];
};

static void key_lists(struct vctx *c, const struct moe_key *k, struct key_lists *out)
{
	*out = (struct key_lists){ 0 };
	if (c->o->dtype >= 0) {
		out->dts[0] = (enum dtype)c->o->dtype;
		out->n = 1;
	} else {
		out->n = key_dtypes(c->r->rules, k, out->dts);
	}
	int fused = key_fused_finalize(c->r->rules, k) != 0;
	for (int i = 0; i < out->n; i++)
		catalog_for(c, out->dts[i], fused, &out->l[i]);
}

static void check_tactic(struct vctx *c, const struct table_entry *e,
			 const struct key_lists *kl, int stage)
{
	const struct pyv *tv = e->tactic;
	if (tv->kind != PV_INT) {
		ERR(c, "value-shape", e->vline, e->vcol, "the cutlass MoE tactic must be an int, not "
		    "a %s", pyv_kind_name(tv->kind));
		return;
	}
	long long id = tv->i;
	if (id == -1) {
		NOTE(c, "tactic-range", e->vline, e->vcol, "tactic -1 is the fallback itself (first "
		     "entry of the stage's list); the entry changes nothing");
		return;
	}
	if (!c->r->device || kl->n == 0)
		return;
	const enum dtype *dts = kl->dts;
	int nd = kl->n;
	enum tactic_numbering num = c->r->rules->tactics.numbering;
	int ok_in = 0, have = 0;
	const struct tactic *hit = NULL;
	const struct tactic_list *l = NULL;
	for (int i = 0; i < nd; i++) {
		const struct tactic_list *li = kl->l[i];
		if (!li)
			continue;
		have++;
		const struct tactic *t = tactic_lookup(li, stage, (int)id, false);
		if (t) {
			ok_in++;
			if (!hit) {
				hit = t;
				l = li;
			}
		} else if (!l) {
			l = li;
		}
	}
	if (!have) {
		if (!c->reported_no_catalog[dts[0]]) {
			c->reported_no_catalog[dts[0]] = true;
			NOTE(c, "no-catalog", e->vline, e->vcol, "no tactic catalog for SM%u %s%s in "
			     "FlashInfer %s: tactic ids not checked", device_sm(c->r->device),
			     dtype_name(dts[0]), nd == 2 ? " or fp8" : "", c->r->version);
		}
		return;
	}
	if (!hit) {
		/* v0.5.3–v0.6.14 read a GEMM2 id below n2 as local (§3.6) */
		if (stage == 2 && num == TN_SPLIT_RELATIVE && l && id >= 0 && (size_t)id < l->n2) {
			const struct tactic *t = tactic_lookup(l, 2, (int)id, true);
			char dsc[256];
			describe(t, dsc, sizeof dsc);
			WARN(c, "tactic-relative", e->vline, e->vcol, "GEMM2 tactic %lld is below %zu, so "
			     "FlashInfer %s reads it as local GEMM2 index %lld = %s; write the absolute "
			     "id %lld (FlashInfer >= 0.6.15 rejects local ids)", id, l->n1,
			     c->r->version, id, dsc, id + (long long)l->n1);
			if (!t->dispatchable)
				ERR(c, "tactic-not-dispatchable", e->vline, e->vcol, "tactic %lld (%s) can "
				    "never run: %s", id, dsc, t->note ? t->note : "not dispatchable");
			return;
		}
		size_t lo = stage == 1 || l->cat->numbering == NUM_SHARED ? 0 : l->n1;
		size_t hi = stage == 1 ? l->n1 : lo + l->n2;
		ERR(c, "tactic-range", e->vline, e->vcol, "tactic %lld is outside GEMM%d's ids %zu-%zu "
		    "for SM%u %s in FlashInfer %s (catalog %s)%s", id, stage, lo, hi - 1,
		    device_sm(c->r->device), dtype_name(dts[0]), c->r->version, l->cat->id,
		    stage == 2 && num == TN_SPLIT_ABSOLUTE && (size_t)id < l->n2
			    ? "; since 0.6.15 GEMM2 ids are absolute: 'Invalid gemm2 profile id'" : "");
		return;
	}
	if (!hit->dispatchable) {
		char dsc[256];
		describe(hit, dsc, sizeof dsc);
		ERR(c, "tactic-not-dispatchable", e->vline, e->vcol, "tactic %lld (%s) exists but can "
		    "never run on SM%u: %s", id, dsc, device_sm(c->r->device),
		    hit->note ? hit->note : "not dispatchable");
	}
	if (nd == 2 && ok_in == 1 && c->o->dtype < 0)
		NOTE(c, "tactic-range", e->vline, e->vcol, "the key cannot tell bf16 from fp8; tactic "
		     "%lld is valid for %s only (give --dtype to check one)", id,
		     dtype_name(kl->l[0] && hit == tactic_lookup(kl->l[0], stage, (int)id, false)
					? dts[0] : dts[1]));
}

struct family {
	char *sig;       /* grouping: op + shapes without the token dim + extras */
	char *shape_sig; /* the same without the op: pairs gemm1/gemm2 */
	char *label;     /* short text for messages */
	long long max_tokens;
	long long *tokens;
	int (*pos)[2];   /* line, col of each token's entry */
	size_t n, tokens_alloc, pos_alloc;
	int line, col;
	int stage;
	bool clean;       /* its first key passed every key check: later keys reuse that */
	char *runner;     /* the runner class named in the key */
	struct key_lists lists; /* what its tactics are checked against */
};

/* A table's families, as they are found. */
struct families {
	struct family *v;
	size_t n, alloc;
};

/* Open-addressing index of families by signature (tables can have thousands). */
struct fam_index {
	size_t *slot; /* family index + 1; 0 = empty */
	size_t cap;
};

static size_t hash_str(const char *s)
{
	return (size_t)hash_bytes(s, strlen(s));
}

static struct fam_index fidx;

static void fidx_insert(const struct family *fams, size_t i)
{
	size_t h = hash_str(fams[i].sig) & (fidx.cap - 1);
	while (fidx.slot[h])
		h = (h + 1) & (fidx.cap - 1);
	fidx.slot[h] = i + 1;
}

static struct family *family_find(struct family *fams, const char *sig)
{
	if (!fidx.cap)
		return NULL;
	for (size_t h = hash_str(sig) & (fidx.cap - 1); fidx.slot[h]; h = (h + 1) & (fidx.cap - 1))
		if (!strcmp(fams[fidx.slot[h] - 1].sig, sig))
			return &fams[fidx.slot[h] - 1];
	return NULL;
}

static void family_token(struct family *f, long long tokens, int line, int col)
{
	ALLOC_GROW(f->tokens, f->n + 1, f->tokens_alloc);
	ALLOC_GROW(f->pos, f->n + 1, f->pos_alloc);
	f->pos[f->n][0] = line;
	f->pos[f->n][1] = col;
	f->tokens[f->n++] = tokens;
	if (tokens > f->max_tokens)
		f->max_tokens = tokens;
}


static struct family *family_add(struct families *fams, const char *sig, size_t shape_off,
				 const struct moe_key *k, int stage, long long tokens, int line, int col)
{
	struct family *f = NULL;
	if (fidx.cap < 2 * (fams->n + 1)) {
		free(fidx.slot);
		fidx.cap = fidx.cap ? 4 * fidx.cap : 64;
		fidx.slot = xcalloc(fidx.cap, sizeof *fidx.slot);
		for (size_t i = 0; i < fams->n; i++)
			fidx_insert(fams->v, i);
	}
	f = family_find(fams->v, sig);
	if (!f) {
		ALLOC_GROW(fams->v, fams->n + 1, fams->alloc);
		f = &fams->v[fams->n++];
		memset(f, 0, sizeof *f);
		f->sig = xstrdup(sig);
		f->shape_sig = xstrdup(sig + shape_off);
		/* the label is built once per family, for messages */
		const char *colon = strrchr(k->op, ':');
		f->label = xasprintf("%s E%lld I%lld H%lld%s", colon ? colon + 1 : k->op, k->e1,
				     k->inter, k->hidden, k->extras && k->extras->n ? " (these extras)" : "");
		f->line = line;
		f->col = col;
		f->stage = stage;
		fidx_insert(fams->v, (size_t)(f - fams->v));
	}
	family_token(f, tokens, line, col);
	return f;
}

/* shape signature -> mask of the GEMM stages that have it (open addressing) */
struct pair_slot {
	const char *sig;
	unsigned mask;
};

static unsigned stage_mask(const struct pair_slot *t, size_t cap, const char *sig)
{
	for (size_t h = hash_str(sig) & (cap - 1); t[h].sig; h = (h + 1) & (cap - 1))
		if (!strcmp(t[h].sig, sig))
			return t[h].mask;
	return 0;
}

static void check_families(struct vctx *c, struct family *fams, size_t nf)
{
	const struct fi_rules *s = c->r->rules;
	size_t pcap = 64;
	while (pcap < 2 * nf)
		pcap *= 2;
	struct pair_slot *pairs = xcalloc(pcap, sizeof *pairs);
	for (size_t i = 0; i < nf; i++) {
		size_t h = hash_str(fams[i].shape_sig) & (pcap - 1);
		while (pairs[h].sig && strcmp(pairs[h].sig, fams[i].shape_sig))
			h = (h + 1) & (pcap - 1);
		pairs[h].sig = fams[i].shape_sig;
		if (fams[i].stage)
			pairs[h].mask |= 1u << fams[i].stage;
	}
	for (size_t i = 0; i < nf; i++) {
		struct family *f = &fams[i];
		if (f->max_tokens <= 0 || f->max_tokens > (1 << 30))
			continue;
		unsigned *b;
		size_t nb = firules_buckets(s, (unsigned)f->max_tokens, &b);
		struct strbuf missing = STRBUF_INIT;
		size_t nmiss = 0;
		for (size_t j = 0; j < nb; j++) {
			bool have = false;
			for (size_t m = 0; m < f->n && !have; m++)
				have = f->tokens[m] == b[j];
			if (!have) {
				sb_addf(&missing, "%s%u", nmiss ? ", " : "", b[j]);
				nmiss++;
			}
		}
		/* every token value must be one the mapper produces (§3.2) */
		for (size_t m = 0; m < f->n; m++) {
			bool ok = false;
			for (size_t j = 0; j < nb && !ok; j++)
				ok = f->tokens[m] == b[j];
			if (!ok)
				f->tokens[m] = -f->tokens[m]; /* reported per entry */
		}
		if (nmiss)
			WARN(c, "coverage", f->line, f->col, "%s: no entry for token bucket%s %s of the "
			     "%s buckets up to %lld; those token counts fall back to tactic -1",
			     f->label, nmiss == 1 ? "" : "s", missing.buf,
			     s->buckets.map == BUCKETS_HYBRID_CEIL ? "hybrid" : "power-of-two",
			     f->max_tokens);
		sb_release(&missing);
		free(b);
		/* both GEMM stages of the same shapes */
		if (f->stage) {
			bool pair = (stage_mask(pairs, pcap, f->shape_sig) & (1u << (3 - f->stage))) != 0;
			if (!pair)
				WARN(c, "coverage", f->line, f->col, "%s: GEMM%d only; GEMM%d of the same "
				     "shapes has no entry and falls back to tactic -1", f->label, f->stage,
				     3 - f->stage);
		}
	}
	free(pairs);
}

static const struct fr_op *find_op(const struct fi_rules *s, const char *op)
{
	for (unsigned i = 0; i < s->key.ops_count; i++)
		if (!strcmp(s->key.ops[i].op, op))
			return &s->key.ops[i];
	return NULL;
}

static bool runner_ok(const struct fr_op *op, const char *runner)
{
	for (unsigned i = 0; i < op->runners_count; i++)
		if (!strcmp(op->runners[i], runner))
			return true;
	return false;
}

static bool dtype_name_ok(const struct pyv *v)
{
	return v->kind == PV_NAME && str_starts(v->s, "torch.") && v->len > 6;
}

/* Extras layout of the version (§3.3). Returns false when the key cannot match. */
static bool check_extras(struct vctx *c, const struct table_entry *e, const struct moe_key *k)
{
	const struct fr_key *fk = &c->r->rules->key;
	if (fk->extras == EXTRAS_EMPTY) {
		if (k->extras->n) {
			ERR(c, "extras", e->line, e->col, "FlashInfer %s builds empty extras '()' for "
			    "this runner; this key has %zu, so it never matches", c->r->version,
			    k->extras->n);
			return false;
		}
		return true;
	}
	if (k->extras->n != fk->extras_fields_count) {
		ERR(c, "extras", e->line, e->col, "FlashInfer %s builds %u extras for MoERunner "
		    "(%s, ...); this key has %zu, so it never matches", c->r->version,
		    fk->extras_fields_count, fk->extras_fields[0].name, k->extras->n);
		return false;
	}
	bool ok = true;
	for (unsigned i = 0; i < fk->extras_fields_count; i++) {
		const struct pyv *x = &k->extras->items[i];
		const struct fr_field *f = &fk->extras_fields[i];
		bool good = f->type == FT_INT ? x->kind == PV_INT
			    : f->type == FT_BOOL ? x->kind == PV_TRUE || x->kind == PV_FALSE
						 : dtype_name_ok(x);
		if (!good) {
			ERR(c, "extras", e->line, e->col, "extras field %u '%s' must be %s, not %s", i + 1,
			    f->name, f->type == FT_INT ? "an int" : f->type == FT_BOOL ? "True or False"
									: "a torch dtype",
			    pyv_kind_name(x->kind));
			ok = false;
		}
	}
	return ok;
}

/* A JSON value names its runner class; it must be the key's (formats §2.4). */
static void check_value_runner(struct vctx *c, const struct table_entry *e, const char *key_runner)
{
	if (c->t->kind == TABLE_JSON && e->value_ok && strcmp(e->runner, key_runner))
		ERR(c, "unknown-runner", e->vline, e->vcol, "the value names runner '%s' but the key "
		    "'%s'%s", e->runner, key_runner,
		    c->r->rules->json_cache.mismatch == MISMATCH_HARD_SOFT
			    ? ": since 0.6.16 such an entry is never used" : "");
}

/* The value of an entry: (runner_id, tactic) in a module, ["Runner", tactic, ...] in a JSON
 * cache (formats §1.2, §2.6). */
static void check_value(struct vctx *c, const struct table_entry *e)
{
	const struct fi_rules *s = c->r->rules;
	if (c->t->kind == TABLE_PY) {
		if (!e->value_ok) {
			ERR(c, "value-shape", e->vline, e->vcol, "the value must be a 2-tuple (runner_id, "
			    "tactic), e.g. (0, 5) (formats §1.2)");
		} else if (e->runner_id != 0) {
			if (s->bundled.runner_slot == SLOT_INDEX)
				ERR(c, "runner-id", e->vline, e->vcol, "runner slot %lld: FlashInfer %s uses "
				    "it as an index into the op's runners (one MoERunner), so the lookup "
				    "raises IndexError; write 0", e->runner_id, c->r->version);
			else
				WARN(c, "runner-id", e->vline, e->vcol, "runner slot %lld is ignored since "
				     "0.6.16; write 0 for older versions", e->runner_id);
		}
	} else {
		if (e->value_real) {
			ERR(c, "json-value", e->vline, e->vcol, "the tactic is a JSON number with a "
			    "fraction or an exponent (1.0), not an integer: FlashInfer's load_configs "
			    "keeps it a float (_json_to_tactic), and its runners' tactics are integers "
			    "(formats §2.6)");
		} else if (!e->value || e->value->kind != PV_TUPLE || e->value->n < 2 ||
		    e->value->items[0].kind != PV_STR) {
			ERR(c, "json-value", e->vline, e->vcol, "the value must be [\"<Runner>\", tactic]: "
			    "FlashInfer's load_configs raises on %s (formats §2.6)",
			    !e->value ? "a number or object" : e->value->kind != PV_TUPLE
				     ? "a non-list" : e->value->n < 2 ? "a list shorter than 2"
									: "a non-string runner name");
		} else if (e->value->n > 2 && c->r->rules->json_cache.entry_value == VALUE_POLICY) {
			/* 0.7.1+: [runner, tactic, profiling policy, selection record] */
			if (e->value->items[2].kind != PV_TUPLE)
				ERR(c, "json-value", e->vline, e->vcol, "the 3rd value element must be a "
				    "profiling-policy list: FlashInfer %s raises TypeError on a %s",
				    c->r->version, pyv_kind_name(e->value->items[2].kind));
		} else if (e->value->n > 2) {
			WARN(c, "json-value", e->vline, e->vcol, "the value has %zu items; FlashInfer "
			     "%s uses only the first two", e->value->n, c->r->version);
		}
		if (e->key_len && e->key[0] == '_')
			WARN(c, "json-reserved", e->line, e->col, "'%.*s' starts with '_' but is not a "
			     "reserved name (_metadata, _records, _generation): FlashInfer reads it as "
			     "a tactic entry", (int)(e->key_len > 60 ? 60 : e->key_len), e->key);
	}
}

/* A value's item as JSON text in the data's spelling (["a", 1, null]); what JSON cannot hold
 * as a policy item (a dict) as "?", which never parses. */
static void pyv_json(const struct pyv *x, struct strbuf *out)
{
	switch (x->kind) {
	case PV_STR: {
		json_t *j = json_stringn_nocheck(x->s, x->len);
		char *t = json_dumps(j, JSON_ENCODE_ANY);
		sb_adds(out, t ? t : "?");
		free(t);
		json_decref(j);
		break;
	}
	case PV_INT: sb_addf(out, "%lld", x->i); break;
	case PV_NONE: sb_adds(out, "null"); break;
	case PV_TRUE: sb_adds(out, "true"); break;
	case PV_FALSE: sb_adds(out, "false"); break;
	case PV_TUPLE:
	case PV_LIST:
		sb_addc(out, '[');
		for (size_t i = 0; i < x->n; i++) {
			if (i)
				sb_adds(out, ", ");
			pyv_json(&x->items[i], out);
		}
		sb_addc(out, ']');
		break;
	default: sb_adds(out, "?"); break;
	}
}

/* A JSON entry's profiling policy against the one its op requests, as FlashInfer's tune mode
 * compares them (validate_policy_used): a server tuning at start profiles a mismatch again. */
static void check_policy(struct vctx *c, const struct table_entry *e, const char *opname,
			 const struct op_def *op)
{
	if (c->t->kind != TABLE_JSON || !op || !e->value_ok || e->value->kind != PV_TUPLE)
		return;
	if (e->value->n > 2 && e->value->items[2].kind != PV_TUPLE)
		return; /* no list: FlashInfer raises on the file (json-value) */
	struct strbuf got = STRBUF_INIT;
	if (e->value->n > 2)
		pyv_json(&e->value->items[2], &got);
	if (!validate_policy_used(c->r->rules, op, got.buf, POLICY_FILE)) {
		if (got.buf)
			WARN(c, "op-policy", e->vline, e->vcol, "op '%s' requests the profiling policy "
			     "%s; this entry has %s, so a server tuning at start profiles it again "
			     "(autotuner/autotuner.py:2394-2400)", opname, op->policy, got.buf);
		else
			WARN(c, "op-policy", e->vline, e->vcol, "op '%s' requests the profiling policy "
			     "%s; this entry has none, which FlashInfer %s reads as %s, so a server "
			     "tuning at start profiles it again (autotuner/autotuner.py:2394-2400)",
			     opname, op->policy, c->r->version, op->policy_unset);
	}
	sb_release(&got);
}

/* An entry of another op the servers tune at start (configs/ops: fp4_gemm, the TensorRT-LLM-gen
 * MoE; issue #39): its runner, profile arity, extras arity, tactic and profiling policy by
 * the op's data. */
static bool check_op_entry(struct vctx *c, const struct table_entry *e, const struct moe_key *k,
			   const struct op_def *op)
{
	bool ok = true;
	const struct op_runner *r = opdef_runner(op, k->runner);
	if (!r) {
		ERR(c, "unknown-runner", e->line, e->col, "runner '%s' does not serve op '%s' (%s: %s%s)",
		    k->runner, k->op, op->rel, op->runners[0].name, op->runners_count > 1 ? ", ..." : "");
		ok = false;
	}
	check_value_runner(c, e, k->runner);
	if (k->profile->n != op->inputs) {
		ERR(c, "profile-arity", e->line, e->col, "the profile has %zu shapes; op '%s' has %u "
		    "inputs (%s)", k->profile->n, k->op, op->inputs, op->rel);
		ok = false;
	}
	size_t nx = k->extras ? k->extras->n : 0;
	if (k->tuple_len == 4 && nx != op->extras_count) {
		ERR(c, "extras", e->line, e->col, "op '%s' keys carry %u extras (%s); this key has %zu, "
		    "so it never matches", k->op, op->extras_count, op->rel, nx);
		ok = false;
	}
	if (!opdef_keys_known(op, &c->v))
		WARN(c, "key-form", e->line, e->col, "op '%s': tunetab knows its key layout from "
		     "FlashInfer %s on; %s may build another (docs/research/issue39-deployments.md §5)",
		     k->op, op->flashinfer_min, c->r->version);
	if (!e->value_ok || !e->tactic)
		return ok;
	unsigned sm = c->r->device ? device_sm(c->r->device) : 0;
	const struct op_tactics *tl = r && sm ? opdef_tactics(r, sm) : NULL;
	if (e->tactic->kind == PV_INT && e->tactic->i != -1 && tl && tl->count &&
	    (e->tactic->i < 0 || e->tactic->i >= (long long)tl->count))
		ERR(c, "tactic-range", e->vline, e->vcol, "tactic %lld: %s on SM%u has tactics 0 to %u "
		    "(%s); FlashInfer raises on it", e->tactic->i, k->runner, sm, tl->count - 1, tl->read);
	check_policy(c, e, k->op, op);
	return ok;
}

/* A key whose text, but for the token count, equals the first key of a family that passed
 * every key check needs no parse: same text, same verdict (large tables). Returns true when
 * e was such a key, and checked. */
static bool check_like_family(struct vctx *c, const struct table_entry *e, struct family *fams)
{
	const char *t0 = e->key, *tend = e->key + e->key_len, *prof = NULL;
	for (const char *q = t0; q + 4 <= tend; q++)
		if (q[0] == ',' && q[1] == ' ' && q[2] == '(' && q[3] == '(') {
			prof = q + 4;
			break;
		}
	if (prof) {
		const char *dig = prof;
		long long tokens = 0;
		while (dig < tend && *dig >= '0' && *dig <= '9' && dig - prof < 12)
			tokens = tokens * 10 + (*dig++ - '0');
		bool canon_digits = dig > prof && dig < tend && *dig == ',' &&
				    !(*prof == '0' && dig - prof > 1);
		if (canon_digits) {
			struct strbuf *sig = &c->sig;
			sb_reset(sig);
			sb_add(sig, t0, (size_t)(prof - t0));
			sb_add(sig, dig, (size_t)(tend - dig));
			struct family *f = family_find(fams, sig->buf);
			if (f && f->clean) {
				family_token(f, tokens, e->line, e->col);
				check_value_runner(c, e, f->runner);
				if (t0[0] == '(' && t0[1] == '\'') { /* the key's op, for the message */
					const char *q = memchr(t0 + 2, '\'', (size_t)(prof - t0 - 2));
					char opname[128];
					snprintf(opname, sizeof opname, "%.*s", q ? (int)(q - t0 - 2) : 0,
						 t0 + 2);
					check_policy(c, e, opname, c->moe_def);
				}
				if (e->value_ok && f->stage)
					check_tactic(c, e, &f->lists, f->stage);
				return true;
			}
		}
	}
	return false;
}

/* The dimensions of a decoded MoE key agree (experts, hidden size, packing). Returns false
 * after reporting when they do not. */
static bool check_shapes(struct vctx *c, const struct table_entry *e, const struct moe_key *k)
{
	size_t shape_errors = diags_count(c->d, SEV_ERROR);
	if (k->e1 != k->e2)
		ERR(c, "shape", e->line, e->col, "fc1 has %lld experts but fc2 has %lld", k->e1, k->e2);
	if (k->act_pack != 1 && k->act_pack != 2)
		ERR(c, "shape", e->line, e->col, "input width %lld does not fit hidden size %lld (fc2 "
		    "N): expected %lld (bf16/fp8) or %lld (packed fp4)", k->in_k, k->hidden, k->hidden,
		    k->hidden / 2);
	if (k->w_pack == 0 || (k->k2 * k->w_pack != k->n1 && k->k2 * k->w_pack * 2 != k->n1))
		ERR(c, "shape", e->line, e->col, "packing factors disagree: fc1 K %lld packs hidden "
		    "%lld by %s, and fc2 K %lld does not unpack to fc1 N %lld or its half",
		    k->k1, k->hidden, k->w_pack ? "an integer" : "no integer", k->k2, k->n1);
	else if (k->act_pack == 2 && k->w_pack != 2 && k->w_pack != 16)
		ERR(c, "shape", e->line, e->col, "fp4 activations (input %lld = hidden/2) need fp4 "
		    "weights packed 2 per uint8 or 16 per int64, not %d per element", k->in_k,
		    k->w_pack);
	else if (k->act_pack == 1 && k->w_pack != 1 && k->w_pack != 2 && k->w_pack != 16)
		ERR(c, "shape", e->line, e->col, "weights pack %d elements per value, which matches "
		    "no dtype", k->w_pack);
	return diags_count(c->d, SEV_ERROR) == shape_errors;
}

/* Per-entry checks. Returns true when the key could be looked up by this version. */
static bool check_entry(struct vctx *c, size_t idx, struct families *fams, bool *form_ok)
{
	const struct table_entry *e = &c->t->entries[idx];
	const struct fi_rules *s = c->r->rules;
	*form_ok = true;
	if (e->dup_of >= 0) {
		const struct table_entry *o = &c->t->entries[e->dup_of];
		WARN(c, "duplicate-key", e->line, e->col, "duplicate key (first at line %d); %s keeps "
		     "the last value", o->line, c->t->kind == TABLE_PY ? "Python" : "json.load");
	}
	check_value(c, e);
	if (check_like_family(c, e, fams->v))
		return true;
	size_t key_findings = c->d->n;
	const struct pyv *tuple = key_parse_canonical(e->key, e->key_len, &c->a);
	bool canonical = tuple != NULL;
	struct diags kd = DIAGS_INIT;
	if (!tuple)
		tuple = key_parse(e->key, e->key_len, &c->a, c->t->path, e->line, e->col, &kd);
	if (!tuple) {
		ERR(c, "key-syntax", e->line, e->col, "the key is not a Python tuple literal: %s",
		    kd.n ? kd.v[0].msg : "unreadable");
		diags_release(&kd);
		*form_ok = false;
		return false;
	}
	diags_release(&kd);
	struct moe_key k;
	if (key_decode(tuple, &k)) {
		ERR(c, "key-syntax", e->line, e->col, "%s", k.why);
		*form_ok = false;
		return false;
	}
	struct strbuf canon = c->canon;
	sb_reset(&canon);
	if (!canonical)
		pyv_repr(tuple, &canon);
	c->canon = canon; /* reused across entries; released by validate_table */
	bool lookupable = true;
	if (!canonical && (canon.len != e->key_len || memcmp(canon.buf, e->key, e->key_len))) {
		ERR(c, "key-canonical", e->line, e->col, "the key is not Python's str() of its tuple, "
		    "which is what FlashInfer looks up; it should read: %s", canon.buf);
		lookupable = false;
	}
	if ((unsigned)k.tuple_len != s->key.tuple) {
		*form_ok = false;
		ERR(c, "key-form", e->line, e->col, "a %d-tuple key; FlashInfer %s builds %u-tuple keys "
		    "(op, runner, profile%s)", k.tuple_len, c->r->version, s->key.tuple,
		    s->key.tuple == 4 ? ", extras" : "");
		return false;
	}
	const struct op_def *other = c->data->ops ? opdefs_find(c->data->ops, k.op) : NULL;
	if (other && strcmp(other->builder, "cutlass_moe"))
		return check_op_entry(c, e, &k, other) && lookupable;
	if (k.extras && !check_extras(c, e, &k)) {
		*form_ok = false;
		return false;
	}
	const struct fr_op *op = find_op(s, k.op);
	if (!op) {
		WARN(c, "unknown-op", e->line, e->col, "op '%s' is not one FlashInfer %s tunes with "
		     "these tables (known: %s, %s)", k.op, c->r->version, s->key.ops[0].op,
		     s->key.ops_count > 1 ? s->key.ops[1].op : "");
		return lookupable;
	}
	if (!runner_ok(op, k.runner)) {
		ERR(c, "unknown-runner", e->line, e->col, "runner '%s' does not serve op '%s' (FlashInfer "
		    "%s: %s)", k.runner, k.op, c->r->version, op->runners[0]);
		lookupable = false;
	}
	check_value_runner(c, e, k.runner);
	check_policy(c, e, k.op, c->moe_def);
	if (k.profile->n != op->shapes) {
		ERR(c, "profile-arity", e->line, e->col, "the profile has %zu shapes; op '%s' has %u "
		    "inputs", k.profile->n, k.op, op->shapes);
		return false;
	}
	key_decode_moe(&k);
	if (!k.moe_ok) {
		ERR(c, "shape", e->line, e->col, "%s", k.why);
		return lookupable;
	}
	if (!check_shapes(c, e, &k))
		return lookupable;
	/* family for coverage */
	/* Family = the canonical key without its token count: the same shapes, op and extras.
	 * Built from the key text itself (the hot path of large tables: no printing). */
	const char *text = canonical ? e->key : canon.buf;
	size_t tlen = canonical ? e->key_len : canon.len;
	const char *prof = NULL;
	for (size_t i = 0; i + 4 <= tlen; i++)
		if (text[i] == ',' && text[i + 1] == ' ' && text[i + 2] == '(' && text[i + 3] == '(') {
			prof = text + i + 4;
			break;
		}
	const char *op_end = memchr(text + 2, ',', tlen > 2 ? tlen - 2 : 0);
	if (prof && op_end && lookupable) {
		const char *after = prof;
		while (after < text + tlen && *after != ',')
			after++;
		struct strbuf sig = STRBUF_INIT;
		sb_add(&sig, text, (size_t)(prof - text));
		sb_add(&sig, after, (size_t)(text + tlen - after));
		struct family *f = family_add(fams, sig.buf, (size_t)(op_end - text), &k,
					      (int)op->stage, k.tokens, e->line, e->col);
		sb_release(&sig);
		if (f->n == 1) {
			/* the first key of a family: later keys reuse its verdict when it was clean */
			f->runner = xstrdup(k.runner);
			f->clean = canonical && c->d->n == key_findings;
			key_lists(c, &k, &f->lists);
		}
	}
	if (e->value_ok && op->stage) {
		struct key_lists kl;
		key_lists(c, &k, &kl);
		check_tactic(c, e, &kl, (int)op->stage);
	}
	return lookupable;
}

static void check_json(struct vctx *c)
{
	const struct table *t = c->t;
	const struct fr_json *js = &c->r->rules->json_cache;
	if (!js->supported) {
		c->r->never_loaded = true;
		ERR(c, "never-loaded", 1, 1, "FlashInfer %s has no JSON autotune cache (added in "
		    "0.6.7): this file is never read", c->r->version);
		return;
	}
	if (!t->has_metadata) {
		NOTE(c, "json-metadata", 1, 1, "no _metadata: FlashInfer accepts the file without "
		     "checking its environment, and stamps it on the next save (formats §2.3)");
	} else if (!t->metadata_is_object) {
		ERR(c, "json-reserved", 1, 1, "_metadata is not an object: %s",
		    js->mismatch == MISMATCH_HARD_SOFT ? "every field counts as a soft mismatch and the "
							 "whole file is ignored"
						       : "the whole file is ignored");
	} else {
		for (size_t i = 0; i < t->n_meta; i++) {
			const struct table_meta *m = &t->meta[i];
			if (!m->value)
				ERR(c, "json-metadata", m->line, m->col, "_metadata.%s is %s, not a string: "
				     "FlashInfer compares type-sensitively, so it never equals the current "
				     "value and the file is ignored", m->name, m->json);
		}
		for (unsigned i = 0; i < js->metadata_count; i++) {
			const char *f = js->metadata[i];
			const struct table_meta *m = meta_field(t, f);
			if (!m)
				ERR(c, "json-metadata", 1, 1, "_metadata has no '%s', which FlashInfer %s "
				    "checks: %s", f, c->r->version,
				     js->mismatch == MISMATCH_HARD_SOFT
					     ? "a soft mismatch: the file is ignored on load and replaced on "
					       "the next save"
					     : "the file is ignored and never saved to");
		}
		const char *fv = meta_value(t, "flashinfer_version");
		if (fv && strcmp(fv, "*") && strcmp(fv, c->r->version))
			ERR(c, "json-metadata", meta_field(t, "flashinfer_version")->line, 1,
			    "_metadata.flashinfer_version '%s' differs from the target %s: the check "
			    "is exact, so that version ignores the whole file (use \"*\" to match any)",
			    fv, c->r->version);
		const char *gpu = meta_value(t, "gpu");
		if (gpu && strcmp(gpu, "*")) {
			if (!c->r->device_from)
				set_device(c, gpu, "_metadata.gpu");
			else if (strcmp(gpu, c->r->device_name))
				ERR(c, "device-mismatch", meta_field(t, "gpu")->line, 1, "_metadata.gpu is "
				    "'%s' but the target device is '%s': FlashInfer ignores the file there",
				    gpu, c->r->device_name);
			if (!device_find(c->data->devices, gpu)) {
				char near[512];
				device_near_text(c->data->devices, gpu, near, sizeof near);
				WARN(c, "unknown-device", meta_field(t, "gpu")->line, 1, "no known GPU reports "
				     "'%s'%s", gpu, near);
			}
		}
	}
	if (t->records) {
		bool reserved = false;
		for (unsigned i = 0; i < js->reserved_count; i++)
			reserved |= !strcmp(js->reserved[i], "_records");
		if (!reserved)
			WARN(c, "json-reserved", 1, 1, "_records is not reserved before 0.6.18rc2: "
			     "FlashInfer %s reads it as a tactic entry and raises on its value",
			     c->r->version);
		else if (!t->records_is_object)
			ERR(c, "json-reserved", 1, 1, "_records must be an object: FlashInfer raises "
			    "ValueError (formats §2.6)");
	}
	if (t->has_generation) {
		char hex[65];
		if (!t->generation)
			ERR(c, "json-generation", 1, 1, "_generation must be a string");
		else if (table_generation(t, hex) == 0 && strcmp(hex, t->generation)) {
			/* load_configs pops it unchecked; save_configs compares the file's with what
			 * it said at load, so a stale one never fails (0.7.4 autotuner.py:4879-4881,
			 * 4693-4709; formats §2.2, §2.5) */
			struct strbuf q = STRBUF_INIT;
			sb_add_shell(&q, t->path);
			WARN(c, "json-generation", 1, 1, "_generation is %.16s..., but the SHA-256 of "
			     "the content is %.16s...: the file was edited after it was written (FlashInfer "
			     "%s does not check it on load); to write a correct one, run: tunetab convert %s "
			     "-o %s", t->generation, hex, c->r->version, q.buf, q.buf);
			sb_release(&q);
		}
	}
}

int validate_table(const struct validate_data *data, const struct table *t,
		   const struct validate_opts *o, struct validate_result *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	struct vctx c = { .data = data, .t = t, .o = o, .r = r, .d = d };
	c.moe_def = data->ops ? opdefs_cutlass_moe(data->ops) : NULL;
	int rc = pick_version(&c);
	if (rc)
		return rc;
	r->entries = t->n;
	check_file_name(&c);
	if (t->kind == TABLE_JSON)
		check_json(&c);
	if (!r->never_loaded) {
		struct families all = { NULL, 0, 0 };
		size_t wrong_form = 0, lookupable = 0;
		size_t mark = d->n;
		for (size_t i = 0; i < t->n; i++) {
			bool form_ok;
			arena_reset(&c.a); /* each key's parse tree lives only while it is checked */
			if (check_entry(&c, i, &all, &form_ok))
				lookupable++;
			wrong_form += !form_ok;
		}
		struct family *fams = all.v;
		size_t nf = all.n;
		if (t->n && wrong_form == t->n) {
			/* one clear error instead of one per key */
			size_t keep = mark;
			int extras_reason = 0;
			for (size_t i = mark; i < d->n; i++) {
				struct diag *x = &d->v[i];
				if (!strcmp(x->id, "key-form") || !strcmp(x->id, "extras")) {
					extras_reason |= !strcmp(x->id, "extras");
					free(x->id);
					free(x->file);
					free(x->msg);
				} else {
					d->v[keep++] = *x;
				}
			}
			d->n = keep;
			r->never_loaded = true;
			const struct fi_rules *s = r->rules;
			if (extras_reason)
				diags_add(d, SEV_ERROR, "never-loaded", t->path, 0, 0, "none of the %zu keys "
					  "can ever hit in FlashInfer %s: its MoERunner keys end in %s "
					  "extras and no key here has them (formats §1.3, §3.3)", t->n,
					  r->version, s->key.extras == EXTRAS_EMPTY ? "empty '()'"
					  : s->key.extras_fields_count == 17 ? "the 17-field (no ranks, 0.7.2+)"
									     : "the 20-field");
			else
				diags_add(d, SEV_ERROR, "never-loaded", t->path, 0, 0, "none of the %zu keys "
					  "can ever hit in FlashInfer %s: it builds %u-tuple keys (op, "
					  "runner, profile%s) and every key here has another form%s", t->n,
					  r->version, s->key.tuple, s->key.tuple == 4 ? ", extras" : "",
					  s->key.tuple == 4 ? "; 3-tuple keys stopped matching in 0.6.13 "
							      "(formats §1.3, §6.4)" : "");
		} else {
			check_families(&c, fams, nf);
			/* token values the mapper never produces (marked negative by check_families) */
			for (size_t i = 0; i < nf; i++)
				for (size_t m = 0; m < fams[i].n; m++)
					if (fams[i].tokens[m] < 0)
						diags_add(d, SEV_ERROR, "token-bucket", t->path, fams[i].pos[m][0],
							  fams[i].pos[m][1], "%s: token dimension %lld is not a "
							  "bucket FlashInfer %s maps any token count to "
							  "(%s), so that entry never hits", fams[i].label,
							  -fams[i].tokens[m], r->version,
							  bucket_map_name(r->rules->buckets.map));
		}
		for (size_t i = 0; i < nf; i++) {
			free(fams[i].sig);
			free(fams[i].shape_sig);
			free(fams[i].label);
			free(fams[i].runner);
			free(fams[i].tokens);
			free(fams[i].pos);
		}
		free(fams);
		free(fidx.slot);
		fidx.slot = NULL;
		fidx.cap = 0;
	}
	if (!t->n && !r->never_loaded)
		diags_add(d, SEV_WARNING, "no-entries", t->path, 0, 0, "the table has no entries: a "
			  "server finds nothing in it and profiles every shape at start (or runs its "
			  "fallback tactic)");
	if (!r->device && r->device_from == NULL)
		diags_add(d, SEV_NOTE, "no-catalog", t->path, 0, 0, "no device known (give --device): "
			  "tactic ids not checked");
	for (int i = 0; i < DT_COUNT; i++)
		for (int ff = 0; ff < 2; ff++)
			if (c.list_state[i][ff] == 1)
				tactic_list_release(&c.lists[i][ff]);
	arena_release(&c.a);
	sb_release(&c.canon);
	sb_release(&c.sig);
	return TT_OK;
}

/* A tunetab provenance file against the tables beside it that it names (docs/fleet.md
 * "Provenance file"): every key of each table must be in it with the same tactic, and every
 * entry of it in each table. A table edited after generate, or a sidecar copied from another
 * run, is found here. */
int validate_provenance(const char *path, size_t *entries, struct diags *d)
{
	*entries = 0;
	struct provenance pv;
	int rc = prov_read(path, &pv, d);
	if (rc)
		return rc;
	*entries = pv.n;
	size_t *by_key = prov_key_index(&pv);
	bool *seen = xcalloc(pv.n ? pv.n : 1, 1);
	const char *slash = strrchr(path, '/');
	for (int k = 0; k < 2; k++) {
		const char *name = k ? pv.json_file : pv.py_file;
		if (!name)
			continue;
		char *tpath = slash ? xasprintf("%.*s/%s", (int)(slash - path), path, name) : xstrdup(name);
		struct table t;
		struct diags td = DIAGS_INIT;
		memset(seen, 0, pv.n ? pv.n : 1);
		if (table_read(tpath, &t, &td)) {
			diags_add(d, SEV_ERROR, "provenance", path, 0, 0, "names '%s', which cannot be read "
				  "as a table beside it", name);
			diags_release(&td);
			table_release(&t);
			free(tpath);
			continue;
		}
		diags_release(&td);
		size_t missing = 0, differ = 0;
		for (size_t i = 0; i < t.n; i++) {
			const struct table_entry *te = &t.entries[i];
			if (te->dup_of >= 0 || !te->value_ok)
				continue;
			long at = prov_find_key(&pv, by_key, te->key, te->key_len);
			if (at < 0) {
				if (!missing++)
					diags_add(d, SEV_ERROR, "provenance", tpath, te->line, te->col, "this key "
						  "is not in the provenance file %s (the table changed after it was "
						  "written?)", path);
				continue;
			}
			const struct prov_entry *hit = &pv.entries[at];
			seen[at] = true;
			struct strbuf sb = STRBUF_INIT;
			pyv_repr(te->tactic, &sb);
			if (strcmp(sb.buf, hit->tactic) && !differ++)
				diags_add(d, SEV_ERROR, "provenance", tpath, te->vline, te->vcol, "tactic %s "
					  "here, but the provenance file records %s (%s)", sb.buf, hit->tactic,
					  prov_source_name(hit->source));
			sb_release(&sb);
		}
		size_t absent = 0;
		for (size_t i = 0; i < pv.n; i++)
			absent += !seen[i];
		if (missing > 1 || differ > 1)
			diags_add(d, SEV_ERROR, "provenance", tpath, 0, 0, "%zu keys not in the provenance "
				  "file, %zu tactics that differ from it", missing, differ);
		if (absent)
			diags_add(d, SEV_ERROR, "provenance", path, 0, 0, "%zu of its entries are not in "
				  "%s", absent, name);
		table_release(&t);
		free(tpath);
	}
	free(seen);
	free(by_key);
	prov_release(&pv);
	return TT_OK;
}

/* ---- a validate run ---- */

static const char *const format_names[] = {
	[VALIDATE_TEXT] = "text", [VALIDATE_JSON] = "json", [VALIDATE_GITHUB] = "github",
	[VALIDATE_JUNIT] = "junit",
};
const char validate_format_list[] = "text, json, github, junit";

int validate_format_parse(const char *name, enum validate_format *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(format_names); i++)
		if (!strcmp(name, format_names[i])) {
			*f = (enum validate_format)i;
			return 0;
		}
	return -1;
}

static void files_add(struct validate_files *f, const char *s)
{
	ALLOC_GROW(f->v, f->n + 1, f->cap);
	f->v[f->n++] = xstrdup(s);
}

void validate_files_release(struct validate_files *f)
{
	free_strings(f->v, f->n);
	memset(f, 0, sizeof *f);
}

/* Every table under dir: *.py and *.json, not hidden; journals and everything else are
 * skipped. Returns 0 or an errno value. */
static int collect_tables(const char *dir, struct validate_files *out, int depth)
{
	if (depth > 32)
		return ELOOP;
	DIR *dh = opendir(dir);
	if (!dh)
		return errno;
	struct dirent *de;
	int err = 0;
	while (!err && (de = readdir(dh))) {
		if (de->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		struct stat sb;
		if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
			err = collect_tables(path, out, depth + 1);
		else if (str_ends(de->d_name, ".py") || str_ends(de->d_name, ".json"))
			files_add(out, path);
		free(path);
	}
	closedir(dh);
	return err;
}

/* A warning for each folder of the files that holds the undo log of an interrupted generate,
 * merge or install (tableset.h): the files there may come from two runs, and a provenance file
 * from one checked against a table from the other fails for that reason alone. */
static void warn_interrupted(const struct validate_files *f, struct diags *d)
{
	struct validate_files seen = { 0 };
	for (size_t i = 0; i < f->n; i++) {
		const char *slash = strrchr(f->v[i], '/');
		char *dir = slash ? xstrndup(f->v[i], (size_t)(slash - f->v[i]) + (slash == f->v[i]))
				  : xstrdup(".");
		bool again = false;
		for (size_t k = 0; k < seen.n && !again; k++)
			again = !strcmp(seen.v[k], dir);
		const char *who = NULL;
		char *undo = again ? NULL : tableset_interrupted(dir, &who);
		if (undo)
			diags_add(d, SEV_WARNING, "io", undo, 0, 0, "an interrupted %s left this journal: "
				  "the files beside it may come from two runs; run that %s again (it "
				  "restores them first)", who, who);
		if (!again)
			files_add(&seen, dir);
		free(undo);
		free(dir);
	}
	validate_files_release(&seen);
}

int validate_collect(char *const *args, size_t n, struct validate_files *out, struct diags *d)
{
	for (size_t i = 0; i < n; i++) {
		struct stat sb;
		if (stat(args[i], &sb) || !S_ISDIR(sb.st_mode)) {
			files_add(out, args[i]);
			continue;
		}
		size_t before = out->n;
		int err = collect_tables(args[i], out, 0);
		if (err)
			return diag_error(d, path_err_status(err), "io", args[i], 0, 0, "%s",
					  path_strerror(args[i], err));
		if (out->n == before)
			return diag_error(d, TT_INVALID, "io", args[i], 0, 0, "no tables (.py or .json) "
					  "under this folder");
		qsort(out->v + before, out->n - before, sizeof *out->v, str_ptr_cmp);
	}
	warn_interrupted(out, d);
	return TT_OK;
}

/* The FlashInfer version the tunetab provenance file beside path gives it (a generate or
 * merge output names its tables, docs/fleet.md), or NULL; *dtype the dtype of its runs when
 * they all have one (else -1). Caller frees. */
static char *sidecar_version(const char *path, int *dtype)
{
	*dtype = -1;
	struct provenance pv;
	if (prov_find_beside(path, base_name(path), &pv, NULL))
		return NULL;
	char *found = pv.flashinfer_version ? xstrdup(pv.flashinfer_version) : NULL;
	for (size_t k = 0; found && k < pv.nruns; k++) {
		json_t *run = json_loads(pv.runs[k].json, 0, NULL);
		const char *ds = json_string_value(json_object_get(run, "dtype"));
		enum dtype dt;
		int one = ds && !dtype_parse(ds, &dt) ? (int)dt : -2;
		*dtype = k == 0 || *dtype == one ? one : -2;
		json_decref(run);
	}
	if (*dtype < 0)
		*dtype = -1;
	prov_release(&pv);
	return found;
}

/* One file against the version o names: a provenance file against its tables, or a table
 * against the rules (with the version and dtype of its provenance file, when there is one). */
static void check_one(const struct validate_data *data, const char *path,
		      const struct validate_opts *opts, struct validate_check *c)
{
	const char *bn = base_name(path);
	c->path = path;
	c->provenance = str_starts(bn, "tunetab_provenance_") && str_ends(bn, ".json");
	if (c->provenance) {
		c->status = validate_provenance(path, &c->provenance_entries, &c->d);
		return;
	}
	struct table t;
	memset(&t, 0, sizeof t);
	c->status = table_read(path, &t, &c->d);
	if (c->status == TT_OK) {
		struct validate_opts o = *opts;
		int pdt = -1;
		char *pver = sidecar_version(path, &pdt);
		o.provenance_version = pver;
		if (o.dtype < 0 && pdt >= 0)
			o.dtype = pdt; /* the dtype every run of the provenance had */
		c->status = validate_table(data, &t, &o, &c->r, &c->d);
		c->checked = c->status == TT_OK;
		free(pver);
	}
	table_release(&t);
}

int validate_run(const struct validate_request *req, struct validate_report *out)
{
	memset(out, 0, sizeof *out);
	const struct validate_files *files = req->files;
	struct validate_opts o = req->opts;
	bool all = o.flashinfer && !strcmp(o.flashinfer, "all");
	size_t nver = all ? req->data->rules->n : 1;
	out->files = files->n;
	out->strict = req->strict;
	out->v = xcalloc(files->n * nver + 1, sizeof *out->v);
	for (size_t ver = 0; ver < nver && out->status != TT_USAGE; ver++) {
		if (all)
			o.flashinfer = req->data->rules->v[ver]->release;
		for (size_t f = 0; f < files->n; f++) {
			struct validate_check *c = &out->v[out->n++];
			c->d = (struct diags)DIAGS_INIT;
			c->release = all ? o.flashinfer : NULL;
			check_one(req->data, files->v[f], &o, c);
			if (c->status == TT_USAGE) {
				out->status = TT_USAGE;
				break;
			}
			if (c->status == TT_INTERNAL)
				out->status = TT_INTERNAL;
			c->errors = diags_count(&c->d, SEV_ERROR);
			c->warnings = diags_count(&c->d, SEV_WARNING);
			c->notes = diags_count(&c->d, SEV_NOTE);
			c->failed = c->errors || (req->strict && c->warnings);
			out->failed += c->failed;
			out->errors += c->errors;
			out->warnings += c->warnings;
			out->notes += c->notes;
			if (c->failed && out->status == TT_OK)
				out->status = TT_INVALID;
		}
	}
	return out->status;
}

void validate_report_release(struct validate_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		diags_release(&r->v[i].d);
	free(r->v);
	memset(r, 0, sizeof *r);
}

/* Length of the UTF-8 sequence at s (1-4) and its code point, or 0 when it is not one
 * (overlong, a surrogate, above U+10FFFF, cut short). */
static size_t utf8_decode(const unsigned char *s, unsigned *cp)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	if (!n || s[0] > 0xf4)
		return 0;
	unsigned v = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (v < min[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* s as XML 1.0 character data (attr: inside a "-quoted attribute, where tabs and newlines
 * must be references to survive). XML 1.0 has no way to carry other control characters, not
 * even as references, nor U+FFFE/U+FFFF or bytes that are not UTF-8: those are written as
 * visible escapes, \x01 and \uFFFE, the way Python would show them. */
static void xml_escape(const char *str, bool attr, struct strbuf *out)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		unsigned cp = 0;
		size_t n = *s < 0x80 ? 1 : utf8_decode(s, &cp);
		if (*s == '<')
			sb_adds(out, "&lt;");
		else if (*s == '>')
			sb_adds(out, "&gt;");
		else if (*s == '&')
			sb_adds(out, "&amp;");
		else if (*s == '"')
			sb_adds(out, "&quot;");
		else if (*s == '\r' || (attr && (*s == '\n' || *s == '\t')))
			sb_addf(out, "&#x%x;", *s);
		else if ((*s < 0x20 && *s != '\n' && *s != '\t') || n == 0)
			sb_addf(out, "\\x%02x", *s);
		else if (n > 1 && (cp == 0xfffe || cp == 0xffff))
			sb_addf(out, "\\u%04x", cp);
		else
			sb_add(out, s, n ? n : 1);
		s += n ? n : 1;
	}
}

/* A JSON string of s; bytes that are not UTF-8 become U+FFFD (jansson takes only UTF-8). */
static json_t *json_text(const char *str)
{
	json_t *j = json_string(str);
	if (j)
		return j;
	struct strbuf sb = STRBUF_INIT;
	for (const unsigned char *s = (const unsigned char *)str; *s;) {
		unsigned cp;
		size_t n = *s < 0x80 ? 1 : utf8_decode(s, &cp);
		sb_add(&sb, n ? (const char *)s : "\xef\xbf\xbd", n ? n : 3);
		s += n ? n : 1;
	}
	j = json_string(sb.buf);
	sb_release(&sb);
	return j;
}

static json_t *json_opt(const char *s)
{
	return s ? json_text(s) : json_null();
}

static void json_line(json_t *o, struct strbuf *out)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	sb_adds(out, s);
	sb_addc(out, '\n');
	free(s);
	json_decref(o);
}

/* What one check looked at and found, for the summary; the same keys for every kind. */
static json_t *result_json(const struct validate_check *c)
{
	const struct validate_result *r = c->checked ? &c->r : NULL;
	bool dev = r && r->device_name[0];
	json_int_t entries = r ? (json_int_t)r->entries : (json_int_t)c->provenance_entries;
	return json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:s}",
			 "file", json_text(c->path), "kind", c->provenance ? "provenance" : "table",
			 "flashinfer_version", json_opt(r ? r->version : c->release),
			 "version_from", json_opt(r ? r->version_from : NULL),
			 "rules", json_opt(r ? r->rules->id : NULL),
			 "device", json_opt(dev ? r->device_name : NULL),
			 "device_from", json_opt(dev ? r->device_from : NULL),
			 "entries", r || (c->provenance && c->status == TT_OK) ? json_integer(entries)
										: json_null(),
			 "errors", (json_int_t)c->errors, "warnings", (json_int_t)c->warnings,
			 "notes", (json_int_t)c->notes, "result", c->failed ? "fail" : "ok");
}

void validate_write_json(const struct validate_report *r, struct strbuf *out)
{
	json_t *results = json_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct validate_check *c = &r->v[i];
		for (size_t k = 0; k < c->d.n; k++) {
			const struct diag *x = &c->d.v[k];
			json_line(json_pack("{s:o, s:i, s:i, s:s, s:s, s:o}",
					    "file", json_text(x->file ? x->file : c->path), "line", x->line,
					    "col", x->col, "severity", diag_sev_name(x->sev), "check", x->id,
					    "message", json_text(x->msg)), out);
		}
		json_array_append_new(results, result_json(c));
	}
	json_line(json_pack("{s:{s:I, s:I, s:I, s:I, s:I, s:b, s:s, s:o}}", "summary",
			    "files", (json_int_t)r->files, "failed", (json_int_t)r->failed,
			    "errors", (json_int_t)r->errors, "warnings", (json_int_t)r->warnings,
			    "notes", (json_int_t)r->notes, "strict", r->strict,
			    "result", r->status == TT_OK ? "ok" : "fail", "results", results), out);
}

void validate_write_junit(const struct validate_report *r, struct strbuf *out)
{
	size_t failures = 0;
	for (size_t i = 0; i < r->n; i++)
		failures += r->v[i].errors > 0;
	sb_addf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<testsuites name=\"tunetab validate\" tests=\"%zu\" failures=\"%zu\">\n"
		     "  <testsuite name=\"tunetab validate\" tests=\"%zu\" failures=\"%zu\">\n",
		r->n, failures, r->n, failures);
	struct strbuf fail = STRBUF_INIT, rest = STRBUF_INIT, name = STRBUF_INIT;
	for (size_t i = 0; i < r->n; i++) {
		const struct validate_check *c = &r->v[i];
		sb_reset(&fail);
		sb_reset(&rest);
		for (size_t k = 0; k < c->d.n; k++) {
			const struct diag *x = &c->d.v[k];
			sb_addf(x->sev == SEV_ERROR ? &fail : &rest, "%s:%d:%d: %s: %s [%s]\n",
				x->file ? x->file : c->path, x->line, x->col, diag_sev_name(x->sev),
				x->msg, x->id);
		}
		sb_reset(&name);
		sb_adds(&name, c->path);
		if (c->release)
			sb_addf(&name, " [FlashInfer %s]", c->release);
		sb_adds(out, "    <testcase classname=\"tunetab.validate\" name=\"");
		xml_escape(name.buf, true, out);
		sb_adds(out, "\">\n");
		if (c->errors) {
			sb_addf(out, "      <failure type=\"validation\" message=\"%zu error%s\">",
				c->errors, c->errors == 1 ? "" : "s");
			xml_escape(fail.buf, false, out);
			sb_adds(out, "</failure>\n");
		}
		if (rest.len) {
			sb_adds(out, "      <system-out>");
			xml_escape(rest.buf, false, out);
			sb_adds(out, "</system-out>\n");
		}
		sb_adds(out, "    </testcase>\n");
	}
	sb_release(&fail);
	sb_release(&rest);
	sb_release(&name);
	sb_adds(out, "  </testsuite>\n</testsuites>\n");
}

int validate_bytes(const struct validate_data *data, const char *name, const char *buf,
		   size_t len, const struct validate_opts *o, struct diags *d)
{
	size_t errors = diags_count(d, SEV_ERROR);
	struct table t;
	int rc = table_read_mem(name, buf, len, &t, d);
	if (!rc) {
		struct validate_result r;
		rc = validate_table(data, &t, o, &r, d);
	}
	table_release(&t);
	if (!rc && diags_count(d, SEV_ERROR) > errors)
		rc = TT_INVALID;
	return rc;
}
