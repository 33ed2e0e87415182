/* modelfit.c: model-fit YAML files (tunetab learn), loaded strictly. */
#include "data/modelfit.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "data/firules.h"
#include "data/yamlload.h"

static const cyaml_schema_value_t string_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, 256),
};
static const cyaml_schema_field_t value_fields[] = {
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct fit_value, name, 1, 64),
	CYAML_FIELD_FLOAT("value", CYAML_FLAG_DEFAULT, struct fit_value, value),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t value_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct fit_value, value_fields),
};
static const cyaml_schema_field_t point_fields[] = {
	CYAML_FIELD_FLOAT("l", CYAML_FLAG_DEFAULT, struct fit_point, l),
	CYAML_FIELD_FLOAT("f", CYAML_FLAG_DEFAULT, struct fit_point, f),
	CYAML_FIELD_FLOAT("k", CYAML_FLAG_DEFAULT, struct fit_point, k),
	CYAML_FIELD_FLOAT("b", CYAML_FLAG_DEFAULT, struct fit_point, b),
	CYAML_FIELD_FLOAT("r", CYAML_FLAG_DEFAULT, struct fit_point, r),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t point_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct fit_point, point_fields),
};
static const cyaml_schema_field_t group_fields[] = {
	CYAML_FIELD_STRING_PTR("config", CYAML_FLAG_POINTER, struct fit_group, config, 1, 256),
	CYAML_FIELD_UINT("stage", CYAML_FLAG_DEFAULT, struct fit_group, stage),
	CYAML_FIELD_SEQUENCE("points", CYAML_FLAG_POINTER, struct fit_group, points, &point_schema,
			     1, 100000),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t group_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct fit_group, group_fields),
};
static const cyaml_schema_field_t fit_fields[] = {
	CYAML_FIELD_STRING_PTR("heuristic", CYAML_FLAG_POINTER, struct model_fit, heuristic, 1, 64),
	CYAML_FIELD_STRING_PTR("device", CYAML_FLAG_POINTER, struct model_fit, device, 1, 255),
	CYAML_FIELD_UINT("sm", CYAML_FLAG_DEFAULT, struct model_fit, sm),
	CYAML_FIELD_STRING_PTR("method", CYAML_FLAG_POINTER, struct model_fit, method, 1, 1024),
	CYAML_FIELD_SEQUENCE("trained_on", CYAML_FLAG_POINTER, struct model_fit, trained_on,
			     &string_schema, 0, 256),
	CYAML_FIELD_SEQUENCE("params", CYAML_FLAG_POINTER, struct model_fit, params, &value_schema, 0,
			     64),
	CYAML_FIELD_SEQUENCE("measured", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct model_fit,
			     measured, &group_schema, 0, 4096),
	CYAML_FIELD_END
};
static const struct yaml_kind doc_kind =
	YAML_KIND(doc_kind, "model_fit", struct model_fit, fit_fields);

void model_fit_free(struct model_fit *f)
{
	yaml_kind_free(&doc_kind, f);
}

int model_fit_load(const char *path, struct model_fit **out, struct diags *d)
{
	*out = NULL;
	struct model_fit *f;
	int rc = yaml_kind_load(path, &doc_kind, (void **)&f, d);
	if (rc)
		return rc;
	for (unsigned i = 0; i < f->params_count; i++) {
		char yp[48];
		snprintf(yp, sizeof yp, "model_fit.params[%u]", i);
		if (!isfinite(f->params[i].value))
			rc = yaml_error_at(d, path, yp, "value must be a finite number");
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(f->params[k].name, f->params[i].name))
				rc = yaml_error_at(d, path, yp, "'%s' is given twice", f->params[i].name);
	}
	for (unsigned i = 0; i < f->measured_count && !rc; i++) {
		const struct fit_group *g = &f->measured[i];
		char yp[64];
		snprintf(yp, sizeof yp, "model_fit.measured[%u]", i);
		if (g->stage != 1 && g->stage != 2)
			rc = yaml_error_at(d, path, yp, "stage must be 1 or 2");
		for (unsigned k = 0; k < i && !rc; k++)
			if (f->measured[k].stage == g->stage && !strcmp(f->measured[k].config, g->config))
				rc = yaml_error_at(d, path, yp, "stage %u config '%s' is given twice",
						   g->stage, g->config);
		for (unsigned k = 0; k < g->points_count && !rc; k++) {
			const struct fit_point *p = &g->points[k];
			if (!(isfinite(p->l) && p->l >= 0 && isfinite(p->f) && p->f > 0 && isfinite(p->k) &&
			      p->k > 0 && isfinite(p->b) && p->b > 0 && isfinite(p->r) && p->r >= 0)) {
				snprintf(yp, sizeof yp, "model_fit.measured[%u].points[%u]", i, k);
				rc = yaml_error_at(d, path, yp, "l >= 0, f > 0, k > 0, b > 0 and r >= 0 "
						   "must be finite numbers");
			}
		}
	}
	if (rc) {
		model_fit_free(f);
		return rc;
	}
	*out = f;
	return TT_OK;
}

