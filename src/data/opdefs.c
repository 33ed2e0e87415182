/* opdefs.c: configs/ops/<id>.yaml, loaded with libcyaml. */
#include "data/opdefs.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/yamlload.h"

static const cyaml_strval_t bucket_strings[] = {
	{ "schema", OPB_SCHEMA }, { "hybrid_uncapped", OPB_HYBRID_UNCAPPED },
	{ "hybrid_clamped", OPB_HYBRID_CLAMPED },
};

#define STR(key, st, field, minlen) \
	CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_POINTER, st, field, minlen, 1024)
#define OPT_STR(key, st, field) \
	CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, st, field, 1, 1024)

static const cyaml_schema_value_t uint_schema = {
	CYAML_VALUE_UINT(CYAML_FLAG_DEFAULT, unsigned),
};

static const cyaml_schema_field_t tactic_fields[] = {
	CYAML_FIELD_UINT("id", CYAML_FLAG_DEFAULT, struct op_tactic, id),
	CYAML_FIELD_SEQUENCE("tile", CYAML_FLAG_POINTER, struct op_tactic, tile, &uint_schema, 3, 3),
	CYAML_FIELD_SEQUENCE("cluster", CYAML_FLAG_POINTER, struct op_tactic, cluster, &uint_schema,
			     2, 2),
	CYAML_FIELD_BOOL("swap_ab", CYAML_FLAG_DEFAULT, struct op_tactic, swap_ab),
	CYAML_FIELD_BOOL("stream_k", CYAML_FLAG_DEFAULT, struct op_tactic, stream_k),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t tactic_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct op_tactic, tactic_fields),
};

static const cyaml_schema_field_t tactics_fields[] = {
	CYAML_FIELD_SEQUENCE("sm", CYAML_FLAG_POINTER, struct op_tactics, sm, &uint_schema, 1, 16),
	CYAML_FIELD_UINT("count", CYAML_FLAG_DEFAULT, struct op_tactics, count),
	CYAML_FIELD_INT("fallback_id", CYAML_FLAG_OPTIONAL, struct op_tactics, fallback_id),
	STR("read", struct op_tactics, read, 1),
	CYAML_FIELD_SEQUENCE("list", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct op_tactics, list,
			     &tactic_schema, 0, 256),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t tactics_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct op_tactics, tactics_fields),
};

static const cyaml_schema_field_t runner_fields[] = {
	STR("name", struct op_runner, name, 1),
	STR("backend", struct op_runner, backend, 1),
	STR("read", struct op_runner, read, 1),
	STR("fallback", struct op_runner, fallback, 1),
	CYAML_FIELD_SEQUENCE("tactics", CYAML_FLAG_POINTER, struct op_runner, tactics,
			     &tactics_schema, 0, 16),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t runner_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct op_runner, runner_fields),
};

static const cyaml_schema_field_t extra_fields[] = {
	STR("name", struct op_extra, name, 1),
	OPT_STR("field", struct op_extra, field),
	OPT_STR("literal", struct op_extra, literal),
	CYAML_FIELD_BOOL("bool", CYAML_FLAG_OPTIONAL, struct op_extra, is_bool),
	CYAML_FIELD_BOOL("enum", CYAML_FLAG_OPTIONAL, struct op_extra, is_enum),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t extra_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct op_extra, extra_fields),
};

static const cyaml_schema_field_t enum_fields[] = {
	STR("name", struct op_enum, name, 1),
	CYAML_FIELD_INT("value", CYAML_FLAG_DEFAULT, struct op_enum, value),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t enum_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct op_enum, enum_fields),
};

static const cyaml_schema_field_t op_fields[] = {
	STR("id", struct op_def, id, 1),
	STR("name", struct op_def, name, 1),
	STR("builder", struct op_def, builder, 1),
	STR("what", struct op_def, what, 1),
	STR("read", struct op_def, read, 1),
	STR("flashinfer_min", struct op_def, flashinfer_min, 1),
	STR("policy", struct op_def, policy, 2),
	STR("policy_unset", struct op_def, policy_unset, 2),
	CYAML_FIELD_UINT("inputs", CYAML_FLAG_DEFAULT, struct op_def, inputs),
	CYAML_FIELD_ENUM("buckets", CYAML_FLAG_STRICT, struct op_def, buckets, bucket_strings,
			 CYAML_ARRAY_LEN(bucket_strings)),
	CYAML_FIELD_SEQUENCE("runners", CYAML_FLAG_POINTER, struct op_def, runners, &runner_schema,
			     1, 8),
	CYAML_FIELD_SEQUENCE("extras", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct op_def,
			     extras, &extra_schema, 0, 64),
	CYAML_FIELD_SEQUENCE("enums", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct op_def,
			     enums, &enum_schema, 0, 64),
	CYAML_FIELD_END
};

static const struct yaml_kind doc_kind = YAML_KIND(doc_kind, "op", struct op_def, op_fields);

static void op_free(struct op_def *op)
{
	yaml_kind_free(&doc_kind, op);
}

/* What libcyaml cannot say: the policies are JSON arrays, each extra names a field or a
 * literal, an enum extra's names exist, no op or runner twice. */
