/* cmd_models.c: `tunetab models`: the known MoE model geometries. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"

int cmd_models(int argc, char **argv)
{
	bool json;
	int rc = cli_json_flag(argc, argv, "models", &json);
	if (rc)
		return rc;
	struct tt_data data;
	rc = cli_load_data(&data, DATA_MODELS);
	if (rc)
		return rc;
	if (json) {
		json_t *a = json_array();
		for (size_t i = 0; i < data.models.n; i++) {
			const struct model_profile *m = data.models.v[i];
			json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:i, s:i, s:s}",
					      "id", m->id, "name", m->name, "hidden_size",
					      (int)m->hidden_size, "moe_intermediate_size",
					      (int)m->moe_intermediate_size, "routed_experts",
					      (int)m->routed_experts, "top_k", (int)m->top_k,
					      "shared_experts", (int)m->shared_experts, "activation",
					      model_activation_name(m->activation), "moe_layers",
					      (int)m->moe_layers, "total_layers", (int)m->total_layers,
					      "file", cli_rel(&data, m->path));
			json_array_append_new(a, o);
		}
		cli_print_json(a, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	} else {
		printf("%-20s %-24s %6s %6s %7s %5s %6s %-12s %s\n", "ID", "NAME", "HIDDEN", "INTER",
		       "EXPERTS", "TOPK", "SHARED", "ACTIVATION", "MOE LAYERS");
		for (size_t i = 0; i < data.models.n; i++) {
			const struct model_profile *m = data.models.v[i];
			printf("%-20s %-24s %6u %6u %7u %5u %6u %-12s %u/%u\n", m->id, m->name,
			       m->hidden_size, m->moe_intermediate_size, m->routed_experts, m->top_k,
			       m->shared_experts, model_activation_name(m->activation), m->moe_layers,
			       m->total_layers);
		}
		printf("(%zu models; INTER = per-expert intermediate size)\n", data.models.n);
	}
	cli_release_data(&data);
	return TT_OK;
}
