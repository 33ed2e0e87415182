/* firules.c: FlashInfer version rules (schemas/flashinfer/<id>.yaml), loaded with libcyaml. */
#include "data/firules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/yamlload.h"

static const cyaml_strval_t prefix_strings[] = {
	{ "constant", PREFIX_CONSTANT }, { "version", PREFIX_VERSION },
};
static const cyaml_strval_t lookup_strings[] = {
	{ "first_runner", LOOKUP_FIRST_RUNNER }, { "runner_by_runner", LOOKUP_RUNNER_BY_RUNNER },
	{ "level_by_level", LOOKUP_LEVEL_BY_LEVEL },
};
static const cyaml_strval_t slot_strings[] = { { "index", SLOT_INDEX }, { "ignored", SLOT_IGNORED } };
static const cyaml_strval_t miss_strings[] = {
	{ "key", MISS_KEY }, { "hash4", MISS_HASH4 }, { "hash5", MISS_HASH5 },
};
static const cyaml_strval_t extras_strings[] = {
	{ "none", EXTRAS_NONE }, { "empty", EXTRAS_EMPTY }, { "fields", EXTRAS_FIELDS },
};
static const cyaml_strval_t ftype_strings[] = { { "int", FT_INT }, { "bool", FT_BOOL }, { "dtype", FT_DTYPE } };
static const cyaml_strval_t bucket_strings[] = {
	{ "pow2_floor", BUCKETS_POW2_FLOOR }, { "hybrid_ceil", BUCKETS_HYBRID_CEIL },
};
static const cyaml_strval_t numbering_strings[] = {
	{ "shared", TN_SHARED }, { "split_relative", TN_SPLIT_RELATIVE },
	{ "split_absolute", TN_SPLIT_ABSOLUTE },
};
static const cyaml_strval_t entry_value_strings[] = {
	{ "pair", VALUE_PAIR }, { "policy", VALUE_POLICY },
};
static const cyaml_strval_t mismatch_strings[] = {
	{ "strict", MISMATCH_STRICT }, { "hard_soft", MISMATCH_HARD_SOFT },
};

#define ENUM(key, st, field, table) \
	CYAML_FIELD_ENUM(key, CYAML_FLAG_STRICT, st, field, table, CYAML_ARRAY_LEN(table))
#define STR(key, st, field, minlen) \
	CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_POINTER, st, field, minlen, 256)

static const cyaml_schema_value_t string_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, 256),
};

static const cyaml_schema_field_t range_fields[] = {
	STR("min", struct fr_range, min, 1),
	STR("below", struct fr_range, below, 1),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t bundled_fields[] = {
	ENUM("prefix_rule", struct fr_bundled, prefix_rule, prefix_strings),
	STR("prefix", struct fr_bundled, prefix, 0),
	STR("stem", struct fr_bundled, stem, 1),
	STR("package_dir", struct fr_bundled, package_dir, 1),
	STR("env_var", struct fr_bundled, env_var, 1),
	STR("env_value", struct fr_bundled, env_value, 1),
	ENUM("lookup", struct fr_bundled, lookup, lookup_strings),
	ENUM("runner_slot", struct fr_bundled, runner_slot, slot_strings),
	ENUM("miss_line", struct fr_bundled, miss_line, miss_strings),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t field_fields[] = {
	STR("name", struct fr_field, name, 1),
	ENUM("type", struct fr_field, type, ftype_strings),
	CYAML_FIELD_STRING_PTR("source", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct fr_field,
			       source, 1, 64),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t field_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct fr_field, field_fields),
};

static const cyaml_schema_field_t op_fields[] = {
	STR("op", struct fr_op, op, 1),
	CYAML_FIELD_SEQUENCE("runners", CYAML_FLAG_POINTER, struct fr_op, runners, &string_schema,
			     1, 16),
	CYAML_FIELD_UINT("shapes", CYAML_FLAG_DEFAULT, struct fr_op, shapes),
	CYAML_FIELD_UINT("stage", CYAML_FLAG_DEFAULT, struct fr_op, stage),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t op_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct fr_op, op_fields),
};

static const cyaml_schema_field_t key_fields[] = {
	CYAML_FIELD_UINT("tuple", CYAML_FLAG_DEFAULT, struct fr_key, tuple),
	ENUM("extras", struct fr_key, extras, extras_strings),
	CYAML_FIELD_SEQUENCE("extras_fields", CYAML_FLAG_POINTER, struct fr_key, extras_fields,
			     &field_schema, 0, 64),
	CYAML_FIELD_SEQUENCE("ops", CYAML_FLAG_POINTER, struct fr_key, ops, &op_schema, 1, 256),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t phase_fields[] = {
	CYAML_FIELD_UINT("upto", CYAML_FLAG_DEFAULT, struct fr_phase, upto),
	CYAML_FIELD_UINT("step", CYAML_FLAG_DEFAULT, struct fr_phase, step),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t phase_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct fr_phase, phase_fields),
};

