/* merge.c: `tunetab merge` without the printing (docs/fleet.md, "Merge"): inputs read, identity
 * and shards checked, entries merged by a total order, outputs built and validated. */
#include "flashinfer/merge.h"
#include "flashinfer/validate.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "flashinfer/key.h"
#include "flashinfer/names.h"
#include "flashinfer/tableset.h"
#include "flashinfer/table.h"
#include "base/version.h"

#define LIST_MAX 10 /* items named in one message before "and N more" */

struct mfile {
	char *name; /* as the user named it (an argument, or FOLDER/NAME) */
	char *real; /* realpath: a file named twice is read once */
	bool is_prov;
};

struct mprov {
	char *name, *real, *dir_real;
	struct provenance p;
	size_t *by_key;   /* entry indices sorted by key */
	bool *hit;        /* entries a table key matched */
	size_t *runmap;   /* run index -> index in the merged runs */
	bool used;        /* an input, or beside a table it names */
};

struct mtable {
	char *name, *dir_real;
	const char *base;
	struct table t;
	long prov;        /* index into provs, -1: none */
	int arity;        /* 3 or 4; 0: no key says */
	char *file_device; /* the device part of a bundled module name (formats §1.1), or NULL */
};

struct urun {
	const struct prov_run *r;
	const char *input; /* the first provenance file (by name) holding it */
};

struct cand {
	const char *key;
	size_t key_len;
	const struct mtable *tab;
	const struct table_entry *e;
	const struct prov_entry *pe; /* NULL: no provenance */
	const char *run_json;
	char *tactic; /* repr */
};

struct mctx {
	const struct validate_data *data;
	const struct merge_opts *o;
	struct diags *d;
	struct mfile *files;
	size_t nfiles, files_alloc;
	struct mprov *provs;
	size_t nprovs, provs_alloc;
	struct mtable *tabs;
	size_t ntabs, tabs_alloc;
	char **scanned;
	size_t nscanned, scanned_alloc;
	char *const *names; /* every input file, sorted (the result's list) */
	size_t nnames;
	struct urun *runs;
	size_t nruns, runs_alloc;
	const struct fi_rules *rules;
	char *device, *version;
};

/* --- small helpers ------------------------------------------------------- */

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return xstrdup(".");
	return s == path ? xstrdup("/") : xstrndup(path, (size_t)(s - path));
}

/* OUT as the folder the outputs go to, without trailing slashes. Caller frees. */
static char *out_folder(const char *dest)
{
	size_t n = strlen(dest);
	while (n > 1 && dest[n - 1] == '/')
		n--;
	return xstrndup(dest, n);
}

static char *join(const char *dir, const char *base)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return xasprintf("%.*s/%s", (int)n, dir, base);
}

static char *real_of(const char *path)
{
	char *r = realpath(path, NULL);
	return r ? r : xstrdup(path);
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
	size_t n = an < bn ? an : bn;
	int c = n ? memcmp(a, b, n) : 0;
	return c ? c : (an > bn) - (an < bn);
}

/* --- Python literal order ------------------------------------------------ */

static int kind_class(enum pyv_kind k)
{
	switch (k) {
	case PV_INT:
	case PV_TRUE:
	case PV_FALSE: return 0;
	case PV_STR: return 1;
	case PV_TUPLE:
	case PV_LIST: return 2;
	default: return 3;
	}
}

int merge_tactic_cmp(const struct pyv *a, const struct pyv *b)
{
	int ca = kind_class(a->kind), cb = kind_class(b->kind), c = 0;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (ca == 0) {
		long long x = a->kind == PV_INT ? a->i : a->kind == PV_TRUE;
		long long y = b->kind == PV_INT ? b->i : b->kind == PV_TRUE;
		c = (x > y) - (x < y);
	} else if (ca == 1) {
		c = cmp_bytes(a->s, a->len, b->s, b->len);
	} else if (ca == 2) {
		for (size_t i = 0; !c && i < a->n && i < b->n; i++)
			c = merge_tactic_cmp(&a->items[i], &b->items[i]);
		if (!c)
			c = (a->n > b->n) - (a->n < b->n);
	}
	if (c)
		return c;
	/* equal for Python (True == 1, (1,) vs [1]): the spelling decides, so the order is total */
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	pyv_repr(a, &x);
	pyv_repr(b, &y);
	c = strcmp(x.buf ? x.buf : "", y.buf ? y.buf : "");
	sb_release(&x);
	sb_release(&y);
	return c;
}

/* --- the order of candidates for one key (docs/fleet.md "Merge", rules 1-3) --- */

static int rank_of(const struct cand *c)
{
	if (!c->pe)
		return 2;
	return c->pe->source == PROV_PREDICTED ? 1 : 0;
}

static const char *rank_name(int rank)
{
	return rank == 0 ? "measured" : rank == 1 ? "predicted" : "no provenance";
}

/* known times first, then the lower */
static int cmp_time(double a, double b)
{
	if ((a >= 0) != (b >= 0))
		return a >= 0 ? -1 : 1;
	return (a > b) - (a < b);
}

static int cmp_rules(const struct cand *a, const struct cand *b, enum merge_rule *rule)
{
	int ra = rank_of(a), rb = rank_of(b), c;
	*rule = MERGE_RULE_SOURCE;
	if (ra != rb)
		return ra < rb ? -1 : 1;
	*rule = MERGE_RULE_TIME;
	if (ra < 2 && (c = cmp_time(a->pe->time_us, b->pe->time_us)))
		return c;
	*rule = MERGE_RULE_TACTIC;
	return merge_tactic_cmp(a->e->tactic, b->e->tactic);
}

/* The items of an entry's value: a module's (runner_id, tactic) 2, a JSON value's list its
 * length. */
static size_t value_items(const struct table_entry *e)
{
	return e->value && e->value->kind == PV_TUPLE ? e->value->n : 2;
}

/* Same key, same verdict of the rules (so the same tactic): the whole content decides, so
 * that which input an entry came from never matters. */
static int cmp_content(const struct cand *a, const struct cand *b)
{
	int c;
	if (a->pe && b->pe) {
		const struct prov_entry *x = a->pe, *y = b->pe;
		if (x->source != y->source)
			return x->source < y->source ? -1 : 1;
		if ((c = cmp_time(x->lo_us, y->lo_us)) || (c = cmp_time(x->hi_us, y->hi_us)) ||
		    (c = cmp_time(x->fallback_us, y->fallback_us)))
			return c;
		for (size_t i = 0; i < x->nties && i < y->nties; i++)
			if (x->ties[i] != y->ties[i])
				return x->ties[i] < y->ties[i] ? -1 : 1;
		if (x->nties != y->nties)
			return x->nties < y->nties ? -1 : 1;
		if ((c = strcmp(a->run_json, b->run_json)))
			return c;
	}
	/* a JSON value's policy and selection record first (the same run's module has neither,
	 * and the entry kept carries them), then theirs in byte order */
	size_t na = value_items(a->e), nb = value_items(b->e);
	if (na != nb)
		return na > nb ? -1 : 1;
	if (na > 2) {
		struct strbuf pa = STRBUF_INIT, pb = STRBUF_INIT;
		pyv_repr(&a->e->value->items[2], &pa);
		pyv_repr(&b->e->value->items[2], &pb);
		c = strcmp(pa.buf, pb.buf);
		sb_release(&pa);
		sb_release(&pb);
		if (c || (c = strcmp(a->e->selection ? a->e->selection : "",
				     b->e->selection ? b->e->selection : "")))
			return c;
	}
	const char *ra = a->e->runner ? a->e->runner : "", *rb = b->e->runner ? b->e->runner : "";
	if ((c = strcmp(ra, rb)))
		return c;
	return (a->e->runner_id > b->e->runner_id) - (a->e->runner_id < b->e->runner_id);
}

