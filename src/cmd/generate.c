/* generate.c: `tunetab generate`: options in, tune/generate.h's library call, and what the
 * user hears: progress, notes, and one summary per table written. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "base/util.h"
#include "tune/fleet.h"
#include "tune/generate.h"


/* What the user hears (generate_hooks): the progress line (a TTY) or one line per entry
 * (-v), called by timing_run under a lock; lines and diagnostics as they happen; the
 * summary of each table. */
struct progress {
	bool tty, verbose, quiet;
};

static void on_entry(void *ctx, const struct timing_event *ev)
{
	const struct progress *pg = ctx;
	if (!ev) { /* profiling is over */
		if (pg->tty)
			fputc('\n', stderr);
		return;
	}
	const struct lookup_entry *e = ev->e;
	if (pg->tty)
		fprintf(stderr, "\rtunetab: profiling GEMM%d %6ld tokens  %zu/%zu  ETA %4.0fs ", e->stage,
			e->tokens, ev->done, ev->total, ev->eta_s);
	if (!pg->verbose)
		return;
	fprintf(stderr, "tunetab: GPU %d GEMM%d %ld tokens:", ev->worker, e->stage, e->tokens);
	if (!ev->n)
		fprintf(stderr, " out of budget");
	size_t screened = 0; /* screening: those one sample dropped are only counted */
	for (size_t k = 0; k < ev->n; k++) {
		const struct prof_result *r = &ev->res[k];
		if (ev->n > 12 && r->status == PROF_OK && r->n == 1 && ev->ids[k] != e->tactic) {
			screened++;
			continue;
		}
		if (r->status == PROF_OK)
			fprintf(stderr, " %d=%.2fus[%.2f,%.2f]", ev->ids[k], r->median_us, r->lo_us, r->hi_us);
		else
			fprintf(stderr, " %d=%s(%s)", ev->ids[k],
				r->status == PROF_FAILED ? "failed" : "unsupported", r->why);
	}
	if (screened)
		fprintf(stderr, " (+%zu screened out)", screened);
	fprintf(stderr, " -> %d (%s)\n", e->tactic,
		e->kind == CHOICE_MEASURED ? "measured"
		: e->kind == CHOICE_FALLBACK ? "fallback kept" : "predicted");
}


static void on_line(void *ctx, const char *text)
{
	fprintf(stderr, "%s\n", text);
}

static void on_diag(void *ctx, const struct diag *x)
{
	struct diags one = { (struct diag *)x, 1, 1 };
	cli_print_diags(&one);
}

/* The summary of one table written. */
static void on_table(void *ctx, const struct generate_result *r)
{
	const struct progress *pg = ctx;
	if (pg->quiet)
		return;
	struct strbuf sb = STRBUF_INIT;
	generate_summary(r, &sb);
	generate_written(r, &sb);
	fputs(sb.buf, stderr);
	sb_release(&sb);
}

static const char *real_env(const char *name)
{
	return getenv(name);
}

/* The command line as a request; --devices and --shard stay the command's. */
struct args {
	struct generate_request o;
	const char *devices, *shard;
	struct serve_request launch;   /* --for CONSUMER -- LAUNCH...: the deployment from it */
	bool have_launch;
};

