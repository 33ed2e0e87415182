/* doctor.c: what FlashInfer will look up on this machine (doctor.h). */
#include "inspect/doctor.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "data/datadir.h"
#include "flashinfer/metadata.h"
#include "flashinfer/validate.h"
#include "gpu/gpu.h"


/* `__version__ = "0.7.2"` (or single quotes) in flashinfer/_build_meta.py, which is where
 * flashinfer.version.__version__ comes from (formats §2.3) */
/* The string a small Python file assigns to name, as in `name = "x"` or
 * `name: Optional[str] = 'x'` (the first such line), into out. 0, or -1 when the file cannot be
 * read or has no such line. */
static int py_quoted_assignment(const char *path, const char *name, char *out, size_t n)
{
	char *text;
	size_t len, nl_ = strlen(name);
	int rc = -1;
	if (read_file(path, 1u << 20, &text, &len))
		return -1;
	for (char *l = text; l && *l && rc; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, name, nl_) || (l[nl_] != ' ' && l[nl_] != ':' && l[nl_] != '='))
			continue;
		char *nl = strchr(l, '\n'), *eq = strchr(l, '=');
		if (!eq || (nl && eq > nl))
			continue;
		char *q = strpbrk(eq, "\"'\n");
		char *e = q && *q != '\n' ? strchr(q + 1, *q) : NULL;
		if (e && (!nl || e < nl) && (size_t)(e - q - 1) < n) {
			snprintf(out, n, "%.*s", (int)(e - q - 1), q + 1);
			rc = 0;
		}
	}
	free(text);
	return rc;
}

static bool version_from_build_meta(const char *pkg, char *out, size_t n, char *from, size_t fn)
{
	char *path = xasprintf("%s/_build_meta.py", pkg);
	bool ok = py_quoted_assignment(path, "__version__", out, n) == 0;
	if (ok)
		snprintf(from, fn, "%s", path);
	free(path);
	return ok;
}

/* The first line starting with `key` in a dist-info METADATA-like file, value after it. */
static bool dist_info_value(const char *pattern, const char *key, char *out, size_t n, char *from,
			    size_t fn)
{
	glob_t g;
	bool ok = false;
	if (glob(pattern, 0, NULL, &g) != 0)
		return false;
	for (size_t i = 0; i < g.gl_pathc && !ok; i++) {
		char *text;
		size_t len;
		if (read_file(g.gl_pathv[i], 4u << 20, &text, &len))
			continue;
		for (char *l = text; l && *l && !ok; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			if (*l == '\n')
				break; /* the headers end at the first blank line */
			if (!str_starts(l, key))
				continue;
			size_t k = strcspn(l + strlen(key), "\r\n");
			if (k && k < n) {
				snprintf(out, n, "%.*s", (int)k, l + strlen(key));
				snprintf(from, fn, "%s", g.gl_pathv[i]);
				ok = true;
			}
		}
		free(text);
	}
	globfree(&g);
	return ok;
}

static bool read_version(const char *pkg, const char *site, char *out, size_t n, char *from, size_t fn)
{
	if (version_from_build_meta(pkg, out, n, from, fn))
		return true;
	char *pat = xasprintf("%s/flashinfer_python-*.dist-info/METADATA", site);
	bool ok = dist_info_value(pat, "Version: ", out, n, from, fn);
	free(pat);
	return ok;
}

static bool looks_like_package(const char *pkg)
{
	char *a = xasprintf("%s/__init__.py", pkg), *b = xasprintf("%s/_build_meta.py", pkg);
	bool ok = path_is_file(a) || path_is_file(b);
	free(a);
	free(b);
	return ok;
}

static void parent_of(const char *p, char *out, size_t n)
{
	snprintf(out, n, "%s", p);
	char *s = strrchr(out, '/');
	if (s && s != out)
		*s = '\0';
}

/* The site folder pip installed tunetab into, then the folders its .pth files add (the
 * site module's rules: one path per line, relative to the site folder; "#" comments and
 * "import" lines skipped), one per line into pats. */
