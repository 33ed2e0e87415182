/* model.c: MoE model geometries (configs/models/<id>.yaml), loaded strictly with libcyaml. */
#include "data/model.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/yamlload.h"

static const cyaml_strval_t activation_strings[] = {
	{ "gelu", ACT_GELU }, { "relu", ACT_RELU }, { "silu", ACT_SILU },
	{ "swiglu", ACT_SWIGLU }, { "geglu", ACT_GEGLU }, { "swiglu_bias", ACT_SWIGLU_BIAS },
	{ "relu2", ACT_RELU2 },
};

static const cyaml_schema_value_t alias_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, 128),
};

static const cyaml_schema_field_t model_fields[] = {
	CYAML_FIELD_STRING_PTR("id", CYAML_FLAG_POINTER, struct model_profile, id, 1, 64),
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct model_profile, name, 1, 128),
	CYAML_FIELD_SEQUENCE("aliases", CYAML_FLAG_POINTER, struct model_profile, aliases,
			     &alias_schema, 0, 32),
	CYAML_FIELD_UINT("hidden_size", CYAML_FLAG_DEFAULT, struct model_profile, hidden_size),
	CYAML_FIELD_UINT("moe_intermediate_size", CYAML_FLAG_DEFAULT, struct model_profile,
			 moe_intermediate_size),
	CYAML_FIELD_UINT("routed_experts", CYAML_FLAG_DEFAULT, struct model_profile, routed_experts),
	CYAML_FIELD_UINT("top_k", CYAML_FLAG_DEFAULT, struct model_profile, top_k),
	CYAML_FIELD_UINT("shared_experts", CYAML_FLAG_DEFAULT, struct model_profile, shared_experts),
	CYAML_FIELD_ENUM("activation", CYAML_FLAG_STRICT, struct model_profile, activation,
			 activation_strings, CYAML_ARRAY_LEN(activation_strings)),
	CYAML_FIELD_UINT("moe_layers", CYAML_FLAG_DEFAULT, struct model_profile, moe_layers),
	CYAML_FIELD_UINT("total_layers", CYAML_FLAG_DEFAULT, struct model_profile, total_layers),
	CYAML_FIELD_BOOL("fp8_block", CYAML_FLAG_OPTIONAL, struct model_profile, fp8_block),
	CYAML_FIELD_END
};

static const struct yaml_kind doc_kind =
	YAML_KIND(doc_kind, "model", struct model_profile, model_fields);

void model_free(struct model_profile *m)
{
	yaml_kind_free(&doc_kind, m);
}

const char *model_activation_name(enum model_activation a)
{
	for (size_t i = 0; i < ARRAY_SIZE(activation_strings); i++)
		if ((int)activation_strings[i].val == (int)a)
			return activation_strings[i].str;
	return "unknown";
}

int model_activation_parse(const char *name, enum model_activation *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(activation_strings); i++)
		if (!strcmp(activation_strings[i].str, name)) {
			*out = (enum model_activation)activation_strings[i].val;
			return 0;
		}
	return -1;
}

int model_activation_gated(enum model_activation a)
{
	return a == ACT_SWIGLU || a == ACT_GEGLU || a == ACT_SWIGLU_BIAS;
}

const char *model_sizes_problem(long long hidden, long long inter, long long experts,
				long long top_k, char *buf, size_t n)
{
	const struct { const char *name; long long v, max; } f[] = {
		{ "hidden size", hidden, MODEL_HIDDEN_MAX },
		{ "expert intermediate size", inter, MODEL_INTER_MAX },
		{ "routed experts", experts, MODEL_EXPERTS_MAX },
	};
	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		if (f[i].v > f[i].max) {
			snprintf(buf, n, "%s %lld is beyond what any GPU holds (tunetab takes up to %lld)",
				 f[i].name, f[i].v, f[i].max);
			return buf;
		}
	if (hidden > 0 && inter > 0 && 3 * hidden * inter / 2 > MODEL_EXPERT_BYTES_MAX) {
		snprintf(buf, n, "one expert of hidden size %lld and intermediate size %lld is %lld GiB "
			 "at 4 bits: beyond what any GPU holds", hidden, inter,
			 (3 * hidden * inter / 2) >> 30);
		return buf;
	}
	if (top_k > 0 && experts > 0 && top_k > experts) {
		snprintf(buf, n, "%lld experts per token exceed the %lld routed experts", top_k, experts);
		return buf;
	}
	return NULL;
}

