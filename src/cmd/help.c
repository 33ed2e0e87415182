/* help.c: `tunetab help`: the overview, one command's help and reference page, the pages'
 * option tables (--markdown), the man page (--man) and a check of the command table
 * (--check). Usage lines and options come from the command table (src/cmd.c); the prose
 * from the reference pages under docs/, built in (cmd/docs.h). */
#include <ctype.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/markdown.h"
#include "base/util.h"
#include "cmd/cli.h"
#include "cmd/docs.h"
#include "cmd/help.h"

const char *embedded_doc(const char *name)
{
	for (const struct embedded_doc *d = embedded_docs; d->name; d++)
		if (!strcmp(d->name, name))
			return d->text;
	return NULL;
}

/* docs/commands/<command>.md, or NULL */
static const char *command_page(const struct cli_command *c)
{
	char name[64];
	snprintf(name, sizeof name, "commands/%s", c->name);
	return embedded_doc(name);
}

static bool visible(const struct cli_command *c)
{
	return !(c->flags & CMD_HIDDEN);
}

/* A command by the name a user gave: hidden ones are not there. */
static const struct cli_command *user_command(const char *name)
{
	const struct cli_command *c = cli_find_command(name);
	return c && visible(c) ? c : NULL;
}

/* "-o, --output DIR", "--json", "--name[=ARG]"; md: each name as Markdown code. */
static void option_spec(const struct cli_option *o, bool md, struct strbuf *sb)
{
	const char *q = md ? "`" : "";
	if (o->short_name) {
		sb_addf(sb, "%s-%c", q, o->short_name);
		if (md && o->arg != ARG_NONE)
			sb_addf(sb, " %s", o->arg_name);
		sb_addf(sb, "%s, ", q);
	}
	sb_addf(sb, "%s--%s", q, o->name);
	if (o->arg == ARG_REQUIRED)
		sb_addf(sb, " %s", o->arg_name);
	else if (o->arg == ARG_OPTIONAL)
		sb_addf(sb, "[=%s]", o->arg_name);
	sb_adds(sb, q);
}

/* "Needs tunetab's data folder and a GPU (with --profile)." or "" */
static void needs_text(const struct cli_command *c, struct strbuf *sb)
{
	if (!c->needs)
		return;
	sb_addf(sb, "Needs %s%s%s", c->needs & NEEDS_DATA ? "tunetab's data folder" : "",
		(c->needs & NEEDS_DATA) && (c->needs & NEEDS_GPU) ? " and " : "",
		c->needs & NEEDS_GPU ? "a GPU" : "");
	if ((c->needs & NEEDS_GPU) && c->gpu_when)
		sb_addf(sb, " (%s)", c->gpu_when);
	sb_adds(sb, ".");
}

void cli_print_overview(FILE *f)
{
	fprintf(f, "usage: tunetab <command> [options]\n"
		   "       tunetab --version | --help\n\n"
		   "Kernel tuning tables for FlashInfer's MoE GEMMs, for every GPU.\n\ncommands:\n");
	const struct cli_command *v;
	size_t n = cli_commands(&v);
	for (size_t i = 0; i < n; i++)
		if (visible(&v[i]))
			fprintf(f, "  %-11s %s\n", v[i].name, v[i].summary);
	fprintf(f, "\nexit codes: 0 ok, 1 findings or invalid input, 2 usage error, "
		   "3 script error,\n            4 GPU/CUDA error, 5 internal error\n"
		   "Run 'tunetab help COMMAND' for a command's options and reference, 'man tunetab'\n"
		   "for all of them.\n");
}

/* Prints text from column indent, wrapped at 90 columns; the first line starts at column at. */
static void print_wrapped(const char *text, int indent, int at)
{
	for (const char *w = text; *w;) {
		size_t len = strcspn(w, " ");
		if (at > indent && at + 1 + (int)len > 90) {
			printf("\n%*s", indent, "");
			at = indent;
		} else if (at > indent) {
			putchar(' ');
			at++;
		}
		printf("%.*s", (int)len, w);
		at += (int)len;
		w += len + (w[len] == ' ');
	}
	putchar('\n');
}

