/* main.c: tunetab's entry point: one command table, shared setup, dispatch. */
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "base/diag.h"
#include "tune/worker.h"

enum cmd_flags {
	CMD_GPU = 1, /* talks to the GPU (documented; the command reports a build without CUDA) */
};

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned flags;
	const char *summary;
	const char *usage;
	const char *help;
};

static const struct command commands[] = {
	{ "detect", cmd_detect, CMD_GPU, "show every visible GPU and what FlashInfer looks up on it",
	  "[--json]",
	  "Reads each visible GPU through the CUDA Runtime API, matches it to a device profile\n"
	  "and prints the bundled table file each FlashInfer version would import on it.\n"
	  "Exits 4 when there is no GPU, no driver, or no CUDA support in this build." },
	{ "devices", cmd_devices, 0, "list the known GPU device profiles", "[--json]",
	  "Lists configs/devices/<id>.yaml: exact device name, compute capability, SMs, memory,\n"
	  "bandwidth and dense tensor throughput. Unknown values print as '-'." },
	{ "models", cmd_models, 0, "list the known MoE model geometries", "[--json]",
	  "Lists configs/models/<id>.yaml: hidden size, per-expert intermediate size, routed\n"
	  "experts, top-k and activation." },
	{ "catalog", cmd_catalog, 0, "show a FlashInfer tactic candidate list, decoded",
	  "(--device auto|NAME | --sm N) --dtype D "
	  "[--flashinfer VERSION] [--stage 1|2] [--json]",
	  "Prints the ordered CUTLASS fused-MoE candidates a tactic integer indexes for this\n"
	  "SM, dtype and FlashInfer version, with each entry's absolute id, tile, cluster,\n"
	  "1SM/2SM, swap_ab, finalize and whether it can be dispatched." },
	{ "generate", cmd_generate, CMD_GPU, "write the tables FlashInfer is missing for a GPU and model",
	  "--device auto|NAME|FILE (--model NAME|FILE | --keys FILE) --dtype nvfp4|fp8|bf16 "
	  "[--tp N] [--ep N] [--flashinfer VERSION] [--max-tokens N] [--format py|json|both] "
	  "[--heuristic FILE] [-o DIR] [--metadata KEY=VALUE]... [--weight-view V] [--top-k N] "
	  "[--calibration FILE] [--profile [--backend auto|flashinfer|proxy] [--python PATH] [--top N|all] [--method tunetab|full|flashinfer] [--rounds N] "
	  "[--budget S] [--timeout S] [--devices all|I,J,...] [-v]] [--shard I/N] [--report FILE.html] [--into-flashinfer] [--fused-finalize on|off] | --plan FILE.yaml "
	  "[--device NAME] [--profile] [-o ROOT]",
	  "Builds every key the target FlashInfer version looks up for the deployment (both GEMM\n"
	  "stages, every token bucket up to --max-tokens, shapes from the model, TP and EP, the\n"
	  "dtype's packing, the version's extras), asks the Lua heuristic to rank the candidates\n"
	  "of each, and writes the bundled module and/or JSON cache under their exact names,\n"
	  "atomically, after checking them with the validate rules. --device auto uses GPU 0.\n"
	  "--profile times the best candidates on the GPU (a cuBLASLt proxy GEMM with each\n"
	  "candidate's tile and cluster) in a crash-isolated worker, journalled for resume.\n"
	  "--shard I/N (or a Slurm, Open MPI or PMI launcher's rank and count) measures one\n"
	  "part into DIR/shard-I-of-N/ for `tunetab merge`; --plan runs a fleet plan's items\n"
	  "for this process's GPU (docs/fleet.md). A provenance file goes beside the tables.\n"
	  "-o an installed FlashInfer's tuning_configs folder is refused unless --into-flashinfer:\n"
	  "then only the module is written and a file it replaces is kept as .tunetab-backup." },
	{ "calibrate", cmd_calibrate, CMD_GPU, "measure this GPU for the heuristics",
	  "[--device N] [-o FILE]",
	  "Measures GPU N in the worker process: device-to-device copy bandwidth, dense GEMM\n"
	  "throughput per dtype (bf16, fp8 where supported) and each catalog tile shape's\n"
	  "efficiency, and writes a calibration YAML that generate --calibration FILE hands to\n"
	  "the heuristic. Seconds, not minutes." },
	{ "validate", cmd_validate, 0, "check tuning tables against a FlashInfer version's rules",
	  "FILE|DIR... [--flashinfer VERSION] [--device NAME] [--dtype D] "
	  "[--format text|json|github|junit] [--strict] [--quiet] | --list-checks",
	  "Reads bundled modules (v…_trtllm_fused_moe_<DEVICE>.py) and JSON autotune caches and\n"
	  "applies every rule the target FlashInfer version applies when it finds, keys and\n"
	  "uses a table. A folder stands for every table under it; a tunetab provenance file is\n"
	  "checked against the tables it names. Version: --flashinfer, else the JSON\n"
	  "_metadata.flashinfer_version, else the provenance file's, else the newest known; 'all'\n"
	  "checks every known version range. Device: --device, else the file name, else\n"
	  "_metadata.gpu.\n"
	  "Exit 1 on any error (or warning with --strict). README 'Checks' lists every check id." },
	{ "explain", cmd_explain, 0, "decode every entry of a table: bucket, shapes, dtype, tactic",
	  "FILE [--flashinfer VERSION] [--device NAME] [--dtype D]",
	  "Per entry: GEMM stage, token bucket, hidden size, experts, intermediate size, dtype\n"
	  "packing, and the tactic's config (tile, cluster, 1SM/2SM, swap_ab, finalize) for the\n"
	  "device and version; then the token buckets covered per shape family." },
	{ "diff", cmd_diff, 0, "entries added, removed and changed between two tables",
	  "A B [--flashinfer VERSION] [--device NAME] [--dtype D]",
	  "Compares two tables by key, with decoded tactics on both sides. Exit 1 when they differ." },
	{ "convert", cmd_convert, 0, "rewrite a table as a bundled module or a JSON cache",
	  "IN -o OUT [--to py|json] [--metadata KEY=VALUE]... [--no-generation]",
	  "Reads a module or JSON cache and writes it in FlashInfer's own layout: the ruff/black\n"
	  "module or json.dump(indent=2) with _metadata (unknown fields \"*\") and _generation.\n"
	  "The output is written to a temporary file and renamed: never half-written." },
	{ "merge", cmd_merge, 0, "merge shard outputs and tables for one device and version",
	  "OUT IN... [--format py|json|both] [--flashinfer VERSION] [--device NAME] [--partial] "
	  "[--fail-on-conflict] [--quiet] [--json]",
	  "Each IN is a table (.py module or .json cache), a provenance file (it brings the\n"
	  "tables it names beside it) or a folder (its tables and provenance files, not\n"
	  "recursively). Every input must be for one device and FlashInfer version (provenance,\n"
	  "else _metadata, else the module's file name; 3- vs 4-tuple keys differ too); --device\n"
	  "and --flashinfer supply what no input says. Entries are united by key; a key with two\n"
	  "tactics is a conflict, settled by: 1 measured beats predicted beats no provenance,\n"
	  "2 the lower time, 3 the lower tactic. Shards of one run must all be there (--partial\n"
	  "to merge what is). OUT.py or OUT.json writes that one file; any other OUT is a folder\n"
	  "that gets the module and/or JSON cache (those the inputs had, or --format) and the\n"
	  "merged provenance file. Outputs are byte-identical for any order of the inputs and\n"
	  "pass validate before they are written, atomically. Prints each conflict and note, then\n"
	  "'merged N inputs' (N tables). Exit 0 merged, 1 invalid input, identity mismatch,\n"
	  "missing shard or (--fail-on-conflict) a conflict, 2 usage, 5 I/O. See docs/fleet.md." },
	{ "install", cmd_install, 0, "put a JSON autotune cache where a serving stack reads it, every rank",
	  "--for sglang|vllm|flashinfer --from CACHE.json [--model-path P --hf-config-class C] "
	  "[--tp N] [--pp N] [--dp N] [--attn-dp N] [--ep N] [--torch-dtype D] [--quantization Q] "
	  "[--moe-runner-backend B] [--skip-ops A,B] [--consumer-version V] [--flashinfer V] "
	  "[--sm N] [--cache-dir DIR] [--cache-file PATH] [--metadata env|wildcard|from] "
	  "[--python PY] [--replace] [--dry-run | --check]",
	  "Writes CACHE.json (tunetab generate's JSON cache) where the consumer reads it at start\n"
	  "for this deployment, for every rank. The rules per consumer version are data:\n"
	  "configs/consumers/<id>.yaml. SGLang: $SGLANG_CACHE_DIR/flashinfer/autotune/<flashinfer>/\n"
	  "sm<NN>/<key>/rank_tp<R>_pp<R>_dp<R>.json, key = sha256 of the server's model path, torch\n"
	  "dtype, quantization, MoE runner backend, tp, pp, attention dp, moe ep, HF config class\n"
	  "and skip ops (give them as the server is started). vLLM, several ranks: <root>/<config\n"
	  "hash>/autotune_configs_dp<D>_rank<R>.json in the folder a first vLLM start made (found\n"
	  "under the root, or --cache-file the path vLLM logs); one rank: FlashInfer's managed\n"
	  "store. FlashInfer: --cache-file the file your code passes to autotune(cache=...), else\n"
	  "the managed store (0.7.2+: <root>/v2/<sha256 of the environment>/entries/). Every rank\n"
	  "file gets the same content. _metadata: env (default where FlashInfer imports with\n"
	  "--python, $VIRTUAL_ENV, $CONDA_PREFIX or python3: FlashInfer's own _collect_metadata;\n"
	  "--flashinfer defaults to that version, and a cache for another version is refused),\n"
	  "wildcard (\"*\"), from (CACHE.json's). Merges into files already there: their other\n"
	  "entries stay, a key with another tactic is a conflict, kept theirs unless --replace;\n"
	  "existing _metadata stays unless FlashInfer would reject it here. Prints the files\n"
	  "(stdout); --dry-run writes nothing. Files are staged and renamed together. --check\n"
	  "(also `tunetab doctor --for ...`) writes nothing and follows the server's chain:\n"
	  "whether it tunes at start, which store and files, present, alike, metadata against this\n"
	  "environment, how many of CACHE's entries they hold with the same tactic, and the one\n"
	  "command that fixes it. Exit 0 written (--check: every lookup hits), 1 invalid input\n"
	  "(--check: it does not), 2 usage, 5 I/O." },
	{ "report", cmd_report, 0, "an HTML report of a profiled run: charts and tables",
	  "JOURNAL -o FILE.html [--quiet]",
	  "Reads the journal `generate --profile` wrote (and the provenance file beside it) and\n"
	  "writes one static HTML page, no external assets: per GEMM stage the time of every\n"
	  "candidate against the token bucket (measured and predicted), the chosen tactic, the\n"
	  "speed-up over the fallback with its interval, the regret bound, failed and\n"
	  "inexpressible candidates with reasons, and the command and versions. Each chart has a\n"
	  "table of its values under it. `generate --report FILE.html` writes the same, also for\n"
	  "heuristic-only runs." },
	{ "doctor", cmd_doctor, CMD_GPU, "say what FlashInfer will look up here and what falls back",
	  "[--flashinfer-dir DIR | --flashinfer VERSION] [--device auto|NAME] [--cache FILE] "
	  "[--model NAME|FILE --dtype D [--tp N] [--ep N] [--max-tokens N] ...] [--json] | "
	  "--for sglang INSTALL-OPTIONS",
	  "--for sglang ... is `tunetab install ... --check`: the cache path the server opens for\n"
	  "the deployment, every rank, and whether it reads CACHE's entries (see install).\n"
	  "Finds the installed FlashInfer (its package files, no Python import) and the GPU, and\n"
	  "reports the module FlashInfer will import and whether it exists and validates, whether\n"
	  "FLASHINFER_AUTOTUNER_LOAD_FROM_FILE is exactly 1, whether a JSON cache would be\n"
	  "accepted, and for a deployment, per GEMM stage and token bucket, hit or fallback.\n"
	  "Ends with the commands that fix what it found. Exit 0 when every lookup would hit,\n"
	  "1 otherwise." },
	{ "scan-log", cmd_scan_log, 0, "extract FlashInfer autotuner events from server logs",
	  "[FILE...|-] [--json] [--keys-out FILE]",
	  "Streams logs of any size (SGLang, vLLM, flashinfer_jit.log, TensorRT-LLM; plain or\n"
	  "gzip) and extracts every autotuner event: sessions, bundled-file hits and misses,\n"
	  "JSON cache loads/saves/mismatches, no-tuned-config fallbacks, failed tactics, OOM\n"
	  "fallbacks and tuning progress. Prints a summary per op; --keys-out writes the missed\n"
	  "keys for 'tunetab generate --keys'." },
	{ "check-data", cmd_check_data, 0, "load and check tunetab's YAML data files",
	  "[FILE...]",
	  "Loads every YAML file under configs/ and schemas/ (or the files given, by their\n"
	  "top-level key) with the strict schemas and the cross-file checks. Exit 1 on errors." },
	{ "help", cmd_help, 0, "show help for tunetab or one command", "[COMMAND]", NULL },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

const char *cli_usage(const char *cmd)
{
	const struct command *c = find_command(cmd);
	return c ? c->usage : NULL;
}

static void print_overview(FILE *f)
{
	fprintf(f, "usage: tunetab <command> [options]\n"
		   "       tunetab --version | --help\n\n"
		   "Kernel tuning tables for FlashInfer's MoE GEMMs, for every GPU.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nexit codes: 0 ok, 1 findings or invalid input, 2 usage error, "
		   "3 script error,\n            4 GPU/CUDA error, 5 internal error\n"
		   "Run 'tunetab help COMMAND' for a command's options.\n");
}

int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		print_overview(stdout);
		return TT_OK;
	}
	const struct command *c = find_command(argv[1]);
	if (!c)
		return cli_error(TT_USAGE, "unknown command '%s' (see 'tunetab help')", argv[1]);
	printf("usage: tunetab %s %s\n\n%s\n", c->name, c->usage, c->summary);
	if (c->help)
		printf("\n%s\n", c->help);
	return TT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_overview(stderr);
		return TT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
		printf("tunetab %s\n", TUNETAB_VERSION);
		return TT_OK;
	}
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
		name = "help";
	if (strcmp(name, "__worker") == 0) /* the GPU worker process (worker.h) */
		return worker_main(argc - 1, argv + 1);
	const struct command *c = find_command(name);
	if (!c)
		return cli_error(TT_USAGE, "unknown command '%s' (see 'tunetab help')", name);
	if (c->fn != cmd_help && cli_wants_help(argc - 1, argv + 1))
		return TT_OK;
	return c->fn(argc - 1, argv + 1);
}
