/* cmd.c: the command table, the one source of every command's name, usage line, options,
 * help, needs (data, GPU) and summary: option parsing (cli_getopt), `tunetab help`, the man
 * page, the reference pages' option tables and the shell completions are all made from it
 * (src/cmd/help.c, src/cmd/completion.c). A command's parsing switch, in src/cmd/<name>.c,
 * has one case per option id here; tests/cli/130 fails when they or the docs drift. */
#include "cmd.h"

#include "cmd/cli.h"
#include "tune/worker.h"

/* Options several commands share, word for word. */
#define O_JSON(what) { .name = "json", .id = 'j', .help = what }
#define O_FLASHINFER(id_, what)                                                                   \
	{ .name = "flashinfer", .id = id_, .arg = ARG_REQUIRED, .arg_name = "VERSION", .help = what }
#define O_TABLE_TARGET                                                                            \
	O_FLASHINFER('f', "the target version (default: the table's, else the newest known)"),    \
	{ .name = "device", .id = 'd', .arg = ARG_REQUIRED, .arg_name = "NAME",                   \
	  .help = "the device (default: the file name, else _metadata.gpu)" },                      \
	{ .name = "dtype", .id = 't', .arg = ARG_REQUIRED, .arg_name = "D",                        \
	  .help = "the dtype where the keys cannot tell (bf16 or fp8)" }

/* The server's launch command after "--": generate, install and doctor (deploy/serve.h). */
#define O_LAUNCH_FOR(id_)                                                                         \
	{ .name = "for", .id = id_, .arg = ARG_REQUIRED, .arg_name = "sglang|vllm|flashinfer",  \
	  .help = "the serving stack; with -- LAUNCH...: the deployment from its launch command",  \
	  .doc = "the serving stack (configs/consumers/). Followed by `-- LAUNCH...`, the "         \
		 "command that starts the server: tunetab derives the deployment the server will "  \
		 "look up from it (configs/consumers/<id>.lua), the model's config.json, the GPU "   \
		 "and the server's Python environment (docs/consumers.md \"From the launch command\")" }
#define O_MODEL_CONFIG(id_)                                                                       \
	{ .name = "model-config", .id = id_, .arg = ARG_REQUIRED, .arg_name = "FILE",            \
	  .help = "with a launch command: the model's config.json (default: found as the server)", \
	  .doc = "with a launch command: the model's `config.json` (default: `MODEL/config.json` "  \
		 "for a folder, else the Hugging Face cache's snapshot: `$HF_HUB_CACHE`, "           \
		 "`$HF_HOME/hub`, `~/.cache/huggingface/hub`)" }
#define O_CONSUMER_VERSION(id_, what)                                                             \
	{ .name = "consumer-version", .id = id_, .arg = ARG_REQUIRED, .arg_name = "V", .help = what }

static const struct cli_option detect_options[] = {
	O_JSON("print one JSON object: driver, runtime and every GPU"),
	{ NULL },
};

static const struct cli_option devices_options[] = {
	O_JSON("print a JSON array, unknown values as null"),
	{ NULL },
};

static const struct cli_option models_options[] = {
	O_JSON("print a JSON array"),
	{ NULL },
};

static const struct cli_option catalog_options[] = {
	{ .name = "device", .id = 'd', .arg = ARG_REQUIRED, .arg_name = "auto|NAME",
	  .help = "the GPU: auto (GPU 0), a CUDA name, a profile id or an alias" },
	{ .name = "sm", .id = 's', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "an SM version instead of a device (90, 100, 120, ...)" },
	{ .name = "dtype", .id = 't', .arg = ARG_REQUIRED, .arg_name = "D",
	  .help = "the dtype (configs/dtypes.yaml: bf16, fp8, nvfp4, ...)" },
	O_FLASHINFER('f', "target version (default: the installed one, else the newest known)"),
	{ .name = "stage", .id = 'g', .arg = ARG_REQUIRED, .arg_name = "1|2",
	  .help = "one GEMM stage's list only" },
	O_JSON("print JSON"),
	{ NULL },
};