void model_fit_dirs(const char *data_root, char *dirs[2])
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	dirs[0] = x && *x ? xasprintf("%s/tunetab/fits", x)
			  : xasprintf("%s/.config/tunetab/fits", home && *home ? home : ".");
	dirs[1] = xasprintf("%s/configs/fits", data_root);
}

/* The device and SM a fit file names, read strictly; false when it does not load. */
static bool fit_of(const char *path, char *device, size_t n, unsigned *sm)
{
	struct model_fit *f;
	struct diags d = DIAGS_INIT;
	bool ok = model_fit_load(path, &f, &d) == TT_OK;
	if (ok) {
		snprintf(device, n, "%s", f->device);
		*sm = f->sm;
		model_fit_free(f);
	}
	diags_release(&d);
	return ok;
}

void model_fits_scan(const char *const *dirs, size_t ndirs, struct model_fits *out)
{
	memset(out, 0, sizeof *out);
	size_t alloc = 0;
	for (size_t i = 0; i < ndirs; i++) {
		DIR *dir = opendir(dirs[i]);
		if (!dir)
			continue;
		char **names = NULL;
		size_t n = 0, nalloc = 0;
		for (struct dirent *e; (e = readdir(dir));)
			if (str_ends(e->d_name, ".yaml")) {
				ALLOC_GROW(names, n + 1, nalloc);
				names[n++] = xstrdup(e->d_name);
			}
		closedir(dir);
		qsort(names, n, sizeof *names, str_ptr_cmp);
		for (size_t k = 0; k < n; k++) {
			char *p = xasprintf("%s/%s", dirs[i], names[k]), device[256];
			unsigned sm;
			if (fit_of(p, device, sizeof device, &sm)) {
				ALLOC_GROW(out->v, out->n + 1, alloc);
				out->v[out->n++] = (struct model_fit_ref){ p, xstrdup(names[k]), sm, i };
			} else {
				free(p);
			}
			free(names[k]);
		}
		free(names);
	}
}

void model_fits_release(struct model_fits *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->v[i].path);
		free(fs->v[i].name);
	}
	free(fs->v);
	memset(fs, 0, sizeof *fs);
}

char *model_fits_pick(const struct model_fits *fs, const char *device, unsigned sm, bool *sister)
{
	*sister = false;
	char *part = firules_device_part(device), *want = xasprintf("%s.yaml", part);
	free(part);
	const struct model_fit_ref *own = NULL, *other = NULL;
	for (size_t i = 0; i < fs->n; i++) {
		if (!own && !strcmp(fs->v[i].name, want))
			own = &fs->v[i];
		if (!other && fs->v[i].sm == sm)
			other = &fs->v[i];
	}
	free(want);
	if (!own && other)
		*sister = true;
	return own ? xstrdup(own->path) : other ? xstrdup(other->path) : NULL;
}

char *model_fit_own(const char *const *dirs, size_t ndirs, const char *device)
{
	char *part = firules_device_part(device);
	for (size_t i = 0; i < ndirs; i++) {
		char *p = xasprintf("%s/%s.yaml", dirs[i], part);
		if (access(p, R_OK) == 0) {
			free(part);
			return p;
		}
		free(p);
	}
	free(part);
	return NULL;
}

char *model_fit_find(const char *const *dirs, size_t ndirs, const char *device, unsigned sm,
		     bool *sister)
{
	*sister = false;
	char *own = model_fit_own(dirs, ndirs, device);
	if (own)
		return own;
	struct model_fits fs;
	model_fits_scan(dirs, ndirs, &fs);
	char *p = model_fits_pick(&fs, device, sm, sister);
	model_fits_release(&fs);
	return p;
}
