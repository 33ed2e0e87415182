/* cli.c: shared CLI helpers (printing, data loading, version selection). */
#include "cmd/cli.h"
#include "inspect/doctor.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datadir.h"
#include "base/util.h"

int cli_error(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("tunetab: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return status;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("tunetab: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("tunetab: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	const struct cli_command *c = cli_find_command(cmd);
	if (c && c->usage)
		fprintf(stderr, "usage: tunetab %s %s\n", cmd, c->usage);
	return TT_USAGE;
}

int cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			char *sub[] = { "help", argv[0], NULL };
			cmd_help(2, sub);
			return 1;
		}
	}
	return 0;
}

void cli_print_diags(const struct diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct diag *x = &d->v[i];
		fprintf(stderr, "tunetab: %s: ", diag_sev_name(x->sev));
		if (x->file) {
			fputs(x->file, stderr);
			if (x->line)
				fprintf(stderr, ":%d:%d", x->line, x->col);
			fputs(": ", stderr);
		}
		fprintf(stderr, "%s\n", x->msg);
	}
}

int cli_load_data(struct tt_data *data, unsigned parts)
{
	memset(data, 0, sizeof *data);
	data->root = data_dir();
	if (!data->root)
		return cli_error(TT_INTERNAL, "cannot find tunetab's data folder (configs/, schemas/); "
				 "set TUNETAB_DATA_DIR");
	struct diags d = DIAGS_INIT;
	int rc = TT_OK, r;
	char *p;
	if (parts & DATA_DEVICES) {
		p = xasprintf("%s/configs/devices", data->root);
		r = device_load_dir(p, &data->devices, &d);
		if (r > rc)
			rc = r;
		free(p);
	}
	if (parts & DATA_MODELS) {
		p = xasprintf("%s/configs/models", data->root);
		r = model_load_dir(p, &data->models, &d);
		if (r > rc)
			rc = r;
		free(p);
	}
	if (parts & DATA_CATALOGS) {
		p = xasprintf("%s/configs/catalogs/flashinfer", data->root);
		r = catalog_load_dir(p, &data->catalogs, &d);
		if (r > rc)
			rc = r;
		free(p);
	}
	if (parts & DATA_SCHEMAS) {
		p = xasprintf("%s/schemas/flashinfer", data->root);
		r = fischema_load_dir(p, &data->schemas, &d);
		if (r > rc)
			rc = r;
		free(p);
		if (!rc && data->schemas.n == 0)
			rc = diag_error(&d, TT_INTERNAL, "data", NULL, 0, 0,
					"no FlashInfer schema found under '%s/schemas/flashinfer'",
					data->root);
	}
	cli_print_diags(&d);
	diags_release(&d);
	return rc;
}

void cli_release_data(struct tt_data *data)
{
	device_set_release(&data->devices);
	model_set_release(&data->models);
	catalog_set_release(&data->catalogs);
	fischema_set_release(&data->schemas);
	free(data->root);
	data->root = NULL;
}

