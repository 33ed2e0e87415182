/* cmd_check_data.c: `tunetab check-data`: strict load of every YAML data file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "data/dtypes.h"
#include "base/util.h"
#include "data/yamlload.h"

static int check_file(const char *path, struct diags *d)
{
	char *key = yaml_top_key(path);
	int rc;
	if (!key) {
		/* let the loader report the syntax error, located */
		struct device_profile *p;
		rc = device_load_file(path, &p, d);
		if (!rc) {
			device_free(p);
			rc = diag_error(d, TT_INVALID, "data-kind", path, 1, 1,
					"not a tunetab data file");
		}
		return rc;
	}
	if (strcmp(key, "device") == 0) {
		struct device_profile *p;
		rc = device_load_file(path, &p, d);
		device_free(p);
	} else if (strcmp(key, "model") == 0) {
		struct model_profile *m;
		rc = model_load_file(path, &m, d);
		model_free(m);
	} else if (strcmp(key, "catalog") == 0) {
		struct catalog *c;
		rc = catalog_load_file(path, &c, d);
		catalog_free(c);
	} else if (strcmp(key, "dtypes") == 0) {
		struct dtype_set *ds;
		rc = dtypes_load(path, &ds, d);
		dtypes_free(ds);
	} else if (strcmp(key, "flashinfer_schema") == 0) {
		struct fi_schema *s;
		rc = fischema_load_file(path, &s, d);
		fischema_free(s);
	} else {
		int line, col;
		yaml_locate(path, key, &line, &col);
		rc = diag_error(d, TT_INVALID, "data-kind", path, line, col,
				"unknown top-level key '%s' (want device, model, catalog, dtypes or "
				"flashinfer_schema)", key);
	}
	free(key);
	return rc;
}

int cmd_check_data(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("check-data", "unknown option '%s'", argv[i]);
	if (argc > 1) {
		struct diags d = DIAGS_INIT;
		int rc = TT_OK;
		for (int i = 1; i < argc; i++) {
			int r = check_file(argv[i], &d);
			if (r > rc)
				rc = r;
		}
		cli_print_diags(&d);
		diags_release(&d);
		if (!rc)
			printf("%d file%s ok\n", argc - 1, argc == 2 ? "" : "s");
		return rc;
	}
	struct tt_data data;
	int rc = cli_load_data(&data, DATA_ALL);
	if (rc)
		return rc;
	struct diags dd = DIAGS_INIT;
	struct dtype_set *ds;
	char *dpath = xasprintf("%s/configs/dtypes.yaml", data.root);
	rc = dtypes_load(dpath, &ds, &dd);
	free(dpath);
	cli_print_diags(&dd);
	diags_release(&dd);
	dtypes_free(ds);
	if (rc) {
		cli_release_data(&data);
		return rc;
	}
	size_t entries = 0;
	for (size_t i = 0; i < data.catalogs.n; i++) {
		struct tactic_list l;
		struct diags d = DIAGS_INIT;
		catalog_expand(data.catalogs.v[i], &l, &d);
		entries += l.n1 + l.n2;
		tactic_list_release(&l);
		diags_release(&d);
	}
	printf("data in %s: %zu device profiles, %zu models, %zu catalogs (%zu candidates), "
	       "%zu FlashInfer schemas (%s to below %s): ok\n", data.root, data.devices.n,
	       data.models.n, data.catalogs.n, entries, data.schemas.n,
	       data.schemas.v[0]->versions.min,
	       data.schemas.v[data.schemas.n - 1]->versions.below);
	cli_release_data(&data);
	return TT_OK;
}
