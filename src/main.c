/* main.c: tunetab's entry point: hands the command table (cmd.c) to the command layer and
 * dispatches to the command named by the first argument. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd/cli.h"
#include "cmd/help.h"
#include "base/diag.h"

int main(int argc, char **argv)
{
	cli_set_commands(cmd_table, cmd_table_n);
	if (argc < 2) {
		cli_print_overview(stderr);
		return TT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
		printf("tunetab %s\n", TUNETAB_VERSION);
		return TT_OK;
	}
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
		name = "help";
	const struct cli_command *c = cli_find_command(name);
	if (!c)
		return cli_error(TT_USAGE, "unknown command '%s' (see 'tunetab help')", name);
	/* a hidden command (the worker) takes its arguments as they are */
	if (!(c->flags & CMD_HIDDEN) && c->fn != cmd_help && cli_wants_help(argc - 1, argv + 1))
		return TT_OK;
	return c->fn(argc - 1, argv + 1);
}
