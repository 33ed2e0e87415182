/* cmd_validate.c: `tunetab validate`: check tables against the rules of a FlashInfer version,
 * as text, JSON lines, GitHub annotations or JUnit XML. */
#include <getopt.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/catalog.h"
#include "cmd/cli.h"
#include "flashinfer/provenance.h"
#include "flashinfer/table.h"
#include "base/util.h"
#include "flashinfer/validate.h"

enum fmt { FMT_TEXT, FMT_JSON, FMT_GITHUB, FMT_JUNIT };

static void xml_escape(const char *s, struct strbuf *out)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': sb_adds(out, "&lt;"); break;
		case '>': sb_adds(out, "&gt;"); break;
		case '&': sb_adds(out, "&amp;"); break;
		case '"': sb_adds(out, "&quot;"); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				sb_addf(out, "&#x%x;", (unsigned char)*s);
			else
				sb_addc(out, *s);
		}
	}
}

/* GitHub workflow commands need %, CR and LF escaped in messages, plus , and : in properties. */
static void gh_escape(const char *s, int prop, struct strbuf *out)
{
	for (; *s; s++) {
		if (*s == '%')
			sb_adds(out, "%25");
		else if (*s == '\r')
			sb_adds(out, "%0D");
		else if (*s == '\n')
			sb_adds(out, "%0A");
		else if (prop && *s == ':')
			sb_adds(out, "%3A");
		else if (prop && *s == ',')
			sb_adds(out, "%2C");
		else
			sb_addc(out, *s);
	}
}

static void print_text(const struct diags *d, const char *path)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct diag *x = &d->v[i];
		const char *file = x->file ? x->file : path;
		if (x->line)
			printf("%s:%d:%d: %s: %s [%s]\n", file, x->line, x->col, diag_sev_name(x->sev),
			       x->msg, x->id);
		else
			printf("%s: %s: %s [%s]\n", file, diag_sev_name(x->sev), x->msg, x->id);
	}
}

static void print_json(const struct diags *d, const char *path)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct diag *x = &d->v[i];
		json_t *o = json_pack("{s:s, s:i, s:i, s:s, s:s, s:s}", "file", x->file ? x->file : path,
				      "line", x->line, "col", x->col, "severity",
				      diag_sev_name(x->sev), "check", x->id, "message", x->msg);
		char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
		printf("%s\n", s);
		free(s);
		json_decref(o);
	}
}

static void print_github(const struct diags *d, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < d->n; i++) {
		const struct diag *x = &d->v[i];
		sb_reset(&sb);
		sb_addf(&sb, "::%s file=", x->sev == SEV_ERROR ? "error" : x->sev == SEV_WARNING
									 ? "warning" : "notice");
		gh_escape(x->file ? x->file : path, 1, &sb);
		if (x->line)
			sb_addf(&sb, ",line=%d,col=%d", x->line, x->col);
		sb_adds(&sb, ",title=tunetab ");
		gh_escape(x->id, 1, &sb);
		sb_adds(&sb, "::");
		gh_escape(x->msg, 0, &sb);
		printf("%s\n", sb.buf);
	}
	sb_release(&sb);
}

struct junit_case {
	char *name;
	struct strbuf failures, out;
	size_t errors;
};

static void junit_add(struct junit_case *jc, const struct diags *d, const char *path)
{
	jc->name = xstrdup(path);
	sb_init(&jc->failures);
	sb_init(&jc->out);
	for (size_t i = 0; i < d->n; i++) {
		const struct diag *x = &d->v[i];
		struct strbuf *b = x->sev == SEV_ERROR ? &jc->failures : &jc->out;
		jc->errors += x->sev == SEV_ERROR;
		sb_addf(b, "%s:%d:%d: %s: %s [%s]\n", x->file ? x->file : path, x->line, x->col,
			diag_sev_name(x->sev), x->msg, x->id);
	}
}

