/* datafile.c: one YAML data file checked by its kind (datafile.h). */
#include "data/datafile.h"
#include "data/opdefs.h"

#include <stdlib.h>
#include <string.h>

#include "data/catalog.h"
#include "data/device.h"
#include "data/dtypes.h"
#include "data/firules.h"
#include "data/model.h"
#include "data/modelfit.h"
#include "data/ranking.h"
#include "data/yamlload.h"

int datafile_check(const char *path, struct diags *d)
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
	} else if (strcmp(key, "model_fit") == 0) {
		struct model_fit *f;
		rc = model_fit_load(path, &f, d);
		model_fit_free(f);
	} else if (strcmp(key, "ranking") == 0) {
		struct ranking *r;
		rc = ranking_load(path, &r, d);
		ranking_free(r);
	} else if (strcmp(key, "flashinfer_schema") == 0) {
		struct fi_rules *s;
		rc = firules_load_file(path, &s, d);
		firules_free(s);
	} else if (strcmp(key, "op") == 0) {
		rc = opdefs_check_file(path, d);
	} else {
		int line, col;
		yaml_locate(path, key, &line, &col);
		rc = diag_error(d, TT_INVALID, "data-kind", path, line, col,
				"unknown top-level key '%s' (want device, model, catalog, dtypes, "
				"model_fit, ranking, flashinfer_schema or op)", key);
	}
	free(key);
	return rc;
}