static void own_env_paths(struct strbuf *pats)
{
	char site[4096], py[4096];
	if (!data_python_env(site, sizeof site, py, sizeof py))
		return;
	sb_addf(pats, "%s\n", site);
	char *pat = xasprintf("%s/*.pth", site);
	glob_t g;
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			FILE *f = fopen_read(g.gl_pathv[i]);
			char line[4096];
			while (f && fgets(line, sizeof line, f)) {
				line[strcspn(line, "\r\n")] = '\0';
				if (!line[0] || line[0] == '#' || !strncmp(line, "import ", 7) ||
				    !strncmp(line, "import\t", 7))
					continue;
				if (line[0] == '/')
					sb_addf(pats, "%s\n", line);
				else
					sb_addf(pats, "%s/%s\n", site, line);
			}
			if (f)
				fclose(f);
		}
		globfree(&g);
	}
	free(pat);
}

int doctor_find_flashinfer(const char *dir, struct doctor_fi *fi, struct diags *d)
{
	memset(fi, 0, sizeof *fi);
	if (dir) {
		char *sub = xasprintf("%s/flashinfer", dir);
		if (path_is_dir(sub) && looks_like_package(sub)) {
			snprintf(fi->pkg, sizeof fi->pkg, "%s", sub);
			snprintf(fi->site, sizeof fi->site, "%s", dir);
		} else if (looks_like_package(dir)) {
			snprintf(fi->pkg, sizeof fi->pkg, "%s", dir);
			parent_of(dir, fi->site, sizeof fi->site);
		}
		free(sub);
		if (!fi->pkg[0])
			return diag_error(d, TT_INVALID, "no-flashinfer", dir, 0, 0, "no FlashInfer package "
					  "here (neither DIR/flashinfer/ nor a flashinfer folder with "
					  "__init__.py or _build_meta.py)");
	} else {
		/* the places pip puts packages, in roughly the order python3 searches them */
		struct strbuf pats = STRBUF_INIT;
		const char *venv = getenv("VIRTUAL_ENV"), *conda = getenv("CONDA_PREFIX");
		const char *pp = getenv("PYTHONPATH"), *home = getenv("HOME");
		if (pp && *pp) {
			char *copy = xstrdup(pp), *save = NULL;
			for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save))
				sb_addf(&pats, "%s\n", t);
			free(copy);
		}
		if (venv)
			sb_addf(&pats, "%s/lib/python3*/site-packages\n", venv);
		if (conda)
			sb_addf(&pats, "%s/lib/python3*/site-packages\n", conda);
		own_env_paths(&pats);
		if (home)
			sb_addf(&pats, "%s/.local/lib/python3*/site-packages\n", home);
		sb_adds(&pats, "/usr/local/lib/python3*/dist-packages\n/usr/local/lib/python3*/site-packages\n"
			       "/usr/lib/python3/dist-packages\n/usr/lib/python3*/site-packages\n"
			       "/opt/conda/lib/python3*/site-packages\n");
		char *save = NULL;
		for (char *t = strtok_r(pats.buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
			glob_t g;
			if (glob(t, GLOB_NOSORT, NULL, &g) != 0)
				continue;
			for (size_t i = 0; i < g.gl_pathc; i++) {
				char *sub = xasprintf("%s/flashinfer", g.gl_pathv[i]);
				if (path_is_dir(sub) && looks_like_package(sub)) {
					if (!fi->pkg[0]) {
						snprintf(fi->pkg, sizeof fi->pkg, "%s", sub);
						snprintf(fi->site, sizeof fi->site, "%s", g.gl_pathv[i]);
					} else if (fi->n_others < DOCTOR_MAX_FOUND && strcmp(sub, fi->pkg)) {
						snprintf(fi->others[fi->n_others++], sizeof fi->others[0], "%s", sub);
					}
				}
				free(sub);
			}
			globfree(&g);
		}
		sb_release(&pats);
		if (!fi->pkg[0])
			return diag_error(d, TT_INVALID, "no-flashinfer", NULL, 0, 0, "no FlashInfer found in "
					  "PYTHONPATH, $VIRTUAL_ENV, $CONDA_PREFIX, tunetab's own Python "
					  "environment, ~/.local, /usr/local, /usr or /opt/conda; give "
					  "--flashinfer-dir DIR or --flashinfer VERSION");
	}
	if (!read_version(fi->pkg, fi->site, fi->version, sizeof fi->version, fi->version_from,
			  sizeof fi->version_from))
		return diag_error(d, TT_INVALID, "no-flashinfer-version", fi->pkg, 0, 0, "cannot tell "
				  "this FlashInfer's version (no _build_meta.py __version__ and no "
				  "flashinfer_python-*.dist-info/METADATA); give --flashinfer VERSION");
	return TT_OK;
}