static const struct cli_option generate_options[] = {
	{ .name = "device", .id = 'D', .arg = ARG_REQUIRED, .arg_name = "auto|NAME|FILE",
	  .help = "auto (GPU 0), a known name, id or alias, or a profile YAML",
	  .doc = "`auto` (GPU 0, as FlashInfer names the file), a known name/id/alias, or a profile "
		 "YAML" },
	{ .name = "model", .id = 'M', .arg = ARG_REQUIRED, .arg_name = "NAME|FILE",
	  .help = "a model id or name (`tunetab models`) or a model YAML" },
	{ .name = "keys", .id = 'K', .arg = ARG_REQUIRED, .arg_name = "FILE",
	  .help = "generate exactly these keys instead of a model's",
	  .doc = "generate exactly these keys (one key string per line, `#` comments), e.g. from "
		 "`scan-log`. The keys name the runner: its `use_fused_finalize`, `top_k`, `tp_size`, "
		 "`ep_size` and `activation_type` (where the version's key holds them) are what is "
		 "timed and listed; `--fused-finalize`, `--top-k`, `--tp`, `--ep` may only agree "
		 "(exit 2), and keys of two runners are refused (exit 1)" },
	{ .name = "dtype", .id = 't', .arg = ARG_REQUIRED, .arg_name = "D",
	  .help = "the dtype (configs/dtypes.yaml: nvfp4, fp8, bf16, ...)" },
	{ .name = "tp", .id = 'T', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "tensor-parallel size (default 1): intermediate size I / TP" },
	{ .name = "ep", .id = 'E', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "expert-parallel size (default 1): local experts E / EP" },
	{ .name = "tp-rank", .id = 'r', .arg = ARG_REQUIRED, .arg_name = "R|all", .flags = OPT_BRIEF,
	  .help = "the TP rank of the keys (default 0), or all ranks in one table",
	  .doc = "the TP rank the keys are for (default 0). Ranks enter the keys of 0.6.18–0.7.1, so "
		 "one rank's table misses every lookup of the others: `all` writes every rank's keys "
		 "into one table (TP 4: 168 entries instead of 42), each with the decision made for "
		 "rank 0 (every rank runs the same shapes; not with `--keys`, `--shard`, `--plan`); "
		 "where the version's key holds no rank (0.7.4) nothing is added" },
	{ .name = "ep-rank", .id = 'R', .arg = ARG_REQUIRED, .arg_name = "R|all", .flags = OPT_BRIEF,
	  .help = "the EP rank of the keys (default 0), or all ranks in one table",
	  .doc = "the EP rank, as `--tp-rank`" },
	{ .name = "top-k", .id = 'k', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "routing top-k (default: the model's)" },
	{ .name = "flashinfer", .id = 'f', .arg = ARG_REQUIRED, .arg_name = "VERSION",
	  .help = "target version (default: installed here, else newest known)",
	  .doc = "target version (default: the FlashInfer installed here, found as `doctor` finds "
		 "it — `PYTHONPATH`, `$VIRTUAL_ENV`, `$CONDA_PREFIX`, tunetab's own Python "
		 "environment, `~/.local`, `/usr/local`, `/usr`, `/opt/conda` — else the newest "
		 "known, 0.7.4; a note names which)" },
	{ .name = "max-tokens", .id = 'm', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "the largest token bucket (default: the version's, 8192)" },
	{ .name = "format", .id = 'F', .arg = ARG_REQUIRED, .arg_name = "py|json|both",
	  .help = "the bundled module, the JSON autotune cache, or both (default)" },
	{ .name = "heuristic", .id = 'H', .arg = ARG_REQUIRED, .arg_name = "FILE",
	  .help = "the Lua heuristic (default scripts/heuristics/default.lua)" },
	{ .name = "output", .id = 'o', .short_name = 'o', .arg = ARG_REQUIRED, .arg_name = "DIR",
	  .help = "output folder (default .)" },
	{ .name = "metadata", .id = 'a', .arg = ARG_REQUIRED, .arg_name = "KEY=VALUE",
	  .help = "stamp a JSON _metadata field (repeatable)",
	  .doc = "stamp a JSON `_metadata` field, repeatable (tunetab stamps `flashinfer_version` and "
		 "`gpu`; the rest is `\"*\"`)" },
	{ .name = "weight-view", .id = 'w', .arg = ARG_REQUIRED, .arg_name = "V",
	  .help = "the weights' view (nvfp4: int64, the default, or uint8)" },
	{ .name = "input-view", .id = 'i', .arg = ARG_REQUIRED, .arg_name = "V", .flags = OPT_BRIEF,
	  .help = "the input as the server passes it (nvfp4: bf16, SGLang's; default packed fp4)",
	  .doc = "how the server passes the MoE input, where that differs from the dtype's own "
		 "(configs/dtypes.yaml `input_views`): nvfp4 `bf16` is SGLang's, whose runner "
		 "quantizes the input itself, so its keys hold `torch.bfloat16` and the full hidden "
		 "size; by default the input is packed FP4 (vLLM's). A launch command sets it" },
	{ .name = "script-mem", .id = 'S', .arg = ARG_REQUIRED, .arg_name = "MIB", .flags = OPT_BRIEF,
	  .help = "the heuristic's memory cap (default 64 MiB, at most 16384)" },
	{ .name = "script-instructions", .id = 'I', .arg = ARG_REQUIRED, .arg_name = "N",
	  .flags = OPT_BRIEF,
	  .help = "the heuristic's instruction budget (default 10^8, >= 1000)" },
	{ .name = "calibration", .id = 'C', .arg = ARG_REQUIRED, .arg_name = "FILE",
	  .help = "`tunetab calibrate`'s measurements, for the heuristic",
	  .doc = "feed `tunetab calibrate`'s measurements (copy bandwidth, per-tile efficiency) to the "
		 "heuristic" },
	{ .name = "model-fit", .id = 'g', .arg = ARG_REQUIRED, .arg_name = "FILE|auto|datasheet",
	  .flags = OPT_BRIEF,
	  .help = "the heuristic's model: a `tunetab learn` fit (default auto: this GPU's, if any)",
	  .doc = "the heuristic's free parameters: a fit to measured journals (`tunetab learn`), "
		 "or `datasheet`, the datasheet model's defaults. Default `auto`: this GPU's fit "
		 "from `~/.config/tunetab/fits/<DEVICE>.yaml` (`$XDG_CONFIG_HOME`) or the shipped "
		 "`configs/fits/`, else a fit of a GPU with the same SM (`tunetab devices` says "
		 "which), else the datasheet model. generate says which model it used, and the "
		 "provenance's `model` (`fit` or `datasheet`) and `model_fit` name it. On the H200, "
		 "three deployments the shipped fit was not trained on: datasheet 21.2%/131%, "
		 "5.6%/144%, 17.2%/113% regret geomean/max, the fit 3.3%/15.0%, 1.6%/7.9%, "
		 "5.5%/21.7% (docs/benchmarks.md)" },
	{ .name = "fused-finalize", .id = 'Q', .arg = ARG_REQUIRED, .arg_name = "on|off",
	  .help = "the runner's use_fused_finalize (default on, as FlashInfer's)",
	  .doc = "the `use_fused_finalize` of the runner that will look the keys up (default on, "
		 "FlashInfer's default). SGLang 0.5.23 passes off unless "
		 "`SGLANG_FLASHINFER_MOE_FUSED_FINALIZE=1`: the key holds the flag, and with it off "
		 "GEMM2 draws from GEMM1's list (no FINALIZE copies, ids G1 .. 2·G1−1; "
		 "cutlass-moe-tactics.md §3). `install --for sglang` says which the cache needs. "
		 "FlashInfer 0.7.4's own runner with it off hits 42/42 keys of an off table and 0/42 of "
		 "a default one (`make test-flashinfer`), and on the H200 an off table installed for "
		 "SGLang was used with SGLang's default for 42 of 42 buckets with no profiling "
		 "(docs/benchmarks.md); `validate` checks and `explain` and `diff` describe GEMM2 ids "
		 "with the list the key's flag implies. With `--keys` the keys' flag decides (a "
		 "`scan-log` of an SGLang server names False)" },
	{ .name = "profile", .id = 'P',
	  .help = "time the best candidates on the GPU and keep the fastest",
	  .doc = "on a GPU: time the heuristic's best candidates and keep what measures fastest "
		 "(\"Measurement backends\" below)" },
	{ .name = "backend", .id = 'b', .arg = ARG_REQUIRED, .arg_name = "auto|flashinfer|proxy",
	  .help = "with --profile: what is timed (default auto)",
	  .doc = "with `--profile`: what is timed (\"Measurement backends\" below). `auto` (default): "
		 "FlashInfer's own kernels when the Python found has FlashInfer and a CUDA torch, else "
		 "the proxy (for fp8 the heuristic's table), and one line says which and why" },
	{ .name = "python", .id = 'p', .arg = ARG_REQUIRED, .arg_name = "PATH",
	  .help = "with --profile: the Python for the flashinfer backend",
	  .doc = "with `--profile`: the Python for the flashinfer backend (default: `$VIRTUAL_ENV`, "
		 "`$CONDA_PREFIX`, the Python environment pip installed tunetab into, then `python3` "
		 "on PATH). The FlashInfer it imports is the target version unless `--flashinfer` is "
		 "given, which must then agree" },
	{ .name = "top", .id = 'O', .arg = ARG_REQUIRED, .arg_name = "N|all",
	  .help = "with --profile: candidates timed per entry (default 4), or all",
	  .doc = "with `--profile`: the proxy times N candidates it can express (default 4) plus the "
		 "fallback; the flashinfer backend screens every candidate and races the N fastest; "
		 "`all` = exhaustive" },
	{ .name = "method", .id = 'X', .arg = ARG_REQUIRED, .arg_name = "tunetab|sequential|full|flashinfer",
	  .help = "with --profile: how candidates are timed (default tunetab)",
	  .doc = "with `--profile`: tunetab's (cold L2, interleaved rounds, median and interval; from "
		 "round 5 a candidate whose interval lies wholly above the leader's is dropped), `full` "
		 "(the same without dropping: every round for every candidate, for oracles), "
		 "`sequential` (tunetab's samples, raced by a paired test from round 3: a candidate "
		 "slower than the leader with 95% confidence, or within 0.5% of it either way, is "
		 "dropped, so a clear race ends after 3 rounds and a close one runs on; issue #40, not "
		 "yet the default: measured on two development deployments only, docs/benchmarks.md), "
		 "or FlashInfer's own (3 warm-up, mean of 10, warm L2)" },
	{ .name = "no-gate", .id = 'N',
	  .help = "with --profile: no correctness gate (the fastest tactic wins, right or wrong)",
	  .doc = "with `--profile --backend flashinfer`: turn the correctness gate off. With it on "
		 "(the default) the measured candidates of an entry, fastest first, run FlashInfer's "
		 "whole MoE on the entry's inputs until one's output agrees with FlashInfer's default "
		 "tactics (checked in turn against a torch MoE in fp32); a tactic that computes a wrong "
		 "answer is a failed candidate, never chosen, in the journal and the summary "
		 "(bf16, fp16 and per-tensor fp8 are checked; other dtypes say unchecked). The summary "
		 "says when it is off" },
	{ .name = "routing", .id = 'e', .arg = ARG_REQUIRED, .arg_name = "balanced|robust|FILE",
	  .help = "with --profile --backend flashinfer: the routing each bucket's tactic pair is "
		  "chosen for (default robust where EP > 1)",
	  .doc = "with `--profile --backend flashinfer`: `robust` (the default for EP > 1) times "
		 "FlashInfer's whole MoE layer for a few (GEMM1, GEMM2) tactic pairs per bucket, drawn "
		 "from the per-GEMM profiles, under balanced routing and a hot rank (Zipf 0.5 and 1.2, "
		 "the popular experts on the measured rank), and writes the pair with the least "
		 "worst-case regret over the loads; a FILE is a per-expert histogram (`EXPERT COUNT` "
		 "lines) that replaces the hot loads; `balanced` keeps the per-GEMM choices "
		 "(FlashInfer's own tuner's routing, the default for EP 1). docs/guide.md \"Routing "
		 "loads\"" },
	{ .name = "rounds", .id = 'U', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "with --profile: interleaved rounds (default 15, at least 3)" },
	{ .name = "budget", .id = 'B', .arg = ARG_REQUIRED, .arg_name = "S",
	  .help = "with --profile: stop timing after S seconds",
	  .doc = "with `--profile`: stop profiling after S seconds (the rest keeps the heuristic's "
		 "choice)" },
	{ .name = "timeout", .id = 'W', .arg = ARG_REQUIRED, .arg_name = "S",
	  .help = "with --profile: the watchdog per job (default 30 s)" },
	{ .name = "devices", .id = 'G', .arg = ARG_REQUIRED, .arg_name = "all|I,J,...",
	  .help = "with --profile: one worker per GPU, all or these indices",
	  .doc = "with `--profile`: one worker per GPU (all visible ones, or these indices) taking "
		 "entries off one queue; only GPUs of the first one's model join, others are named and "
		 "left out. The workers start together (for `all`, as many as `CUDA_VISIBLE_DEVICES` "
		 "or the driver lists), so a Python worker's seconds of start-up are paid once, not "
		 "once per GPU. The rule that decides an entry does not depend on which GPU measured it" },
	{ .name = "verbose", .id = 'v', .short_name = 'v',
	  .help = "with --profile: each candidate's time and the decision" },
	{ .name = "quiet", .id = 'q', .short_name = 'q', .flags = OPT_BRIEF,
	  .help = "no notes and summary on stderr" },
	{ .name = "shard", .id = 'Z', .arg = ARG_REQUIRED, .arg_name = "I/N",
	  .help = "measure shard I of N of the work list into DIR/shard-I-of-N/",
	  .doc = "measure shard I of N of the work list into `-o DIR/shard-I-of-N/`; with `--profile` "
		 "and no `--shard`, rank and count come from the launcher (Slurm, Open MPI, PMI) and "
		 "the GPU from its local rank; `tunetab merge` puts the shards together "
		 "(docs/fleet.md)" },
	{ .name = "plan", .id = 'L', .arg = ARG_REQUIRED, .arg_name = "FILE.yaml",
	  .help = "fleet mode: a plan's deployments x devices, this GPU's items",
	  .doc = "fleet mode: the plan's deployments × devices; this process takes the items for its "
		 "GPU (claim files in the output tree), and whoever finishes a device's last item "
		 "merges them into `ROOT/<DEVICE>/` (docs/fleet.md \"Plans\")" },
	{ .name = "report", .id = 'Y', .arg = ARG_REQUIRED, .arg_name = "FILE.html",
	  .help = "also write the HTML report of this run",
	  .doc = "also write the HTML report of this run (measured, or heuristic-only: predicted "
		 "times, labelled so)" },
	O_LAUNCH_FOR(0x101),
	O_CONSUMER_VERSION(0x102, "with a launch command: the consumer's version (default: installed)"),
	O_MODEL_CONFIG(0x103),
	{ .name = "into-flashinfer", .id = 'J',
	  .help = "allow -o to be an installed FlashInfer's tuning_configs folder",
	  .doc = "allow `-o` to be an installed FlashInfer's `flashinfer/tuning_configs` folder "
		 "(refused otherwise): only the bundled module is written there, and a file it "
		 "replaces (a table FlashInfer shipped) is kept once as `<name>.tunetab-backup`" },
	{ NULL },
};