static int parse_args(int argc, char **argv, struct args *a)
{
	struct generate_request *o = &a->o;
	int c;
	opterr = 0;
	optind = 1;
#define NUM(field, what, lo, hi) CLI_LONG_OPT("generate", o->field, what, lo, hi)
	while ((c = cli_getopt(argc, argv, "generate")) != -1) {
		switch (c) {
		case 'D': o->device = optarg; break;
		case 'M': o->model = optarg; break;
		case 't': o->dtype = optarg; break;
		case 'T': NUM(runner.tp, "--tp", 1, LONG_MAX); break;
		case 'E': NUM(runner.ep, "--ep", 1, LONG_MAX); break;
		case 'r':
			if (!strcmp(optarg, "all"))
				o->tp_rank_all = true;
			else
				NUM(runner.tp_rank, "--tp-rank", 0, LONG_MAX);
			break;
		case 'R':
			if (!strcmp(optarg, "all"))
				o->ep_rank_all = true;
			else
				NUM(runner.ep_rank, "--ep-rank", 0, LONG_MAX);
			break;
		case 'k': NUM(runner.top_k, "--top-k", 1, CLI_TOP_K_LIMIT); break;
		case 'm': NUM(runner.max_tokens, "--max-tokens", 1, CLI_MAX_TOKENS_LIMIT); break;
		case 'S': NUM(script_mem_mib, "--script-mem", 1, CLI_SCRIPT_MEM_LIMIT); break;
		case 'I': NUM(script_instructions, "--script-instructions", 1000, LONG_MAX); break;
		case 'f': o->flashinfer = optarg; break;
		case 'F': o->format = optarg; break;
		case 'H': o->heuristic = optarg; break;
		case 'o': o->outdir = optarg; break;
		case 'K': o->keys = optarg; break;
		case 'w': o->weight_view = optarg; break;
		case 'i': o->input_view = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose = 1; break;
		case 'P': o->profile = 1; break;
		case 'N': o->no_gate = 1; break;
		case 'e': o->routing = optarg; break;
		case 'J': o->into_flashinfer = 1; break;
		case 'Q':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				return cli_usage_error("generate", "--fused-finalize must be on or off, not "
						       "'%s'", optarg);
			}
			o->runner.fused_finalize = strcmp(optarg, "off") != 0;
			o->given |= GIVEN_FUSED_FINALIZE;
			break;
		case 'C': o->calibration = optarg; break;
		case 'g': o->model_fit = optarg; break;
		case 'G': a->devices = optarg; break;
		case 'Z': a->shard = optarg; break;
		case 'L': o->plan = optarg; break;
		case 'Y': o->report = optarg; break;
		case 0x101: a->launch.consumer = optarg; break;
		case 0x102: a->launch.consumer_version = optarg; break;
		case 0x103: a->launch.model_config = optarg; break;
		case 'p': o->python = optarg; break;
		case 'b':
			if (strcmp(optarg, "auto") && strcmp(optarg, "flashinfer") && strcmp(optarg, "proxy")) {
				return cli_usage_error("generate", "--backend must be auto, flashinfer or proxy");
			}
			o->backend = optarg;
			break;
		case 'O':
			if (!strcmp(optarg, "all")) {
				o->top = -1;
				break;
			}
			NUM(top, "--top", 1, LONG_MAX);
			break;
		case 'X':
			if (!strcmp(optarg, "tunetab") || !strcmp(optarg, "flashinfer") ||
			    !strcmp(optarg, "full") || !strcmp(optarg, "sequential")) {
				o->method = !strcmp(optarg, "flashinfer") ? 1 : !strcmp(optarg, "full") ? 2
					    : !strcmp(optarg, "sequential") ? 3 : 0;
			} else {
				return cli_usage_error("generate", "--method must be tunetab, sequential, full "
						       "or flashinfer");
			}
			break;
		case 'U': NUM(rounds, "--rounds", 3, LONG_MAX); break;
		case 'B': NUM(budget, "--budget", 1, LONG_MAX); break;
		case 'W': NUM(timeout, "--timeout", 1, CLI_TIMEOUT_LIMIT); break;
		case 'a':
			if (!strchr(optarg, '=')) {
				return cli_usage_error("generate", "--metadata wants KEY=VALUE, not '%s'", optarg);
			}
			o->metas[o->nmeta++] = optarg;
			break;
		default:
			return cli_usage_error("generate", "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
#undef NUM
	a->have_launch = cli_launch_words(argc, argv, optind, &a->launch);
	if (a->have_launch != (a->launch.consumer != NULL))
		return cli_usage_error("generate", a->have_launch ? "a launch command after '--' needs "
				       "--for CONSUMER" : "--for needs the server's launch command after "
				       "'--'");
	if (optind < argc && !a->have_launch)
		return cli_usage_error("generate", "unexpected argument '%s'", argv[optind]);
	if (!a->have_launch && (a->launch.consumer_version || a->launch.model_config))
		return cli_usage_error("generate", "--consumer-version and --model-config go with a "
				       "launch command (--for CONSUMER -- LAUNCH...)");
	return TT_OK;
}

/* --for CONSUMER -- LAUNCH...: the deployment the server looks up, as the request. */
static int from_launch(struct args *a, const struct tt_data *data, struct serve_deployment *s,
		       struct model_profile *m)
{
	struct generate_request *o = &a->o;
	if (o->model || o->keys || o->dtype || o->plan || o->runner.tp != 1 || o->runner.ep != 1 ||
	    o->runner.max_tokens || (o->given & GIVEN_FUSED_FINALIZE))
		return cli_usage_error("generate", "with a launch command the deployment is the "
				       "server's: no --model, --keys, --dtype, --tp, --ep, --max-tokens, "
				       "--fused-finalize or --plan");
	a->launch.device = o->device;
	a->launch.flashinfer = o->flashinfer; /* the version the server imports, when not found */
	a->launch.python = o->python;
	int rc = cli_launch_derive(data, &a->launch, s, o->quiet);
	if (rc)
		return rc;
	if (!serve_autotunes(s)) {
		char *why = serve_why_no_autotune(s);
		rc = cli_error(TT_INVALID, "%s", why);
		free(why);
		return rc;
	}
	struct diags d = DIAGS_INIT;
	rc = serve_model_profile(s, m, &d);
	cli_print_diags(&d);
	diags_release(&d);
	if (rc)
		return rc;
	generate_request_from_server(s, m, o);
	return TT_OK;
}

/* Options that do not go together, the shard, and the GPUs the session starts on. */
static int check_args(struct args *a, struct shard *sh, struct generate_session *S)
{
	const struct generate_request *o = &a->o;
	if (strcmp(o->format, "py") && strcmp(o->format, "json") && strcmp(o->format, "both"))
		return cli_usage_error("generate", "--format must be py, json or both");
	if (o->plan && (o->model || o->keys || o->dtype || a->shard || o->report))
		return cli_usage_error("generate", "--plan gives the deployments: no --model, --keys, "
				       "--dtype, --shard or --report with it");
	if (!o->plan && !a->have_launch && (!o->device || !o->dtype || (!o->model && !o->keys)))
		return cli_usage_error("generate", "--device, --dtype and --model (or --keys) are required");
	if (o->runner.tp_rank >= o->runner.tp || o->runner.ep_rank >= o->runner.ep)
		return cli_usage_error("generate", "ranks must be below --tp/--ep");
	if ((o->tp_rank_all || o->ep_rank_all) && (o->keys || a->shard || o->plan))
		return cli_usage_error("generate", "--tp-rank all and --ep-rank all build a deployment's "
				       "table: not with --keys, --shard or --plan");
	enum dtype dt;
	if (o->dtype && dtype_parse(o->dtype, &dt))
		return cli_usage_error("generate", "unknown dtype '%s'", o->dtype);
	S->all_gpus = a->devices && !strcmp(a->devices, "all");
	if (a->devices && !S->all_gpus && fleet_parse_gpu_list(a->devices, S->gpu_ids, GENERATE_MAX_WORKERS, &S->ngpu_ids))
		return cli_usage_error("generate", "--devices wants 'all' or GPU indices like 0,1,3 "
				       "(at most %d), not '%s'", GENERATE_MAX_WORKERS, a->devices);
	if ((o->backend || (o->python && !a->have_launch)) && !o->profile)
		return cli_usage_error("generate", "--backend and --python only apply with --profile");
	if (a->devices && !o->profile)
		return cli_usage_error("generate", "--devices only applies with --profile");
	/* the shard: --shard, else (profiling only) the launcher's rank and count */
	char err[512];
	memset(sh, 0, sizeof *sh);
	sh->count = 1;
	if (a->shard) {
		if (fleet_parse_shard(a->shard, sh, err, sizeof err))
			return cli_usage_error("generate", "%s", err);
	} else if (o->profile && !o->plan) {
		if (fleet_shard_from_env(real_env, sh, err, sizeof err))
			return cli_error(TT_USAGE, "%s", err);
	}
	/* the GPU: --devices, else the one the launcher gave this process */
	const char *gpu_why = "";
	if (!S->ngpu_ids)
		S->gpu_ids[S->ngpu_ids++] = o->profile && !S->all_gpus ? fleet_local_gpu(real_env, &gpu_why) : 0;
	S->gpu_why = gpu_why;
	if (!o->quiet && sh->count > 1)
		fprintf(stderr, "tunetab: shard %d/%d (%s)\n", sh->index, sh->count, sh->source);
	if (!o->quiet && *gpu_why)
		fprintf(stderr, "tunetab: GPU %d (%s)\n", S->gpu_ids[0], gpu_why);
	return TT_OK;
}

/* Prints what a failed call left in d; a bad command line shows the usage. */
static void print_failure(const struct diags *d)
{
	cli_print_diags(d);
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].id, DIAG_SHOW_USAGE)) {
			cli_print_usage("generate");
			break;
		}
}