static void print_junit(struct junit_case *cs, size_t n)
{
	size_t failures = 0;
	for (size_t i = 0; i < n; i++)
		failures += cs[i].errors > 0;
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<testsuites name=\"tunetab validate\" tests=\"%zu\" failures=\"%zu\">\n"
		     "  <testsuite name=\"tunetab validate\" tests=\"%zu\" failures=\"%zu\">\n",
		n, failures, n, failures);
	for (size_t i = 0; i < n; i++) {
		sb_adds(&sb, "    <testcase classname=\"tunetab.validate\" name=\"");
		xml_escape(cs[i].name, &sb);
		sb_adds(&sb, "\">\n");
		if (cs[i].errors) {
			sb_addf(&sb, "      <failure type=\"validation\" message=\"%zu error%s\">",
				cs[i].errors, cs[i].errors == 1 ? "" : "s");
			xml_escape(cs[i].failures.buf, &sb);
			sb_adds(&sb, "</failure>\n");
		}
		if (cs[i].out.len) {
			sb_adds(&sb, "      <system-out>");
			xml_escape(cs[i].out.buf, &sb);
			sb_adds(&sb, "</system-out>\n");
		}
		sb_adds(&sb, "    </testcase>\n");
		free(cs[i].name);
		sb_release(&cs[i].failures);
		sb_release(&cs[i].out);
	}
	sb_adds(&sb, "  </testsuite>\n</testsuites>\n");
	fputs(sb.buf, stdout);
	sb_release(&sb);
}

struct paths {
	char **v;
	size_t n, cap;
};

static void paths_add(struct paths *p, const char *s)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->v = xrealloc(p->v, p->cap * sizeof *p->v);
	}
	p->v[p->n++] = xstrdup(s);
}

