/* data.c: the data folder as one value, and which FlashInfer version rules apply. */
#include <stdlib.h>
#include <string.h>

#include "data/data.h"
#include "data/datadir.h"
#include "base/util.h"

/* The folder sub under root, for a loader. Caller frees. */
static char *part_dir(const char *root, const char *sub)
{
	return xasprintf("%s/%s", root, sub);
}

static void worst(int *rc, int r)
{
	if (r > *rc)
		*rc = r;
}

int data_load(struct tt_data *data, unsigned parts, struct diags *d)
{
	memset(data, 0, sizeof *data);
	data->root = data_dir();
	if (!data->root && *data_dir_problem())
		return diag_error(d, TT_INTERNAL, "data", NULL, 0, 0, "%s", data_dir_problem());
	if (!data->root)
		return diag_error(d, TT_INTERNAL, "data", NULL, 0, 0, "cannot find tunetab's data "
				  "folder (configs/, schemas/); set TUNETAB_DATA_DIR");
	int rc = TT_OK;
	char *p;
	if (parts & DATA_DEVICES) {
		worst(&rc, device_load_dir(p = part_dir(data->root, "configs/devices"), &data->devices, d));
		free(p);
	}
	if (parts & DATA_MODELS) {
		worst(&rc, model_load_dir(p = part_dir(data->root, "configs/models"), &data->models, d));
		free(p);
	}
	if (parts & DATA_CATALOGS) {
		worst(&rc, catalog_load_dir(p = part_dir(data->root, "configs/catalogs/flashinfer"),
					    &data->catalogs, d));
		free(p);
	}
	if (parts & DATA_SCHEMAS) {
		worst(&rc, firules_load_dir(p = part_dir(data->root, "schemas/flashinfer"),
					     &data->rules, d));
		free(p);
		if (!rc && data->rules.n == 0)
			rc = diag_error(d, TT_INTERNAL, "data", NULL, 0, 0,
					"no FlashInfer schema found under '%s/schemas/flashinfer'",
					data->root);
	}
	if (parts & DATA_OPS)
		worst(&rc, opdefs_load(data->root, &data->ops, d));
	if (parts & DATA_DTYPES) {
		worst(&rc, dtypes_load(p = part_dir(data->root, "configs/dtypes.yaml"), &data->dtypes, d));
		free(p);
	}
	return rc;
}

void data_release(struct tt_data *data)
{
	device_set_release(&data->devices);
	model_set_release(&data->models);
	catalog_set_release(&data->catalogs);
	firules_set_release(&data->rules);
	opdefs_release(&data->ops);
	dtypes_free(data->dtypes);
	data->dtypes = NULL;
	free(data->root);
	data->root = NULL;
}

const char *data_rel(const struct tt_data *data, const char *path)
{
	size_t n = strlen(data->root);
	if (strncmp(path, data->root, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

int data_pick_rules(const struct tt_data *data, const char *version,
		    const struct data_installed_fi *installed, struct fi_version *v,
		    const struct fi_rules **rules, bool announce, struct diags *d)
{
	const struct fi_rules *newest = firules_newest(&data->rules);
	if (!version) {
		/* the FlashInfer installed here: keys for another version never hit (issue #15) */
		bool newer = false;
		bool have = installed && installed->version && installed->version[0] &&
			    !version_parse(installed->version, v);
		if (have && (*rules = firules_find(&data->rules, v, &newer))) {
			if (announce)
				diags_add(d, SEV_NOTE, "flashinfer", NULL, 0, 0, "no --flashinfer given; "
					  "targeting FlashInfer %s, installed at %s%s", installed->version,
					  installed->pkg, newer ? " (newer than every known version: the "
					  "newest rules apply)" : "");
			return TT_OK;
		}
		if (have && announce)
			diags_add(d, SEV_NOTE, "flashinfer", NULL, 0, 0, "the FlashInfer installed at %s "
				  "(%s) predates tuning tables", installed->pkg, installed->version);
		*rules = newest;
		version_parse(newest->release, v);
		if (announce)
			diags_add(d, SEV_NOTE, "flashinfer", NULL, 0, 0, "no --flashinfer given; "
				  "targeting the newest known release, FlashInfer %s", newest->release);
		return TT_OK;
	}
	if (version_parse(version, v))
		return diag_error(d, TT_USAGE, "flashinfer", NULL, 0, 0, "'%s' is not a FlashInfer "
				  "version (want e.g. 0.6.18)", version);
	bool newer;
	*rules = firules_find(&data->rules, v, &newer);
	if (!*rules)
		return diag_error(d, TT_INVALID, "flashinfer", NULL, 0, 0, "FlashInfer %s predates "
				  "tuning-table support (the oldest known rules start at %s)", version,
				  data->rules.v[0]->versions.min);
	if (newer)
		diags_add(d, SEV_WARNING, "flashinfer", NULL, 0, 0, "FlashInfer %s is newer than every "
			  "known version; applying the rules of %s (FlashInfer %s to below %s)", version,
			  (*rules)->id, (*rules)->versions.min, (*rules)->versions.below);
	return TT_OK;
}
