/* shape.c: the MoE runner's shape of a deployment, the input of every key (shape.h). */
#include "deployment/shape.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

int shape_build(const struct tt_data *data, const struct dtype_set *dtypes,
		const struct shape_args *a,
		int sm, const struct fi_rules *rules, struct deployment *dep,
		struct model_profile **own_model, struct diags *d)
{
	const struct model_profile *model = NULL;
	int rc;
	*own_model = NULL;
	if (a->model_profile) {
		model = a->model_profile;
	} else if (a->model) {
		if (str_ends(a->model, ".yaml")) {
			if ((rc = model_load_file(a->model, own_model, d)))
				return rc;
			model = *own_model;
		} else if (!(model = model_find(&data->models, a->model))) {
			const char *near[3];
			size_t k = model_nearest(&data->models, a->model, near, 3);
			char *nt = nearest_text(near, k);
			rc = diag_error(d, TT_INVALID, "model", NULL, 0, 0, "no model '%s'%s (see "
					"'tunetab models')", a->model, nt);
			free(nt);
			return rc;
		}
	}
	const struct dtype_info *dti = dtypes_find(dtypes, dtype_name(a->dt));
	if (!dti)
		return diag_error(d, TT_INVALID, "dtype", NULL, 0, 0, "configs/dtypes.yaml does not "
				  "describe '%s'", dtype_name(a->dt));
	const struct weight_view *wv = dtype_weight_view(dti, a->weight_view);
	if (!wv)
		return diag_error(d, TT_USAGE, DIAG_SHOW_USAGE, NULL, 0, 0, "dtype %s has no weight view '%s'",
				  dti->name, a->weight_view);
	if (model && model->fp8_block && a->dt == DT_FP8)
		diags_add(d, SEV_WARNING, "dtype", NULL, 0, 0, "%s's FP8 checkpoint is "
			  "block-scaled: servers run it as fp8_block (bf16 input, "
			  "use_deepseek_fp8_block_scale), whose keys share none with --dtype fp8's (for a "
			  "per-tensor re-quantized checkpoint); give --dtype fp8_block, or derive it from "
			  "the server's command (--for CONSUMER -- LAUNCH)", model->name);
	int unknown_view;
	const struct weight_view *iv = dtype_input_view(dti, a->input_view, &unknown_view);
	if (unknown_view)
		return diag_error(d, TT_USAGE, DIAG_SHOW_USAGE, NULL, 0, 0, "dtype %s has no input view "
				  "'%s'%s", dti->name, a->input_view, dti->input_views_count ? ""
				  : " (it has only its default input)");
	*dep = (struct deployment){
		.iv = iv, .out_torch = a->runner.out_torch,
		.model_name = model ? model->name : "(keys)",
		.hidden = model ? (long)model->hidden_size : 0,
		.inter_total = model ? (long)model->moe_intermediate_size : 0,
		.experts_total = a->experts ? a->experts : model ? (long)model->routed_experts : 0,
		.top_k = a->runner.top_k ? a->runner.top_k : model ? (long)model->top_k : 8,
		.activation = model ? model->activation : ACT_SWIGLU,
		.biases = a->model_profile && a->biases >= 0 ? a->biases != 0
			  : model && model->activation == ACT_SWIGLU_BIAS,
		.tp = a->runner.tp, .ep = a->runner.ep, .tp_rank = a->runner.tp_rank,
		.ep_rank = a->runner.ep_rank,
		.dt = dti, .dtype = a->dt, .wv = wv, .sm = sm,
		.fused_finalize = a->runner.fused_finalize,
		.max_tokens = (unsigned)(a->runner.max_tokens ? a->runner.max_tokens
					 : (long)rules->buckets.default_max_tokens),
	};
	/* the flags against the model (#48): before any heuristic runs */
	char why[200];
	if (model_sizes_problem(dep->hidden, dep->inter_total, dep->experts_total, dep->top_k, why,
				sizeof why))
		return diag_error(d, TT_USAGE, DIAG_SHOW_USAGE, NULL, 0, 0, "%s (model %s%s)", why,
				  dep->model_name, a->runner.top_k ? ", --top-k given" : "");
	return TT_OK;
}

int server_shape_args(const struct serve_deployment *s, const struct model_profile *m,
		      long tp_rank, long ep_rank, struct shape_args *a, struct diags *d)
{
	enum dtype dt;
	if (dtype_parse(s->dtype, &dt))
		return diag_error(d, TT_SCRIPT, "script", NULL, 0, 0, "resolve() named dtype '%s', which "
				  "tunetab does not know", s->dtype);
	*a = (struct shape_args){
		.cmd = "install", .model_profile = m, .biases = s->biases,
		.input_view = s->input_view, .dt = dt,
		.runner = { .out_torch = s->torch_dtype, .tp = s->runner_tp, .ep = s->runner_ep,
			    .tp_rank = tp_rank, .ep_rank = ep_rank, .max_tokens = (unsigned)s->max_tokens,
			    .fused_finalize = s->fused_finalize },
	};
	return TT_OK;
}

int server_moe_keys(const struct tt_data *data, const struct serve_deployment *s,
		    const struct fi_rules *rules, long tp_rank, long ep_rank,
		    struct lookup_list *keys, struct diags *d)
{
	memset(keys, 0, sizeof *keys);
	struct model_profile m;
	struct shape_args a;
	struct deployment dep;
	struct model_profile *own = NULL; /* stays NULL: the model is m */
	int rc = serve_model_profile(s, &m, d);
	if (!rc)
		rc = server_shape_args(s, &m, tp_rank, ep_rank, &a, d);
	if (!rc)
		rc = shape_build(data, data->dtypes, &a, s->sm, rules, &dep, &own, d);
	if (!rc)
		rc = lookup_deploy(rules, &dep, keys, d);
	return rc;
}