static const struct cli_option calibrate_options[] = {
	{ .name = "device", .id = 'd', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "the GPU index (default 0)" },
	{ .name = "output", .id = 'o', .short_name = 'o', .arg = ARG_REQUIRED, .arg_name = "FILE",
	  .help = "the YAML to write (default calibration-<GPU name>.yaml)" },
	{ NULL },
};

static const struct cli_option validate_options[] = {
	{ .name = "flashinfer", .id = 'f', .arg = ARG_REQUIRED, .arg_name = "VERSION|all",
	  .help = "target version, or all known ranges (default: from the files)",
	  .doc = "the target version: `--flashinfer`, else the JSON `_metadata.flashinfer_version`, "
		 "else the version in the tunetab provenance file beside the table, else the newest "
		 "known (0.7.4); `all` checks every known version range, one release each" },
	{ .name = "device", .id = 'd', .arg = ARG_REQUIRED, .arg_name = "NAME",
	  .help = "the device (default: the file name, else _metadata.gpu)" },
	{ .name = "dtype", .id = 't', .arg = ARG_REQUIRED, .arg_name = "D",
	  .help = "the dtype where the keys cannot tell (bf16 or fp8)" },
	{ .name = "format", .id = 'F', .arg = ARG_REQUIRED, .arg_name = "text|json|github|junit",
	  .help = "text (default), JSON, GitHub annotations or JUnit XML" },
	{ .name = "strict", .id = 's', .help = "CI mode: exit 1 on warnings too (an entry profiled "
	  "again at start [op-policy], a table with no entries [no-entries], ...)" },
	{ .name = "quiet", .id = 'q', .short_name = 'q',
	  .help = "only the findings: no per-file header and summary lines" },
	{ .name = "list-checks", .id = 'L', .help = "list every check id and what it finds" },
	{ NULL },
};