static const cyaml_schema_field_t bucket_fields[] = {
	ENUM("map", struct fr_buckets, map, bucket_strings),
	CYAML_FIELD_UINT("default_max_tokens", CYAML_FLAG_DEFAULT, struct fr_buckets,
			 default_max_tokens),
	CYAML_FIELD_SEQUENCE("phases", CYAML_FLAG_POINTER, struct fr_buckets, phases, &phase_schema,
			     0, 16),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t json_fields[] = {
	CYAML_FIELD_BOOL("supported", CYAML_FLAG_DEFAULT, struct fr_json, supported),
	CYAML_FIELD_SEQUENCE("metadata", CYAML_FLAG_POINTER, struct fr_json, metadata,
			     &string_schema, 0, 32),
	ENUM("mismatch", struct fr_json, mismatch, mismatch_strings),
	CYAML_FIELD_ENUM("entry_value", CYAML_FLAG_STRICT | CYAML_FLAG_OPTIONAL, struct fr_json,
			 entry_value, entry_value_strings, CYAML_ARRAY_LEN(entry_value_strings)),
	CYAML_FIELD_STRING_PTR("selection", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct fr_json,
			       selection, 1, 256),
	CYAML_FIELD_SEQUENCE("reserved", CYAML_FLAG_POINTER, struct fr_json, reserved,
			     &string_schema, 0, 16),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t tactics_fields[] = {
	ENUM("numbering", struct fr_tactics, numbering, numbering_strings),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t schema_fields[] = {
	STR("id", struct fi_rules, id, 1),
	CYAML_FIELD_MAPPING("versions", CYAML_FLAG_DEFAULT, struct fi_rules, versions, range_fields),
	STR("release", struct fi_rules, release, 1),
	CYAML_FIELD_MAPPING("bundled", CYAML_FLAG_DEFAULT, struct fi_rules, bundled, bundled_fields),
	CYAML_FIELD_MAPPING("key", CYAML_FLAG_DEFAULT, struct fi_rules, key, key_fields),
	CYAML_FIELD_MAPPING("buckets", CYAML_FLAG_DEFAULT, struct fi_rules, buckets, bucket_fields),
	CYAML_FIELD_MAPPING("tactics", CYAML_FLAG_DEFAULT, struct fi_rules, tactics, tactics_fields),
	CYAML_FIELD_MAPPING("json_cache", CYAML_FLAG_DEFAULT, struct fi_rules, json_cache,
			    json_fields),
	CYAML_FIELD_END
};

static const struct yaml_kind doc_kind =
	YAML_KIND(doc_kind, "flashinfer_schema", struct fi_rules, schema_fields);

void firules_free(struct fi_rules *s)
{
	yaml_kind_free(&doc_kind, s);
}

int firules_load_file(const char *path, struct fi_rules **out, struct diags *d)
{
	*out = NULL;
	struct fi_rules *s;
	int rc = yaml_kind_load(path, &doc_kind, (void **)&s, d);
	if (rc)
		return rc;
	if (version_parse(s->versions.min, &s->lo))
		rc = yaml_error_at(d, path, "flashinfer_schema.versions.min", "'%s' is not a version",
				   s->versions.min);
	else if (version_parse(s->versions.below, &s->hi))
		rc = yaml_error_at(d, path, "flashinfer_schema.versions.below",
				   "'%s' is not a version", s->versions.below);
	else if (version_cmp(&s->lo, &s->hi) >= 0)
		rc = yaml_error_at(d, path, "flashinfer_schema.versions", "empty range [%s, %s)",
				   s->versions.min, s->versions.below);
	struct fi_version rv;
	if (!rc && (version_parse(s->release, &rv) || version_cmp(&rv, &s->lo) < 0 ||
		    version_cmp(&rv, &s->hi) >= 0))
		rc = yaml_error_at(d, path, "flashinfer_schema.release",
				   "'%s' is not a version inside [%s, %s)", s->release,
				   s->versions.min, s->versions.below);
	struct fi_version sv;
	if (!rc && s->json_cache.selection &&
	    (version_parse(s->json_cache.selection, &sv) || version_cmp(&sv, &s->lo) < 0 ||
	     version_cmp(&sv, &s->hi) >= 0 || s->json_cache.entry_value != VALUE_POLICY))
		rc = yaml_error_at(d, path, "flashinfer_schema.json_cache.selection",
				   "'%s' is not a version inside [%s, %s) whose values carry a policy",
				   s->json_cache.selection, s->versions.min, s->versions.below);
	if (s->key.tuple != 3 && s->key.tuple != 4)
		rc = yaml_error_at(d, path, "flashinfer_schema.key.tuple", "must be 3 or 4, not %u",
				   s->key.tuple);
	if ((s->key.tuple == 3) != (s->key.extras == EXTRAS_NONE))
		rc = yaml_error_at(d, path, "flashinfer_schema.key.extras",
				   "3-tuple keys have no extras; 4-tuple keys need extras");
	if ((s->key.extras == EXTRAS_FIELDS) != (s->key.extras_fields_count > 0))
		rc = yaml_error_at(d, path, "flashinfer_schema.key.extras_fields",
				   "'fields' extras need their fields listed, other kinds none (has %u)",
				   s->key.extras_fields_count);
	if (s->bundled.prefix_rule == PREFIX_CONSTANT && !*s->bundled.prefix)
		rc = yaml_error_at(d, path, "flashinfer_schema.bundled.prefix",
				   "a constant prefix must not be empty");
	if (s->buckets.default_max_tokens == 0)
		rc = yaml_error_at(d, path, "flashinfer_schema.buckets.default_max_tokens",
				   "must be positive");
	if (s->buckets.map == BUCKETS_HYBRID_CEIL) {
		if (s->buckets.phases_count == 0 || s->buckets.phases[s->buckets.phases_count - 1].upto != 0)
			rc = yaml_error_at(d, path, "flashinfer_schema.buckets.phases",
					   "hybrid buckets need phases ending with an unbounded one");
		for (unsigned i = 0; i + 1 < s->buckets.phases_count; i++)
			if (s->buckets.phases[i].upto == 0 ||
			    (i && s->buckets.phases[i].upto <= s->buckets.phases[i - 1].upto))
				rc = yaml_error_at(d, path, "flashinfer_schema.buckets.phases",
						   "phase limits must increase");
	}
	for (unsigned i = 0; i < s->key.ops_count; i++)
		if (s->key.ops[i].stage > 2) {
			char yp[64];
			snprintf(yp, sizeof yp, "flashinfer_schema.key.ops[%u].stage", i);
			rc = yaml_error_at(d, path, yp, "stage must be 0, 1 or 2");
		}
	if (rc) {
		firules_free(s);
		return rc;
	}
	*out = s;
	return TT_OK;
}

static int cmp_schema(const void *a, const void *b)
{
	const struct fi_rules *x = *(struct fi_rules *const *)a, *y = *(struct fi_rules *const *)b;
	return version_cmp(&x->lo, &y->lo);
}

static int load_one(void *ctx, const char *path, size_t nfiles, struct diags *d)
{
	struct firules_set *set = ctx;
	struct fi_rules *s;
	int rc = firules_load_file(path, &s, d);
	if (rc)
		return rc;
	if (!set->v)
		set->v = xcalloc(nfiles, sizeof *set->v);
	set->v[set->n++] = s;
	return TT_OK;
}

int firules_load_dir(const char *dir, struct firules_set *set, struct diags *d)
{
	*set = (struct firules_set){ 0 };
	int rc = yaml_load_dir(dir, "schemas", load_one, set, d);
	if (set->n > 1)
		qsort(set->v, set->n, sizeof *set->v, cmp_schema);
	for (size_t i = 0; i + 1 < set->n; i++)
		if (version_cmp(&set->v[i]->hi, &set->v[i + 1]->lo))
			rc = yaml_error_at(d, set->v[i]->path, "flashinfer_schema.versions.below",
					   "range ends at '%s' but the next range ('%s') starts at '%s'",
					   set->v[i]->versions.below, set->v[i + 1]->id,
					   set->v[i + 1]->versions.min);
	return rc;
}

void firules_set_release(struct firules_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		firules_free(set->v[i]);
	free(set->v);
	set->v = NULL;
	set->n = 0;
}

const struct fi_rules *firules_newest(const struct firules_set *set)
{
	return set->n ? set->v[set->n - 1] : NULL;
}

bool firules_saves_selection(const struct fi_rules *s, const struct fi_version *v)
{
	struct fi_version first;
	return s && s->json_cache.selection && !version_parse(s->json_cache.selection, &first) &&
	       version_cmp(v, &first) >= 0;
}

const struct fi_rules *firules_find(const struct firules_set *set, const struct fi_version *v,
				      bool *newer)
{
	if (newer)
		*newer = false;
	for (size_t i = 0; i < set->n; i++)
		if (version_cmp(v, &set->v[i]->lo) >= 0 && version_cmp(v, &set->v[i]->hi) < 0)
			return set->v[i];
	const struct fi_rules *last = firules_newest(set);
	if (last && version_cmp(v, &last->hi) >= 0) {
		if (newer)
			*newer = true;
		return last;
	}
	return NULL;
}

char *firules_device_part(const char *device)
{
	char *s = xstrdup(device);
	for (char *p = s; *p; p++)
		if (*p == ' ')
			*p = '_';
	return s;
}

char *firules_bundled_name(const struct fi_rules *s, const char *version, const char *device)
{
	struct strbuf sb = STRBUF_INIT;
	if (s->bundled.prefix_rule == PREFIX_VERSION) {
		sb_addc(&sb, 'v');
		for (const char *p = version; *p; p++)
			sb_addc(&sb, *p == '.' ? '_' : *p);
		sb_addc(&sb, '_');
	} else {
		sb_adds(&sb, s->bundled.prefix);
	}
	sb_adds(&sb, s->bundled.stem);
	char *part = firules_device_part(device);
	sb_adds(&sb, part);
	free(part);
	sb_adds(&sb, ".py");
	return sb_detach(&sb);
}

bool firules_split_bundled(const char *name, const char *stem, size_t *prefix_len,
			    const char **part, size_t *part_len)
{
	const char *s = strstr(name, stem);
	if (!s || !str_ends(name, ".py"))
		return false;
	const char *p = s + strlen(stem);
	if (strlen(p) < 3)
		return false;
	*prefix_len = (size_t)(s - name);
	*part = p;
	*part_len = strlen(p) - 3;
	return true;
}

static unsigned last_pow2(unsigned x)
{
	unsigned p = 1;
	while (p <= x / 2)
		p *= 2;
	return p;
}

size_t firules_buckets(const struct fi_rules *s, unsigned max_tokens, unsigned **out)
{
	size_t n = 0, alloc = 0;
	unsigned *v = NULL;
	if (max_tokens == 0)
		max_tokens = 1;
	if (s->buckets.map == BUCKETS_POW2_FLOOR) {
		/* Powers of two from last_pow2(max) down to 1, listed ascending (§3.2). */
		for (unsigned b = 1; b <= last_pow2(max_tokens); b *= 2) {
			ALLOC_GROW(v, n + 1, alloc);
			v[n++] = b;
			if (b > (1u << 30))
				break;
		}
	} else {
		/* Phases of steps, then tune_max itself is always added (§3.2). */
		unsigned x = 1, lower = 0;
		for (unsigned p = 0; p < s->buckets.phases_count && x < max_tokens; p++) {
			const struct fr_phase *ph = &s->buckets.phases[p];
			unsigned upto = ph->upto ? ph->upto : max_tokens;
			if (upto > max_tokens)
				upto = max_tokens;
			if (p > 0) {
				/* each phase starts one step (or the next power of two) above the last */
				if (ph->step) {
					x = lower + ph->step;
				} else {
					x = 1;
					while (x <= lower)
						x *= 2;
				}
			}
			while (x <= upto && x < max_tokens) {
				ALLOC_GROW(v, n + 1, alloc);
				v[n++] = x;
				x = ph->step ? x + ph->step : x * 2;
			}
			lower = ph->upto ? ph->upto : lower;
		}
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = max_tokens;
	}
	*out = v;
	return n;
}

unsigned firules_map_tokens(const struct fi_rules *s, unsigned max_tokens, unsigned tokens)
{
	if (s->buckets.map == BUCKETS_POW2_FLOOR) {
		/* min(last_pow2(x), tune_max): rounds down, clamped (§3.2). */
		unsigned p = last_pow2(tokens ? tokens : 1);
		return p < max_tokens ? p : max_tokens;
	}
	unsigned *b;
	size_t n = firules_buckets(s, max_tokens, &b);
	unsigned r = b[n - 1];
	for (size_t i = 0; i < n; i++)
		if (b[i] >= tokens) {
			r = b[i];
			break;
		}
	free(b);
	return r;
}

const char *numbering_name(enum tactic_numbering n)
{
	return numbering_strings[n].str;
}

const char *bucket_map_name(enum bucket_map m)
{
	return bucket_strings[m].str;
}