static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	int c = cmp_bytes(a->key, a->key_len, b->key, b->key_len);
	enum merge_rule rule;
	if (c || (c = cmp_rules(a, b, &rule)) || (c = cmp_content(a, b)))
		return c;
	return strcmp(a->tab->name, b->tab->name); /* identical content: any order is the same */
}

/* --- reading the inputs --------------------------------------------------- */

static void add_file(struct mctx *m, const char *name, bool is_prov)
{
	ALLOC_GROW(m->files, m->nfiles + 1, m->files_alloc);
	m->files[m->nfiles++] = (struct mfile){ xstrdup(name), real_of(name), is_prov };
}

static int io_error(struct mctx *m, const char *path, int err, const char *what)
{
	return diag_error(m->d, path_err_status(err), "io", path, 0, 0, "cannot read %s: %s", what,
			  path_strerror(path, err));
}

/* The names in a folder that are tables or provenance files (not recursively; journals and
 * hidden files are not), sorted. */
static int list_dir(struct mctx *m, const char *dir, bool prov_only, char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t alloc = 0;
	DIR *dh = opendir(dir);
	if (!dh)
		return io_error(m, dir, errno, "folder");
	struct dirent *de;
	while ((de = readdir(dh))) {
		const char *b = de->d_name;
		bool prov = names_is_provenance(b);
		if (b[0] == '.' || (prov_only && !prov) ||
		    (!prov && !str_ends(b, ".py") && !str_ends(b, ".json")))
			continue;
		char *path = join(dir, b);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			ALLOC_GROW(*out, *n + 1, alloc);
			(*out)[(*n)++] = path;
		} else {
			free(path);
		}
	}
	closedir(dh);
	if (*n > 1)
		qsort(*out, *n, sizeof **out, str_ptr_cmp);
	return TT_OK;
}

/* An input's folder that holds the undo log of an interrupted generate, merge or install is a
 * set of files that may come from two runs: refused, as merging it would carry the mix on. */
static int check_interrupted(struct mctx *m, const char *arg, bool is_dir)
{
	char *dir = is_dir ? xstrdup(arg) : dir_of(arg);
	const char *who = NULL;
	char *undo = tableset_interrupted(dir, &who);
	int rc = TT_OK;
	if (undo)
		rc = diag_error(m->d, TT_INVALID, "merge", arg, 0, 0, "an interrupted %s left its journal "
				"in '%s' (%s): the files there may come from two runs; run that %s again "
				"(it restores them first), then merge", who, dir, base_of(undo), who);
	free(undo);
	free(dir);
	return rc;
}

static int add_arg(struct mctx *m, const char *arg)
{
	struct stat st;
	if (stat(arg, &st))
		return io_error(m, arg, errno, "file");
	int rc = check_interrupted(m, arg, S_ISDIR(st.st_mode));
	if (rc)
		return rc;
	if (!S_ISDIR(st.st_mode)) {
		add_file(m, arg, names_is_provenance(base_of(arg)));
		return TT_OK;
	}
	char **names;
	size_t n;
	rc = list_dir(m, arg, false, &names, &n);
	for (size_t i = 0; i < n; i++) {
		add_file(m, names[i], names_is_provenance(base_of(names[i])));
		free(names[i]);
	}
	free(names);
	return rc;
}

static int cmp_file_real(const void *a, const void *b)
{
	const struct mfile *x = a, *y = b;
	int c = strcmp(x->real, y->real);
	return c ? c : strcmp(x->name, y->name);
}

static int cmp_file_name(const void *a, const void *b)
{
	return strcmp(((const struct mfile *)a)->name, ((const struct mfile *)b)->name);
}

/* Sorted by name; a file named twice is kept once, under its first name. */
static void dedupe_files(struct mctx *m)
{
	if (m->nfiles > 1)
		qsort(m->files, m->nfiles, sizeof *m->files, cmp_file_real);
	size_t k = 0;
	for (size_t i = 0; i < m->nfiles; i++) {
		if (k && !strcmp(m->files[k - 1].real, m->files[i].real)) {
			free(m->files[i].name);
			free(m->files[i].real);
			continue;
		}
		m->files[k++] = m->files[i];
	}
	m->nfiles = k;
	if (m->nfiles > 1)
		qsort(m->files, m->nfiles, sizeof *m->files, cmp_file_name);
}

static int load_prov(struct mctx *m, const char *name, const char *real, bool used)
{
	struct provenance p;
	int rc = prov_read(name, &p, m->d);
	if (rc)
		return rc;
	ALLOC_GROW(m->provs, m->nprovs + 1, m->provs_alloc);
	struct mprov *pv = &m->provs[m->nprovs++];
	memset(pv, 0, sizeof *pv);
	pv->name = xstrdup(name);
	pv->real = xstrdup(real);
	char *dir = dir_of(name);
	pv->dir_real = real_of(dir);
	free(dir);
	pv->p = p;
	pv->used = used;
	return TT_OK;
}

static bool known_real(const struct mctx *m, const char *real)
{
	for (size_t i = 0; i < m->nfiles; i++)
		if (!strcmp(m->files[i].real, real))
			return true;
	return false;
}

/* A provenance file given as an input brings the tables it names beside it. */
static int pull_tables(struct mctx *m, size_t pi)
{
	char *dir = dir_of(m->provs[pi].name);
	int rc = TT_OK;
	for (int k = 0; k < 2 && !rc; k++) {
		const char *f = k ? m->provs[pi].p.json_file : m->provs[pi].p.py_file;
		if (!f)
			continue;
		char *path = join(dir, f);
		struct stat st;
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			rc = diag_error(m->d, TT_INVALID, "merge", m->provs[pi].name, 0, 0, "describes the "
					"table '%s', which is not beside it", f);
		} else {
			char *real = real_of(path);
			if (!known_real(m, real))
				add_file(m, path, false);
			free(real);
		}
		free(path);
	}
	free(dir);
	return rc;
}

