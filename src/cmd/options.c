/* options.c: the command table as the command layer sees it, getopt_long built from it, and
 * its check (`tunetab help --check`). */
#include "cmd/options.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

static const struct cli_command *table;
static size_t table_n;

void cli_set_commands(const struct cli_command *v, size_t n)
{
	table = v;
	table_n = n;
}

size_t cli_commands(const struct cli_command **v)
{
	*v = table;
	return table_n;
}

const struct cli_command *cli_find_command(const char *name)
{
	for (size_t i = 0; i < table_n; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

size_t cli_n_options(const struct cli_command *c)
{
	size_t n = 0;
	while (c->options && c->options[n].name)
		n++;
	return n;
}

int cli_getopt(int argc, char **argv, const char *cmd)
{
	/* built once per command: `doctor --for` parses as install after its own scan */
	static const struct cli_command *built;
	static struct option longopts[CLI_MAX_OPTIONS + 1];
	static char shortopts[3 * CLI_MAX_OPTIONS + 1];
	const struct cli_command *c = cli_find_command(cmd);
	if (!c)
		abort(); /* a command that is not in the table: a bug, caught by every test */
	if (c != built) {
		size_t n = 0, k = 0;
		for (const struct cli_option *o = c->options; o && o->name; o++, n++) {
			if (n == CLI_MAX_OPTIONS)
				abort(); /* raise CLI_MAX_OPTIONS */
			static const int has_arg[] = { [ARG_NONE] = no_argument,
						       [ARG_REQUIRED] = required_argument,
						       [ARG_OPTIONAL] = optional_argument };
			longopts[n] = (struct option){ o->name, has_arg[o->arg], NULL, o->id };
			if (o->short_name) {
				shortopts[k++] = o->short_name;
				for (int i = 0; i < (int)o->arg; i++) /* "x:" required, "x::" optional */
					shortopts[k++] = ':';
			}
		}
		longopts[n] = (struct option){ 0 };
		shortopts[k] = '\0';
		built = c;
	}
	return getopt_long(argc, argv, shortopts, longopts, NULL);
}

/* The option a usage line's word "--name" or "-x" (len characters after the dashes) names. */
static const struct cli_option *usage_option(const struct cli_command *c, const char *w,
					     size_t len, bool is_long)
{
	for (size_t k = 0; k < cli_n_options(c); k++) {
		const struct cli_option *o = &c->options[k];
		if (is_long ? strlen(o->name) == len && !strncmp(o->name, w, len)
			    : len == 1 && o->short_name == *w)
			return o;
	}
	return NULL;
}

/* Characters of text, counting a UTF-8 sequence as one. */
static size_t columns(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xC0) != 0x80;
	return k;
}

/* What the table promises and C cannot check: one line per breach on stdout. */
int cli_check_commands(void)
{
	const struct cli_command *v;
	size_t n = cli_commands(&v), nopt = 0, bad = 0;
#define BAD(...) (printf(__VA_ARGS__), putchar('\n'), bad++)
	for (size_t i = 0; i < n; i++) {
		const struct cli_command *c = &v[i];
		size_t no = cli_n_options(c);
		bool seen[CLI_MAX_OPTIONS + 1] = { false };
		nopt += no;
		if (no > CLI_MAX_OPTIONS)
			BAD("%s: %zu options, more than CLI_MAX_OPTIONS", c->name, no);
		if (!c->summary || (!(c->flags & CMD_HIDDEN) && !c->usage))
			BAD("%s: no summary or usage line", c->name);
		for (size_t k = 0; k < no && k < CLI_MAX_OPTIONS; k++) {
			const struct cli_option *o = &c->options[k];
			if (!o->help)
				BAD("%s --%s: no help line", c->name, o->name);
			if ((o->arg == ARG_NONE) != !o->arg_name)
				BAD("%s --%s: an argument name without an argument, or the reverse",
				    c->name, o->name);
			if (o->short_name && o->short_name != o->id)
				BAD("%s --%s: short name -%c but id %d", c->name, o->name, o->short_name,
				    o->id);
			for (size_t j = 0; j < k; j++)
				if (!strcmp(c->options[j].name, o->name) || c->options[j].id == o->id)
					BAD("%s --%s: the name or id of --%s again", c->name, o->name,
					    c->options[j].name);
		}
		/* every "--name" or "-x" of the usage line is an option, and every option is there
		 * unless it says OPT_BRIEF */
		for (const char *p = c->usage; p && *p; p++) {
			if (*p != '-' || (p > c->usage && !strchr(" [(|", p[-1])))
				continue;
			bool is_long = p[1] == '-';
			const char *w = p + 1 + is_long;
			size_t len = strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
			if (!len) /* "-", standard input */
				continue;
			const struct cli_option *o = usage_option(c, w, len, is_long);
			if (!o)
				BAD("%s: the usage line names %.*s, which is no option of it", c->name,
				    (int)(w + len - p), p);
			else
				seen[o - c->options] = true;
			p = w + len - 1;
		}
		for (size_t k = 0; k < no && k < CLI_MAX_OPTIONS; k++)
			if (!(c->flags & CMD_HIDDEN) && !seen[k] && !(c->options[k].flags & OPT_BRIEF))
				BAD("%s --%s: not in the usage line (add it there, or mark it OPT_BRIEF)",
				    c->name, c->options[k].name);
		for (const char *l = c->help; l && *l;) {
			size_t len = strcspn(l, "\n");
			if (columns(l, len) > 90)
				BAD("%s: a help line longer than 90 columns: %.*s", c->name, (int)len, l);
			l += len + (l[len] == '\n');
		}
	}
#undef BAD
	if (bad) {
		fprintf(stderr, "tunetab: error: the command table has %zu problem%s\n", bad,
			bad == 1 ? "" : "s");
		return TT_INVALID;
	}
	printf("command table: %zu commands, %zu options: ok\n", n, nopt);
	return TT_OK;
}