static const struct cli_option explain_options[] = {
	O_TABLE_TARGET,
	O_JSON("print one JSON object: the target, every entry decoded, the coverage"),
	{ NULL },
};

static const struct cli_option diff_options[] = {
	O_TABLE_TARGET,
	O_JSON("print one JSON object: both targets, entries removed, changed and added"),
	{ NULL },
};

static const struct cli_option convert_options[] = {
	{ .name = "output", .id = 'o', .short_name = 'o', .arg = ARG_REQUIRED, .arg_name = "OUT",
	  .help = "the file to write" },
	{ .name = "to", .id = 't', .arg = ARG_REQUIRED, .arg_name = "py|json",
	  .help = "a bundled module or a JSON cache (default: from OUT's extension)" },
	{ .name = "metadata", .id = 'm', .arg = ARG_REQUIRED, .arg_name = "KEY=VALUE",
	  .help = "set a JSON _metadata field (repeatable)" },
	{ .name = "no-generation", .id = 'g', .help = "no _generation field in the JSON cache" },
	{ NULL },
};

static const struct cli_option merge_options[] = {
	{ .name = "format", .id = 'F', .arg = ARG_REQUIRED, .arg_name = "py|json|both",
	  .help = "what a folder OUT gets (default: the kinds the inputs had)" },
	O_FLASHINFER('f', "the version when no input says"),
	{ .name = "device", .id = 'D', .arg = ARG_REQUIRED, .arg_name = "NAME",
	  .help = "the device when no input says" },
	{ .name = "partial", .id = 'p', .help = "merge the shards there are, even when some are missing" },
	{ .name = "fail-on-conflict", .id = 'c',
	  .help = "a key with two tactics is an error (exit 1, nothing written)" },
	{ .name = "quiet", .id = 'q', .short_name = 'q',
	  .help = "no conflicts, notes and summary on stderr (errors stay)" },
	O_JSON("print a report on stdout: inputs, conflicts, notes, errors, files written"),
	{ NULL },
};

/* install --for and doctor --for: the table, and the model's config.json */
#define O_FOR_TABLE                                                                               \
	{ .name = "from", .id = 'i', .arg = ARG_REQUIRED, .arg_name = "CACHE.json",               \
	  .help = "the JSON autotune cache `tunetab generate` wrote",                             \
	  .doc = "the JSON autotune cache `tunetab generate` wrote; with a launch command and no " \
		 "`--from`, install generates the table for exactly the keys that server looks up " \
		 "(heuristic, or `--profile`) and installs it" },                                 \
	{ .name = "model-config", .id = 'G', .arg = ARG_REQUIRED, .arg_name = "FILE",             \
	  .help = "the model's config.json (default: found as the server finds it)",              \
	  .doc = "the model's `config.json`, with a launch command or with the flags (which install " \
		 "reads as the launch command they describe, to know the server's keys); default: " \
		 "`MODEL/config.json` for a folder, else the Hugging Face cache's snapshot: "     \
		 "`$HF_HUB_CACHE`, `$HF_HOME/hub`, `~/.cache/huggingface/hub`" }

/* install --for and doctor --for, the deployment as flags: the model as the server names it */
#define O_FOR_MODEL                                                                               \
	{ .name = "model-path", .id = 'm', .arg = ARG_REQUIRED, .arg_name = "P",                  \
	  .help = "SGLang: the server's --model-path (a hash input)" },                           \
	{ .name = "hf-config-class", .id = 'H', .arg = ARG_REQUIRED, .arg_name = "C",             \
	  .help = "SGLang: the model config's class name (a hash input)" }

/* ... the ranks besides TP and EP */
#define O_FOR_PARALLEL                                                                            \
	{ .name = "pp", .id = 'p', .arg = ARG_REQUIRED, .arg_name = "N",                          \
	  .help = "pipeline-parallel size (default 1)" },                                         \
	{ .name = "dp", .id = 'd', .arg = ARG_REQUIRED, .arg_name = "N",                          \
	  .help = "data-parallel size (default 1)" },                                             \
	{ .name = "attn-dp", .id = 'a', .arg = ARG_REQUIRED, .arg_name = "N",                     \
	  .help = "SGLang: attention data-parallel size (default 1)" }

/* ... how the server runs the model */
#define O_FOR_RUNNER                                                                              \
	{ .name = "torch-dtype", .id = 'T', .arg = ARG_REQUIRED, .arg_name = "D",                 \
	  .help = "SGLang: the server's torch dtype (default bfloat16)" },                        \
	{ .name = "quantization", .id = 'Q', .arg = ARG_REQUIRED, .arg_name = "Q",                \
	  .help = "SGLang: the server's quantization (default None)" },                           \
	{ .name = "moe-runner-backend", .id = 'b', .arg = ARG_REQUIRED, .arg_name = "B",          \
	  .help = "SGLang: the MoE runner backend (default flashinfer_cutlass)" },                \
	{ .name = "skip-ops", .id = 'k', .arg = ARG_REQUIRED, .arg_name = "A,B",                  \
	  .help = "SGLang: the ops the server skips tuning (default none)" }

/* install --for and doctor --for: where the files are and their _metadata */
#define O_FOR_FILES                                                                               \
	{ .name = "sm", .id = 's', .arg = ARG_REQUIRED, .arg_name = "N",                          \
	  .help = "the GPU's SM version (default: from the cache's _metadata.gpu)" },             \
	{ .name = "cache-dir", .id = 'C', .arg = ARG_REQUIRED, .arg_name = "DIR",                 \
	  .help = "the root instead of the consumer's default" },                                 \
	{ .name = "cache-file", .id = 'F', .arg = ARG_REQUIRED, .arg_name = "PATH",               \
	  .help = "vLLM: the path it logged; FlashInfer: your cache=... file" },                  \
	{ .name = "stamp", .id = 'M', .arg = ARG_REQUIRED, .arg_name = "env|wildcard|from",       \
	  .help = "the _metadata stamped: this environment's (default), \"*\", or CACHE's" }