/* Reads the provenance files in a table's folder once (those not read yet). */
static int scan_dir(struct mctx *m, const char *dir, const char *dir_real)
{
	for (size_t i = 0; i < m->nscanned; i++)
		if (!strcmp(m->scanned[i], dir_real))
			return TT_OK;
	ALLOC_GROW(m->scanned, m->nscanned + 1, m->scanned_alloc);
	m->scanned[m->nscanned++] = xstrdup(dir_real);
	char **names;
	size_t n;
	int rc = list_dir(m, dir, true, &names, &n);
	for (size_t i = 0; i < n; i++) {
		char *real = real_of(names[i]);
		bool have = false;
		for (size_t k = 0; k < m->nprovs; k++)
			have |= !strcmp(m->provs[k].real, real);
		if (!rc && !have)
			rc = load_prov(m, names[i], real, false);
		free(real);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int key_arity(struct mctx *m, struct mtable *mt)
{
	struct arena a = ARENA_INIT;
	int rc = TT_OK;
	const struct table_entry *first = NULL;
	for (size_t i = 0; i < mt->t.n && !rc; i++) {
		const struct table_entry *e = &mt->t.entries[i];
		arena_reset(&a);
		const struct pyv *k = key_parse_any(e->key, e->key_len, &a);
		/* keys that are no 3- or 4-tuple are for validate to report */
		if (!k || k->kind != PV_TUPLE || (k->n != 3 && k->n != 4))
			continue;
		if (!mt->arity) {
			mt->arity = (int)k->n;
			first = e;
		} else if (mt->arity != (int)k->n) {
			rc = diag_error(m->d, TT_INVALID, "identity", mt->name, e->line, e->col, "a %zu-tuple "
					"key among %d-tuple keys (the first at %d:%d): one table holds the "
					"keys of one FlashInfer version (formats §1.3)", k->n, mt->arity,
					first->line, first->col);
		}
	}
	arena_release(&a);
	return rc;
}

static int load_table(struct mctx *m, const char *name)
{
	ALLOC_GROW(m->tabs, m->ntabs + 1, m->tabs_alloc);
	struct mtable *mt = &m->tabs[m->ntabs++];
	memset(mt, 0, sizeof *mt);
	mt->name = xstrdup(name);
	mt->base = base_of(mt->name);
	mt->prov = -1;
	char *dir = dir_of(name);
	mt->dir_real = real_of(dir);
	struct diags td = DIAGS_INIT;
	int rc = table_read(name, &mt->t, &td);
	/* a table_read error that still returned OK (a key that is not a str) is fatal too */
	if (!rc && diags_count(&td, SEV_ERROR))
		rc = TT_INVALID;
	for (size_t i = 0; i < td.n; i++) {
		const struct diag *x = &td.v[i];
		diags_add(m->d, x->sev, x->id, x->file, x->line, x->col, "%s", x->msg);
	}
	diags_release(&td);
	if (!rc)
		rc = key_arity(m, mt);
	if (!rc && mt->t.kind == TABLE_PY)
		mt->file_device = names_module_device(m->data->rules, mt->base);
	if (!rc)
		rc = scan_dir(m, dir, mt->dir_real);
	free(dir);
	if (rc)
		return rc;
	/* the provenance file beside it that names it */
	for (size_t i = 0; i < m->nprovs; i++) {
		const struct mprov *pv = &m->provs[i];
		if (strcmp(pv->dir_real, mt->dir_real) ||
		    !((pv->p.py_file && !strcmp(pv->p.py_file, mt->base)) ||
		      (pv->p.json_file && !strcmp(pv->p.json_file, mt->base))))
			continue;
		if (mt->prov >= 0)
			return diag_error(m->d, TT_INVALID, "merge", mt->name, 0, 0, "two provenance files "
					  "describe it, '%s' and '%s': keep one", m->provs[mt->prov].name,
					  pv->name);
		mt->prov = (long)i;
	}
	if (mt->prov >= 0)
		m->provs[mt->prov].used = true;
	return TT_OK;
}

static int read_inputs(struct mctx *m)
{
	int rc;
	for (size_t i = 0; i < m->o->ninputs; i++)
		if ((rc = add_arg(m, m->o->inputs[i])))
			return rc;
	dedupe_files(m);
	size_t given = m->nfiles;
	for (size_t i = 0; i < given; i++)
		if (m->files[i].is_prov && (rc = load_prov(m, m->files[i].name, m->files[i].real, true)))
			return rc;
	for (size_t i = 0; i < m->nprovs; i++)
		if ((rc = pull_tables(m, i)))
			return rc;
	dedupe_files(m);
	for (size_t i = 0; i < m->nfiles; i++)
		if (!m->files[i].is_prov && (rc = load_table(m, m->files[i].name)))
			return rc;
	if (!m->ntabs)
		return diag_error(m->d, TT_INVALID, "merge", NULL, 0, 0, "no table among the inputs "
				  "(a bundled module .py or a JSON cache .json, or a provenance file "
				  "beside them)");
	return TT_OK;
}

/* --- identity: device, FlashInfer version, key form ---------------------- */

struct ident {
	const char *value;
	bool part;          /* only the device part of a file name (spaces are '_') */
	const char *input;  /* NULL: the command line */
	const char *from;   /* "--device", "provenance", "_metadata.gpu", "file name" */
	int line, col;
};

static const struct table_meta *meta_of(const struct table *t, const char *name)
{
	for (size_t i = 0; i < t->n_meta; i++)
		if (!strcmp(t->meta[i].name, name))
			return &t->meta[i];
	return NULL;
}

static void push_ident(struct ident **v, size_t *n, size_t *alloc, struct ident x)
{
	ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = x;
}

/* Sources in a fixed order: the command line, then every provenance file, then the JSON
 * caches' _metadata, then module file names (docs/fleet.md "Identity"), each by input name. */
static void gather(const struct mctx *m, bool device, struct ident **v, size_t *n)
{
	*v = NULL;
	*n = 0;
	size_t alloc = 0;
	const char *opt = device ? m->o->device : m->o->flashinfer;
	if (opt) {
		const char *val = opt;
		if (device) {
			const struct device_profile *p = device_find(m->data->devices, opt);
			if (p)
				val = p->name;
		}
		push_ident(v, n, &alloc, (struct ident){ val, false, NULL, device ? "--device" : "--flashinfer",
						 0, 0 });
	}
	for (int pass = 0; pass < 3; pass++)
		for (size_t f = 0; f < m->nnames; f++) {
			const char *name = m->names[f];
			for (size_t i = 0; pass == 0 && i < m->nprovs; i++) {
				const struct mprov *pv = &m->provs[i];
				if (pv->used && !strcmp(pv->name, name))
					push_ident(v, n, &alloc, (struct ident){ device ? pv->p.device
										: pv->p.flashinfer_version,
									 false, pv->name, "provenance", 0, 0 });
			}
			for (size_t i = 0; pass > 0 && i < m->ntabs; i++) {
				const struct mtable *mt = &m->tabs[i];
				if (strcmp(mt->name, name))
					continue;
				const struct table_meta *md = pass == 1 && mt->t.kind == TABLE_JSON
					? meta_of(&mt->t, device ? "gpu" : "flashinfer_version") : NULL;
				if (md && md->value && strcmp(md->value, "*"))
					push_ident(v, n, &alloc, (struct ident){ md->value, false, mt->name,
									 device ? "_metadata.gpu"
										: "_metadata.flashinfer_version",
									 md->line, md->col });
				if (pass == 2 && device && mt->file_device)
					push_ident(v, n, &alloc, (struct ident){ mt->file_device, true, mt->name,
									 "file name", 0, 0 });
			}
		}
}

static char *describe_src(const struct ident *x)
{
	return x->input ? xasprintf("%s of %s", x->from, x->input) : xstrdup(x->from);
}

static int check_identity(struct mctx *m, bool device)
{
	struct ident *v;
	size_t n;
	gather(m, device, &v, &n);
	const struct ident *ref = NULL;
	for (size_t i = 0; i < n && !ref; i++)
		if (!v[i].part)
			ref = &v[i];
	if (!ref && n)
		ref = &v[0];
	int rc = TT_OK;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct ident *x = &v[i];
		bool same = x->part || ref->part ? names_same_device(x->value, ref->value)
						 : !strcmp(x->value, ref->value);
		if (same)
			continue;
		/* the message is located at x's file; the reference names its own */
		char *b = describe_src(ref);
		rc = diag_error(m->d, TT_INVALID, "identity", x->input, x->line,
				x->col, "%s '%s' (%s) differs from '%s' (%s): every input must be for one "
				"%s; nothing written", device ? "device" : "FlashInfer version", x->value,
				x->from, ref->value, b, device ? "device" : "FlashInfer version");
		free(b);
	}
	if (!rc && !ref)
		rc = diag_error(m->d, TT_USAGE, "identity", NULL, 0, 0, "no input says which %s the "
				"tables are for: give %s", device ? "device" : "FlashInfer version",
				device ? "--device NAME" : "--flashinfer VERSION");
	if (!rc && device) {
		if (!ref->part) {
			m->device = xstrdup(ref->value);
		} else {
			/* only file names say it: the profile whose name gives that part */
			for (size_t i = 0; i < m->data->devices->n && !m->device; i++)
				if (names_same_device(m->data->devices->v[i]->name, ref->value))
					m->device = xstrdup(m->data->devices->v[i]->name);
			if (!m->device)
				rc = diag_error(m->d, TT_USAGE, "identity", ref->input, 0, 0, "the device is "
						"named only as '%s' in a file name, which no known GPU gives: "
						"give --device NAME", ref->value);
		}
	} else if (!rc) {
		m->version = xstrdup(ref->value);
		struct fi_version fv;
		bool newer = false;
		if (version_parse(ref->value, &fv)) {
			rc = diag_error(m->d, ref->input ? TT_INVALID : TT_USAGE, "identity", ref->input, 0,
					0, "'%s' is not a FlashInfer version (want e.g. 0.6.18)", ref->value);
		} else if (!(m->rules = firules_find(m->data->rules, &fv, &newer))) {
			rc = diag_error(m->d, TT_INVALID, "identity", ref->input, 0, 0, "FlashInfer %s "
					"predates tuning-table support (the oldest known rules start at %s)",
					ref->value, m->data->rules->v[0]->versions.min);
		} else if (newer) {
			diags_add(m->d, SEV_WARNING, "version", NULL, 0, 0, "FlashInfer %s is newer than "
				  "every known version; applying the rules of %s (FlashInfer %s to below %s)",
				  ref->value, m->rules->id, m->rules->versions.min,
				  m->rules->versions.below);
		}
	}
	free(v);
	return rc;
}

/* "FlashInfer 0.2.9 to below 0.6.13" for the versions that build n-tuple keys */
static char *tuple_versions(const struct mctx *m, int n)
{
	const struct firules_set *ss = m->data->rules;
	const char *lo = NULL, *hi = NULL;
	for (size_t i = 0; i < ss->n; i++) {
		if ((int)ss->v[i]->key.tuple != n)
			continue;
		if (!lo)
			lo = ss->v[i]->versions.min;
		hi = i + 1 < ss->n ? ss->v[i]->versions.below : NULL;
	}
	if (!lo)
		return xstrdup("no known FlashInfer");
	return hi ? xasprintf("FlashInfer %s to below %s", lo, hi) : xasprintf("FlashInfer %s on", lo);
}

/* 3- against 4-tuple keys are two FlashInfer versions (docs/fleet.md "Identity"). */
static int check_arity(struct mctx *m)
{
	const struct mtable *ref = NULL;
	for (size_t i = 0; i < m->ntabs; i++) {
		const struct mtable *mt = &m->tabs[i];
		if (!mt->arity)
			continue;
		if (!ref)
			ref = mt;
		if (mt->arity != ref->arity) {
			char *a = tuple_versions(m, mt->arity), *b = tuple_versions(m, ref->arity);
			int rc = diag_error(m->d, TT_INVALID, "identity", mt->name, 0, 0, "%d-tuple keys (%s) "
					    "differ from the %d-tuple keys of %s (%s): every input must be "
					    "for one FlashInfer version (formats §1.3); nothing written",
					    mt->arity, a, ref->arity, ref->name, b);
			free(a);
			free(b);
			return rc;
		}
	}
	if (ref && (int)m->rules->key.tuple != ref->arity) {
		char *a = tuple_versions(m, ref->arity);
		int rc = diag_error(m->d, TT_INVALID, "identity", ref->name, 0, 0, "%d-tuple keys (%s), "
				    "but FlashInfer %s builds %u-tuple keys: every input must be for one "
				    "FlashInfer version (formats §1.3); nothing written", ref->arity, a,
				    m->version, m->rules->key.tuple);
		free(a);
		return rc;
	}
	return TT_OK;
}

/* --- runs and shards ----------------------------------------------------- */

static int cmp_urun(const void *a, const void *b)
{
	const struct urun *x = a, *y = b;
	int c = strcmp(x->r->json, y->r->json);
	return c ? c : strcmp(x->input, y->input);
}

static int cmp_shard(const void *a, const void *b)
{
	const struct urun *x = a, *y = b;
	int c = strcmp(x->r->id, y->r->id);
	if (!c)
		c = (x->r->shard_count > y->r->shard_count) - (x->r->shard_count < y->r->shard_count);
	if (!c)
		c = (x->r->shard_index > y->r->shard_index) - (x->r->shard_index < y->r->shard_index);
	return c ? c : strcmp(x->input, y->input);
}

static size_t find_run(const struct mctx *m, const char *json)
{
	size_t lo = 0, hi = m->nruns;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(m->runs[mid].r->json, json);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX; /* not reached: every run is in the union */
}

/* The union of every provenance's runs, identical ones once, sorted by their JSON. */
static void union_runs(struct mctx *m)
{
	for (size_t i = 0; i < m->nprovs; i++) {
		const struct mprov *pv = &m->provs[i];
		if (!pv->used)
			continue;
		for (size_t k = 0; k < pv->p.nruns; k++) {
			ALLOC_GROW(m->runs, m->nruns + 1, m->runs_alloc);
			m->runs[m->nruns++] = (struct urun){ &pv->p.runs[k], pv->name };
		}
	}
	if (m->nruns > 1)
		qsort(m->runs, m->nruns, sizeof *m->runs, cmp_urun);
	size_t k = 0;
	for (size_t i = 0; i < m->nruns; i++)
		if (!k || strcmp(m->runs[k - 1].r->json, m->runs[i].r->json))
			m->runs[k++] = m->runs[i];
	m->nruns = k;
	for (size_t i = 0; i < m->nprovs; i++) {
		struct mprov *pv = &m->provs[i];
		if (!pv->used)
			continue;
		pv->runmap = xmalloc((pv->p.nruns ? pv->p.nruns : 1) * sizeof *pv->runmap);
		for (size_t r = 0; r < pv->p.nruns; r++)
			pv->runmap[r] = find_run(m, pv->p.runs[r].json);
	}
}

/* "NAME\x01INPUT" lines: the same NAME */
static bool same_backend(const char *a, const char *b)
{
	size_t n = strcspn(a, "\x01");
	return n == strcspn(b, "\x01") && !strncmp(a, b, n);
}

/* Runs measured by different backends (provenance.h): said in a note, as differing _metadata
 * is; the identity rules and the rules that settle conflicts stay as they are. */
static void note_backends(struct mctx *m)
{
	char **lines = NULL;
	size_t n = 0, alloc = 0;
	for (size_t i = 0; i < m->nruns; i++) {
		if (!m->runs[i].r->backend)
			continue; /* measured nothing */
		char name[64];
		prov_backend_name(m->runs[i].r->backend, name, sizeof name);
		ALLOC_GROW(lines, n + 1, alloc);
		lines[n++] = xasprintf("%s\x01%s", name, m->runs[i].input);
	}
	if (n > 1)
		qsort(lines, n, sizeof *lines, str_ptr_cmp);
	size_t names = 0;
	for (size_t i = 0; i < n; i++)
		names += !i || !same_backend(lines[i - 1], lines[i]);
	if (names > 1) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < n; i++) {
			if (i && !strcmp(lines[i], lines[i - 1]))
				continue; /* two runs of one input */
			const char *sep = strchr(lines[i], '\x01');
			if (i && same_backend(lines[i - 1], lines[i]))
				sb_addf(&sb, ", %s", sep + 1);
			else
				sb_addf(&sb, "%s%.*s in %s", i ? "; " : "", (int)(sep - lines[i]), lines[i],
					sep + 1);
		}
		diags_add(m->d, SEV_NOTE, "backend", NULL, 0, 0, "the inputs were measured by different "
			  "backends (%s): their times are not comparable, and conflicts between them are "
			  "settled by the same rules", sb.buf);
		sb_release(&sb);
	}
	free_strings(lines, n);
}

