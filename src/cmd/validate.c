/* cmd_validate.c: `tunetab validate`: check tables against the rules of a FlashInfer version,
 * as text, JSON lines, GitHub annotations or JUnit XML. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dtypes.h"
#include "cmd/cli.h"
#include "base/util.h"
#include "flashinfer/validate.h"

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

/* The text lines of one check: what was checked, the findings, the verdict. */
static void print_text_check(const struct validate_check *c, bool strict, bool quiet)
{
	const struct validate_result *r = &c->r;
	const char *tag = c->release;
	size_t ne = c->errors, nw = c->warnings, nn = c->notes;
	if (c->provenance && c->status == TT_OK && !quiet)
		printf("%s: tunetab provenance of %zu entr%s, checked against the tables it names\n",
		       c->path, c->provenance_entries, c->provenance_entries == 1 ? "y" : "ies");
	else if (c->checked && !quiet)
		printf("%s: FlashInfer %s (%s; rules %s), device %s%s%s%s, %zu entr%s\n", c->path,
		       r->version, r->version_from, r->rules->id, r->device_name[0] ? "'" : "",
		       r->device_name[0] ? r->device_name : "unknown",
		       r->device_name[0] ? "' from " : "", r->device_name[0] ? r->device_from : "",
		       r->entries, r->entries == 1 ? "y" : "ies");
	print_text(&c->d, c->path);
	if (!quiet || tag)
		printf("%s: %s%s%s: %zu error%s, %zu warning%s, %zu note%s\n", c->path,
		       tag ? "FlashInfer " : "", tag ? tag : "",
		       ne || (strict && nw) ? (tag ? " FAIL" : "FAIL") : (tag ? " ok" : "ok"),
		       ne, ne == 1 ? "" : "s", nw, nw == 1 ? "" : "s", nn, nn == 1 ? "" : "s");
}

static void print_report(const struct validate_report *rep, enum validate_format fmt, bool quiet)
{
	/* after a usage error (the last check) nothing more is printed but its reason */
	size_t n = rep->status == TT_USAGE ? rep->n - 1 : rep->n;
	for (size_t i = 0; i < n; i++) {
		const struct validate_check *c = &rep->v[i];
		if (fmt == VALIDATE_TEXT)
			print_text_check(c, rep->strict, quiet);
		else if (fmt == VALIDATE_GITHUB)
			print_github(&c->d, c->path);
	}
	if (rep->status == TT_USAGE) {
		cli_print_diags(&rep->v[rep->n - 1].d);
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	if (fmt == VALIDATE_JSON)
		validate_write_json(rep, &sb);
	else if (fmt == VALIDATE_JUNIT)
		validate_write_junit(rep, &sb);
	if (sb.len)
		fputs(sb.buf, stdout);
	sb_release(&sb);
}

int cmd_validate(int argc, char **argv)
{
	struct validate_opts vo = { .dtype = -1 };
	enum validate_format fmt = VALIDATE_TEXT;
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
			if (validate_format_parse(optarg, &fmt))
				return cli_usage_error("validate", "unknown format '%s' (%s)", optarg,
						       validate_format_list);
			break;
		default:
			return cli_usage_error("validate", "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("validate", "no file given");
	struct validate_files files = { 0 };
	struct diags d = DIAGS_INIT;
	int rc = validate_collect(argv + optind, (size_t)(argc - optind), &files, &d);
	cli_print_diags(&d);
	diags_release(&d);
	struct tt_data data;
	if (rc || (rc = cli_load_data(&data, DATA_DEVICES | DATA_CATALOGS | DATA_SCHEMAS | DATA_OPS))) {
		validate_files_release(&files);
		return rc;
	}
	struct validate_data vd = { &data.devices, &data.catalogs, &data.rules, &data.ops };
	struct validate_request req = { &vd, &files, vo, strict };
	struct validate_report rep;
	rc = validate_run(&req, &rep);
	print_report(&rep, fmt, quiet);
	validate_report_release(&rep);
	cli_release_data(&data);
	validate_files_release(&files);
	return rc;
}