static const struct cli_option install_options[] = {
	O_LAUNCH_FOR('c'),
	O_FOR_TABLE,
	{ .name = "device", .id = 'D', .arg = ARG_REQUIRED, .arg_name = "auto|NAME",
	  .help = "the server's GPU (launch command: default auto, GPU 0; flags: the cache's "
		  "_metadata.gpu)" },
	{ .name = "profile", .id = 'R',
	  .help = "with a launch command and no --from: measure the table (generate --profile)" },
	{ .name = "output", .id = 'o', .short_name = 'o', .arg = ARG_REQUIRED, .arg_name = "DIR",
	  .help = "with a launch command and no --from: keep the generated tables there" },
	{ .name = "force", .id = 'x',
	  .help = "install a table the server will not use (refused otherwise: keys a rank does "
		  "not look up, tactics its GPU does not have, _metadata it rejects)" },
	O_FOR_MODEL,
	{ .name = "tp", .id = 't', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "tensor-parallel size (default 1): one file per rank" },
	O_FOR_PARALLEL,
	{ .name = "ep", .id = 'e', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "MoE expert-parallel size (default 1)" },
	O_FOR_RUNNER,
	O_CONSUMER_VERSION('V', "the consumer's version (default: the newest rule)"),
	O_FLASHINFER('f', "the FlashInfer version (default: the one --python imports)"),
	O_FOR_FILES,
	{ .name = "python", .id = 'P', .arg = ARG_REQUIRED, .arg_name = "PY",
	  .help = "the Python that imports FlashInfer (default: the venv's)" },
	{ .name = "replace", .id = 'r',
	  .help = "a key already there with another tactic takes ours; a rank file the server "
		  "cannot load is written anew" },
	{ .name = "write-fallbacks", .id = 'w', .flags = OPT_BRIEF,
	  .help = "also write the entries nobody measured (FlashInfer's default tactic, -1)",
	  .doc = "also write the table's entries nobody measured (its provenance says `default`: an "
		 "op's fallback tactic, -1, stored unmeasured). Left out by default, because the "
		 "server does not profile a shape whose key it finds: with them it starts faster, "
		 "but runs FlashInfer's default tactic for those shapes instead of the one its own "
		 "tuning would pick (docs/commands/install.md, \"Entries nobody measured\"). "
		 "Measured entries (`--profile`) and the CUTLASS MoE's predicted ones are written "
		 "either way" },
	{ .name = "dry-run", .id = 'n', .help = "print the files, write nothing" },
	{ .name = "check", .id = 'K',
	  .help = "write nothing: does every lookup of the server hit? (= doctor --for)" },
	O_JSON("print one JSON document: the files per rank, entries, refusals or the check"),
	{ .name = "quiet", .id = 'q', .short_name = 'q',
	  .help = "no steps on stderr (errors, warnings and refusals stay); --check: only findings",
	  .doc = "no steps on stderr: what was derived, generated, merged and written (errors, "
		 "warnings and the reasons of a refusal stay), and no paths on stdout; with "
		 "`--check` (`doctor --for`) only the findings (`no`, `cannot tell`), the verdict "
		 "and the fix. The exit status is the same" },
	{ NULL },
};

static const struct cli_option report_options[] = {
	{ .name = "output", .id = 'o', .short_name = 'o', .arg = ARG_REQUIRED, .arg_name = "FILE.html",
	  .help = "the page to write" },
	{ .name = "quiet", .id = 'q', .short_name = 'q', .help = "no 'wrote' line on stderr" },
	{ NULL },
};

static const struct cli_option learn_options[] = {
	{ .name = "output", .id = 'o', .short_name = 'o', .arg = ARG_REQUIRED, .arg_name = "FIT.yaml",
	  .help = "write the fit there (default: only report)" },
	{ .name = "holdout", .id = 'H', .arg = ARG_REQUIRED, .arg_name = "TEXT",
	  .help = "fit without the journals whose deployment holds TEXT, and judge the fit on them",
	  .doc = "leave the journals whose deployment label (\"Qwen3-30B-A3B bf16 TP 1 EP 1\") holds "
		 "TEXT, case-insensitive, out of the fit, and report the heuristic-only regret and "
		 "top-4 recall on them with the defaults and with the fit; a ranking file's "
		 "deployments are labelled \"DeepSeek-V3 nvfp4 TP 8 EP 1, ranking FILE of TABLE\" "
		 "and judged by their agreement with the table" },
	{ .name = "heuristic", .id = 'h', .arg = ARG_REQUIRED, .arg_name = "FILE",
	  .help = "the heuristic whose params are fitted (default: scripts/heuristics/default.lua)" },
	{ .name = "sweeps", .id = 's', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "coordinate-search sweeps (default 6, 1 to 1000)" },
	{ .name = "loss", .id = 'L', .arg = ARG_REQUIRED, .arg_name = "both|time|regret",
	  .help = "what the search minimizes (default both: time, then regret)",
	  .doc = "time: the spread of log(predicted / measured) time over every measured candidate, "
		 "weighted toward each entry's fastest; regret: the regret of the heuristic's pick; "
		 "both (default): time first, then regret from there (learn.h \"Method\")" },
	{ .name = "json", .id = 'j', .help = "the result as one JSON document on stdout" },
	{ NULL },
};