int cmd_generate(int argc, char **argv)
{
	struct args a = { 0 };
	generate_request_defaults(&a.o);
	a.o.metas = xcalloc((size_t)argc + 1, sizeof *a.o.metas);
	struct generate_session S;
	memset(&S, 0, sizeof S);
	struct shard sh;
	int rc = parse_args(argc, argv, &a);
	if (!rc)
		rc = check_args(&a, &sh, &S);
	struct tt_data data;
	if (!rc)
		rc = cli_load_data(&data, DATA_ALL);
	if (rc) {
		free(a.o.metas);
		return rc;
	}
	struct generate_request *o = &a.o;
	struct serve_deployment served;
	struct model_profile served_model;
	memset(&served, 0, sizeof served);
	if (a.have_launch && (rc = from_launch(&a, &data, &served, &served_model))) {
		serve_release(&served);
		cli_release_data(&data);
		free(a.o.metas);
		return rc;
	}
	char *command = cli_command_line(argc, argv);
	o->command = command;
	struct doctor_fi fi;
	if (!o->flashinfer && cli_installed_fi(&fi)) {
		o->installed_fi = fi.version;
		o->installed_fi_pkg = fi.pkg;
	}
	struct progress pg = { .tty = !o->quiet && !o->verbose && isatty(2), .verbose = o->verbose,
			       .quiet = o->quiet };
	struct generate_hooks hooks = { &pg, on_line, on_diag, on_entry, on_table, cli_script_print };
	struct diags d = DIAGS_INIT;
	rc = generate_session_init(&S, &data, &hooks, &d);
	if (!rc && o->plan) {
		rc = generate_fleet_plan(o, &S, &d);
	} else if (!rc) {
		const char *base = o->outdir ? o->outdir : ".";
		char *outdir = sh.count > 1 ? xasprintf("%s/shard-%d-of-%d", base, sh.index, sh.count)
					    : xstrdup(base);
		rc = generate_table(o, &S, &sh, outdir, &d);
		free(outdir);
	}
	generate_session_release(&S);
	print_failure(&d);
	diags_release(&d);
	cli_release_data(&data);
	serve_release(&served);
	free(o->metas);
	free(command);
	return rc;
}
