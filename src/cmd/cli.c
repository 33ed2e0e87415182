/* cli.c: shared CLI helpers (printing, data loading, version selection). */
#include "cmd/cli.h"
#include "inspect/doctor.h"

#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datadir.h"
#include "base/util.h"

/* install --json (cli_capture): where what is said on stderr is kept as well, or NULL */
static json_t *captured_notes, *captured_errors;

json_t *cli_diag_json(const struct diag *x)
{
	json_t *o = json_object();
	json_object_set_new(o, "severity", json_string(diag_sev_name(x->sev)));
	json_object_set_new(o, "file", x->file ? json_string(x->file) : json_null());
	json_object_set_new(o, "line", json_integer(x->line));
	json_object_set_new(o, "col", json_integer(x->col));
	json_object_set_new(o, "message", json_string(x->msg));
	return o;
}

void cli_capture(json_t *notes, json_t *errors)
{
	captured_notes = notes;
	captured_errors = errors;
}

static void capture(const struct diag *x)
{
	json_t *a = x->sev == SEV_ERROR ? captured_errors : captured_notes;
	if (a)
		json_array_append_new(a, cli_diag_json(x));
}

/* "tunetab: LEVEL: <msg>" on stderr. */
__attribute__((format(printf, 2, 0)))
static void say(enum diag_sev sev, const char *fmt, va_list ap)
{
	if (captured_notes || captured_errors) {
		va_list aq;
		va_copy(aq, ap);
		char *msg = xvasprintf(fmt, aq);
		va_end(aq);
		capture(&(struct diag){ .sev = sev, .msg = msg });
		free(msg);
	}
	fprintf(stderr, "tunetab: %s: ", diag_sev_name(sev));
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_error(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(SEV_ERROR, fmt, ap);
	va_end(ap);
	return status;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(SEV_WARNING, fmt, ap);
	va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(SEV_ERROR, fmt, ap);
	va_end(ap);
	cli_print_usage(cmd);
	return TT_USAGE;
}

const char *cli_stamp_hint(const char *word)
{
	return word && !strncmp(word, "--metadata", 10) && (!word[10] || word[10] == '=')
		? ": install and doctor name the _metadata they stamp with --stamp env|wildcard|from "
		  "(--metadata KEY=VALUE is generate's and convert's)" : "";
}

int cli_json_flag(int argc, char **argv, const char *cmd, bool *json)
{
	int c;
	*json = false;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, cmd)) != -1) {
		if (c == 'j')
			*json = true;
		else
			return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	return TT_OK;
}

int cli_long_arg(const char *cmd, const char *what, const char *arg, long lo, long hi, long *v)
{
	if (parse_long(arg, v) || *v < lo)
		return cli_usage_error(cmd, "%s must be an integer >= %ld, not '%s'", what, lo, arg);
	if (*v > hi)
		return cli_usage_error(cmd, "%s must be at most %ld, not '%s'", what, hi, arg);
	return TT_OK;
}

void cli_print_json(struct json_t *doc, size_t flags)
{
	char *s = json_dumps(doc, flags);
	if (s)
		printf("%s\n", s);
	free(s);
	json_decref(doc);
}

void cli_print_usage(const char *cmd)
{
	const struct cli_command *c = cli_find_command(cmd);
	if (c && c->usage)
		fprintf(stderr, "usage: tunetab %s %s\n", cmd, c->usage);
}

void cli_script_print(const char *line)
{
	/* scripts talk to the user through stderr, prefixed, never stdout */
	fprintf(stderr, "tunetab: script: %s\n", line);
}

void cli_print_diags(const struct diags *d)
{
	cli_print_diags_quiet(d, false);
}

void cli_print_diags_quiet(const struct diags *d, bool quiet)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct diag *x = &d->v[i];
		capture(x);
		if (quiet && x->sev == SEV_NOTE)
			continue;
		fprintf(stderr, "tunetab: %s: ", diag_sev_name(x->sev));
		if (x->file) {
			fputs(x->file, stderr);
			if (x->line)
				fprintf(stderr, ":%d:%d", x->line, x->col);
			fputs(": ", stderr);
		}
		fprintf(stderr, "%s\n", x->msg);
	}
}