static void print_command_help(const struct cli_command *c, bool full)
{
	printf("usage: tunetab %s %s\n\n%s\n", c->name, c->usage, c->summary);
	if (c->help)
		printf("\n%s\n", c->help);
	size_t n = cli_n_options(c), width = 0;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		sb_reset(&sb);
		option_spec(&c->options[i], false, &sb);
		if (sb.len > width)
			width = sb.len;
	}
	if (width > 24)
		width = 24; /* longer ones put their help on a line of its own */
	if (n)
		printf("\noptions:\n");
	for (size_t i = 0; i < n; i++) {
		sb_reset(&sb);
		option_spec(&c->options[i], false, &sb);
		if (sb.len > width)
			printf("  %s\n%*s", sb.buf, (int)width + 4, "");
		else
			printf("  %-*s  ", (int)width, sb.buf);
		print_wrapped(c->options[i].help, (int)width + 4, (int)width + 4);
	}
	sb_reset(&sb);
	needs_text(c, &sb);
	if (sb.len)
		printf("\n%s\n", sb.buf);
	const char *page = command_page(c);
	sb_reset(&sb);
	if (page && full) {
		md_to_text(page, &sb);
		printf("\n%s", sb.buf);
	} else if (page) {
		printf("\n'tunetab help %s' adds its reference (docs/commands/%s.md).\n", c->name, c->name);
	}
	sb_release(&sb);
}

void cli_print_help(const char *name, bool full)
{
	print_command_help(cli_find_command(name), full);
}

int cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			cli_print_help(argv[0], false);
			return 1;
		}
	}
	return 0;
}

static void md_cell(const char *s)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : (char[]){ *s, '\0' }, stdout);
}

/* A reference page's table of a command's options: one row per option, its whole meaning. */
static void print_markdown(const struct cli_command *c)
{
	struct strbuf sb = STRBUF_INIT;
	printf("| option | meaning |\n|---|---|\n");
	for (size_t i = 0; i < cli_n_options(c); i++) {
		const struct cli_option *o = &c->options[i];
		sb_reset(&sb);
		option_spec(o, true, &sb);
		fputs("| ", stdout);
		md_cell(sb.buf);
		fputs(" | ", stdout);
		md_cell(o->doc ? o->doc : o->help);
		fputs(" |\n", stdout);
	}
	sb_release(&sb);
}

/* The command table's text as roff (base/markdown.h: `code` in bold, '-' as \-,
 * characters outside ASCII as \[uXXXX]). */
static void roff(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	md_roff_inline(s, false, &sb);
	fputs(sb.buf ? sb.buf : "", stdout);
	sb_release(&sb);
}

/* A reference page as roff: from the page, less its title and option table. */
static void roff_page(const char *page)
{
	struct strbuf sb = STRBUF_INIT;
	md_to_roff(page, &sb);
	fputs(sb.buf ? sb.buf : "", stdout);
	sb_release(&sb);
}

