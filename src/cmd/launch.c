/* launch.c: the server's launch command after '--', shared by generate, install and doctor
 * (--for CONSUMER -- COMMAND...): the deployment derived from it (deploy/serve.h) and what
 * the user hears of that derivation. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "base/util.h"

bool cli_launch_words(int argc, char **argv, int optind_, struct serve_request *q)
{
	if (optind_ < 1 || optind_ > argc || strcmp(argv[optind_ - 1], "--"))
		return false;
	q->words = argv + optind_;
	q->nwords = (size_t)(argc - optind_);
	return true;
}

int cli_launch_derive(const struct tt_data *data, const struct serve_request *q,
		      struct serve_deployment *s, bool quiet)
{
	struct diags d = DIAGS_INIT;
	int rc = serve_derive(q, data->root, &data->devices, s, &d);
	cli_print_diags(&d);
	diags_release(&d);
	if (!rc && !quiet)
		cli_launch_print(s, stderr);
	return rc;
}

void cli_launch_print(const struct serve_deployment *s, FILE *f)
{
	const struct hf_model *m = &s->model;
	fprintf(f, "tunetab: %s %s (%s), FlashInfer %s (%s), %s (SM%d)\n", s->consumer_name,
		s->consumer_version, s->consumer_version_from, s->flashinfer, s->flashinfer_from,
		s->device, s->sm);
	fprintf(f, "tunetab: model %s: %s (%s, %s): %ld experts, top-%ld, hidden %ld, expert "
		"intermediate %ld, %s%s; %s\n", s->model_path, m->model_type, s->hf_config_class,
		m->config_path, m->experts, m->top_k, m->hidden, m->inter, m->activation,
		m->biases ? " with biases" : "", m->quantized ? m->quant_method : "not quantized");
	fprintf(f, "tunetab: server: TP %ld PP %ld DP %ld (attention DP %ld, MoE EP %ld), %s, "
		"quantization %s, MoE runner backend %s\n", s->tp, s->pp, s->dp, s->attn_dp, s->moe_ep,
		s->torch_dtype, s->quantization, s->moe_runner_backend);
	char mt[24];
	snprintf(mt, sizeof mt, "%ld", s->max_tokens);
	if (s->tunes && s->moe_unknown)
		fprintf(f, "tunetab: FlashInfer's CUTLASS MoE as the server builds it: cannot tell: "
			"%s\n", s->moe_unknown);
	else if (s->tunes)
		fprintf(f, "tunetab: FlashInfer's CUTLASS MoE as the server builds it: %s%s%s, %s%s, "
			"tp_size %ld, ep_size %ld, use_fused_finalize %s (%s), token buckets up to %s\n",
			s->dtype, s->input_view ? " with its input as " : "",
			s->input_view ? s->input_view : "", s->activation,
			s->biases ? " with biases" : "", s->runner_tp, s->runner_ep,
			s->fused_finalize ? "on" : "off", s->fused_finalize_from, mt);
	else
		fprintf(f, "tunetab: the server does not tune FlashInfer's CUTLASS MoE at start: %s\n",
			s->why_not);
	for (size_t i = 0; i < s->nops; i++) {
		const struct op_use *o = &s->ops[i];
		if (o->tunes && o->unknown)
			fprintf(f, "tunetab: it also tunes %s (%s) at start; tunetab cannot tell its "
				"keys: %s\n", o->op, o->runner, o->why ? o->why : "");
		else if (o->tunes)
			fprintf(f, "tunetab: it also tunes %s (%s) at start: %zu call%s, %s\n", o->op,
				o->runner, o->ncalls, o->ncalls == 1 ? "" : "s", o->from ? o->from : "");
		else
			fprintf(f, "tunetab: it does not tune %s (%s) at start: %s\n", o->op, o->runner,
				o->why);
	}
	for (size_t i = 0; i < s->nnotes; i++)
		fprintf(f, "tunetab: note: %s\n", s->notes[i]);
}

char *cli_launch_fix(const char *consumer, const struct serve_request *q, const char *cache_dir,
		     const char *extra)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "tunetab install --for %s", consumer);
	const char *opts[][2] = { { "--device", q->device }, { "--python", q->python },
				  { "--consumer-version", q->consumer_version },
				  { "--flashinfer", q->flashinfer },
				  { "--model-config", q->model_config }, { "--cache-dir", cache_dir } };
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (opts[i][1] && strcmp(opts[i][1], "auto")) {
			sb_addf(&sb, " %s ", opts[i][0]);
			sb_add_shell(&sb, opts[i][1]);
		}
	if (extra)
		sb_addf(&sb, " %s", extra);
	sb_adds(&sb, " --");
	for (size_t i = 0; i < q->nwords; i++) {
		sb_addc(&sb, ' ');
		sb_add_shell(&sb, q->words[i]);
	}
	return sb_detach(&sb);
}

/* The generated table's summary and the generate run's lines and diagnostics, on stderr. */
struct gen_ctx {
	char *json;   /* the JSON cache written */
	bool temp;    /* into a temporary folder: its paths are not for the user */
	bool quiet;   /* install -q: errors and warnings only */
};

