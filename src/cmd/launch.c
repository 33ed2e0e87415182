/* launch.c: the server's launch command after '--', shared by generate, install and doctor
 * (--for CONSUMER -- COMMAND...): the deployment derived from it (deploy/serve.h) and what
 * the user hears of that derivation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (s->tunes)
		fprintf(f, "tunetab: FlashInfer's CUTLASS MoE as the server builds it: %s%s%s, %s%s, "
			"tp_size %ld, ep_size %ld, use_fused_finalize %s (%s), token buckets up to "
			"%ld\n", s->dtype, s->input_view ? " with its input as " : "",
			s->input_view ? s->input_view : "", s->activation,
			s->biases ? " with biases" : "", s->runner_tp, s->runner_ep,
			s->fused_finalize ? "on" : "off", s->fused_finalize_from, s->max_tokens);
	else
		fprintf(f, "tunetab: the server does not tune FlashInfer's CUTLASS MoE at start: %s\n",
			s->why_not);
	for (size_t i = 0; i < s->nnotes; i++)
		fprintf(f, "tunetab: note: %s\n", s->notes[i]);
}

void cli_launch_request(const struct serve_deployment *s, const struct model_profile *m,
			struct generate_request *o)
{
	o->device = s->device;
	o->model_profile = m;
	o->biases = s->biases;
	o->dtype = s->dtype;
	o->input_view = s->input_view;
	o->out_torch = s->torch_dtype;
	o->tp = s->runner_tp;
	o->ep = s->runner_ep;
	o->flashinfer = s->flashinfer;
	o->max_tokens = s->max_tokens;
	o->no_fused_finalize = !s->fused_finalize;
}

int cli_launch_keys(const struct tt_data *data, const struct serve_deployment *s,
		    struct lookup_list *keys, const struct fi_rules **rules)
{
	memset(keys, 0, sizeof *keys);
	struct fi_version fv;
	int rc = cli_pick_schema(data, s->flashinfer, &fv, rules, false);
	if (rc)
		return rc;
	struct diags d = DIAGS_INIT;
	struct model_profile m;
	struct dtype_set *dtypes = NULL;
	char *path = xasprintf("%s/configs/dtypes.yaml", data->root);
	enum dtype dt;
	if (!(rc = serve_model_profile(s, &m, &d)) && !(rc = dtypes_load(path, &dtypes, &d))) {
		if (dtype_parse(s->dtype, &dt))
			rc = diag_error(&d, TT_SCRIPT, "script", NULL, 0, 0, "resolve() named dtype '%s', "
					"which tunetab does not know", s->dtype);
	}
	struct deployment dep;
	if (!rc) {
		struct generate_request o = { 0 };
		cli_launch_request(s, &m, &o); /* the request generate --for gets */
		struct deploy_args a = generate_deploy_args(&o, dt, "install");
		struct model_profile *own = NULL; /* stays NULL: the model is m */
		rc = generate_deploy(data, dtypes, &a, s->sm, *rules, &dep, &own, &d);
	}
	if (!rc)
		rc = lookup_deploy(*rules, &dep, keys, &d);
	cli_print_diags(&d);
	diags_release(&d);
	dtypes_free(dtypes);
	free(path);
	return rc;
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
