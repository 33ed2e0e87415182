/* cmd.h: the command table (src/cmd.c): every command's name, function, usage line, options,
 * help and needs. main() hands it to the command layer (cli_set_commands) and dispatches. */
#ifndef TUNETAB_CMD_H
#define TUNETAB_CMD_H

#include <stddef.h>

#include "cmd/options.h"

/* In the order `tunetab help` lists them; hidden entries (CMD_HIDDEN) last. */
extern const struct cli_command cmd_table[];
extern const size_t cmd_table_n;

#endif
