/* device.c: GPU device profiles (configs/devices/<id>.yaml), loaded strictly with libcyaml. */
#include "data/device.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/yamlload.h"

static const cyaml_schema_value_t alias_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, 128),
};

static const cyaml_schema_field_t cc_fields[] = {
	CYAML_FIELD_UINT("major", CYAML_FLAG_DEFAULT, struct device_cc, major),
	CYAML_FIELD_UINT("minor", CYAML_FLAG_DEFAULT, struct device_cc, minor),
	CYAML_FIELD_END
};

#define NULLABLE CYAML_FLAG_POINTER_NULL_STR

static const cyaml_schema_field_t tflops_fields[] = {
	CYAML_FIELD_FLOAT_PTR("bf16", NULLABLE, struct device_tflops, bf16),
	CYAML_FIELD_FLOAT_PTR("fp8", NULLABLE, struct device_tflops, fp8),
	CYAML_FIELD_FLOAT_PTR("fp4", NULLABLE, struct device_tflops, fp4),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t device_fields[] = {
	CYAML_FIELD_STRING_PTR("id", CYAML_FLAG_POINTER, struct device_profile, id, 1, 64),
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct device_profile, name, 1, 255),
	CYAML_FIELD_SEQUENCE("aliases", CYAML_FLAG_POINTER, struct device_profile, aliases,
			     &alias_schema, 0, 32),
	CYAML_FIELD_MAPPING("compute_capability", CYAML_FLAG_DEFAULT, struct device_profile, cc,
			    cc_fields),
	CYAML_FIELD_UINT_PTR("sm_count", NULLABLE, struct device_profile, sm_count),
	CYAML_FIELD_UINT_PTR("smem_per_block_optin", NULLABLE, struct device_profile,
			     smem_per_block_optin),
	CYAML_FIELD_UINT_PTR("smem_per_sm", NULLABLE, struct device_profile, smem_per_sm),
	CYAML_FIELD_UINT_PTR("l2_bytes", NULLABLE, struct device_profile, l2_bytes),
	CYAML_FIELD_UINT_PTR("memory_bytes", NULLABLE, struct device_profile, memory_bytes),
	CYAML_FIELD_UINT_PTR("memory_mib", NULLABLE | CYAML_FLAG_OPTIONAL, struct device_profile,
			     memory_mib),
	CYAML_FIELD_FLOAT_PTR("memory_bandwidth_gbs", NULLABLE, struct device_profile,
			      memory_bandwidth_gbs),
	CYAML_FIELD_UINT_PTR("boost_clock_mhz", NULLABLE, struct device_profile, boost_clock_mhz),
	CYAML_FIELD_UINT_PTR("tdp_watts", NULLABLE, struct device_profile, tdp_watts),
	CYAML_FIELD_MAPPING("dense_tflops", CYAML_FLAG_DEFAULT, struct device_profile, dense_tflops,
			    tflops_fields),
	CYAML_FIELD_END
};

static const struct yaml_kind doc_kind =
	YAML_KIND(doc_kind, "device", struct device_profile, device_fields);

void device_free(struct device_profile *p)
{
	yaml_kind_free(&doc_kind, p);
}

static const char *file_stem(const char *path, char *buf, size_t n)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t len = strcspn(b, ".");
	if (len >= n)
		len = n - 1;
	memcpy(buf, b, len);
	buf[len] = '\0';
	return buf;
}

