/* modelfit.c: model-fit YAML files (tunetab learn), loaded strictly. */
#include "data/modelfit.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
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
	if (!f)
		return;
	/* the measurements by hand (cyaml_mem is realloc and free): libcyaml's free visits, and
	 * logs, each of their numbers */
	for (unsigned i = 0; i < f->measured_count; i++) {
		free(f->measured[i].config);
		free(f->measured[i].points);
	}
	free(f->measured);
	f->measured = NULL;
	f->measured_count = 0;
	yaml_kind_free(&doc_kind, f);
}

/* --- the measurements, read without libyaml ----------------------------------------------
 * learn writes a fit's measurements last, one line per point (learn_yaml):
 *     "  measured:"
 *     "    - config: \"CONFIG\""
 *     "      stage: N"
 *     "      points:"
 *     "        - {l: X, f: X, k: X, b: X, r: X}"   (one or more)
 * The shipped H200 fit has 16,907 points: libyaml takes about 25 ms to read them, more than
 * the rest of a heuristic generate run, and this reader about 1 ms. It reads that layout and
 * nothing else; any other byte below "  measured:" and libcyaml reads the whole file as it
 * always did (with its diagnostics). The part above always goes through libcyaml, together
 * with the first group's lines: that the loaded group is the one read here shows the
 * measurements sit where the layout says (a key of model_fit) and are read the same way. */

struct scan {
	const char *p, *end;
};

static bool lit(struct scan *s, const char *text)
{
	size_t n = strlen(text);
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, text, n))
		return false;
	s->p += n;
	return true;
}

/* A FLOAT as libcyaml reads one (strtod of the plain scalar), up to `stop`. A decimal of up to
 * 15 digits is m / 10^k with m and 10^k exact doubles, so the division's one rounding is
 * strtod's correctly rounded result; other numbers go through strtod. */
