/* options.h: a command's interface as data (usage, options, help, needs): the type of the one
 * command table (src/cmd.c), and getopt_long built from it for the commands' parsing. */
#ifndef TUNETAB_OPTIONS_H
#define TUNETAB_OPTIONS_H

#include <stddef.h>

enum cli_arg {
	ARG_NONE,     /* --name */
	ARG_REQUIRED, /* --name VALUE or --name=VALUE */
	ARG_OPTIONAL, /* --name or --name=VALUE */
};

enum cli_option_flags {
	OPT_BRIEF = 1, /* left out of the usage line on purpose: listed under the options only */
};

/* One option of a command. The parsing switch of src/cmd/<name>.c has a case for each id. */
struct cli_option {
	const char *name;     /* the long name, without "--" */
	int id;               /* what getopt_long returns for it */
	char short_name;      /* -x as well (then equal to id), or 0 */
	enum cli_arg arg;
	/* The argument as help shows it: "N", "DIR", "py|json|both". Between '|', words of lower
	 * case letters, digits, '.', '_' and '-' are the fixed choices (shell completion); a word
	 * with FILE, DIR, PATH or a '.' in it completes file names. */
	const char *arg_name;
	unsigned flags;       /* enum cli_option_flags */
	const char *help;     /* one line, for `tunetab help CMD` */
	const char *doc;      /* the whole meaning, for the reference pages' option tables and the man page;
			       * NULL: the help line says it all */
};

enum cli_needs {
	NEEDS_DATA = 1, /* reads tunetab's data folder (configs/, schemas/, scripts/) */
	NEEDS_GPU = 2,  /* talks to a GPU through CUDA (always, or as gpu_when says) */
};

enum cli_command_flags {
	CMD_HIDDEN = 1, /* internal (the worker process): not listed, no help, no completion */
};

/* One entry of the command table. */
struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the command name; returns the exit code */
	unsigned needs;                   /* enum cli_needs */
	const char *gpu_when;             /* with NEEDS_GPU: when ("with --profile"), NULL always */
	unsigned flags;                   /* enum cli_command_flags */
	const char *summary;              /* one line, for `tunetab help` */
	const char *usage;                /* what follows "tunetab NAME " in the usage line */
	const char *help;                 /* a paragraph, lines of at most 90 columns */
	/* What the operands are, for completion: "COMMAND" (a command name), fixed choices
	 * ("bash|zsh"), or NULL (file names). */
	const char *operands;
	const struct cli_option *options; /* ends with { NULL }; NULL: none */
};

/* The most options one command may have (cli_getopt's buffers). */
#define CLI_MAX_OPTIONS 48

/* Hands the command table to the command layer; main() calls it before any command runs. */
void cli_set_commands(const struct cli_command *table, size_t n);
/* The whole table, hidden entries included: *v and the number of entries. */
size_t cli_commands(const struct cli_command **v);
/* The table entry of a command, hidden ones included; NULL when there is none. */
const struct cli_command *cli_find_command(const char *name);
/* The number of options of a command. */
size_t cli_n_options(const struct cli_command *c);
/* What the table promises and C cannot check, one line per breach on stdout: every "--name" or
 * "-x" in a usage line is an option of the command, every option is in its usage line unless
 * OPT_BRIEF, names and ids unique, short names equal to ids, help lines of at most 90 columns.
 * Returns TT_OK, or TT_INVALID (said on stderr). */
int cli_check_commands(void);
/* getopt_long(argc, argv, <short options>, <long options>, NULL) with both built from the
 * command's table entry (its options' short names and long names). The caller sets opterr and
 * optind as for getopt_long. */
int cli_getopt(int argc, char **argv, const char *cmd);

#endif