/* Shards of one run (same id and count) must be the whole set 0..N-1. */
static int check_shards(struct mctx *m)
{
	size_t n = m->nruns;
	struct urun *v = xmalloc((n ? n : 1) * sizeof *v);
	if (n)
		memcpy(v, m->runs, n * sizeof *v);
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_shard);
	int rc = TT_OK;
	for (size_t g = 0; g < n;) {
		size_t e = g;
		while (e < n && !strcmp(v[e].r->id, v[g].r->id) &&
		       v[e].r->shard_count == v[g].r->shard_count)
			e++;
		int count = v[g].r->shard_count;
		struct strbuf missing = STRBUF_INIT, have = STRBUF_INIT;
		size_t nmissing = 0, nhave = 0;
		int next = 0;
		for (size_t i = g; i <= e; i++) {
			int upto = i < e ? v[i].r->shard_index : count;
			if (i < e && i > g && v[i].r->shard_index == v[i - 1].r->shard_index)
				continue; /* a second copy of one shard (another run object) */
			for (; next < upto; next++)
				if (nmissing++ < LIST_MAX)
					sb_addf(&missing, "%s%d", nmissing > 1 ? ", " : "", next);
			if (i < e) {
				if (nhave++ < LIST_MAX)
					sb_addf(&have, "%s%d in %s", nhave > 1 ? "; " : "", upto, v[i].input);
				next = upto + 1;
			}
		}
		if (nmissing > LIST_MAX)
			sb_addf(&missing, " and %zu more", nmissing - LIST_MAX);
		if (nhave > LIST_MAX)
			sb_addf(&have, " and %zu more", nhave - LIST_MAX);
		if (nmissing && m->o->partial)
			diags_add(m->d, SEV_NOTE, "shard", NULL, 0, 0, "run '%s': merged %zu of its %d shards; "
				  "missing %s (--partial)", v[g].r->id, nhave, count, missing.buf);
		else if (nmissing)
			rc = diag_error(m->d, TT_INVALID, "shard", NULL, 0, 0, "run '%s' has %d shards, but "
					"%s %s %s missing (shards here: %s): merge every shard, or give "
					"--partial; nothing written", v[g].r->id, count,
					nmissing > 1 ? "shards" : "shard", missing.buf,
					nmissing > 1 ? "are" : "is", have.buf);
		sb_release(&missing);
		sb_release(&have);
		g = e;
	}
	free(v);
	return rc;
}