static const struct cli_option doctor_options[] = {
	{ .name = "flashinfer-dir", .id = 0x201, .arg = ARG_REQUIRED, .arg_name = "DIR",
	  .help = "the FlashInfer package folder (default: searched for)" },
	O_FLASHINFER('f', "judge as this version instead of the installed one's"),
	{ .name = "device", .id = 'D', .arg = ARG_REQUIRED, .arg_name = "auto|NAME",
	  .help = "the GPU: auto (GPU 0, the default) or a name" },
	{ .name = "cache", .id = 0x202, .arg = ARG_REQUIRED, .arg_name = "FILE",
	  .help = "a JSON cache: would this environment accept its _metadata?" },
	{ .name = "model", .id = 0x203, .arg = ARG_REQUIRED, .arg_name = "NAME|FILE",
	  .help = "a deployment: hit or fallback per GEMM stage and token bucket" },
	{ .name = "dtype", .id = 0x204, .arg = ARG_REQUIRED, .arg_name = "D",
	  .help = "the deployment's dtype" },
	{ .name = "tp", .id = 't', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "tensor-parallel size (default 1; --for: the server's, one file per rank)" },
	{ .name = "ep", .id = 'e', .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "expert-parallel size (default 1; --for: the MoE's)" },
	{ .name = "tp-rank", .id = 0x205, .arg = ARG_REQUIRED, .arg_name = "R", .flags = OPT_BRIEF,
	  .help = "the TP rank (default 0)" },
	{ .name = "ep-rank", .id = 0x206, .arg = ARG_REQUIRED, .arg_name = "R", .flags = OPT_BRIEF,
	  .help = "the EP rank (default 0)" },
	{ .name = "top-k", .id = 0x207, .arg = ARG_REQUIRED, .arg_name = "N", .flags = OPT_BRIEF,
	  .help = "routing top-k (default: the model's)" },
	{ .name = "max-tokens", .id = 0x208, .arg = ARG_REQUIRED, .arg_name = "N",
	  .help = "the largest token bucket (default: the version's)" },
	{ .name = "weight-view", .id = 0x209, .arg = ARG_REQUIRED, .arg_name = "V", .flags = OPT_BRIEF,
	  .help = "how the weights are viewed (as generate)" },
	{ .name = "backend", .id = 0x20a, .arg = ARG_REQUIRED, .arg_name = "flashinfer",
	  .help = "the flashinfer backend's self-test on this GPU, one small entry per dtype",
	  .doc = "`flashinfer`: the measurement backend's self-test on GPU 0: for every dtype of "
		 "configs/dtypes.yaml, Qwen3-30B-A3B's two entries at 1 token (`--model` another) "
		 "profiled with FlashInfer's kernels and the correctness gate, each in a worker of its "
		 "own. Per dtype: works (the gate found the chosen tactics right), works with the "
		 "output not checked (the gate says why), wrong output (which tactic), not in this "
		 "FlashInfer build (its runner aborted), not timed (the runner ignores the tactic), "
		 "no tunetab catalog for the SM, or failed. Exit 1 when a dtype computed a wrong "
		 "answer or failed. How a user on a GPU we cannot reach learns what the measured "
		 "path does there" },
	{ .name = "python", .id = 'P', .arg = ARG_REQUIRED, .arg_name = "PATH",
	  .help = "the Python with FlashInfer (--backend: and torch; --for: the server's)" },
	O_JSON("print one JSON object"),
	{ .name = "quiet", .id = 'q', .short_name = 'q',
	  .help = "only the verdict and the commands that fix it (--for: and the findings)" },
	{ .name = "for", .id = 'c', .arg = ARG_REQUIRED, .arg_name = "sglang|vllm|flashinfer",
	  .help = "a serving stack: does it find its tactics? (-- LAUNCH..., or the flags below)",
	  .doc = "a serving stack (configs/consumers/): the deployment's lookup plan, from `-- "
		 "LAUNCH...` (the command that starts the server) or from the flags below (read as "
		 "the launch command they describe), against the files, with FlashInfer's own rules, "
		 "then, where the server's Python imports that FlashInfer, by its own loader "
		 "(`judged by`): exit 0 every rank's lookups hit, 1 no (each cause, and the one "
		 "command that fixes it) or the loader disagrees with tunetab's model, 6 cannot tell "
		 "(what it cannot see, and the option that shows it); the plan `tunetab install` "
		 "applies (docs/commands/install.md, \"One lookup plan\")" },
	O_FOR_TABLE,
	O_FOR_MODEL,
	O_FOR_PARALLEL,
	O_FOR_RUNNER,
	O_CONSUMER_VERSION('V', "the consumer's version (default: the newest rule)"),
	O_FOR_FILES,
	{ NULL },
};

static const struct cli_option scan_log_options[] = {
	O_JSON("print one JSON document: per file the totals, counts, ops and events"),
	{ .name = "keys-out", .id = 'k', .arg = ARG_REQUIRED, .arg_name = "FILE",
	  .help = "write the missed fused-MoE keys, for generate --keys" },
	{ NULL },
};

static const struct cli_option help_options[] = {
	{ .name = "markdown", .id = 'M', .help = "COMMAND's options as its reference page's Markdown table" },
	{ .name = "man", .id = 'm', .help = "the man page (roff), as docs/tunetab.1" },
	{ .name = "check", .id = 'c',
	  .help = "check the command table: usage lines against options, ids, help lines" },
	{ NULL },
};

