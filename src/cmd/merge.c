/* cmd_merge.c: `tunetab merge`: shard outputs and other tables for one device and FlashInfer
 * version put back together, byte-identically for any order of the inputs (docs/fleet.md). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "flashinfer/merge.h"
#include "base/util.h"

static void print_side(const struct merge_side *s)
{
	char t[64];
	prov_format_us(s->time_us, t, sizeof t);
	fprintf(stderr, "  tactic %s: %s", s->tactic,
		s->source == PROV_UNKNOWN ? "no provenance" : prov_source_name(s->source));
	if (s->source != PROV_UNKNOWN)
		fprintf(stderr, s->time_us >= 0 ? ", %s us" : ", no time", t);
	fputs(", in ", stderr);
	for (size_t i = 0; i < s->ninputs; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", s->inputs[i]);
	fputc('\n', stderr);
}

static void print_conflicts(const struct merge_result *r)
{
	for (size_t i = 0; i < r->nconflicts; i++) {
		const struct merge_conflict *c = &r->conflicts[i];
		fprintf(stderr, "tunetab: conflict: %s: kept tactic %s (rule %d: %s)\n", c->key,
			c->sides[0].tactic, (int)c->rule, c->why);
		for (size_t s = 0; s < c->nsides; s++)
			print_side(&c->sides[s]);
	}
}

/* The machine-readable report (--json): everything the text output says. */
static void print_report(const struct merge_result *r, const struct diags *d, char **written,
			 size_t nwritten, int rc)
{
	json_t *o = json_object();
	json_object_set_new(o, "ok", json_boolean(rc == TT_OK));
	json_object_set_new(o, "exit", json_integer(rc));
	json_object_set_new(o, "device", r->device ? json_string(r->device) : json_null());
	json_object_set_new(o, "flashinfer_version", r->version ? json_string(r->version) : json_null());
	json_t *in = json_array();
	for (size_t i = 0; i < r->nfiles; i++)
		json_array_append_new(in, json_string(r->files[i]));
	json_object_set_new(o, "inputs", in);
	json_object_set_new(o, "tables", json_integer((json_int_t)r->ntables));
	json_object_set_new(o, "entries", json_integer((json_int_t)r->entries));
	json_t *cs = json_array();
	for (size_t i = 0; i < r->nconflicts; i++) {
		const struct merge_conflict *c = &r->conflicts[i];
		json_t *co = json_object();
		json_object_set_new(co, "key", json_string(c->key));
		json_object_set_new(co, "kept", json_string(c->sides[0].tactic));
		json_object_set_new(co, "rule", json_integer(c->rule));
		json_object_set_new(co, "why", json_string(c->why));
		json_t *ss = json_array();
		for (size_t s = 0; s < c->nsides; s++) {
			const struct merge_side *x = &c->sides[s];
			json_t *so = json_object();
			json_object_set_new(so, "tactic", json_string(x->tactic));
			json_object_set_new(so, "source", x->source == PROV_UNKNOWN ? json_null()
							 : json_string(prov_source_name(x->source)));
			json_object_set_new(so, "time_us", x->time_us >= 0 ? json_real(x->time_us)
									   : json_null());
			json_t *ins = json_array();
			for (size_t k = 0; k < x->ninputs; k++)
				json_array_append_new(ins, json_string(x->inputs[k]));
			json_object_set_new(so, "inputs", ins);
			json_array_append_new(ss, so);
		}
		json_object_set_new(co, "sides", ss);
		json_array_append_new(cs, co);
	}
	json_object_set_new(o, "conflicts", cs);
	json_t *notes = json_array(), *errors = json_array();
	for (size_t i = 0; i < d->n; i++)
		json_array_append_new(d->v[i].sev == SEV_ERROR ? errors : notes, cli_diag_json(&d->v[i]));
	json_object_set_new(o, "notes", notes);
	json_object_set_new(o, "errors", errors);
	json_t *w = json_array();
	for (size_t i = 0; i < nwritten; i++)
		json_array_append_new(w, json_string(written[i]));
	json_object_set_new(o, "written", w);
	cli_print_json(o, JSON_INDENT(2) | JSON_REAL_PRECISION(PROV_REAL_DIGITS));
}

int cmd_merge(int argc, char **argv)
{
	struct merge_opts o = { .tunetab_version = TUNETAB_VERSION };
	int c, fail_on_conflict = 0, quiet = 0, json = 0;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "merge")) != -1) {
		switch (c) {
		case 'F': o.format = optarg; break;
		case 'f': o.flashinfer = optarg; break;
		case 'D': o.device = optarg; break;
		case 'p': o.partial = true; break;
		case 'c': fail_on_conflict = 1; break;
		case 'q': quiet = 1; break;
		case 'j': json = 1; break;
		default:
			return cli_usage_error("merge", "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return cli_usage_error("merge", "want OUT and at least one IN");
	if (o.format && strcmp(o.format, "py") && strcmp(o.format, "json") && strcmp(o.format, "both"))
		return cli_usage_error("merge", "--format must be py, json or both, not '%s'", o.format);
	o.out = argv[optind];
	bool one_py = str_ends(o.out, ".py"), one_json = str_ends(o.out, ".json");
	if (o.format && (one_py || one_json) && strcmp(o.format, one_py ? "py" : "json"))
		return cli_usage_error("merge", "OUT '%s' is one %s file; --format %s does not apply "
				       "(give a folder)", o.out, one_py ? "module" : "JSON cache", o.format);
	o.inputs = argv + optind + 1;
	o.ninputs = (size_t)(argc - optind - 1);

	struct tt_data data;
	int rc = cli_load_data(&data, DATA_DEVICES | DATA_CATALOGS | DATA_SCHEMAS | DATA_OPS);
	if (rc)
		return rc;
	struct validate_data vd = { &data.devices, &data.catalogs, &data.rules, &data.ops };
	struct merge_result r;
	struct diags d = DIAGS_INIT;
	rc = merge_run(&vd, &o, &r, &d);
	if (rc == TT_OK && fail_on_conflict && r.nconflicts)
		rc = diag_error(&d, TT_INVALID, "conflict", NULL, 0, 0, "%zu conflict%s and "
				"--fail-on-conflict; nothing written", r.nconflicts,
				r.nconflicts == 1 ? "" : "s");
	char **written = xcalloc(r.noutputs + 1, sizeof *written);
	size_t nwritten = 0;
	if (rc == TT_OK)
		rc = merge_write(&r, &nwritten, &d);
	for (size_t i = 0; i < nwritten; i++)
		written[i] = r.outputs[i].path;
	if (!quiet || (fail_on_conflict && r.nconflicts))
		print_conflicts(&r);
	for (size_t i = 0; i < d.n; i++) {
		struct diags one = { &d.v[i], 1, 1 };
		if (!quiet || d.v[i].sev == SEV_ERROR)
			cli_print_diags(&one);
	}
	if (rc == TT_OK && !quiet) {
		fprintf(stderr, "tunetab: merged %zu input%s: %zu entr%s (%zu conflict%s settled), wrote ",
			r.ntables, r.ntables == 1 ? "" : "s", r.entries, r.entries == 1 ? "y" : "ies",
			r.nconflicts, r.nconflicts == 1 ? "" : "s");
		for (size_t i = 0; i < nwritten; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", written[i]);
		fputc('\n', stderr);
	}
	if (json)
		print_report(&r, &d, written, nwritten, rc);
	free(written);
	diags_release(&d);
	merge_result_release(&r);
	cli_release_data(&data);
	return rc;
}
