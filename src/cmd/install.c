/* cmd_install.c: `tunetab install --for CONSUMER`: a JSON autotune cache written where that
 * serving stack will load it, for every rank, after the deployment's lookup plan
 * (deploy/plan.h) says the server will use it; `--check` evaluates the plan against what is
 * there instead (as `doctor --for` does). The flow both share is src/cmd/for.c; the
 * consumers' rules are configs/consumers/<id>.yaml. */
#include <getopt.h>
#include <stdlib.h>

#include "cmd/cli.h"

static int parse_install(int argc, char **argv, struct for_args *a)
{
	int c;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "install")) != -1) {
		switch (c) {
		case 'c': a->consumer_id = optarg; break;
		case 'i': a->from = optarg; break;
		case 'V': a->cversion = optarg; break;
		case 'f': a->fiv = optarg; break;
		case 's': a->sm_s = optarg; break;
		case 'm': a->model_path = optarg; break;
		case 'H': a->hf = optarg; break;
		case 'T': a->tdtype = optarg; break;
		case 'Q': a->quant = optarg; break;
		case 'b': a->backend = optarg; break;
		case 't': a->tp_s = optarg; break;
		case 'p': a->pp_s = optarg; break;
		case 'd': a->dp_s = optarg; break;
		case 'a': a->adp_s = optarg; break;
		case 'e': a->ep_s = optarg; break;
		case 'k': a->skip = optarg; break;
		case 'C': a->cache_dir = optarg; break;
		case 'F': a->cache_file = optarg; break;
		case 'M': a->meta_mode = optarg; break;
		case 'P': a->python = optarg; break;
		case 'G': a->model_config = optarg; break;
		case 'D': a->device = optarg; break;
		case 'o': a->outdir = optarg; break;
		case 'R': a->profile = 1; break;
		case 'x': a->force = 1; break;
		case 'r': a->replace = 1; break;
		case 'w': a->write_fallbacks = 1; break;
		case 'n': a->dry = 1; break;
		case 'K': a->check = 1; break;
		case 'j': a->json = 1; break;
		case 'q': a->quiet = 1; break;
		case ':': return cli_usage_error("install", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("install", "unknown option '%s'%s", argv[optind - 1],
						cli_stamp_hint(argv[optind - 1]));
		}
	}
	return cli_for_check(a, argc, argv, optind);
}

int cmd_install(int argc, char **argv)
{
	struct for_args a = { .cmd = "install" };
	int rc = parse_install(argc, argv, &a);
	return rc ? rc : cli_for_run(&a, argc, argv);
}