static void gen_table(void *ctx, const struct generate_result *r)
{
	struct gen_ctx *g = ctx;
	if (r->written[1])
		g->json = xstrdup(r->written[1]);
	if (g->quiet)
		return;
	struct strbuf sb = STRBUF_INIT;
	generate_summary(r, &sb);
	if (!g->temp) /* a temporary table's paths are not for the user: install says where it wrote */
		generate_written(r, &sb);
	fputs(sb.buf ? sb.buf : "", stderr);
	sb_release(&sb);
}

static void gen_line(void *ctx, const char *text)
{
	const struct gen_ctx *g = ctx;
	if (!g->quiet)
		fprintf(stderr, "%s\n", text);
}

static void gen_diag(void *ctx, const struct diag *x)
{
	const struct gen_ctx *g = ctx;
	struct diags one = { (struct diag *)x, 1, 1 };
	cli_print_diags_quiet(&one, g->quiet);
}

int cli_launch_generate(struct tt_data *data, const struct serve_deployment *s, bool profile,
			const char *outdir, bool quiet, char **json)
{
	*json = NULL;
	char *tmp = NULL;
	if (!outdir) {
		char tmpl[] = "/tmp/tunetab-install.XXXXXX";
		if (!mkdtemp(tmpl))
			return cli_error(TT_INTERNAL, "cannot make a temporary folder: %s", strerror(errno));
		outdir = tmp = xstrdup(tmpl);
	}
	struct model_profile m;
	struct diags d = DIAGS_INIT;
	int rc = serve_model_profile(s, &m, &d);
	struct generate_request o = { .profile = profile,
				      .command = "tunetab install (its launch command's table)" };
	generate_request_defaults(&o);
	o.format = "json";
	generate_request_from_server(s, &m, &o);
	/* where the version's keys carry the MoE rank, the keys of every rank (a no-op
	 * elsewhere): each rank file holds them all, so the files stay alike */
	o.tp_rank_all = o.ep_rank_all = true;
	struct gen_ctx g = { NULL, tmp != NULL, quiet };
	struct generate_hooks hooks = { &g, gen_line, gen_diag, NULL, gen_table, cli_script_print };
	struct generate_session S;
	memset(&S, 0, sizeof S);
	S.gpu_ids[S.ngpu_ids++] = 0;
	struct shard sh = { .index = 0, .count = 1 };
	if (!rc)
		rc = generate_session_init(&S, data, &hooks, &d);
	if (!rc)
		rc = generate_table(&o, &S, &sh, outdir, &d);
	generate_session_release(&S);
	cli_print_diags_quiet(&d, quiet);
	diags_release(&d);
	if (!rc && !g.json)
		rc = cli_error(TT_INTERNAL, "generate wrote no JSON cache");
	*json = g.json;
	if (rc && tmp) {
		cli_launch_generated_release(NULL, *json);
		*json = NULL;
		/* the folder itself */
		rmdir(tmp);
	}
	free(tmp);
	return rc;
}

void cli_launch_generated_release(const char *outdir, char *json)
{
	if (json && !outdir) { /* the generated tables were only the way here */
		char *dir = xstrdup(json);
		char *slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			DIR *dh = opendir(dir);
			struct dirent *de;
			while (dh && (de = readdir(dh)))
				if (de->d_name[0] != '.') {
					char *f = xasprintf("%s/%s", dir, de->d_name);
					unlink(f);
					free(f);
				}
			if (dh)
				closedir(dh);
			rmdir(dir);
		}
		free(dir);
	}
	free(json);
}