void doctor_env_field(const char *site, const char *field, char *out, size_t n, const char **from)
{
	static char where[4096];
	*out = '\0';
	*from = NULL;
	if (!site || !*site)
		return;
	char *pat = NULL;
	bool ok = false;
	if (!strcmp(field, "cuda_version")) {
		/* torch.version.cuda: `cuda: Optional[str] = '13.0'` in torch/version.py */
		char *path = xasprintf("%s/torch/version.py", site);
		if ((ok = py_quoted_assignment(path, "cuda", out, n) == 0))
			snprintf(where, sizeof where, "%s", path);
		free(path);
	} else if (!strcmp(field, "cublas_version")) {
		/* the pip nvidia-cublas package, truncated to major.minor.patch */
		pat = xasprintf("%s/nvidia_cublas*.dist-info/METADATA", site);
		if ((ok = dist_info_value(pat, "Version: ", out, n, where, sizeof where))) {
			char *p = out;
			for (int dots = 0; *p; p++)
				if (*p == '.' && ++dots == 3)
					*p = '\0';
		}
	} else if (!strcmp(field, "cudnn_version")) {
		/* torch.backends.cudnn.version(): major*10000 + minor*100 + patch for cuDNN 9 */
		pat = xasprintf("%s/nvidia_cudnn_cu*.dist-info/METADATA", site);
		char v[64];
		if (dist_info_value(pat, "Version: ", v, sizeof v, where, sizeof where)) {
			int a = 0, b = 0, c = 0;
			if (sscanf(v, "%d.%d.%d", &a, &b, &c) == 3 && a >= 9) {
				snprintf(out, n, "%d", a * 10000 + b * 100 + c);
				ok = true;
			}
		}
	} else if (!strcmp(field, "cudnn_frontend_version")) {
		pat = xasprintf("%s/nvidia_cudnn_frontend*.dist-info/METADATA", site);
		ok = dist_info_value(pat, "Version: ", out, n, where, sizeof where);
	} else if (!strcmp(field, "cutlass_dsl_version")) {
		pat = xasprintf("%s/nvidia_cutlass_dsl*.dist-info/METADATA", site);
		ok = dist_info_value(pat, "Version: ", out, n, where, sizeof where);
	}
	free(pat);
	if (ok)
		*from = where;
	else
		*out = '\0';
}