int cli_load_data(struct tt_data *data, unsigned parts)
{
	struct diags d = DIAGS_INIT;
	int rc = data_load(data, parts, &d);
	cli_print_diags(&d);
	diags_release(&d);
	return rc;
}

void cli_release_data(struct tt_data *data)
{
	data_release(data);
}

const char *cli_rel(const struct tt_data *data, const char *path)
{
	return data_rel(data, path);
}

bool cli_installed_fi(struct doctor_fi *fi)
{
	struct diags quiet = DIAGS_INIT;
	/* TUNETAB_TEST_IGNORE_INSTALLED: tests that must not depend on this machine */
	bool found = !getenv("TUNETAB_TEST_IGNORE_INSTALLED") &&
		     doctor_find_flashinfer(NULL, fi, &quiet) == TT_OK && fi->version[0];
	diags_release(&quiet);
	return found;
}

int cli_pick_schema(const struct tt_data *data, const char *version, struct fi_version *v,
		    const struct fi_rules **rules, bool announce)
{
	struct doctor_fi fi;
	struct data_installed_fi inst = { fi.version, fi.pkg };
	bool have = !version && cli_installed_fi(&fi);
	struct diags d = DIAGS_INIT;
	int rc = data_pick_rules(data, version, have ? &inst : NULL, v, rules, announce, &d);
	cli_print_diags(&d);
	diags_release(&d);
	return rc;
}

int cli_deploy(const struct tt_data *data, const struct dtype_set *dtypes,
	       const struct shape_args *a, int sm, const struct fi_rules *rules,
	       struct deployment *dep, struct model_profile **own_model, struct diags *d)
{
	struct diags mine = DIAGS_INIT;
	int rc = shape_build(data, dtypes, a, sm, rules, dep, own_model, &mine);
	cli_print_diags(&mine);
	diags_release(&mine);
	if (rc == TT_USAGE)
		cli_print_usage(a->cmd);
	return rc;
}

char *cli_command_line(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "tunetab");
	for (int i = 0; i < argc; i++) {
		sb_addc(&sb, ' ');
		sb_add_shell(&sb, argv[i]);
	}
	return sb_detach(&sb);
}

json_t *cli_tactic_json(const struct tactic *x)
{
	json_t *o = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:s}", "id", x->id, "local", x->local,
			      "m", x->m, "n", x->n, "k_bytes", x->k_bytes, "k_elements", x->k_elems,
			      "style", x->sm80_style ? "sm80" : "tma_ws");
	if (!x->sm80_style) {
		json_object_set_new(o, "cluster", json_pack("[iii]", x->cluster[0], x->cluster[1],
							    x->cluster[2]));
		json_object_set_new(o, "mma", json_string(x->mma == MMA_2SM ? "2sm" : "1sm"));
		json_object_set_new(o, "epilogue",
				    json_string(x->epilogue == EPI_NO_SMEM ? "no_smem" : "tma"));
	} else {
		json_object_set_new(o, "warp", json_pack("[iii]", x->warp[0], x->warp[1], x->warp[2]));
		json_object_set_new(o, "stages", json_integer(x->stages));
	}
	if (x->static_cluster)
		json_object_set_new(o, "dyn_cluster", json_string("static"));
	else if (x->dyn_cluster[0])
		json_object_set_new(o, "dyn_cluster",
				    json_pack("{s:[iii], s:[iii]}", "shape", x->dyn_cluster[0],
					      x->dyn_cluster[1], x->dyn_cluster[2], "fallback",
					      x->fallback[0], x->fallback[1], x->fallback[2]));
	json_t *flags = json_pack("{s:i, s:b, s:b, s:b, s:b}", "sm_version", x->sm_version,
				  "swap_ab", x->swap_ab, "tokens_on_n", x->tokens_on_n,
				  "finalize", x->finalize, "dispatchable", x->dispatchable);
	json_object_update(o, flags);
	json_decref(flags);
	if (x->note)
		json_object_set_new(o, "note", json_string(x->note));
	return o;
}