/* --- entries ------------------------------------------------------------- */

static void index_prov(struct mprov *pv)
{
	pv->by_key = prov_key_index(&pv->p);
	pv->hit = xcalloc(pv->p.n ? pv->p.n : 1, sizeof *pv->hit);
}

static long prov_lookup(const struct mprov *pv, const char *key, size_t len)
{
	return prov_find_key(&pv->p, pv->by_key, key, len);
}

/* Every entry of every table, with its provenance. Python keeps the last of repeated keys. */

/* A JSON entry's profiling policy ([runner, tactic, policy]: 0.7.1+, e.g. the other ops'
 * entries, issue #39; [runner, tactic, policy, selection record]: 0.7.4's measured entries) as
 * JSON text in buf, or NULL when the value has none or more. */
static const char *policy_of(const struct table_entry *e)
{
	static char buf[256];
	if (!e->value || e->value->kind != PV_TUPLE || e->value->n < 3 || e->value->n > 4 ||
	    (e->value->n == 4 && (e->value->items[3].kind != PV_DICT || !e->selection)))
		return NULL;
	const struct pyv *p = &e->value->items[2];
	if (p->kind != PV_TUPLE)
		return NULL;
	size_t at = 0;
	at += (size_t)snprintf(buf + at, sizeof buf - at, "[");
	for (size_t i = 0; i < p->n && at < sizeof buf; i++) {
		const struct pyv *x = &p->items[i];
		const char *sep = i ? ", " : "";
		if (x->kind == PV_STR && !memchr(x->s, '"', x->len) && !memchr(x->s, '\\', x->len))
			at += (size_t)snprintf(buf + at, sizeof buf - at, "%s\"%.*s\"", sep, (int)x->len, x->s);
		else if (x->kind == PV_INT)
			at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%lld", sep, x->i);
		else if (x->kind == PV_NONE)
			at += (size_t)snprintf(buf + at, sizeof buf - at, "%snull", sep);
		else
			return NULL;
	}
	if (at + 2 > sizeof buf)
		return NULL;
	snprintf(buf + at, sizeof buf - at, "]");
	return buf;
}

static int gather_cands(struct mctx *m, struct cand **out, size_t *nout)
{
	struct cand *v = NULL;
	size_t n = 0, cap = 0;
	int rc = TT_OK;
	for (size_t ti = 0; ti < m->ntabs && !rc; ti++) {
		const struct mtable *mt = &m->tabs[ti];
		struct mprov *pv = mt->prov >= 0 ? &m->provs[mt->prov] : NULL;
		size_t *last = xmalloc((mt->t.n ? mt->t.n : 1) * sizeof *last);
		for (size_t i = 0; i < mt->t.n; i++) {
			int root = mt->t.entries[i].dup_of;
			last[root < 0 ? i : (size_t)root] = i;
		}
		for (size_t i = 0; i < mt->t.n && !rc; i++) {
			const struct table_entry *e = &mt->t.entries[i];
			size_t root = e->dup_of < 0 ? i : (size_t)e->dup_of;
			if (last[root] != i) {
				diags_add(m->d, SEV_NOTE, "duplicate-key", mt->name, e->line, e->col, "the key "
					  "appears again at line %d; Python keeps the last value, and so does "
					  "merge", mt->t.entries[last[root]].line);
				continue;
			}
			if (!e->value_ok || !e->tactic ||
			    (e->value && e->value->kind == PV_TUPLE && e->value->n > 2 &&
			     !policy_of(e))) {
				rc = diag_error(m->d, TT_INVALID, "value-shape", mt->name, e->vline, e->vcol,
						"%s: merge keeps only (runner, tactic) values and a JSON "
						"value's profiling policy and selection record",
						mt->t.kind == TABLE_PY
						? "the value is not a 2-tuple (runner_id, tactic)"
						: e->value && e->value->kind == PV_TUPLE && e->value->n > 2
						? "the value is not [runner, tactic, profiling policy list, "
						  "selection record dict?]"
						: "the value is not [\"<Runner>\", tactic]");
				break;
			}
			if (memchr(e->key, '\0', e->key_len)) {
				rc = diag_error(m->d, TT_INVALID, "key-syntax", mt->name, e->line, e->col,
						"the key holds a NUL byte: no FlashInfer key does");
				break;
			}
			ALLOC_GROW(v, n + 1, cap);
			struct cand *c = &v[n];
			memset(c, 0, sizeof *c);
			c->key = e->key;
			c->key_len = e->key_len;
			c->tab = mt;
			c->e = e;
			struct strbuf sb = STRBUF_INIT;
			pyv_repr(e->tactic, &sb);
			c->tactic = sb_detach(&sb);
			n++;
			long pi = pv ? prov_lookup(pv, e->key, e->key_len) : -1;
			if (pi < 0)
				continue;
			pv->hit[pi] = true;
			c->pe = &pv->p.entries[pi];
			c->run_json = pv->p.runs[c->pe->run].json;
			if (strcmp(c->pe->tactic, c->tactic))
				rc = diag_error(m->d, TT_INVALID, "provenance", mt->name, e->vline, e->vcol,
						"tactic %s differs from the %s that %s records for this key: the "
						"provenance does not describe this table", c->tactic,
						c->pe->tactic, pv->name);
		}
		free(last);
	}
	*out = v;
	*nout = n;
	return rc;
}

