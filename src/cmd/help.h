/* help.h: help for the user, from the command table and the reference pages (src/cmd/help.c):
 * the overview and one command's help. It sits above cli.h (help.c uses cli.c's printing, and
 * cli.c nothing of help.c), so that the two do not depend on each other. */
#ifndef TUNETAB_HELP_H
#define TUNETAB_HELP_H

#include <stdbool.h>
#include <stdio.h>

/* `tunetab help`'s list of commands. */
void cli_print_overview(FILE *f);
/* Handles -h/--help for a command: prints its help (usage, options; not the reference page)
 * and returns 1 when asked. */
int cli_wants_help(int argc, char **argv);
/* A command's help; full: followed by its reference page (docs/commands/<name>.md). */
void cli_print_help(const char *name, bool full);

#endif