/* A file for this device under another version's prefix: v<anything>_<stem><DEVICE>.py. */
static void find_wrong_prefix(const char *dir, const char *want, const char *stem,
			      const char *dev_part, struct doctor_module *m)
{
	DIR *dh = opendir(dir);
	if (!dh)
		return;
	char *tail = xasprintf("%s%s.py", stem, dev_part);
	struct dirent *e;
	while ((e = readdir(dh))) {
		if (e->d_name[0] != 'v' || !strcmp(e->d_name, want) || !str_ends(e->d_name, tail))
			continue;
		ALLOC_GROW(m->wrong_prefix, m->n_wrong_prefix + 1, m->wrong_prefix_alloc);
		m->wrong_prefix[m->n_wrong_prefix++] = xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(dh);
	free(tail);
}

static int run_validate(const void *vd, const struct table *t, const char *version,
			const char *device, size_t *errors, size_t *warnings, char *first, size_t fn)
{
	struct validate_opts vo = { .flashinfer = version, .device = device, .dtype = -1 };
	struct validate_result vr;
	struct diags vdg = DIAGS_INIT;
	int rc = validate_table(vd, t, &vo, &vr, &vdg);
	*errors = diags_count(&vdg, SEV_ERROR);
	*warnings = diags_count(&vdg, SEV_WARNING);
	for (size_t i = 0; i < vdg.n; i++)
		if (vdg.v[i].sev == SEV_ERROR) {
			snprintf(first, fn, "[%s] %s", vdg.v[i].id, vdg.v[i].msg);
			break;
		}
	diags_release(&vdg);
	return rc;
}

int doctor_module(const struct doctor_fi *fi, const struct fi_rules *s, const char *version,
		  const char *device, const void *vd, struct doctor_module *m, struct table *t,
		  struct diags *d)
{
	(void)d;
	memset(m, 0, sizeof *m);
	memset(t, 0, sizeof *t);
	m->name = firules_bundled_name(s, version, device);
	m->env_value = getenv(s->bundled.env_var);
	m->env_ok = m->env_value && !strcmp(m->env_value, s->bundled.env_value);
	if (!fi) {
		/* no installed package: the name is known, the file is not */
		m->path = xasprintf("<site-packages>/%s/%s", s->bundled.package_dir, m->name);
		return TT_OK;
	}
	/* package_dir is "flashinfer/tuning_configs": the part under the package folder */
	const char *sub = strchr(s->bundled.package_dir, '/');
	char *dir = xasprintf("%s%s", fi->pkg, sub ? sub : "/tuning_configs");
	m->path = xasprintf("%s/%s", dir, m->name);
	const char *stem = strstr(m->name, s->bundled.stem);
	char *dev_part = stem ? xstrndup(stem + strlen(s->bundled.stem),
					 strlen(stem) - strlen(s->bundled.stem) - 3)
			      : xstrdup("");
	find_wrong_prefix(dir, m->name, s->bundled.stem, dev_part, m);
	free(dev_part);
	free(dir);
	m->exists = path_is_file(m->path);
	if (m->exists) {
		struct diags rd = DIAGS_INIT;
		m->readable = table_read(m->path, t, &rd) == TT_OK && t->kind == TABLE_PY;
		diags_release(&rd);
		if (m->readable)
			run_validate(vd, t, version, device, &m->errors, &m->warnings, m->first_error,
				     sizeof m->first_error);
		else
			m->errors = 1;
	}
	m->usable = m->exists && m->readable && m->env_ok;
	return TT_OK;
}

void doctor_module_release(struct doctor_module *m)
{
	free(m->name);
	free(m->path);
	for (size_t i = 0; i < m->n_wrong_prefix; i++)
		free(m->wrong_prefix[i]);
	free(m->wrong_prefix);
}

int doctor_cache(const struct doctor_fi *fi, const struct fi_rules *s, const char *version,
		 const char *device, const void *vd, const char *path, struct doctor_cache *c,
		 struct table *t, struct diags *d)
{
	(void)d;
	memset(c, 0, sizeof *c);
	memset(t, 0, sizeof *t);
	c->path = path;
	if (!s->json_cache.supported) {
		c->verdict = CACHE_UNSUPPORTED;
		return TT_OK;
	}
	struct diags rd = DIAGS_INIT;
	int rc = table_read(path, t, &rd);
	diags_release(&rd);
	if (rc || t->kind != TABLE_JSON) {
		c->verdict = CACHE_BROKEN;
		c->errors = 1;
		return TT_OK;
	}
	size_t warnings;
	run_validate(vd, t, version, device, &c->errors, &warnings, c->first_error,
		     sizeof c->first_error);
	if (!t->has_metadata) {
		c->verdict = CACHE_NO_METADATA;
		c->usable = true;
		return TT_OK;
	}
	bool hard = false, soft = false, unknown = false;
	for (unsigned i = 0; i < s->json_cache.metadata_count && c->n_fields < 16; i++) {
		struct doctor_field *f = &c->fields[c->n_fields++];
		f->name = s->json_cache.metadata[i];
		if (!strcmp(f->name, "flashinfer_version")) {
			snprintf(f->current, sizeof f->current, "%s", version);
			f->current_from = fi && fi->version_from[0] ? fi->version_from : "--flashinfer";
		} else if (!strcmp(f->name, "gpu")) {
			snprintf(f->current, sizeof f->current, "%s", device);
			f->current_from = "the GPU";
		} else {
			doctor_env_field(fi ? fi->site : NULL, f->name, f->current, sizeof f->current,
					 &f->current_from);
		}
		const struct table_meta *x = NULL;
		for (size_t k = 0; k < t->n_meta && t->metadata_is_object; k++)
			if (!strcmp(t->meta[k].name, f->name))
				x = &t->meta[k];
		if (x)
			snprintf(f->saved, sizeof f->saved, "%s", x->json);
		/* a number never equals a string (type-sensitive): x->value is set for strings */
		static const enum field_status of[] = {
			[FI_META_MATCH] = FIELD_MATCH, [FI_META_WILDCARD] = FIELD_WILDCARD,
			[FI_META_SOFT] = FIELD_SOFT, [FI_META_HARD] = FIELD_HARD,
			[FI_META_UNKNOWN] = FIELD_UNKNOWN,
		};
		f->status = of[fi_meta_field(x != NULL, x && !strcmp(x->json, "null"), x ? x->value : NULL,
					     f->current[0] ? f->current : NULL)];
		hard |= f->status == FIELD_HARD;
		soft |= f->status == FIELD_SOFT;
		unknown |= f->status == FIELD_UNKNOWN;
	}
	if (!t->metadata_is_object)
		soft = true; /* a _metadata that is not an object counts as all-soft */
	if ((hard || soft) && s->json_cache.mismatch == MISMATCH_STRICT)
		c->verdict = CACHE_STRICT;
	else if (hard)
		c->verdict = CACHE_HARD;
	else if (soft)
		c->verdict = CACHE_SOFT;
	else if (unknown)
		c->verdict = CACHE_UNVERIFIED;
	else
		c->verdict = CACHE_ACCEPTED;
	c->usable = c->verdict == CACHE_ACCEPTED || c->verdict == CACHE_UNVERIFIED;
	return TT_OK;
}

static const struct table_entry *find_key(const struct table *t, const char *key)
{
	size_t n = strlen(key);
	for (size_t i = 0; t && i < t->n; i++)
		if (t->entries[i].key_len == n && !memcmp(t->entries[i].key, key, n))
			return &t->entries[i];
	return NULL;
}

void doctor_lookups(const struct lookup_list *p, const struct fi_rules *s,
		    const struct doctor_module *m, const struct table *mt,
		    const struct doctor_cache *c, const struct table *ct, struct doctor_lookup *out)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct lookup_entry *e = &p->v[i];
		struct doctor_lookup *l = &out[i];
		memset(l, 0, sizeof *l);
		l->stage = e->stage;
		l->tokens = e->tokens;
		l->key = e->key;
		/* 1. the JSON cache (§1.4 level 2); 0.6.16+ also wants the runner's class name */
		const struct table_entry *je = c && c->usable ? find_key(ct, e->key) : NULL;
		if (je && je->value_ok &&
		    (s->bundled.runner_slot != SLOT_IGNORED || (je->runner && !strcmp(je->runner, "MoERunner")))) {
			l->source = SRC_JSON;
			continue;
		}
		/* 2. the bundled module (level 3), only with the variable set to exactly "1" */
		const struct table_entry *be = m && m->exists && m->readable ? find_key(mt, e->key) : NULL;
		if (be && be->value_ok && m->env_ok) {
			l->source = SRC_BUNDLED;
			continue;
		}
		l->source = SRC_FALLBACK;
		char cpart[96] = "";
		if (je)
			snprintf(cpart, sizeof cpart, "the JSON cache stores runner '%s', not 'MoERunner'; ",
				 je->runner ? je->runner : "?");
		else if (c && !c->usable)
			snprintf(cpart, sizeof cpart, "the JSON cache is ignored (%s); ",
				 cache_verdict_name(c->verdict));
		else if (c)
			snprintf(cpart, sizeof cpart, "not in the JSON cache; ");
		if (be && !m->env_ok)
			snprintf(l->why, sizeof l->why, "%sin the module, but %s is not \"%s\"", cpart,
				 s->bundled.env_var, s->bundled.env_value);
		else if (m && !m->exists)
			snprintf(l->why, sizeof l->why, "%sno bundled module %s", cpart, m->name);
		else if (m && !m->readable)
			snprintf(l->why, sizeof l->why, "%sthe module does not import", cpart);
		else
			snprintf(l->why, sizeof l->why, "%snot in the module", cpart);
	}
}