static void push_side(struct merge_conflict *cf, const struct cand *c)
{
	ALLOC_GROW(cf->sides, cf->nsides + 1, cf->sides_alloc);
	struct merge_side *s = &cf->sides[cf->nsides++];
	memset(s, 0, sizeof *s);
	s->tactic = xstrdup(c->tactic);
	s->source = c->pe ? c->pe->source : PROV_UNKNOWN;
	s->time_us = c->pe ? c->pe->time_us : -1;
}

static void side_input(struct merge_side *s, const char *name)
{
	for (size_t i = 0; i < s->ninputs; i++)
		if (!strcmp(s->inputs[i], name))
			return;
	ALLOC_GROW(s->inputs, s->ninputs + 1, s->inputs_alloc);
	s->inputs[s->ninputs++] = xstrdup(name);
}

static char *why_text(const struct cand *a, const struct cand *b, enum merge_rule rule)
{
	if (rule == MERGE_RULE_SOURCE)
		return xasprintf("%s beats %s", rank_name(rank_of(a)), rank_name(rank_of(b)));
	if (rule == MERGE_RULE_TIME)
		return b->pe->time_us < 0 ? xstrdup("a known time beats none")
		       : xstrdup(rank_of(a) == 0 ? "lower time" : "lower predicted time");
	return xstrdup("lower tactic");
}

/* One key's candidates (sorted best first): the kept entry, and the conflict if any. */
static void settle(struct mctx *m, const struct cand *c, size_t n, struct table *out,
		   struct provenance *mp, struct merge_result *r)
{
	char *key = xstrndup(c[0].key, c[0].key_len);
	const char *policy = policy_of(c[0].e);
	if (policy)
		table_add_policy(out, key, c[0].e->runner, c[0].e->tactic, policy,
				 c[0].e->selection);
	else
		table_add(out, key, c[0].e->runner_id, c[0].e->runner, c[0].e->tactic);
	if (c[0].pe) {
		const struct mprov *pv = &m->provs[c[0].tab->prov];
		struct prov_entry x = *c[0].pe;
		x.key = key;
		x.run = pv->runmap[c[0].pe->run];
		prov_add_entry(mp, &x);
	}
	struct merge_conflict cf = { 0 };
	const struct cand **best = xmalloc(n * sizeof *best);
	for (size_t i = 0; i < n; i++) {
		size_t s = 0;
		while (s < cf.nsides && strcmp(cf.sides[s].tactic, c[i].tactic))
			s++;
		if (s == cf.nsides) {
			push_side(&cf, &c[i]);
			best[s] = &c[i];
		}
		side_input(&cf.sides[s], c[i].tab->name);
	}
	if (cf.nsides > 1) {
		for (size_t s = 0; s < cf.nsides; s++)
			if (cf.sides[s].ninputs > 1)
				qsort(cf.sides[s].inputs, cf.sides[s].ninputs, sizeof *cf.sides[s].inputs,
				      str_ptr_cmp);
		cmp_rules(best[0], best[1], &cf.rule);
		cf.why = why_text(best[0], best[1], cf.rule);
		cf.key = key;
		key = NULL;
		ALLOC_GROW(r->conflicts, r->nconflicts + 1, r->conflicts_alloc);
		r->conflicts[r->nconflicts++] = cf;
	} else {
		for (size_t s = 0; s < cf.nsides; s++) {
			for (size_t i = 0; i < cf.sides[s].ninputs; i++)
				free(cf.sides[s].inputs[i]);
			free(cf.sides[s].inputs);
			free(cf.sides[s].tactic);
		}
		free(cf.sides);
	}
	free(best);
	free(key);
}

/* --- JSON _metadata and _records ---------------------------------------- */

static void meta_json(struct table *t, const char *name, const char *json)
{
	t->has_metadata = t->metadata_is_object = true;
	ALLOC_GROW(t->meta, t->n_meta + 1, t->meta_alloc);
	struct table_meta *m = &t->meta[t->n_meta++];
	memset(m, 0, sizeof *m);
	m->name = arena_strndup(&t->arena, name, strlen(name));
	m->json = arena_strndup(&t->arena, json, strlen(json));
}

static bool in_schema(const struct fi_rules *s, const char *name)
{
	for (unsigned i = 0; i < s->json_cache.metadata_count; i++)
		if (!strcmp(s->json_cache.metadata[i], name))
			return true;
	return false;
}

/* One field over every JSON input: equal everywhere = kept; else "*" and a note. The identity
 * fields take the agreed value when any input states it (checked above), else "*". */
static void merge_field(struct mctx *m, const struct mtable *const *js, size_t nj,
			const char *name, struct table *out)
{
	bool identity = !strcmp(name, "flashinfer_version") || !strcmp(name, "gpu");
	const struct table_meta *first = NULL;
	bool differ = false, stated = false;
	for (size_t i = 0; i < nj; i++) {
		const struct table_meta *x = meta_of(&js[i]->t, name);
		stated |= x && x->value && strcmp(x->value, "*");
		if (!i)
			first = x;
		else if (!first != !x || (x && strcmp(x->json ? x->json : "", first->json ? first->json
										       : "")))
			differ = true;
	}
	if (identity) {
		table_set_meta(out, name, stated ? !strcmp(name, "gpu") ? m->device : m->version : "*");
		return;
	}
	if (!differ) {
		if (first->value)
			table_set_meta(out, name, first->value);
		else
			meta_json(out, name, first->json ? first->json : "null");
		return;
	}
	table_set_meta(out, name, "*");
	/* the note: each value with the inputs that have it */
	char **lines = xmalloc(nj * sizeof *lines);
	for (size_t i = 0; i < nj; i++) {
		const struct table_meta *x = meta_of(&js[i]->t, name);
		lines[i] = xasprintf("%s\x01%s", x ? x->json ? x->json : "null" : "\x02missing",
				     js[i]->name);
	}
	qsort(lines, nj, sizeof *lines, str_ptr_cmp);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < nj; i++) {
		char *sep = strchr(lines[i], '\x01');
		*sep = '\0';
		bool same = i && !strcmp(lines[i - 1], lines[i]);
		if (!same)
			sb_addf(&sb, "%s%s in ", i ? "; " : "", lines[i][0] == '\x02' ? "missing"
										 : lines[i]);
		else
			sb_adds(&sb, ", ");
		sb_adds(&sb, sep + 1);
	}
	diags_add(m->d, SEV_NOTE, "metadata", NULL, 0, 0, "_metadata.%s differs between the inputs "
		  "(%s): merged as \"*\"", name, sb.buf ? sb.buf : "");
	sb_release(&sb);
	free_strings(lines, nj);
}