int device_load_file(const char *path, struct device_profile **out, struct diags *d)
{
	*out = NULL;
	struct device_profile *p;
	int rc = yaml_kind_load(path, &doc_kind, (void **)&p, d);
	if (rc)
		return rc;
	char stem[128];
	if (strcmp(p->id, file_stem(path, stem, sizeof stem)))
		rc = yaml_error_at(d, path, "device.id", "id '%s' differs from the file name '%s'",
				   p->id, stem);
	if (strcmp(p->name, "null") == 0 || strcmp(p->name, "~") == 0)
		rc = yaml_error_at(d, path, "device.name", "device name must not be null");
	if (p->cc.major < 7 || p->cc.major > 20 || p->cc.minor > 9)
		rc = yaml_error_at(d, path, "device.compute_capability",
				   "compute capability %u.%u is out of range", p->cc.major, p->cc.minor);
	/* Opt-in shared memory is always 1 KiB below the per-SM value (devices-models.md note 1). */
	if (p->smem_per_block_optin && p->smem_per_sm &&
	    *p->smem_per_block_optin >= *p->smem_per_sm)
		rc = yaml_error_at(d, path, "device.smem_per_block_optin",
				   "opt-in shared memory per block (%llu) must be below shared memory "
				   "per SM (%llu)", (unsigned long long)*p->smem_per_block_optin,
				   (unsigned long long)*p->smem_per_sm);
	if (p->sm_count && (*p->sm_count == 0 || *p->sm_count > 1024))
		rc = yaml_error_at(d, path, "device.sm_count", "SM count %llu is out of range",
				   (unsigned long long)*p->sm_count);
	if (strchr(p->name, '.'))
		diags_add(d, SEV_WARNING, "device-name-dot", path, 0, 0,
			  "device name '%s' contains '.', which breaks FlashInfer's module import "
			  "(flashinfer-formats.md §1.1)", p->name);
	if (rc) {
		device_free(p);
		return rc;
	}
	*out = p;
	return TT_OK;
}

static int load_one(void *ctx, const char *path, size_t nfiles, struct diags *d)
{
	struct device_set *set = ctx;
	struct device_profile *p;
	int rc = device_load_file(path, &p, d);
	if (rc)
		return rc;
	if (!set->v)
		set->v = xcalloc(nfiles, sizeof *set->v);
	for (size_t j = 0; j < set->n; j++)
		if (str_ieq(set->v[j]->name, p->name))
			rc = yaml_error_at(d, path, "device.name", "device name '%s' already used by '%s'",
					   p->name, set->v[j]->path);
	set->v[set->n++] = p;
	return rc;
}

int device_load_dir(const char *dir, struct device_set *set, struct diags *d)
{
	*set = (struct device_set){ 0 };
	return yaml_load_dir(dir, "device profiles", load_one, set, d);
}

void device_set_release(struct device_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		device_free(set->v[i]);
	free(set->v);
	set->v = NULL;
	set->n = 0;
}

const struct device_profile *device_find(const struct device_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->v[i]->name, name) == 0)
			return set->v[i];
	for (size_t i = 0; i < set->n; i++) {
		const struct device_profile *p = set->v[i];
		if (str_ieq(p->name, name) || str_ieq(p->id, name))
			return p;
		for (unsigned a = 0; a < p->aliases_count; a++)
			if (str_ieq(p->aliases[a], name))
				return p;
	}
	return NULL;
}

size_t device_nearest(const struct device_set *set, const char *name, const char **out, size_t max)
{
	size_t cap = 0, n = 0;
	for (size_t i = 0; i < set->n; i++)
		cap += 2 + set->v[i]->aliases_count;
	const char **names = xcalloc(cap + 1, sizeof *names), **disp = xcalloc(cap + 1, sizeof *disp);
	for (size_t i = 0; i < set->n; i++) {
		const struct device_profile *p = set->v[i];
		names[n] = p->name, disp[n++] = p->name;
		if (p->id)
			names[n] = p->id, disp[n++] = p->name;
		for (unsigned a = 0; a < p->aliases_count; a++)
			names[n] = p->aliases[a], disp[n++] = p->name;
	}
	size_t k = suggest_names(name, names, disp, n, out, max);
	free(names);
	free(disp);
	return k;
}

unsigned device_sm(const struct device_profile *p)
{
	return p->cc.major * 10 + p->cc.minor;
}
