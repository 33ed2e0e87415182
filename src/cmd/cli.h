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
#include "tune/gen.h"
#include "data/model.h"

/* Upper limits of numeric options (README, "Limits"); above them: usage error, exit 2. */
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
/* Handles -h/--help for a command: prints usage and returns 1 when asked. */
int cli_wants_help(int argc, char **argv);
/* "tunetab ARG..." with each argument quoted for a POSIX shell when it needs it. */
char *cli_command_line(int argc, char **argv);

/* A decoded tactic as JSON (catalog --json, explain --json); caller owns the reference. */
struct json_t;
struct json_t *cli_tactic_json(const struct tactic *t);

/* "tunetab: error: FILE:LINE:COL: msg" for each diagnostic, on stderr. */
void cli_print_diags(const struct diags *d);

enum data_part {
	DATA_DEVICES = 1, DATA_MODELS = 2, DATA_CATALOGS = 4, DATA_SCHEMAS = 8, DATA_ALL = 15,
};

struct tt_data {
	char *root;
	struct device_set devices;
	struct model_set models;
	struct catalog_set catalogs;
	struct fischema_set schemas;
};

/* Loads the parts asked for; prints errors and returns their status on failure. */
int cli_load_data(struct tt_data *data, unsigned parts);
void cli_release_data(struct tt_data *data);
/* Path relative to the data root for display ("configs/devices/h200.yaml"). */
const char *cli_rel(const struct tt_data *data, const char *path);

/* Resolves --flashinfer (NULL = newest known). Prints errors; returns status. */
int cli_pick_schema(const struct tt_data *data, const char *version, struct fi_version *v,
		    const struct fi_schema **schema, bool announce);

/* A deployment from generate-style options (model, dtype, parallelism), shared by generate
 * and doctor. model may be NULL (generate --keys). A model YAML is loaded into *own_model
 * (free with model_free). Prints errors; returns status. */
struct deploy_args {
	const char *cmd, *model, *weight_view;
	enum dtype dt;
	long tp, ep, tp_rank, ep_rank, top_k, max_tokens;
	bool no_fused_finalize; /* generate --fused-finalize off */
};
int cli_deploy(const struct tt_data *data, const struct dtype_set *dtypes,
	       const struct deploy_args *a, int sm, const struct fi_schema *schema,
	       struct gen_deploy *dep, struct model_profile **own_model, struct diags *d);

#endif