const char *cache_verdict_name(enum cache_verdict v)
{
	static const char *names[] = { "accepted", "no-metadata", "unverified", "soft-mismatch",
				       "hard-mismatch", "mismatch", "unsupported", "broken" };
	return names[v];
}

const char *field_status_name(enum field_status s)
{
	static const char *names[] = { "match", "wildcard", "soft", "hard", "unknown" };
	return names[s];
}

const char *lookup_source_name(enum lookup_source s)
{
	return s == SRC_JSON ? "json-cache" : s == SRC_BUNDLED ? "bundled-module" : "fallback";
}

/* --- tunetab doctor ------------------------------------------------------------------- */

int doctor_find(const struct doctor_request *q, struct doctor_report *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	if (q->flashinfer) {
		/* the version is given: an installed package only says where the module would go */
		struct diags quiet = DIAGS_INIT;
		r->have_fi = doctor_find_flashinfer(NULL, &r->fi, &quiet) == TT_OK;
		diags_release(&quiet);
		r->version = q->flashinfer;
		return TT_OK;
	}
	int rc = doctor_find_flashinfer(q->fidir, &r->fi, d);
	if (rc)
		return rc;
	r->have_fi = true;
	r->version = r->fi.version;
	return TT_OK;
}

int doctor_device(const struct doctor_request *q, const struct device_set *devices,
		  struct doctor_report *r, struct diags *d)
{
	if (!strcmp(q->device, "auto")) {
		struct gpu_info *g;
		int n;
		struct gpu_env env;
		char err[512];
		int rc = gpu_query(&g, &n, &env, err, sizeof err);
		if (rc)
			return diag_error(d, rc, "no-gpu", NULL, 0, 0, "--device auto: %s; give --device NAME",
					  err);
		snprintf(r->device, sizeof r->device, "%s", g[0].name);
		free(g);
		r->device_from = "GPU 0";
	} else {
		const struct device_profile *p = device_find(devices, q->device);
		snprintf(r->device, sizeof r->device, "%s", p ? p->name : q->device);
		r->device_from = p ? "from --device"
				   : "from --device, not a known profile: the name taken as given";
	}
	r->profile = device_find(devices, r->device);
	return TT_OK;
}