static int merge_json_parts(struct mctx *m, struct table *out)
{
	const struct mtable **js = xmalloc((m->ntabs ? m->ntabs : 1) * sizeof *js);
	size_t nj = 0;
	bool any_meta = false;
	for (size_t i = 0; i < m->ntabs; i++)
		if (m->tabs[i].t.kind == TABLE_JSON) {
			js[nj++] = &m->tabs[i];
			any_meta |= m->tabs[i].t.has_metadata;
		}
	const struct fr_json *sj = &m->rules->json_cache;
	if (!any_meta) {
		/* what generate stamps: the identity, and "*" for what no input says */
		for (unsigned i = 0; i < sj->metadata_count; i++) {
			const char *f = sj->metadata[i];
			table_set_meta(out, f, !strcmp(f, "flashinfer_version") ? m->version
					       : !strcmp(f, "gpu") ? m->device : "*");
		}
	} else {
		/* the version's fields in its order, then any others by name */
		for (unsigned i = 0; i < sj->metadata_count; i++) {
			bool present = false;
			for (size_t k = 0; k < nj && !present; k++)
				present = meta_of(&js[k]->t, sj->metadata[i]) != NULL;
			if (present)
				merge_field(m, js, nj, sj->metadata[i], out);
		}
		char **extra = NULL;
		size_t ne = 0, extra_alloc = 0;
		for (size_t k = 0; k < nj; k++)
			for (size_t f = 0; f < js[k]->t.n_meta; f++) {
				const char *name = js[k]->t.meta[f].name;
				bool seen = in_schema(m->rules, name);
				for (size_t q = 0; q < ne && !seen; q++)
					seen = !strcmp(extra[q], name);
				if (!seen) {
					ALLOC_GROW(extra, ne + 1, extra_alloc);
					extra[ne++] = (char *)name;
				}
			}
		if (ne > 1)
			qsort(extra, ne, sizeof *extra, str_ptr_cmp);
		for (size_t q = 0; q < ne; q++)
			merge_field(m, js, nj, extra[q], out);
		free(extra);
	}
	/* _records: the same in every input that has them, or an error (formats §2.2, §2.5) */
	const struct mtable *rec = NULL;
	int rc = TT_OK;
	for (size_t k = 0; k < nj && !rc; k++) {
		json_t *r = js[k]->t.records;
		if (!r || (json_is_object(r) && !json_object_size(r)))
			continue;
		if (!rec)
			rec = js[k];
		else if (!json_equal(r, (json_t *)rec->t.records))
			rc = diag_error(m->d, TT_INVALID, "records", js[k]->name, 0, 0, "_records differ "
					"from those of %s: merge keeps _records only when every input that "
					"has them has the same (namespaced records need one writer, formats "
					"§2.5); nothing written", rec->name);
	}
	if (!rc && rec) {
		out->records = json_incref((json_t *)rec->t.records);
		out->records_is_object = rec->t.records_is_object;
	}
	free(js);
	return rc;
}

/* --- outputs -------------------------------------------------------------- */

/* The bytes must pass validate for the version and device before anything is written. */
static int check_bytes(struct mctx *m, const char *name, const struct strbuf *sb, const char *what)
{
	struct diags vd = DIAGS_INIT;
	/* checked under the name generate gives it (the file-name rule), shown as not yet written */
	char *shown = xasprintf("(merged)/%s", name);
	struct validate_opts vo = { .flashinfer = m->version, .device = m->device, .dtype = -1 };
	int rc = validate_bytes(m->data, shown, sb->buf, sb->len, &vo, &vd);
	free(shown);
	if (rc) {
		rc = diag_error(m->d, TT_INVALID, "validate", NULL, 0, 0, "the merged %s does not pass "
				"the validate rules of FlashInfer %s for '%s'; nothing written:", what,
				m->version, m->device);
		for (size_t i = 0; i < vd.n; i++)
			if (vd.v[i].sev == SEV_ERROR)
				diags_add(m->d, SEV_ERROR, vd.v[i].id, vd.v[i].file, vd.v[i].line,
					  vd.v[i].col, "%s [%s]", vd.v[i].msg, vd.v[i].id);
	}
	diags_release(&vd);
	return rc;
}

static struct strbuf *add_output(struct merge_result *r, char *path)
{
	ALLOC_GROW(r->outputs, r->noutputs + 1, r->outputs_alloc);
	struct merge_output *o = &r->outputs[r->noutputs++];
	o->path = path;
	sb_init(&o->bytes);
	return &o->bytes;
}

static int render(struct mctx *m, struct table *out, struct provenance *mp, struct merge_result *r)
{
	const char *fmt = m->o->format, *dest = m->o->out;
	bool one_py = str_ends(dest, ".py"), one_json = str_ends(dest, ".json");
	bool want_py, want_json;
	if (one_py || one_json) {
		if (fmt && strcmp(fmt, one_py ? "py" : "json"))
			return diag_error(m->d, TT_USAGE, "usage", NULL, 0, 0, "OUT '%s' is one %s file; "
					  "--format %s does not apply (give a folder)", dest,
					  one_py ? "module" : "JSON cache", fmt);
		want_py = one_py;
		want_json = one_json;
	} else if (fmt) {
		want_py = strcmp(fmt, "json") != 0;
		want_json = strcmp(fmt, "py") != 0;
	} else {
		want_py = want_json = false;
		for (size_t i = 0; i < m->ntabs; i++) {
			want_py |= m->tabs[i].t.kind == TABLE_PY;
			want_json |= m->tabs[i].t.kind == TABLE_JSON;
		}
	}
	const struct fi_rules *s = m->rules;
	if (want_json && !s->json_cache.supported) {
		if (one_json || (fmt && !strcmp(fmt, "json")))
			return diag_error(m->d, TT_INVALID, "merge", NULL, 0, 0, "FlashInfer %s has no JSON "
					  "autotune cache (0.6.7+)", m->version);
		diags_add(m->d, SEV_WARNING, "merge", NULL, 0, 0, "FlashInfer %s has no JSON autotune "
			  "cache; writing the module only", m->version);
		want_json = false;
	}
	char *py_name = firules_bundled_name(s, m->version, m->device);
	char *json_name = names_json_cache(m->device);
	char *prov_name = names_provenance(m->device);
	int rc = TT_OK;
	if (!one_py && !one_json)
		r->outdir = out_folder(dest);
	struct strbuf sb = STRBUF_INIT;
	if (want_py) {
		table_write_py(out, &sb);
		rc = check_bytes(m, py_name, &sb, "module");
		if (!rc) {
			*add_output(r, one_py ? xstrdup(dest) : join(r->outdir, py_name)) = sb;
			sb_init(&sb);
			if (r->outdir)
				mp->py_file = xstrdup(py_name);
		}
	}
	if (!rc && want_json) {
		rc = merge_json_parts(m, out);
		bool gen = false;
		for (unsigned i = 0; i < s->json_cache.reserved_count; i++)
			gen |= !strcmp(s->json_cache.reserved[i], "_generation");
		if (!rc && table_write_json(out, gen, &sb))
			rc = diag_error(m->d, TT_INTERNAL, "merge", NULL, 0, 0, "cannot hash the JSON cache "
					"(_generation)");
		if (!rc)
			rc = check_bytes(m, json_name, &sb, "JSON cache");
		if (!rc) {
			*add_output(r, one_json ? xstrdup(dest) : join(r->outdir, json_name)) = sb;
			sb_init(&sb);
			if (r->outdir)
				mp->json_file = xstrdup(json_name);
		}
	}
	if (!rc && r->outdir)
		prov_write(mp, add_output(r, join(r->outdir, prov_name)));
	sb_release(&sb);
	free(py_name);
	free(json_name);
	free(prov_name);
	return rc;
}

/* --- the whole merge ----------------------------------------------------- */

static void release_ctx(struct mctx *m)
{
	for (size_t i = 0; i < m->nfiles; i++) {
		free(m->files[i].name);
		free(m->files[i].real);
	}
	free(m->files);
	for (size_t i = 0; i < m->nprovs; i++) {
		struct mprov *pv = &m->provs[i];
		free(pv->name);
		free(pv->real);
		free(pv->dir_real);
		free(pv->by_key);
		free(pv->hit);
		free(pv->runmap);
		prov_release(&pv->p);
	}
	free(m->provs);
	for (size_t i = 0; i < m->ntabs; i++) {
		free(m->tabs[i].name);
		free(m->tabs[i].dir_real);
		free(m->tabs[i].file_device);
		table_release(&m->tabs[i].t);
	}
	free(m->tabs);
	free_strings(m->scanned, m->nscanned);
	free(m->runs);
	free(m->device);
	free(m->version);
}