int model_load_file(const char *path, struct model_profile **out, struct diags *d)
{
	*out = NULL;
	struct model_profile *m;
	int rc = yaml_kind_load(path, &doc_kind, (void **)&m, d);
	if (rc)
		return rc;
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (strncmp(b, m->id, strlen(m->id)) || strcmp(b + strlen(m->id), ".yaml"))
		rc = yaml_error_at(d, path, "model.id", "id '%s' differs from the file name", m->id);
	static const struct { const char *key; size_t off; } positive[] = {
		{ "model.hidden_size", offsetof(struct model_profile, hidden_size) },
		{ "model.moe_intermediate_size", offsetof(struct model_profile, moe_intermediate_size) },
		{ "model.routed_experts", offsetof(struct model_profile, routed_experts) },
		{ "model.top_k", offsetof(struct model_profile, top_k) },
		{ "model.moe_layers", offsetof(struct model_profile, moe_layers) },
	};
	for (size_t i = 0; i < ARRAY_SIZE(positive); i++)
		if (*(unsigned *)((char *)m + positive[i].off) == 0)
			rc = yaml_error_at(d, path, positive[i].key, "must be positive");
	if (m->top_k > m->routed_experts) {
		yaml_error_at(d, path, "model.top_k", "top_k %u exceeds routed_experts %u",
			      m->top_k, m->routed_experts);
		rc = TT_USAGE; /* a model input out of range (#48) */
	}
	char why[200];
	if (!rc && model_sizes_problem(m->hidden_size, m->moe_intermediate_size, m->routed_experts,
				       0, why, sizeof why)) {
		const char *key = m->hidden_size > MODEL_HIDDEN_MAX ? "model.hidden_size"
			: m->moe_intermediate_size > MODEL_INTER_MAX ? "model.moe_intermediate_size"
			: m->routed_experts > MODEL_EXPERTS_MAX ? "model.routed_experts"
			: "model.moe_intermediate_size";
		yaml_error_at(d, path, key, "%s", why);
		rc = TT_USAGE;
	}
	if (m->moe_layers > m->total_layers)
		rc = yaml_error_at(d, path, "model.moe_layers", "moe_layers %u exceeds total_layers %u",
				   m->moe_layers, m->total_layers);
	if (rc) {
		model_free(m);
		return rc;
	}
	*out = m;
	return TT_OK;
}

static int load_one(void *ctx, const char *path, size_t nfiles, struct diags *d)
{
	struct model_set *set = ctx;
	struct model_profile *m;
	int rc = model_load_file(path, &m, d);
	if (rc)
		return rc;
	if (!set->v)
		set->v = xcalloc(nfiles, sizeof *set->v);
	set->v[set->n++] = m;
	return TT_OK;
}

int model_load_dir(const char *dir, struct model_set *set, struct diags *d)
{
	*set = (struct model_set){ 0 };
	return yaml_load_dir(dir, "models", load_one, set, d);
}

void model_set_release(struct model_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		model_free(set->v[i]);
	free(set->v);
	set->v = NULL;
	set->n = 0;
}

const struct model_profile *model_find(const struct model_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct model_profile *m = set->v[i];
		if (str_ieq(m->id, name) || str_ieq(m->name, name))
			return m;
		for (unsigned a = 0; a < m->aliases_count; a++)
			if (str_ieq(m->aliases[a], name))
				return m;
	}
	return NULL;
}

size_t model_nearest(const struct model_set *set, const char *name, const char **out, size_t max)
{
	size_t cap = 0, n = 0;
	for (size_t i = 0; i < set->n; i++)
		cap += 2 + set->v[i]->aliases_count;
	const char **names = xcalloc(cap + 1, sizeof *names), **disp = xcalloc(cap + 1, sizeof *disp);
	for (size_t i = 0; i < set->n; i++) {
		const struct model_profile *m = set->v[i];
		names[n] = m->id, disp[n++] = m->id;
		if (m->name)
			names[n] = m->name, disp[n++] = m->id;
		for (unsigned a = 0; a < m->aliases_count; a++)
			names[n] = m->aliases[a], disp[n++] = m->id;
	}
	size_t k = suggest_names(name, names, disp, n, out, max);
	free(names);
	free(disp);
	return k;
}