static int check_op(struct op_def *op, const struct op_set *set, struct diags *d)
{
	if (version_parse(op->flashinfer_min, &op->min))
		return yaml_error_at(d, op->path, "op.flashinfer_min", "'%s' is not a version",
				     op->flashinfer_min);
	const char *pol[] = { op->policy, op->policy_unset };
	const char *ypath[] = { "op.policy", "op.policy_unset" };
	for (int i = 0; i < 2; i++) {
		json_t *j = json_loads(pol[i], JSON_DECODE_ANY, NULL);
		bool array = json_is_array(j);
		json_decref(j);
		if (!array)
			return yaml_error_at(d, op->path, ypath[i], "'%s' is not a JSON array (a "
					     "profiling policy as FlashInfer saves it)", pol[i]);
	}
	for (unsigned i = 0; i < op->extras_count; i++) {
		const struct op_extra *e = &op->extras[i];
		if (!e->field == !e->literal)
			return yaml_error_at(d, op->path, "op.extras", "extra '%s' wants a field or a "
					     "literal (one of them)", e->name);
		if (e->is_enum && (!e->field || !op->enums_count))
			return yaml_error_at(d, op->path, "op.extras", "extra '%s' is an enum: it wants "
					     "a field and the op's enums", e->name);
	}
	for (unsigned i = 0; i < op->runners_count; i++)
		for (unsigned t = 0; t < op->runners[i].tactics_count; t++) {
			struct op_tactics *tl = &op->runners[i].tactics[t];
			if (!tl->count)
				tl->fallback_id = -1; /* a list the wheel does not hold */
			if (tl->list_count && tl->list_count != tl->count)
				return yaml_error_at(d, op->path, "op.runners", "runner '%s': %u tactics "
						     "listed, count %u", op->runners[i].name,
						     tl->list_count, tl->count);
			for (unsigned k = 0; k < tl->list_count; k++)
				if (tl->list[k].id != k)
					return yaml_error_at(d, op->path, "op.runners", "runner '%s': tactic "
							     "%u listed as id %u (ids go 0, 1, ... in "
							     "FlashInfer's order)", op->runners[i].name, k,
							     tl->list[k].id);
			if (tl->fallback_id < -1 || tl->fallback_id >= (int)tl->count)
				return yaml_error_at(d, op->path, "op.runners", "runner '%s': fallback_id "
						     "%d is no tactic of its %u", op->runners[i].name,
						     tl->fallback_id, tl->count);
		}
	for (unsigned i = 0; i < op->runners_count; i++)
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(op->runners[i].name, op->runners[j].name))
				return yaml_error_at(d, op->path, "op.runners", "runner '%s' twice",
						     op->runners[i].name);
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i]->id, op->id) || !strcmp(set->v[i]->name, op->name))
			return yaml_error_at(d, op->path, "op.id", "op '%s' is also in %s", op->id,
					     set->v[i]->path);
	return TT_OK;
}

static int load_one(void *ctx, const char *path, size_t nfiles, struct diags *d)
{
	struct op_set *set = ctx;
	struct op_def *op;
	int rc = yaml_kind_load(path, &doc_kind, (void **)&op, d);
	if (rc)
		return rc;
	const char *rel = strstr(op->path, "configs/ops/");
	op->rel = rel ? rel : op->path;
	if ((rc = check_op(op, set, d))) {
		op_free(op);
		return rc;
	}
	if (!set->v)
		set->v = xcalloc(nfiles, sizeof *set->v);
	set->v[set->n++] = op;
	return TT_OK;
}

int opdefs_load(const char *data_root, struct op_set *set, struct diags *d)
{
	*set = (struct op_set){ 0 };
	char *dir = xasprintf("%s/configs/ops", data_root);
	int rc = yaml_load_dir(dir, "ops", load_one, set, d);
	free(dir);
	return rc;
}

int opdefs_check_file(const char *path, struct diags *d)
{
	struct op_set set = { 0 };
	int rc = load_one(&set, path, 1, d);
	opdefs_release(&set);
	return rc;
}

void opdefs_release(struct op_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		op_free(set->v[i]);
	free(set->v);
	*set = (struct op_set){ 0 };
}

const struct op_def *opdefs_find(const struct op_set *set, const char *id_or_name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i]->id, id_or_name) || !strcmp(set->v[i]->name, id_or_name))
			return set->v[i];
	return NULL;
}

const struct op_def *opdefs_cutlass_moe(const struct op_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i]->builder, "cutlass_moe"))
			return set->v[i];
	return NULL;
}

const struct op_runner *opdef_runner(const struct op_def *op, const char *name)
{
	for (unsigned i = 0; i < op->runners_count; i++)
		if (!strcmp(op->runners[i].name, name))
			return &op->runners[i];
	return NULL;
}

const struct op_tactics *opdef_tactics(const struct op_runner *r, unsigned sm)
{
	for (unsigned i = 0; i < r->tactics_count; i++)
		for (unsigned j = 0; j < r->tactics[i].sm_count; j++)
			if (r->tactics[i].sm[j] == sm)
				return &r->tactics[i];
	return NULL;
}

bool opdef_keys_known(const struct op_def *op, const struct fi_version *v)
{
	return version_cmp(v, &op->min) >= 0;
}

bool opdef_enum(const struct op_def *op, const char *name, long *value)
{
	for (unsigned i = 0; i < op->enums_count; i++)
		if (!strcmp(op->enums[i].name, name)) {
			*value = op->enums[i].value;
			return true;
		}
	return false;
}