static void result_files(struct mctx *m, struct merge_result *r)
{
	for (size_t i = 0; i < m->nfiles; i++) {
		ALLOC_GROW(r->files, r->nfiles + 1, r->files_alloc);
		r->files[r->nfiles++] = xstrdup(m->files[i].name);
	}
	for (size_t i = 0; i < m->nprovs; i++) {
		if (!m->provs[i].used || known_real(m, m->provs[i].real))
			continue;
		ALLOC_GROW(r->files, r->nfiles + 1, r->files_alloc);
		r->files[r->nfiles++] = xstrdup(m->provs[i].name);
	}
	if (r->nfiles > 1)
		qsort(r->files, r->nfiles, sizeof *r->files, str_ptr_cmp);
	r->ntables = m->ntabs;
}

int merge_run(const struct validate_data *data, const struct merge_opts *o,
	      struct merge_result *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	struct mctx m = { .data = data, .o = o, .d = d };
	struct cand *c = NULL;
	size_t nc = 0;
	struct table out;
	memset(&out, 0, sizeof out);
	out.kind = TABLE_JSON;
	struct provenance mp;
	memset(&mp, 0, sizeof mp);
	int rc = TT_OK;
	if (!str_ends(o->out, ".py") && !str_ends(o->out, ".json")) {
		/* a merge or generate killed mid-commit in OUT: its old set back before OUT is read
		 * (it may be an input too) or written (tableset.h) */
		char *dir = out_folder(o->out);
		rc = tableset_recover(dir, d);
		free(dir);
	}
	if (!rc)
		rc = read_inputs(&m);
	if (!rc) {
		result_files(&m, r);
		m.names = r->files;
		m.nnames = r->nfiles;
	}
	if (!rc)
		rc = check_identity(&m, true);
	if (!rc)
		rc = check_identity(&m, false);
	if (!rc)
		rc = check_arity(&m);
	if (rc)
		goto done;
	r->device = xstrdup(m.device);
	r->version = xstrdup(m.version);
	union_runs(&m);
	if ((rc = check_shards(&m)))
		goto done;
	note_backends(&m);
	for (size_t i = 0; i < m.nprovs; i++)
		if (m.provs[i].used)
			index_prov(&m.provs[i]);
	if ((rc = gather_cands(&m, &c, &nc)))
		goto done;
	if (nc > 1)
		qsort(c, nc, sizeof *c, cand_cmp);
	size_t keys = 0;
	for (size_t i = 0; i < nc; i++)
		keys += !i || cmp_bytes(c[i].key, c[i].key_len, c[i - 1].key, c[i - 1].key_len);
	if (keys > TABLE_MAX_ENTRIES) {
		rc = diag_error(d, TT_INVALID, "size", NULL, 0, 0, "the merged table would have %zu "
				"entries, more than the %u tunetab writes", keys, TABLE_MAX_ENTRIES);
		goto done;
	}
	for (size_t k = 0; k < m.nruns; k++)
		prov_copy_run(&mp, m.runs[k].r);
	/* the server's other ops and their calls (issue #39): the first input's that has them
	 * (each key's source stays per entry) */
	for (size_t k = 0; k < m.nprovs && !mp.ops_json; k++)
		if (m.provs[k].used && m.provs[k].p.ops_json)
			mp.ops_json = xstrdup(m.provs[k].p.ops_json);
	for (size_t g = 0; g < nc;) {
		size_t e = g + 1;
		while (e < nc && !cmp_bytes(c[e].key, c[e].key_len, c[g].key, c[g].key_len))
			e++;
		settle(&m, &c[g], e - g, &out, &mp, r);
		g = e;
	}
	r->entries = out.n;
	/* provenance entries whose key no table of theirs has */
	for (size_t i = 0; i < m.nprovs; i++) {
		const struct mprov *pv = &m.provs[i];
		size_t stray = 0;
		for (size_t k = 0; pv->used && k < pv->p.n; k++)
			stray += !pv->hit[k];
		if (stray)
			diags_add(d, SEV_NOTE, "provenance", pv->name, 0, 0, "%zu of its entries name keys "
				  "that none of its tables has; left out", stray);
	}
	mp.device = xstrdup(m.device);
	mp.flashinfer_version = xstrdup(m.version);
	mp.tunetab_version = o->tunetab_version ? xstrdup(o->tunetab_version) : NULL;
	rc = render(&m, &out, &mp, r);
done:
	for (size_t i = 0; i < nc; i++)
		free(c[i].tactic);
	free(c);
	table_release(&out);
	prov_release(&mp);
	release_ctx(&m);
	if (rc) {
		/* nothing is written after an error */
		for (size_t i = 0; i < r->noutputs; i++) {
			free(r->outputs[i].path);
			sb_release(&r->outputs[i].bytes);
		}
		free(r->outputs);
		r->outputs = NULL;
		r->noutputs = 0;
	}
	return rc;
}

void merge_result_release(struct merge_result *r)
{
	free(r->device);
	free(r->version);
	free_strings(r->files, r->nfiles);
	for (size_t i = 0; i < r->nconflicts; i++) {
		struct merge_conflict *cf = &r->conflicts[i];
		for (size_t s = 0; s < cf->nsides; s++) {
			for (size_t k = 0; k < cf->sides[s].ninputs; k++)
				free(cf->sides[s].inputs[k]);
			free(cf->sides[s].inputs);
			free(cf->sides[s].tactic);
		}
		free(cf->sides);
		free(cf->key);
		free(cf->why);
	}
	free(r->conflicts);
	free(r->outdir);
	for (size_t i = 0; i < r->noutputs; i++) {
		free(r->outputs[i].path);
		sb_release(&r->outputs[i].bytes);
	}
	free(r->outputs);
	memset(r, 0, sizeof *r);
}

int merge_write(const struct merge_result *r, size_t *nwritten, struct diags *d)
{
	*nwritten = 0;
	int err = r->outdir ? mkdir_p(r->outdir) : 0;
	if (err)
		return diag_error(d, err == ENOTDIR ? TT_INVALID : TT_INTERNAL, "io", r->outdir, 0, 0, "cannot create "
				  "folder: %s", path_strerror(r->outdir, err));
	/* one set, all or nothing: in a folder under an undo log that the next merge or
	 * generate into it rolls back after a kill mid-commit (tableset.h) */
	struct file_set set = { 0 };
	if (r->outdir) {
		char *undo = file_set_undo_path(r->outdir, TABLESET_MERGE);
		file_set_undo(&set, undo);
		free(undo);
	}
	for (size_t i = 0; i < r->noutputs; i++) {
		const struct merge_output *x = &r->outputs[i];
		if ((err = file_set_stage(&set, x->path, x->bytes.buf, x->bytes.len, 0644))) {
			file_set_abort(&set);
			return diag_error(d, TT_INTERNAL, "io", x->path, 0, 0, "cannot write: %s",
					  strerror(err));
		}
	}
	err = file_set_commit(&set);
	file_set_abort(&set);
	if (err)
		return diag_error(d, TT_INTERNAL, "io", r->outdir ? r->outdir : r->outputs[0].path, 0, 0,
				  "cannot write: %s", strerror(err));
	*nwritten = r->noutputs;
	return TT_OK;
}