/* The generate line that writes what is missing, with the deployment's own options. */
static char *generate_line(const struct doctor_request *q, const char *device, const char *version,
			   const char *format, const char *outdir)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "tunetab generate --device ");
	sb_add_shell(&sb, device);
	sb_adds(&sb, " --model ");
	sb_add_shell(&sb, q->model ? q->model : "MODEL");
	sb_addf(&sb, " --dtype %s", q->dtype ? q->dtype : "DTYPE");
	if (q->tp != 1)
		sb_addf(&sb, " --tp %ld", q->tp);
	if (q->ep != 1)
		sb_addf(&sb, " --ep %ld", q->ep);
	if (q->tp_rank)
		sb_addf(&sb, " --tp-rank %ld", q->tp_rank);
	if (q->ep_rank)
		sb_addf(&sb, " --ep-rank %ld", q->ep_rank);
	if (q->top_k)
		sb_addf(&sb, " --top-k %ld", q->top_k);
	if (q->max_tokens)
		sb_addf(&sb, " --max-tokens %ld", q->max_tokens);
	if (q->weight_view)
		sb_addf(&sb, " --weight-view %s", q->weight_view);
	sb_addf(&sb, " --flashinfer %s --format %s -o ", version, format);
	sb_add_shell(&sb, outdir);
	return sb_detach(&sb);
}

/* The commands that fix what was found: a generate line for a missing or broken module (or
 * lookups that fall back), the variable, a cache stamped for this environment. */
