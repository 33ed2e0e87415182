/* dtypes.c: the dtype names (enum dtype) and configs/dtypes.yaml, loaded strictly with
 * libcyaml. */
#include "data/dtypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/yamlload.h"

const cyaml_strval_t dtype_strings[DT_COUNT] = {
	{ "bf16", DT_BF16 }, { "fp16", DT_FP16 }, { "fp8", DT_FP8 },
	{ "mxfp8", DT_MXFP8 }, { "nvfp4", DT_NVFP4 }, { "fp8_mxfp4", DT_FP8_MXFP4 },
	{ "fp8_block", DT_FP8_BLOCK }, { "w4a16_mxfp4", DT_W4A16_MXFP4 }, { "w4a8", DT_W4A8 },
	{ "w4a8_mxfp4", DT_W4A8_MXFP4 },
};

const char *dtype_name(enum dtype t)
{
	return (unsigned)t < DT_COUNT ? dtype_strings[t].str : "?";
}

int dtype_parse(const char *s, enum dtype *t)
{
	for (size_t i = 0; i < DT_COUNT; i++)
		if (str_ieq(s, dtype_strings[i].str)) {
			*t = (enum dtype)dtype_strings[i].val;
			return 0;
		}
	return -1;
}

#define STR(key, st, field) CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_POINTER, st, field, 1, 64)

static const cyaml_schema_field_t gate_fields[] = {
	CYAML_FIELD_FLOAT("tactic", CYAML_FLAG_DEFAULT, struct dtype_gate, tactic),
	CYAML_FIELD_FLOAT("reference", CYAML_FLAG_DEFAULT, struct dtype_gate, reference),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t view_fields[] = {
	STR("view", struct weight_view, view),
	STR("torch", struct weight_view, torch),
	CYAML_FIELD_UINT("pack", CYAML_FLAG_DEFAULT, struct weight_view, pack),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t view_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct weight_view, view_fields),
};
static const cyaml_schema_value_t flag_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, 64),
};
static const cyaml_schema_field_t info_fields[] = {
	STR("name", struct dtype_info, name),
	CYAML_FIELD_UINT("act_bits", CYAML_FLAG_DEFAULT, struct dtype_info, act_bits),
	STR("act_torch", struct dtype_info, act_torch),
	CYAML_FIELD_UINT("act_pack", CYAML_FLAG_DEFAULT, struct dtype_info, act_pack),
	CYAML_FIELD_UINT("weight_bits", CYAML_FLAG_DEFAULT, struct dtype_info, weight_bits),
	CYAML_FIELD_SEQUENCE("weight_views", CYAML_FLAG_POINTER, struct dtype_info, weight_views,
			     &view_schema, 1, 8),
	CYAML_FIELD_SEQUENCE("input_views", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			     struct dtype_info, input_views, &view_schema, 0, 8),
	CYAML_FIELD_SEQUENCE("flags", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct dtype_info,
			     flags, &flag_schema, 0, 8),
	CYAML_FIELD_UINT("align", CYAML_FLAG_OPTIONAL, struct dtype_info, align),
	CYAML_FIELD_MAPPING_PTR("gate", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct dtype_info,
				gate, gate_fields),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t info_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct dtype_info, info_fields),
};
static const cyaml_schema_field_t set_fields[] = {
	CYAML_FIELD_SEQUENCE("dtypes", CYAML_FLAG_POINTER, struct dtype_set, v, &info_schema, 1, 32),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t set_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct dtype_set, set_fields),
};

void dtypes_free(struct dtype_set *s)
{
	if (!s)
		return;
	free(s->path);
	s->path = NULL;
	yamldoc_free(&set_schema, s);
}

int dtypes_load(const char *path, struct dtype_set **out, struct diags *d)
{
	*out = NULL;
	struct dtype_set *s;
	int rc = yamldoc_load(path, &set_schema, (void **)&s, d);
	if (rc)
		return rc;
	s->path = xstrdup(path);
	for (unsigned i = 0; i < s->v_count; i++) {
		const struct dtype_info *t = &s->v[i];
		char yp[64];
		snprintf(yp, sizeof yp, "dtypes[%u]", i);
		if (t->act_bits != 4 && t->act_bits != 8 && t->act_bits != 16)
			rc = yaml_error_at(d, path, yp, "act_bits must be 4, 8 or 16");
		if (!t->act_pack || 8 * t->act_pack > 16 || t->act_pack * t->act_bits > 16)
			rc = yaml_error_at(d, path, yp, "act_pack %u does not fit %u-bit values", t->act_pack,
					   t->act_bits);
		for (unsigned j = 0; j < t->weight_views_count; j++)
			if (!t->weight_views[j].pack)
				rc = yaml_error_at(d, path, yp, "weight view pack must be positive");
		for (unsigned j = 0; j < t->input_views_count; j++)
			if (!t->input_views[j].pack)
				rc = yaml_error_at(d, path, yp, "input view pack must be positive");
		if (t->gate && !(t->gate->tactic > 0 && t->gate->tactic < 1 && t->gate->reference > 0 &&
				 t->gate->reference < 1)) {
			char gp[80];
			snprintf(gp, sizeof gp, "dtypes[%u].gate", i);
			rc = yaml_error_at(d, path, gp, "gate bounds are fractions of the reference's largest "
					   "value: each above 0 and below 1, not %g and %g",
					   t->gate->tactic, t->gate->reference);
		}
		if (t->align > 4096)
			rc = yaml_error_at(d, path, yp, "align %u is larger than any tile", t->align);
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(s->v[j].name, t->name))
				rc = yaml_error_at(d, path, yp, "dtype '%s' listed twice", t->name);
	}
	if (rc) {
		dtypes_free(s);
		return rc;
	}
	*out = s;
	return TT_OK;
}

const struct dtype_info *dtypes_find(const struct dtype_set *s, const char *name)
{
	for (unsigned i = 0; s && i < s->v_count; i++)
		if (str_ieq(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

int dtype_has_flag(const struct dtype_info *t, const char *flag)
{
	for (unsigned i = 0; t && i < t->flags_count; i++)
		if (!strcmp(t->flags[i], flag))
			return 1;
	return 0;
}

long dtype_align(const struct dtype_info *t, long n)
{
	if (!t || !t->align)
		return n;
	return (n + (long)t->align - 1) / (long)t->align * (long)t->align;
}

const struct weight_view *dtype_weight_view(const struct dtype_info *t, const char *view)
{
	if (!view)
		return &t->weight_views[0];
	for (unsigned i = 0; i < t->weight_views_count; i++)
		if (str_ieq(t->weight_views[i].view, view))
			return &t->weight_views[i];
	return NULL;
}

const struct weight_view *dtype_input_view(const struct dtype_info *t, const char *view,
					   int *unknown)
{
	*unknown = 0;
	if (!view)
		return NULL;
	for (unsigned i = 0; i < t->input_views_count; i++)
		if (str_ieq(t->input_views[i].view, view))
			return &t->input_views[i];
	*unknown = 1;
	return NULL;
}