static void paths_release(struct paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every table under dir: *.py and *.json (tunetab's provenance files among them), not hidden;
 * journals and everything else are skipped. Symbolic links are not followed into folders. */
static int collect_tables(const char *dir, struct paths *out, int depth)
{
	if (depth > 32)
		return ELOOP;
	DIR *dh = opendir(dir);
	if (!dh)
		return errno;
	struct dirent *de;
	int err = 0;
	while (!err && (de = readdir(dh))) {
		if (de->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		struct stat sb;
		if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
			err = collect_tables(path, out, depth + 1);
		else if (str_ends(de->d_name, ".py") || str_ends(de->d_name, ".json"))
			paths_add(out, path);
		free(path);
	}
	closedir(dh);
	return err;
}

/* The FlashInfer version the tunetab provenance file beside path gives it (a generate or
 * merge output names its tables, docs/fleet.md), or NULL; *dtype the dtype of its runs when
 * they all have one (else -1). */
static char *sidecar_version(const char *path, int *dtype)
{
	*dtype = -1;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct provenance pv;
	if (prov_find_beside(path, base, &pv, NULL))
		return NULL;
	char *found = pv.flashinfer_version ? xstrdup(pv.flashinfer_version) : NULL;
	for (size_t k = 0; found && k < pv.nruns; k++) {
		json_t *run = json_loads(pv.runs[k].json, 0, NULL);
		const char *ds = json_string_value(json_object_get(run, "dtype"));
		enum dtype dt;
		int one = ds && !dtype_parse(ds, &dt) ? (int)dt : -2;
		*dtype = k == 0 || *dtype == one ? one : -2;
		json_decref(run);
	}
	if (*dtype < 0)
		*dtype = -1;
	prov_release(&pv);
	return found;
}

int cmd_validate(int argc, char **argv)
{
	struct validate_opts vo = { .dtype = -1 };
	enum fmt fmt = FMT_TEXT;
	int strict = 0, quiet = 0, c;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "validate")) != -1) {
		switch (c) {
		case 'f': vo.flashinfer = optarg; break;
		case 'd': vo.device = optarg; break;
		case 's': strict = 1; break;
		case 'q': quiet = 1; break;
		case 'L':
			for (const struct check_info *ci = validate_checks; ci->id; ci++)
				printf("%-24s %s\n", ci->id, ci->what);
			return TT_OK;
		case 't': {
			enum dtype dt;
			if (dtype_parse(optarg, &dt))
				return cli_usage_error("validate", "unknown dtype '%s'", optarg);
			vo.dtype = (int)dt;
			break;
		}
		case 'F':
			if (!strcmp(optarg, "text")) fmt = FMT_TEXT;
			else if (!strcmp(optarg, "json")) fmt = FMT_JSON;
			else if (!strcmp(optarg, "github")) fmt = FMT_GITHUB;
			else if (!strcmp(optarg, "junit")) fmt = FMT_JUNIT;
			else return cli_usage_error("validate", "unknown format '%s' (text, json, github, junit)", optarg);
			break;
		default:
			return cli_usage_error("validate", "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("validate", "no file given");
	/* a folder stands for every table under it (a fleet tree, docs/fleet.md) */
	struct paths files = { 0 };
	for (int i = optind; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
			size_t before = files.n;
			int err = collect_tables(argv[i], &files, 0);
			if (err) {
				paths_release(&files);
				return cli_error(TT_INTERNAL, "%s: %s", argv[i], strerror(err));
			}
			if (files.n == before) {
				paths_release(&files);
				return cli_error(TT_INVALID, "%s: no tables (.py or .json) under this folder", argv[i]);
			}
			qsort(files.v + before, files.n - before, sizeof *files.v, cmp_str);
		} else {
			paths_add(&files, argv[i]);
		}
	}
	struct tt_data data;
	int rc = cli_load_data(&data, DATA_DEVICES | DATA_CATALOGS | DATA_SCHEMAS);
	if (rc) {
		paths_release(&files);
		return rc;
	}
	struct validate_data vd = { &data.devices, &data.catalogs, &data.schemas };
	int worst = TT_OK;
	size_t nfiles = files.n;
	/* --flashinfer all: every known version range, by its release */
	bool all = vo.flashinfer && !strcmp(vo.flashinfer, "all");
	size_t nver = all ? data.schemas.n : 1;
	struct junit_case *cases = xcalloc(nfiles * nver, sizeof *cases);
	size_t ncases = 0;
	for (size_t ver = 0; ver < nver && worst != TT_USAGE; ver++) {
		if (all)
			vo.flashinfer = data.schemas.v[ver]->release;
		for (size_t f = 0; f < nfiles; f++) {
			const char *path = files.v[f];
			struct table t;
			struct diags d = DIAGS_INIT;
			struct validate_result r = { 0 };
			const char *bn = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
			bool is_prov = str_starts(bn, "tunetab_provenance_") && str_ends(bn, ".json");
			size_t pentries = 0;
			memset(&t, 0, sizeof t);
			int frc = is_prov ? validate_provenance(path, &pentries, &d) : table_read(path, &t, &d);
			int pdt = -1;
			char *pver = is_prov ? NULL : sidecar_version(path, &pdt);
			vo.provenance_version = pver;
			int saved_dtype = vo.dtype;
			if (vo.dtype < 0 && pdt >= 0)
				vo.dtype = pdt; /* the dtype every run of the provenance had */
			if (frc == TT_OK && is_prov) {
				if (fmt == FMT_TEXT && !quiet)
					printf("%s: tunetab provenance of %zu entr%s, checked against the tables "
					       "it names\n", path, pentries, pentries == 1 ? "y" : "ies");
			} else if (frc == TT_OK) {
				frc = validate_table(&vd, &t, &vo, &r, &d);
				if (frc == TT_USAGE) {
					cli_print_diags(&d);
					diags_release(&d);
					table_release(&t);
					worst = TT_USAGE;
					break;
				}
				if (fmt == FMT_TEXT && !quiet)
					printf("%s: FlashInfer %s (%s; rules %s), device %s%s%s%s, %zu entr%s\n",
					       path, r.version, r.version_from, r.schema->id,
					       r.device_name[0] ? "'" : "",
					       r.device_name[0] ? r.device_name : "unknown",
					       r.device_name[0] ? "' from " : "",
					       r.device_name[0] ? r.device_from : "", r.entries,
					       r.entries == 1 ? "y" : "ies");
			} else if (frc == TT_INTERNAL) {
				worst = TT_INTERNAL;
			}
			size_t ne = diags_count(&d, SEV_ERROR), nw = diags_count(&d, SEV_WARNING);
			const char *tag = all ? vo.flashinfer : NULL;
			switch (fmt) {
			case FMT_TEXT:
				print_text(&d, path);
				if (!quiet || all)
					printf("%s: %s%s%s: %zu error%s, %zu warning%s, %zu note%s\n", path,
					       tag ? "FlashInfer " : "", tag ? tag : "",
					       ne || (strict && nw) ? (tag ? " FAIL" : "FAIL") : (tag ? " ok" : "ok"),
					       ne, ne == 1 ? "" : "s", nw, nw == 1 ? "" : "s",
					       diags_count(&d, SEV_NOTE), diags_count(&d, SEV_NOTE) == 1 ? "" : "s");
				break;
			case FMT_JSON: print_json(&d, path); break;
			case FMT_GITHUB: print_github(&d, path); break;
			case FMT_JUNIT: {
				char *name = tag ? xasprintf("%s [FlashInfer %s]", path, tag) : xstrdup(path);
				junit_add(&cases[ncases++], &d, name);
				free(name);
				break;
			}
			}
			if ((ne || (strict && nw)) && worst == TT_OK)
				worst = TT_INVALID;
			diags_release(&d);
			table_release(&t);
			free(pver);
			vo.dtype = saved_dtype;
		}
	}
	if (fmt == FMT_JUNIT && worst != TT_USAGE)
		print_junit(cases, ncases);
	free(cases);
	cli_release_data(&data);
	paths_release(&files);
	return worst;
}