static bool number(struct scan *s, char stop, double *out)
{
	static const double p10[] = { 1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
				      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	const char *c = s->p + (s->p < s->end && *s->p == '-');
	uint64_t m = 0;
	int digits = 0, frac = -1; /* frac: digits after the point; -1: no point */
	for (; c < s->end; c++) {
		if (*c >= '0' && *c <= '9' && digits < 15) {
			m = m * 10 + (uint64_t)(*c - '0');
			digits++;
			frac += frac >= 0;
		} else if (*c == '.' && frac < 0 && digits) {
			frac = 0;
		} else {
			break;
		}
	}
	if (c < s->end && *c == stop && digits && frac) {
		double v = frac > 0 ? (double)m / p10[frac] : (double)m;
		*out = *s->p == '-' ? -v : v;
		s->p = c;
		return true;
	}
	const char *e = s->p;
	while (e < s->end && *e != stop)
		if ((*e >= '0' && *e <= '9') || *e == '.' || *e == '-' || *e == '+' || *e == 'e' ||
		    *e == 'E')
			e++;
		else
			return false;
	if (e == s->end || e == s->p || e - s->p > 40)
		return false;
	char buf[48], *end;
	memcpy(buf, s->p, (size_t)(e - s->p));
	buf[e - s->p] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	if (end != buf + (e - s->p) || errno)
		return false;
	s->p = e;
	return true;
}

/* The groups from "    - config: ..." to the end of the text; false: not learn's layout. */
static bool scan_measured(struct scan *s, struct fit_group **out, unsigned *nout)
{
	struct fit_group *v = NULL;
	size_t n = 0, alloc = 0;
	while (s->p < s->end) {
		if (n == 4096 || !lit(s, "    - config: \""))
			goto bad;
		const char *c = s->p;
		while (s->p < s->end && *s->p >= 0x20 && *s->p < 0x7f && *s->p != '"' && *s->p != '\\')
			s->p++;
		size_t len = (size_t)(s->p - c);
		if (!len || len > 256 || !lit(s, "\"\n      stage: "))
			goto bad;
		unsigned stage = lit(s, "1\n") ? 1 : lit(s, "2\n") ? 2 : 0;
		if (!stage || !lit(s, "      points:\n"))
			goto bad;
		ALLOC_GROW(v, n + 1, alloc);
		struct fit_group *g = &v[n++];
		*g = (struct fit_group){ xstrndup(c, len), stage, NULL, 0 };
		size_t palloc = 0;
		while (lit(s, "        - {l: ")) {
			struct fit_point p;
			if (g->points_count == 100000 || !number(s, ',', &p.l) || !lit(s, ", f: ") ||
			    !number(s, ',', &p.f) || !lit(s, ", k: ") || !number(s, ',', &p.k) ||
			    !lit(s, ", b: ") || !number(s, ',', &p.b) || !lit(s, ", r: ") ||
			    !number(s, '}', &p.r) || !lit(s, "}\n"))
				goto bad;
			ALLOC_GROW(g->points, g->points_count + 1, palloc);
			g->points[g->points_count++] = p;
		}
		if (!g->points_count)
			goto bad;
	}
	*out = v;
	*nout = (unsigned)n;
	return true;
bad:
	for (size_t i = 0; i < n; i++) {
		free(v[i].config);
		free(v[i].points);
	}
	free(v);
	return false;
}

/* The fit in text, its measurements read by scan_measured; NULL when the text is not in
 * learn's layout (the caller loads the file with libcyaml). */
static struct model_fit *load_fast(const char *text, size_t len)
{
	static const char mark[] = "\n  measured:\n";
	const char *m = strstr(text, mark); /* read_file ends the text with a NUL */
	if (!m)
		return NULL;
	size_t head = (size_t)(m - text) + 1; /* through the newline before "  measured:" */
	/* one document: no marker that could end it above the measurements (the lines above end
	 * with the newline before "  measured:") */
	for (const char *p = text; p < text + head; p = memchr(p, '\n', (size_t)(text + head - p)) + 1)
		if ((size_t)(text + head - p) >= 3 && (!memcmp(p, "---", 3) || !memcmp(p, "...", 3)))
			return NULL;
	struct scan s = { m + sizeof mark - 1, text + len };
	struct fit_group *groups;
	unsigned ngroups;
	if (!scan_measured(&s, &groups, &ngroups))
		return NULL;
	/* the part above, "  measured:" and the first group with its first point, by libcyaml */
	const char *first = m + sizeof mark - 1;
	const char *one = strstr(first, "        - {");
	const char *eol = one ? strchr(one, '\n') : NULL;
	struct model_fit *f = NULL;
	if (eol) {
		size_t n = (size_t)(eol + 1 - text);
		char *part = xmalloc(n + 1);
		memcpy(part, text, n);
		part[n] = '\0';
		void **doc;
		if (!yamldoc_parse(part, n, &doc_kind.doc, (void **)&doc)) {
			f = doc[0]; /* the kind's object (yaml_kind_load's unwrap; no path yet) */
			doc[0] = NULL;
			yamldoc_free(&doc_kind.doc, doc);
		}
		free(part);
	}
	if (!f || f->measured_count != 1 || f->measured[0].points_count != 1 ||
	    f->measured[0].stage != groups[0].stage || strcmp(f->measured[0].config, groups[0].config) ||
	    memcmp(&f->measured[0].points[0], &groups[0].points[0], sizeof(struct fit_point))) {
		model_fit_free(f);
		for (unsigned i = 0; i < ngroups; i++) {
			free(groups[i].config);
			free(groups[i].points);
		}
		free(groups);
		return NULL;
	}
	free(f->measured[0].config);
	free(f->measured[0].points);
	free(f->measured);
	f->measured = groups; /* freed as libcyaml's (cyaml_mem: realloc and free) */
	f->measured_count = ngroups;
	return f;
}

int model_fit_load(const char *path, struct model_fit **out, struct diags *d)
{
	*out = NULL;
	char *text;
	size_t len;
	int rc = yamldoc_read(path, &text, &len, d); /* once: the path may be a pipe */
	if (rc)
		return rc;
	struct model_fit *f = load_fast(text, len);
	if (f)
		f->path = xstrdup(path);
	else
		rc = yaml_kind_load_text(path, text, len, &doc_kind, (void **)&f, d);
	free(text);
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