const char *cli_rel(const struct tt_data *data, const char *path)
{
	size_t n = strlen(data->root);
	if (strncmp(path, data->root, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

int cli_pick_schema(const struct tt_data *data, const char *version, struct fi_version *v,
		    const struct fi_schema **schema, bool announce)
{
	const struct fi_schema *newest = fischema_newest(&data->schemas);
	if (!version) {
		/* the FlashInfer installed here, found as doctor finds it: keys for another
		 * version never hit (issue #15) */
		struct doctor_fi fi;
		struct diags quiet = DIAGS_INIT;
		bool newer = false;
		/* TUNETAB_TEST_IGNORE_INSTALLED: tests that must not depend on this machine */
		bool installed = !getenv("TUNETAB_TEST_IGNORE_INSTALLED") &&
				 doctor_find_flashinfer(NULL, &fi, &quiet) == TT_OK && fi.version[0] &&
				 !version_parse(fi.version, v);
		diags_release(&quiet);
		if (installed && (*schema = fischema_find(&data->schemas, v, &newer))) {
			if (announce)
				fprintf(stderr, "tunetab: note: no --flashinfer given; targeting FlashInfer %s, "
					"installed at %s%s\n", fi.version, fi.pkg,
					newer ? " (newer than every known version: the newest rules apply)" : "");
			return TT_OK;
		}
		if (installed && announce)
			fprintf(stderr, "tunetab: note: the FlashInfer installed at %s (%s) predates "
				"tuning tables\n", fi.pkg, fi.version);
		*schema = newest;
		version_parse(newest->release, v);
		if (announce)
			fprintf(stderr, "tunetab: note: no --flashinfer given; targeting the newest known "
				"release, FlashInfer %s\n", newest->release);
		return TT_OK;
	}
	if (version_parse(version, v))
		return cli_error(TT_USAGE, "'%s' is not a FlashInfer version (want e.g. 0.6.18)",
				 version);
	bool newer;
	*schema = fischema_find(&data->schemas, v, &newer);
	if (!*schema)
		return cli_error(TT_INVALID, "FlashInfer %s predates tuning-table support (the oldest "
				 "known rules start at %s)", version,
				 data->schemas.v[0]->versions.min);
	if (newer)
		cli_warn("FlashInfer %s is newer than every known version; applying the rules of %s "
			 "(FlashInfer %s to below %s)", version, (*schema)->id,
			 (*schema)->versions.min, (*schema)->versions.below);
	return TT_OK;
}

int cli_deploy(const struct tt_data *data, const struct dtype_set *dtypes,
	       const struct deploy_args *a, int sm, const struct fi_schema *schema,
	       struct gen_deploy *dep, struct model_profile **own_model, struct diags *d)
{
	const struct model_profile *model = NULL;
	int rc;
	*own_model = NULL;
	if (a->model) {
		if (str_ends(a->model, ".yaml")) {
			if ((rc = model_load_file(a->model, own_model, d)))
				return rc;
			model = *own_model;
		} else if (!(model = model_find(&data->models, a->model))) {
			const char *near[3];
			size_t k = model_nearest(&data->models, a->model, near, 3);
			char *nt = nearest_text(near, k);
			rc = cli_error(TT_INVALID, "no model '%s'%s (see 'tunetab models')", a->model, nt);
			free(nt);
			return rc;
		}
	}
	const struct dtype_info *dti = dtypes_find(dtypes, dtype_name(a->dt));
	if (!dti)
		return cli_error(TT_INVALID, "configs/dtypes.yaml does not describe '%s'", dtype_name(a->dt));
	const struct weight_view *wv = dtype_weight_view(dti, a->weight_view);
	if (!wv)
		return cli_usage_error(a->cmd, "dtype %s has no weight view '%s'", dti->name, a->weight_view);
	*dep = (struct gen_deploy){
		.model_name = model ? model->name : "(keys)",
		.hidden = model ? (long)model->hidden_size : 0,
		.inter_total = model ? (long)model->moe_intermediate_size : 0,
		.experts_total = model ? (long)model->routed_experts : 0,
		.top_k = a->top_k ? a->top_k : model ? (long)model->top_k : 8,
		.activation = model ? model->activation : ACT_SWIGLU,
		.biases = model && model->activation == ACT_SWIGLU_BIAS,
		.tp = a->tp, .ep = a->ep, .tp_rank = a->tp_rank, .ep_rank = a->ep_rank,
		.dt = dti, .dtype = a->dt, .wv = wv, .sm = sm,
		.no_fused_finalize = a->no_fused_finalize,
		.max_tokens = (unsigned)(a->max_tokens ? a->max_tokens
					 : (long)schema->buckets.default_max_tokens),
	};
	return TT_OK;
}

char *cli_command_line(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "tunetab");
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool plain = *a != '\0';
		for (const char *p = a; *p && plain; p++)
			plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				       "-_./=,:+@%", *p) != NULL;
		sb_addc(&sb, ' ');
		if (plain) {
			sb_adds(&sb, a);
			continue;
		}
		sb_addc(&sb, '\'');
		for (const char *p = a; *p; p++) {
			if (*p == '\'')
				sb_adds(&sb, "'\\''");
			else if (*p == '\n')
				sb_adds(&sb, "'$'\\n''");
			else
				sb_addc(&sb, *p);
		}
		sb_addc(&sb, '\'');
	}
	return sb_detach(&sb);
}

json_t *cli_tactic_json(const struct tactic *x)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(x->id));
	json_object_set_new(o, "local", json_integer(x->local));
	json_object_set_new(o, "m", json_integer(x->m));
	json_object_set_new(o, "n", json_integer(x->n));
	json_object_set_new(o, "k_bytes", json_integer(x->k_bytes));
	json_object_set_new(o, "k_elements", json_integer(x->k_elems));
	json_object_set_new(o, "style", json_string(x->sm80_style ? "sm80" : "tma_ws"));
	if (!x->sm80_style) {
		json_object_set_new(o, "cluster", json_pack("[iii]", x->cluster[0], x->cluster[1],
							    x->cluster[2]));
		json_object_set_new(o, "mma", json_string(x->mma == MMA_2SM ? "2sm" : "1sm"));
		json_object_set_new(o, "epilogue",
				    json_string(x->epilogue == EPI_NO_SMEM ? "no_smem" : "tma"));
	} else {
		json_object_set_new(o, "warp", json_pack("[iii]", x->warp[0], x->warp[1], x->warp[2]));
		json_object_set_new(o, "stages", json_integer(x->stages));
	}
	if (x->static_cluster)
		json_object_set_new(o, "dyn_cluster", json_string("static"));
	else if (x->dyn_cluster[0])
		json_object_set_new(o, "dyn_cluster",
				    json_pack("{s:[iii], s:[iii]}", "shape", x->dyn_cluster[0],
					      x->dyn_cluster[1], x->dyn_cluster[2], "fallback",
					      x->fallback[0], x->fallback[1], x->fallback[2]));
	json_object_set_new(o, "sm_version", json_integer(x->sm_version));
	json_object_set_new(o, "swap_ab", json_boolean(x->swap_ab));
	json_object_set_new(o, "tokens_on_n", json_boolean(x->tokens_on_n));
	json_object_set_new(o, "finalize", json_boolean(x->finalize));
	json_object_set_new(o, "dispatchable", json_boolean(x->dispatchable));
	if (x->note)
		json_object_set_new(o, "note", json_string(x->note));
	return o;
}
