/* options.c: the command table as the command layer sees it, and getopt_long built from it. */
#include "cmd/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

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
				for (int i = 0; i < (int)o->arg; i++)
					shortopts[k++] = ':';
			}
		}
		longopts[n] = (struct option){ 0 };
		shortopts[k] = '\0';
		built = c;
	}
	return getopt_long(argc, argv, shortopts, longopts, NULL);
}