static char *next_steps(const struct doctor_request *q, const struct fi_rules *s,
			const struct doctor_report *r, bool cache_ok)
{
	const struct doctor_module *m = &r->mod;
	struct strbuf next = STRBUF_INIT;
	const char *sub = strchr(s->bundled.package_dir, '/');
	char *tc_dir = r->have_fi ? xasprintf("%s%s", r->fi.pkg, sub ? sub : "/tuning_configs")
				  : xasprintf("<site-packages>/%s", s->bundled.package_dir);
	if (!m->exists || !m->readable || m->errors ||
	    (q->model && r->hits < r->n_lookups && !cache_ok)) {
		/* the package's own folder: generate writes there only when told (--into-flashinfer);
		 * SGLang and vLLM read it never while they tune: `doctor --for CONSUMER -- LAUNCH` */
		char *g = generate_line(q, r->device, r->version, "py", tc_dir);
		sb_addf(&next, "%s%s\n", g, r->have_fi ? " --into-flashinfer" : "");
		free(g);
	}
	if (!m->env_ok)
		sb_addf(&next, "export %s=%s\n", s->bundled.env_var, s->bundled.env_value);
	if (q->cache && !r->cache.usable && r->cache.verdict != CACHE_UNSUPPORTED) {
		char *g = generate_line(q, r->device, r->version, "json", "DIR");
		sb_addf(&next, "%s   # a cache stamped for this environment (unknown fields \"*\"); "
			"or give autotune() a new cache path\n", g);
		free(g);
	}
	free(tc_dir);
	return sb_detach(&next);
}

void doctor_examine(const struct doctor_request *q, const struct fi_rules *s, const void *vd,
		    const struct lookup_list *plan, struct doctor_report *r)
{
	struct diags none = DIAGS_INIT; /* doctor_module and doctor_cache add none */
	const struct doctor_fi *fi = r->have_fi ? &r->fi : NULL;
	doctor_module(fi, s, r->version, r->device, vd, &r->mod, &r->mt, &none);
	if (q->cache)
		doctor_cache(fi, s, r->version, r->device, vd, q->cache, &r->cache, &r->ct, &none);
	diags_release(&none);
	if (q->model && plan) {
		r->n_lookups = plan->n;
		r->lookups = xcalloc(plan->n ? plan->n : 1, sizeof *r->lookups);
		doctor_lookups(plan, s, &r->mod, &r->mt, q->cache ? &r->cache : NULL, &r->ct, r->lookups);
		for (size_t i = 0; i < plan->n; i++) {
			r->hits += r->lookups[i].source != SRC_FALLBACK;
			r->via_json += r->lookups[i].source == SRC_JSON;
			r->via_module += r->lookups[i].source == SRC_BUNDLED;
		}
	}
	bool module_ok = r->mod.usable && r->mod.errors == 0;
	bool cache_ok = q->cache && r->cache.usable && r->cache.errors == 0;
	r->all_hit = q->model ? r->hits == r->n_lookups && r->n_lookups > 0 : (module_ok || cache_ok);
	r->next = next_steps(q, s, r, cache_ok);
}

static json_t *cache_json(const struct doctor_request *o, const struct doctor_cache *c)
{
	json_t *cj = json_object();
	json_object_set_new(cj, "path", json_string(o->cache));
	json_object_set_new(cj, "verdict", json_string(cache_verdict_name(c->verdict)));
	json_object_set_new(cj, "usable", json_boolean(c->usable));
	json_object_set_new(cj, "errors", json_integer((json_int_t)c->errors));
	json_t *fl = json_array();
	for (size_t i = 0; i < c->n_fields; i++) {
		const struct doctor_field *x = &c->fields[i];
		json_t *fo = json_object();
		json_object_set_new(fo, "field", json_string(x->name));
		json_object_set_new(fo, "saved", x->saved[0] ? json_string(x->saved) : json_null());
		json_object_set_new(fo, "current", x->current[0] ? json_string(x->current) : json_null());
		json_object_set_new(fo, "status", json_string(field_status_name(x->status)));
		json_array_append_new(fl, fo);
	}
	json_object_set_new(cj, "fields", fl);
	return cj;
}

