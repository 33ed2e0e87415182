/* cli.h: helpers shared by the command implementations (cmd_*.c): printing diagnostics,
 * loading the data folder, common option handling. Only the CLI layer prints. */
#ifndef TUNETAB_CLI_H
#define TUNETAB_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd/options.h"
#include "data/catalog.h"
#include "data/device.h"
#include "base/diag.h"
#include "data/dtypes.h"
#include "data/firules.h"
#include "flashinfer/lookup.h"
#include "tune/generate.h"
#include "data/data.h"
#include "inspect/doctor.h"
#include "data/model.h"
#include "deploy/plan.h"
#include "deploy/serve.h"

/* Upper limits of numeric options (docs/guide.md, "Limits"); above them: usage error, exit 2. */
#define CLI_MAX_TOKENS_LIMIT 1048576L /* --max-tokens: buckets up to 2^20 tokens */
#define CLI_TOP_K_LIMIT 1024L         /* --top-k */
#define CLI_SCRIPT_MEM_LIMIT 16384L   /* --script-mem, MiB */
#define CLI_TIMEOUT_LIMIT 86400L      /* --timeout, seconds (the worker watchdog) */

/* Each command: argv[0] is the command name. Returns the exit code. */
int cmd_help(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_detect(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_check_data(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_learn(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_scan_log(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

/* `tunetab help`'s list of commands (src/cmd/help.c). */
void cli_print_overview(FILE *f);
/* Prints "tunetab: error: <msg>" on stderr and returns status. */
int cli_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "tunetab: error: <msg>" and the command's usage line (from the command table);
 * returns TT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Options of a command whose only option is -j/--json and that takes no argument: *json
 * says whether it was given. Returns TT_OK, or TT_USAGE with the usage error printed. */
int cli_json_flag(int argc, char **argv, const char *cmd, bool *json);
/* An integer option's value ARG as *v, lo <= *v <= hi (LONG_MAX: no upper limit). Returns
 * TT_OK, or TT_USAGE with "WHAT must be an integer >= LO" or "... at most HI" printed. */
int cli_long_arg(const char *cmd, const char *what, const char *arg, long lo, long hi, long *v);
/* In a getopt loop: optarg's value into dst by cli_long_arg, or return TT_USAGE. */
#define CLI_LONG_OPT(cmd, dst, what, lo, hi)                      \
	do {                                                      \
		long v_;                                          \
		if (cli_long_arg(cmd, what, optarg, lo, hi, &v_)) \
			return TT_USAGE;                          \
		(dst) = v_;                                       \
	} while (0)
/* "usage: tunetab CMD USAGE" on stderr (nothing for an unknown command). */
void cli_print_usage(const char *cmd);
/* Handles -h/--help for a command: prints its help (usage, options; not the reference page)
 * and returns 1 when asked. */
int cli_wants_help(int argc, char **argv);
/* A command's help; full: followed by its reference page (docs/commands/<name>.md). */
void cli_print_help(const char *name, bool full);
/* "tunetab ARG..." with each argument quoted for a POSIX shell when it needs it. */
char *cli_command_line(int argc, char **argv);

/* A heuristic script's print() (script_limits.print): "tunetab: script: LINE" on stderr. */
void cli_script_print(const char *line);

/* A decoded tactic as JSON (catalog --json, explain --json); caller owns the reference. */
struct json_t;
struct json_t *cli_tactic_json(const struct tactic *t);

/* Prints doc on stdout (json_dumps with flags, then a newline) and drops the reference. */
void cli_print_json(struct json_t *doc, size_t flags);

/* "tunetab: error: FILE:LINE:COL: msg" for each diagnostic, on stderr. */
void cli_print_diags(const struct diags *d);

/* Loads the parts asked for; prints errors and returns their status on failure. */
int cli_load_data(struct tt_data *data, unsigned parts);
void cli_release_data(struct tt_data *data);
/* Path relative to the data root for display ("configs/devices/h200.yaml"). */
const char *cli_rel(const struct tt_data *data, const char *path);

/* The FlashInfer installed here (inspect/doctor.h), unless TUNETAB_TEST_IGNORE_INSTALLED. */
bool cli_installed_fi(struct doctor_fi *fi);
/* Resolves --flashinfer (NULL = the installed one, else the newest known): data_pick_rules,
 * its notes and errors printed. Returns status. */
int cli_pick_schema(const struct tt_data *data, const char *version, struct fi_version *v,
		    const struct fi_rules **rules, bool announce);

/* generate_deploy (tune/generate.h) for a command: its errors printed, and the command's
 * usage for a bad weight view. */
int cli_deploy(const struct tt_data *data, const struct dtype_set *dtypes,
	       const struct deploy_args *a, int sm, const struct fi_rules *rules,
	       struct deployment *dep, struct model_profile **own_model, struct diags *d);

/* The server's launch command: when argv[optind_ - 1] is "--" (getopt stopped there), the
 * words after it go to q (true). */
bool cli_launch_words(int argc, char **argv, int optind_, struct serve_request *q);
/* serve_derive with its errors printed, then (unless quiet) what was derived, on stderr. */
int cli_launch_derive(const struct tt_data *data, const struct serve_request *q,
		      struct serve_deployment *s, bool quiet);
void cli_launch_print(const struct serve_deployment *s, FILE *f);
/* The table install writes for s's server: generated (heuristic, or measured with profile)
 * into outdir, or a temporary folder when NULL, with every rank's keys where the version's
 * keys carry ranks; *json gets the JSON cache's path. Its summary on stderr. */
int cli_launch_generate(struct tt_data *data, const struct serve_deployment *s, bool profile,
			const char *outdir, char **json);
/* Removes what cli_launch_generate put in a temporary folder (outdir NULL), frees json. */
void cli_launch_generated_release(const char *outdir, char *json);

/* --- the lookup plan in words (src/cmd/plan.c) --- */
/* d's diagnostics, then that the table's _metadata is kept as it is (when it is). */
void cli_print_install_notes(const struct install_job *j, struct diags *d, const char *from);
/* Why the plan refuses a table (its findings), on stderr. */
void cli_print_plan_refusal(const struct plan_check *c, const struct lookup_plan *p);
/* install's files in words, then written (or listed with dry): status. */
int cli_install_files(const struct lookup_plan *p, const struct install_request *q, bool dry);
/* doctor --for / install --check: the plan against the disk, its verdict and the fix. Exit
 * status: 0 hits, 1 no, 6 cannot tell. */
int cli_print_plan_check(const struct lookup_plan *p, const struct tt_data *data, const char *fix);

/* "tunetab install --for CONSUMER [the options q was given] [extra] -- LAUNCH...", each word
 * quoted for the shell: the one command that puts the right table where the server reads it.
 * Caller frees. */
char *cli_launch_fix(const char *consumer, const struct serve_request *q, const char *cache_dir,
		     const char *extra);

#endif
