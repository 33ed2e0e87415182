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
#include "deployment/server.h"

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

/* Prints "tunetab: error: <msg>" on stderr and returns status. */
int cli_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "tunetab: error: <msg>" and the command's usage line (from the command table);
 * returns TT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Options of a command whose only option is -j/--json and that takes no argument: *json
 * says whether it was given. Returns TT_OK, or TT_USAGE with the usage error printed. */
/* For an unknown option word: a hint where it is --metadata, which install and doctor call
 * --stamp (issue #48: one meaning per option name); else "". */
const char *cli_stamp_hint(const char *word);
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
/* The same, less the notes when quiet (errors and warnings are always said). */
void cli_print_diags_quiet(const struct diags *d, bool quiet);
/* A diagnostic as JSON: {"severity", "file", "line", "col", "message"}; caller owns it. */
struct json_t *cli_diag_json(const struct diag *x);
/* --json of a command whose text goes to stderr as it works (install, doctor --for): while
 * set, every diagnostic cli_print_diags* hands over (said or, with quiet, not) and every
 * cli_error, cli_warn and cli_usage_error message is appended as a cli_diag_json object to
 * errors (errors) or notes (notes and warnings) as well. NULL, NULL stops it. The caller keeps
 * its references. */
void cli_capture(struct json_t *notes, struct json_t *errors);

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

/* shape_build (deployment/shape.h) for a command: its errors printed, and the command's
 * usage for a bad weight view. */
int cli_deploy(const struct tt_data *data, const struct dtype_set *dtypes,
	       const struct shape_args *a, int sm, const struct fi_rules *rules,
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
 * keys carry ranks; *json gets the JSON cache's path. Its summary on stderr, unless quiet
 * (then only its errors and warnings). */
int cli_launch_generate(struct tt_data *data, const struct serve_deployment *s, bool profile,
			const char *outdir, bool quiet, char **json);
/* Removes what cli_launch_generate put in a temporary folder (outdir NULL), frees json. */
void cli_launch_generated_release(const char *outdir, char *json);

/* --- the lookup plan in words (src/cmd/plan.c) --- */
/* How install (and doctor --for, which is install --check) reports. Text: the check's report
 * and the files written on stdout, the steps on stderr; quiet (-q): no steps (what was
 * derived, generated, merged, written), only errors, warnings and refusals on stderr, and of a
 * check's report only its findings, the verdict and the fix; doc (--json): the stdout part
 * goes into doc instead (one JSON document, printed by the command at its end), stderr stays
 * as it is (quiet or not). */
struct cli_install_out {
	bool quiet;
	struct json_t *doc;        /* --json: the document being filled; NULL: text */
};
/* d's diagnostics (notes left unsaid when quiet), then that the table's _metadata is kept as
 * it is (when it is; unless quiet; doc: "metadata_as_is"). */
void cli_print_install_notes(const struct install_job *j, struct diags *d, const char *from,
			     const struct cli_install_out *o);
/* Why the plan refuses a table (its findings), on stderr, quiet or not; doc: "refusals". */
void cli_print_plan_refusal(const struct plan_check *c, const struct lookup_plan *p,
			    const struct cli_install_out *o);
/* The server as the plan has it, and where its cache is: doc's "server", "cache_folder" or
 * "store", "rank_keyed" and "rank_sets" (install and check alike). */
void cli_plan_json(const struct lookup_plan *p, struct json_t *doc);
/* install's files in words (the merge: entries, conflicts), before they are written; doc:
 * "entries", "conflicts" and the rest (docs/commands/install.md, --json). */
void cli_print_install_merge(const struct lookup_plan *p, const struct install_request *q,
			    const struct cli_install_out *o);
/* After install_write returned wrote (its diagnostics in wd; dry: nothing was written): the
 * files, "written", and how to start the server. Returns the command's status. */
int cli_print_install_written(const struct lookup_plan *p, const struct install_request *q,
			      bool dry, int wrote, struct diags *wd, const struct cli_install_out *o);
/* doctor --for / install --check: the plan against the disk, its verdict and the fix (or,
 * where an op only a measurement covers lacks keys, fix_measure when given: the install that
 * measures them). Exit status: 0 hits, 1 no, 6 cannot tell. */
int cli_print_plan_check(const struct lookup_plan *p, const struct tt_data *data, const char *fix,
			 const char *fix_measure, const struct cli_install_out *o);
/* The entries install leaves out of the table (nobody measured them), or writes all the same
 * (--write-fallbacks), per op, on stderr; doc: "left_out". from_file: the table was given
 * (--from), not generated. */
void cli_print_install_untuned(const struct install_job *j, bool from_file,
			       const struct cli_install_out *o);

/* "tunetab install --for CONSUMER [the options q was given] [extra] -- LAUNCH...", each word
 * quoted for the shell: the one command that puts the right table where the server reads it.
 * Caller frees. */
char *cli_launch_fix(const char *consumer, const struct serve_request *q, const char *cache_dir,
		     const char *extra);

/* install --for and doctor --for (src/cmd/for.c): what the command line asked, parsed by each
 * command's own option table. */
struct for_args {
	const char *cmd;              /* "install" or "doctor": whose usage a usage error shows */
	const char *consumer_id, *from, *cversion, *fiv, *sm_s, *model_path, *hf, *tdtype, *quant;
	const char *backend, *tp_s, *pp_s, *dp_s, *adp_s, *ep_s, *skip, *cache_dir, *cache_file;
	const char *meta_mode, *python, *model_config, *device, *outdir;
	int replace, dry, check, force, profile, json, quiet, write_fallbacks;
	struct serve_request launch;
	bool have_launch;
};
/* The launch command after "--" (argv from optind_), and the rules every --for command line
 * keeps; a usage error (printed) when one is broken. */
int cli_for_check(struct for_args *a, int argc, char **argv, int optind_);
/* The deployment's plan, checked (a->check) or applied: the command's exit status. argv: the
 * command line, for the fix a check prints. */
int cli_for_run(struct for_args *a, int argc, char **argv);

#endif