char *doctor_report_json(const struct doctor_request *o, const struct fi_rules *rules,
			 const struct doctor_report *r)
{
	const struct doctor_module *mod = &r->mod;
	json_t *jo = json_object();
	json_t *f = json_object();
	json_object_set_new(f, "version", json_string(r->version));
	json_object_set_new(f, "package", r->have_fi ? json_string(r->fi.pkg) : json_null());
	json_object_set_new(f, "version_from", r->have_fi && !o->flashinfer ? json_string(r->fi.version_from)
									    : json_string("--flashinfer"));
	json_t *others = json_array();
	for (size_t i = 0; r->have_fi && i < r->fi.n_others; i++)
		json_array_append_new(others, json_string(r->fi.others[i]));
	json_object_set_new(f, "other_installs", others);
	json_object_set_new(jo, "flashinfer", f);
	json_t *dv = json_object();
	json_object_set_new(dv, "name", json_string(r->device));
	json_object_set_new(dv, "from", json_string(r->device_from));
	json_object_set_new(jo, "device", dv);
	json_t *m = json_object();
	json_object_set_new(m, "module", json_string(mod->name));
	json_object_set_new(m, "path", json_string(mod->path));
	json_object_set_new(m, "exists", r->have_fi ? json_boolean(mod->exists) : json_null());
	json_object_set_new(m, "imports", mod->exists ? json_boolean(mod->readable) : json_null());
	json_object_set_new(m, "errors", json_integer((json_int_t)mod->errors));
	json_object_set_new(m, "warnings", json_integer((json_int_t)mod->warnings));
	json_object_set_new(m, "first_error", mod->errors ? json_string(mod->first_error) : json_null());
	json_t *wp = json_array();
	for (size_t i = 0; i < mod->n_wrong_prefix; i++)
		json_array_append_new(wp, json_string(mod->wrong_prefix[i]));
	json_object_set_new(m, "wrong_prefix", wp);
	json_object_set_new(m, "env_var", json_string(rules->bundled.env_var));
	json_object_set_new(m, "env_value", mod->env_value ? json_string(mod->env_value) : json_null());
	json_object_set_new(m, "env_ok", json_boolean(mod->env_ok));
	json_object_set_new(m, "usable", json_boolean(mod->usable));
	json_object_set_new(jo, "bundled", m);
	if (o->cache)
		json_object_set_new(jo, "cache", cache_json(o, &r->cache));
	if (o->model) {
		json_t *la = json_array();
		for (size_t i = 0; i < r->n_lookups; i++) {
			const struct doctor_lookup *l = &r->lookups[i];
			json_t *x = json_object();
			json_object_set_new(x, "stage", json_integer(l->stage));
			json_object_set_new(x, "tokens", json_integer(l->tokens));
			json_object_set_new(x, "source", json_string(lookup_source_name(l->source)));
			if (l->source == SRC_FALLBACK)
				json_object_set_new(x, "why", json_string(l->why));
			json_object_set_new(x, "key", json_string(l->key));
			json_array_append_new(la, x);
		}
		json_object_set_new(jo, "lookups", la);
		json_object_set_new(jo, "hits", json_integer((json_int_t)r->hits));
		json_object_set_new(jo, "fallbacks", json_integer((json_int_t)(r->n_lookups - r->hits)));
	}
	json_object_set_new(jo, "all_hit", json_boolean(r->all_hit));
	json_object_set_new(jo, "next", json_string(r->next));
	char *s = json_dumps(jo, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(jo);
	if (!s)
		oom();
	char *out = xstrdup(s);
	free(s);
	return out;
}

void doctor_report_release(struct doctor_report *r)
{
	free(r->lookups);
	if (r->mt.path || r->mt.n)
		table_release(&r->mt);
	if (r->ct.path || r->ct.n)
		table_release(&r->ct);
	doctor_module_release(&r->mod);
	free(r->next);
	memset(r, 0, sizeof *r);
}

int doctor_is_tuning_configs(const char *dir)
{
	char *real = realpath(dir, NULL);
	if (!real)
		return 0;
	size_t n = strlen(real);
	static const char tail[] = "/flashinfer/tuning_configs";
	int yes = 0;
	if (n >= sizeof tail - 1 && !strcmp(real + n - (sizeof tail - 1), tail)) {
		char *init = xasprintf("%.*s/__init__.py", (int)(n - strlen("/tuning_configs")), real);
		yes = access(init, F_OK) == 0;
		free(init);
	}
	free(real);
	return yes;
}