const struct cli_command cmd_table[] = {
	{ "detect", cmd_detect, NEEDS_DATA | NEEDS_GPU, NULL, 0,
	  "show every visible GPU and what FlashInfer looks up on it",
	  "[--json]",
	  "Reads each visible GPU through the CUDA Runtime API, matches it to a device profile\n"
	  "and prints the bundled table file each FlashInfer version would import on it.\n"
	  "Exits 4 when there is no GPU, no driver, or no CUDA support in this build.",
	  NULL, detect_options },
	{ "devices", cmd_devices, NEEDS_DATA, NULL, 0, "list the known GPU device profiles", "[--json]",
	  "Lists configs/devices/<id>.yaml: exact device name, compute capability, SMs, memory,\n"
	  "bandwidth and dense tensor throughput. Unknown values print as '-'.",
	  NULL, devices_options },
	{ "models", cmd_models, NEEDS_DATA, NULL, 0, "list the known MoE model geometries", "[--json]",
	  "Lists configs/models/<id>.yaml: hidden size, per-expert intermediate size, routed\n"
	  "experts, top-k and activation.",
	  NULL, models_options },
	{ "catalog", cmd_catalog, NEEDS_DATA | NEEDS_GPU, "with --device auto", 0,
	  "show a FlashInfer tactic candidate list, decoded",
	  "(--device auto|NAME | --sm N) --dtype D [--flashinfer VERSION] [--stage 1|2] [--json]",
	  "Prints the ordered CUTLASS fused-MoE candidates a tactic integer indexes for this\n"
	  "SM, dtype and FlashInfer version, with each entry's absolute id, tile, cluster,\n"
	  "1SM/2SM, swap_ab, finalize and whether it can be dispatched.",
	  NULL, catalog_options },
	{ "generate", cmd_generate, NEEDS_DATA | NEEDS_GPU, "with --profile or --device auto", 0,
	  "write the tables FlashInfer is missing for a GPU and model",
	  "--device auto|NAME|FILE (--model NAME|FILE | --keys FILE) --dtype nvfp4|fp8|bf16 "
	  "[--tp N] [--ep N] [--flashinfer VERSION] [--max-tokens N] [--format py|json|both] "
	  "[--heuristic FILE] [-o DIR] [--metadata KEY=VALUE]... [--weight-view V] [--top-k N] "
	  "[--calibration FILE] [--profile [--backend auto|flashinfer|proxy] [--python PATH] [--top N|all] [--method tunetab|sequential|full|flashinfer] [--no-gate] [--routing balanced|robust|FILE] [--rounds N] "
	  "[--budget S] [--timeout S] [--devices all|I,J,...] [-v]] [--shard I/N] [--report FILE.html] [--into-flashinfer] [--fused-finalize on|off] | --plan FILE.yaml "
	  "[--device NAME] [--profile] [-o ROOT] | --for sglang|vllm [--consumer-version V] "
	  "[--model-config FILE] [options] -- LAUNCH...",
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
	  "then only the module is written and a file it replaces is kept as .tunetab-backup.",
	  NULL, generate_options },
	{ "calibrate", cmd_calibrate, NEEDS_DATA | NEEDS_GPU, NULL, 0,
	  "measure this GPU for the heuristics",
	  "[--device N] [-o FILE]",
	  "Measures GPU N in the worker process: device-to-device copy bandwidth, dense GEMM\n"
	  "throughput per dtype (bf16, fp8 where supported) and each catalog tile shape's\n"
	  "efficiency, and writes a calibration YAML that generate --calibration FILE hands to\n"
	  "the heuristic. Seconds, not minutes.",
	  NULL, calibrate_options },
	{ "validate", cmd_validate, NEEDS_DATA, NULL, 0,
	  "check tuning tables against a FlashInfer version's rules",
	  "FILE|DIR... [--flashinfer VERSION] [--device NAME] [--dtype D] "
	  "[--format text|json|github|junit] [--strict] [--quiet] | --list-checks",
	  "Reads bundled modules (v…_trtllm_fused_moe_<DEVICE>.py) and JSON autotune caches and\n"
	  "applies every rule the target FlashInfer version applies when it finds, keys and\n"
	  "uses a table. A folder stands for every table under it; a tunetab provenance file is\n"
	  "checked against the tables it names. Version: --flashinfer, else the JSON\n"
	  "_metadata.flashinfer_version, else the provenance file's, else the newest known; 'all'\n"
	  "checks every known version range. Device: --device, else the file name, else\n"
	  "_metadata.gpu.\n"
	  "Exit 1 on any error (or warning with --strict); the Checks below list every check id.",
	  NULL, validate_options },
	{ "explain", cmd_explain, NEEDS_DATA, NULL, 0,
	  "decode every entry of a table: bucket, shapes, dtype, tactic",
	  "FILE [--flashinfer VERSION] [--device NAME] [--dtype D] [--json]",
	  "Per entry: GEMM stage, token bucket, hidden size, experts, intermediate size, dtype\n"
	  "packing, and the tactic's config (tile, cluster, 1SM/2SM, swap_ab, finalize) for the\n"
	  "device and version; then the token buckets covered per shape family.",
	  NULL, explain_options },
	{ "diff", cmd_diff, NEEDS_DATA, NULL, 0, "entries added, removed and changed between two tables",
	  "A B [--flashinfer VERSION] [--device NAME] [--dtype D] [--json]",
	  "Compares two tables by key, with decoded tactics on both sides. Exit 1 when they differ.",
	  NULL, diff_options },
	{ "convert", cmd_convert, 0, NULL, 0, "rewrite a table as a bundled module or a JSON cache",
	  "IN -o OUT [--to py|json] [--metadata KEY=VALUE]... [--no-generation]",
	  "Reads a module or JSON cache and writes it in FlashInfer's own layout: the ruff/black\n"
	  "module or json.dump(indent=2) with _metadata (unknown fields \"*\") and _generation.\n"
	  "The output is written to a temporary file and renamed: never half-written.",
	  NULL, convert_options },
	{ "merge", cmd_merge, NEEDS_DATA, NULL, 0,
	  "merge shard outputs and tables for one device and version",
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
	  "missing shard or (--fail-on-conflict) a conflict, 2 usage, 5 I/O. See docs/fleet.md.",
	  NULL, merge_options },
	{ "install", cmd_install, NEEDS_DATA, NULL, 0,
	  "put a JSON autotune cache where a serving stack reads it, every rank",
	  "--for sglang|vllm|flashinfer --from CACHE.json [--model-path P --hf-config-class C] "
	  "[--tp N] [--pp N] [--dp N] [--attn-dp N] [--ep N] [--torch-dtype D] [--quantization Q] "
	  "[--moe-runner-backend B] [--skip-ops A,B] [--consumer-version V] [--flashinfer V] "
	  "[--sm N] [--cache-dir DIR] [--cache-file PATH] [--stamp env|wildcard|from] "
	  "[--python PY] [--device NAME] [--model-config FILE] [--replace] [--dry-run | --check] "
	  "[--force] [--json] [-q] | --for sglang|vllm "
	  "[--from CACHE.json | --profile [-o DIR]] [--model-config FILE] [--device auto|NAME] "
	  "[options] -- LAUNCH...",
	  "Writes CACHE.json (tunetab generate's JSON cache) where the consumer reads it at start\n"
	  "for this deployment, for every rank. The rules per consumer version are data:\n"
	  "configs/consumers/<id>.yaml. SGLang: $SGLANG_CACHE_DIR/flashinfer/autotune/<flashinfer>/\n"
	  "sm<NN>/<key>/rank_tp<R>_pp<R>_dp<R>.json, key = sha256 of the server's model path, torch\n"
	  "dtype, quantization, MoE runner backend, tp, pp, attention dp, moe ep, HF config class\n"
	  "and skip ops (give them as the server is started). vLLM, several ranks: <root>/<config\n"
	  "hash>/autotune_configs_dp<D>_rank<R>.json in the folder a first vLLM start made (found\n"
	  "under the root, or --cache-file the path vLLM logs); one rank: FlashInfer's managed\n"
	  "store. FlashInfer: --cache-file the file your code passes to autotune(cache=...), else\n"
	  "the managed store (0.7.2+: <root>/v2/<sha256 of the environment>/entries/). Before\n"
	  "writing, install builds the deployment's lookup plan (the launch command, or the flags\n"
	  "read as the launch command they describe): per rank the file the server opens, the keys\n"
	  "it looks up (per rank where FlashInfer 0.6.18-0.7.1's keys carry the rank: every rank's\n"
	  "keys then go to every file), the _metadata FlashInfer compares, the tactics the GPU has.\n"
	  "A table the plan says the server will not use is refused (--force). _metadata: env\n"
	  "(default where FlashInfer imports with --python, $VIRTUAL_ENV, $CONDA_PREFIX, tunetab's\n"
	  "Python environment or python3: FlashInfer's own _collect_metadata), wildcard (\"*\"),\n"
	  "from (CACHE.json's). Merges into files already there: their other entries stay, a key\n"
	  "with another tactic is a conflict, kept theirs unless --replace; a file the server cannot\n"
	  "load (not JSON, a folder) stops install unless --replace, which writes it anew. Entries\n"
	  "nobody measured (the provenance's 'default': an op's fallback tactic, -1) are left out\n"
	  "unless --write-fallbacks: a server that found them would not tune those shapes. Every\n"
	  "rank file gets the same content, and the set is written all or nothing (a rollback\n"
	  "journal beside the files; an interrupted install is restored by the next). --check\n"
	  "(also `tunetab doctor --for ...`) writes nothing and evaluates the plan against the disk\n"
	  "with FlashInfer's own rules: 'no' with each cause and the command that fixes it, or\n"
	  "'cannot tell' with what it cannot see (no FlashInfer to read the environment, vLLM's\n"
	  "config hash, no config.json for the flags) and what to give. --json prints one JSON\n"
	  "document on stdout instead of the text there (the files per rank and the merge, the\n"
	  "refusals, or the check), also when it fails, with its exit status; -q leaves out the\n"
	  "steps. Exit 0 written (--check: every lookup hits), 1 refused or invalid input\n"
	  "(--check: no), 2 usage, 5 I/O, 6 (--check) cannot tell.",
	  NULL, install_options },
	{ "report", cmd_report, 0, NULL, 0, "an HTML report of a profiled run: charts and tables",
	  "JOURNAL -o FILE.html [--quiet]",
	  "Reads the journal `generate --profile` wrote (and the provenance file beside it) and\n"
	  "writes one static HTML page, no external assets: per GEMM stage the time of every\n"
	  "candidate against the token bucket (measured and predicted), the chosen tactic, the\n"
	  "speed-up over the fallback with its interval, the regret bound, failed and\n"
	  "inexpressible candidates with reasons, and the command and versions. Each chart has a\n"
	  "table of its values under it. `generate --report FILE.html` writes the same, also for\n"
	  "heuristic-only runs.",
	  NULL, report_options },
	{ "learn", cmd_learn, NEEDS_DATA, NULL, 0,
	  "fit the heuristic's free parameters to measured journals of one GPU",
	  "JOURNAL|RANKING... [-o FIT.yaml] [--holdout TEXT] [--heuristic FILE] [--sweeps N] "
	  "[--loss L] [--json]",
	  "Reads the journals `generate --profile` wrote on one GPU (every candidate it timed, with\n"
	  "FlashInfer's kernels or the proxy), rebuilds each journal's deployment and fits the\n"
	  "params the heuristic declares (tunetab.heuristic{ params = ... }) so that its first\n"
	  "choice is as fast as the fastest measured: a deterministic coordinate search on the\n"
	  "geomean regret (learn.h). Prints the regret and top-4 recall before and after; with\n"
	  "--holdout, also on deployments the fit did not see. `generate --model-fit FIT.yaml`\n"
	  "uses the fit. An input may instead be a ranking file (YAML, `ranking:`): a FlashInfer\n"
	  "table, such as its shipped B200 one, and the deployments whose keys it holds; its\n"
	  "tactic is taken as each key's best and the fit raises the heuristic's agreement with\n"
	  "it (learn.h, \"Rankings\").",
	  NULL, learn_options },
	{ "doctor", cmd_doctor, NEEDS_DATA | NEEDS_GPU, "with --device auto, the default", 0,
	  "say what FlashInfer will look up here and what falls back",
	  "[--flashinfer-dir DIR | --flashinfer VERSION] [--device auto|NAME] [--cache FILE] "
	  "[--model NAME|FILE --dtype D [--tp N] [--ep N] [--max-tokens N] ...] [--json] [-q] | "
	  "--backend flashinfer [--python PATH] [--model NAME] | "
	  "--for sglang|vllm|flashinfer [--from CACHE.json] [--model-config FILE] [--device NAME] "
	  "[--python PY] [--cache-dir DIR] [--cache-file PATH] [--json] [-q] -- LAUNCH... | "
	  "--for sglang|vllm|flashinfer [--from CACHE.json] --model-path P [--hf-config-class C] "
	  "[--tp N] [--pp N] [--dp N] [--attn-dp N] [--ep N] [--torch-dtype D] [--quantization Q] "
	  "[--moe-runner-backend B] [--skip-ops A,B] [--consumer-version V] [--flashinfer V] "
	  "[--sm N] [--cache-dir DIR] [--cache-file PATH] [--stamp env|wildcard|from] "
	  "[--python PY] [--device NAME] [--model-config FILE] [--json] [-q]",
	  "--for: the plan `tunetab install` applies (see install), checked against the files: the\n"
	  "cache path the server opens for the deployment, every rank, and whether every lookup\n"
	  "hits; with --json as one JSON document, with -q only the findings, the verdict and the\n"
	  "fix. Exit 0 hits, 1 no, 6 cannot tell.\n"
	  "Finds the installed FlashInfer (its package files, no Python import) and the GPU, and\n"
	  "reports the module FlashInfer will import and whether it exists and validates, whether\n"
	  "FLASHINFER_AUTOTUNER_LOAD_FROM_FILE is exactly 1, whether a JSON cache would be\n"
	  "accepted, and for a deployment, per GEMM stage and token bucket, hit or fallback.\n"
	  "Ends with the commands that fix what it found. Exit 0 when every lookup would hit,\n"
	  "1 otherwise.",
	  NULL, doctor_options },
	{ "scan-log", cmd_scan_log, 0, NULL, 0, "extract FlashInfer autotuner events from server logs",
	  "[FILE...|-] [--json] [--keys-out FILE]",
	  "Streams logs of any size (SGLang, vLLM, flashinfer_jit.log, TensorRT-LLM; plain or\n"
	  "gzip) and extracts every autotuner event: sessions, bundled-file hits and misses,\n"
	  "JSON cache loads/saves/mismatches, no-tuned-config fallbacks, failed tactics, OOM\n"
	  "fallbacks and tuning progress. Prints a summary per op; --keys-out writes the missed\n"
	  "keys for 'tunetab generate --keys'.",
	  NULL, scan_log_options },
	{ "check-data", cmd_check_data, NEEDS_DATA, NULL, 0, "load and check tunetab's YAML data files",
	  "[FILE...]",
	  "Loads every YAML file under configs/ and schemas/ (or the files given, by their\n"
	  "top-level key) with the strict schemas and the cross-file checks. Exit 1 on errors.",
	  NULL, NULL },
	{ "completion", cmd_completion, 0, NULL, 0, "print a shell completion script (bash or zsh)",
	  "bash|zsh",
	  "Prints a completion script for bash or zsh, made from this command table: the\n"
	  "commands, their options and the fixed choices of option values. `make install` puts\n"
	  "both where bash-completion and zsh look; to try one in this shell:\n"
	  "  source <(tunetab completion bash)",
	  "bash|zsh", NULL },
	{ "help", cmd_help, 0, NULL, 0, "show help for tunetab or one command",
	  "[COMMAND] | --markdown COMMAND | --man | --check",
	  NULL, "COMMAND", help_options },
	/* the GPU worker process: `generate --profile` and `calibrate` start it (tune/worker.h) */
	{ "__worker", worker_main, NEEDS_GPU, NULL, CMD_HIDDEN, "the GPU worker process", NULL, NULL,
	  NULL, NULL },
};

const size_t cmd_table_n = sizeof cmd_table / sizeof cmd_table[0];