static void print_man(void)
{
	printf(".TH TUNETAB 1 \"\" \"tunetab %s\" \"User Commands\"\n", TUNETAB_VERSION);
	fputs(".\\\" Generated by `tunetab help --man` from the command table (src/cmd.c) and the\n"
	      ".\\\" reference pages (docs/commands/*.md, docs/exit-codes.md, docs/environment.md):\n"
	      ".\\\" edit those, then run `make docs`.\n"
	      ".SH NAME\n"
	      "tunetab \\- kernel tuning tables for FlashInfer's MoE GEMMs, for every GPU\n"
	      ".SH SYNOPSIS\n"
	      ".B tunetab\n.I command\n[\\fIoptions\\fR]\n.br\n.B tunetab\n\\-\\-version | \\-\\-help\n"
	      ".SH DESCRIPTION\n"
	      "FlashInfer picks, per GPU, per op and per token-count bucket, a tactic for its CUTLASS\n"
	      "fused-MoE GEMMs. It ships tuned tables only for B200 and GB200 and silently falls back to\n"
	      "tactic \\-1 everywhere else.\n"
	      ".B tunetab\n"
	      "knows FlashInfer's file formats, key strings, token buckets and tactic lists per GPU\n"
	      "architecture and FlashInfer version, and reads the GPU through the CUDA Runtime API.\n"
	      ".SH COMMANDS\n", stdout);
	struct strbuf sb = STRBUF_INIT;
	const struct cli_command *v;
	size_t n = cli_commands(&v);
	for (size_t i = 0; i < n; i++) {
		const struct cli_command *c = &v[i];
		if (!visible(c))
			continue;
		printf(".SS %s\n.B tunetab %s\n", c->name, c->name);
		roff(c->usage);
		printf("\n.PP\n%c", toupper((unsigned char)c->summary[0]));
		roff(c->summary + 1);
		printf(".\n");
		if (c->help) {
			printf(".PP\n");
			roff(c->help);
			printf("\n");
		}
		sb_reset(&sb);
		needs_text(c, &sb);
		if (sb.len) {
			printf(".PP\n");
			roff(sb.buf);
			printf("\n");
		}
		for (size_t k = 0; k < cli_n_options(c); k++) {
			const struct cli_option *o = &c->options[k];
			printf(k ? ".TP\n" : ".PP\nOptions:\n.TP\n");
			if (o->short_name)
				printf("\\fB\\-%c\\fR, ", o->short_name);
			printf("\\fB");
			roff("--");
			roff(o->name);
			printf("\\fR");
			if (o->arg != ARG_NONE) {
				printf(o->arg == ARG_OPTIONAL ? "[=\\fI" : " \\fI");
				roff(o->arg_name);
				printf(o->arg == ARG_OPTIONAL ? "\\fR]" : "\\fR");
			}
			printf("\n");
			roff(o->doc ? o->doc : o->help);
			printf("\n");
		}
		const char *page = command_page(c);
		if (page)
			roff_page(page);
	}
	sb_release(&sb);
	const char *exits = embedded_doc("exit-codes"), *env = embedded_doc("environment");
	fputs(".SH EXIT STATUS\n", stdout);
	roff_page(exits ? exits : "");
	fputs(".SH ENVIRONMENT\n", stdout);
	roff_page(env ? env : "");
	fputs(".SH FILES\n"
	      ".I PREFIX/share/tunetab/configs/devices/*.yaml,\n"
	      ".I configs/models/*.yaml,\n"
	      ".I configs/catalogs/flashinfer/*.yaml,\n"
	      ".I configs/ops/*.yaml,\n"
	      ".I schemas/flashinfer/*.yaml,\n"
	      ".I scripts/heuristics/*.lua\n"
	      ".SH SEE ALSO\n"
	      "The guide (docs/guide.md), deploying to each server (docs/consumers.md), file formats\n"
	      "(docs/formats.md), benchmarks (docs/benchmarks.md) and heuristics in Lua (scripts/README.md)\n"
	      "in the tunetab sources.\n", stdout);
}

int cmd_help(int argc, char **argv)
{
	bool markdown = false, man = false, check = false;
	int c;
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		print_command_help(cli_find_command("help"), false);
		return TT_OK;
	}
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "help")) != -1) {
		switch (c) {
		case 'M': markdown = true; break;
		case 'm': man = true; break;
		case 'c': check = true; break;
		default: return cli_usage_error("help", "unknown option '%s'", argv[optind - 1]);
		}
	}
	int operands = argc - optind;
	if (markdown + man + check > 1 || operands > 1 || (markdown && operands != 1) ||
	    ((man || check) && operands))
		return cli_usage_error("help", "want one of: COMMAND, --markdown COMMAND, --man, --check");
	if (man) {
		print_man();
		return TT_OK;
	}
	if (check)
		return cli_check_commands();
	if (!operands) {
		cli_print_overview(stdout);
		return TT_OK;
	}
	const struct cli_command *cmd = user_command(argv[optind]);
	if (!cmd)
		return cli_error(TT_USAGE, "unknown command '%s' (see 'tunetab help')", argv[optind]);
	if (markdown)
		print_markdown(cmd);
	else
		print_command_help(cmd, true);
	return TT_OK;
}
