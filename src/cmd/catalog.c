/* cmd_catalog.c: `tunetab catalog`: a decoded tactic candidate list (cutlass-moe-tactics.md §3). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "gpu/gpu.h"
#include "base/util.h"

static void dims(char *buf, size_t n, const int d[3])
{
	if (d[0])
		snprintf(buf, n, "%dx%dx%d", d[0], d[1], d[2]);
	else
		snprintf(buf, n, "-");
}

static void print_stage(const char *title, const struct tactic *t, size_t n)
{
	printf("\n%s\n", title);
	printf("%5s %5s  %-14s %5s %5s  %-7s %-3s  %-13s %-7s %-4s %-3s %-6s %s\n", "ID", "LOCAL",
	       "TILE MxNxK", "K B", "K EL", "CLUSTER", "MMA", "DYN/FALLBACK", "EPI", "SWAP", "FIN",
	       "STAGES", "DISPATCHABLE");
	for (size_t i = 0; i < n; i++) {
		const struct tactic *x = &t[i];
		char tile[32], cl[16], dyn[32], f1[16], f2[16];
		snprintf(tile, sizeof tile, "%dx%dx%d%s", x->m, x->n,
			 x->sm80_style ? x->k_elems : x->k_bytes, x->sm80_style ? "" : "B");
		if (x->sm80_style)
			snprintf(cl, sizeof cl, "-");
		else
			dims(cl, sizeof cl, x->cluster);
		if (x->static_cluster) {
			snprintf(dyn, sizeof dyn, "static");
		} else if (x->dyn_cluster[0]) {
			dims(f1, sizeof f1, x->dyn_cluster);
			dims(f2, sizeof f2, x->fallback);
			snprintf(dyn, sizeof dyn, "%s/%s", f1, f2);
		} else {
			snprintf(dyn, sizeof dyn, "-");
		}
		char stages[8];
		snprintf(stages, sizeof stages, "%d", x->stages);
		printf("%5d %5d  %-14s %5d %5d  %-7s %-3s  %-13s %-7s %-4s %-3s %-6s %s%s%s\n", x->id,
		       x->local, tile, x->k_bytes, x->k_elems, cl,
		       x->sm80_style || x->sm_version < 100 || x->sm_version >= 120 ? "-" : x->mma == MMA_2SM ? "2SM" : "1SM", dyn,
		       x->sm80_style ? "sm80" : x->epilogue == EPI_NO_SMEM ? "no_smem" : "tma",
		       x->swap_ab ? "yes" : x->tokens_on_n ? "T" : "no", x->finalize ? "yes" : "no",
		       x->stages ? stages : "-", x->dispatchable ? "yes" : "no",
		       x->note ? "  # " : "", x->note ? x->note : "");
	}
}

int cmd_catalog(int argc, char **argv)
{
	int json = 0, c;
	const char *device = NULL, *sm_s = NULL, *dtype_s = NULL, *version = NULL, *stage_s = NULL;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "catalog")) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'd': device = optarg; break;
		case 's': sm_s = optarg; break;
		case 't': dtype_s = optarg; break;
		case 'f': version = optarg; break;
		case 'g': stage_s = optarg; break;
		case ':': return cli_usage_error("catalog", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("catalog", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("catalog", "unexpected argument '%s'", argv[optind]);
	if (!device == !sm_s)
		return cli_usage_error("catalog", "give exactly one of --device and --sm");
	if (!dtype_s)
		return cli_usage_error("catalog", "--dtype is required");
	enum dtype dt;
	if (dtype_parse(dtype_s, &dt))
		return cli_usage_error("catalog", "unknown dtype '%s'", dtype_s);
	long stage = 0, sm = 0;
	if (stage_s && (parse_long(stage_s, &stage) || stage < 1 || stage > 2))
		return cli_usage_error("catalog", "--stage must be 1 or 2, not '%s'", stage_s);
	if (sm_s && (parse_long(sm_s, &sm) || sm < 10 || sm > 200))
		return cli_usage_error("catalog", "--sm wants an SM version such as 90 or 120, not '%s'",
				       sm_s);
	struct tt_data data;
	int rc = cli_load_data(&data, DATA_DEVICES | DATA_CATALOGS | DATA_SCHEMAS);
	if (rc)
		return rc;
	struct fi_version v;
	const struct fi_rules *rules;
	rc = cli_pick_schema(&data, version, &v, &rules, true);
	if (rc)
		goto out;
	if (device && !strcmp(device, "auto")) { /* this machine's GPU 0, as generate */
		struct gpu_info *gpus = NULL;
		struct gpu_env env;
		int n;
		char err[512];
		if ((rc = gpu_query(&gpus, &n, &env, err, sizeof err))) {
			rc = cli_error(rc, "--device auto: %s", err);
			goto out;
		}
		sm = gpus[0].cc_major * 10 + gpus[0].cc_minor;
		free(gpus);
	} else if (device) {
		const struct device_profile *p = device_find(&data.devices, device);
		if (!p) {
			const char *near[3];
			size_t k = device_nearest(&data.devices, device, near, 3);
			char *nt = nearest_text(near, k > 2 ? 2 : k);
			rc = cli_error(TT_INVALID, "no profile for '%s'%s", device, nt);
			free(nt);
			goto out;
		}
		sm = device_sm(p);
	}
	const char *vtext = version ? version : rules->release;
	const struct catalog *cat = catalog_find(&data.catalogs, &v, (unsigned)sm, dt);
	if (!cat) {
		rc = cli_error(TT_INVALID, "no tactic catalog for SM%ld %s in FlashInfer %s", sm,
			       dtype_name(dt), vtext);
		goto out;
	}
	struct tactic_list l;
	struct diags d = DIAGS_INIT;
	rc = catalog_expand(cat, &l, &d);
	cli_print_diags(&d);
	diags_release(&d);
	if (rc)
		goto out;
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "catalog", json_string(cat->id));
		json_object_set_new(o, "file", json_string(cli_rel(&data, cat->path)));
		json_object_set_new(o, "flashinfer", json_string(vtext));
		json_object_set_new(o, "rules", json_string(rules->id));
		json_object_set_new(o, "numbering", json_string(numbering_name(rules->tactics.numbering)));
		json_object_set_new(o, "sm", json_integer(sm));
		json_object_set_new(o, "dtype", json_string(dtype_name(dt)));
		json_object_set_new(o, "gemm1_count", json_integer((json_int_t)l.n1));
		json_object_set_new(o, "gemm2_count", json_integer((json_int_t)l.n2));
		json_t *g1 = json_array(), *g2 = json_array();
		for (size_t i = 0; stage != 2 && i < l.n1; i++)
			json_array_append_new(g1, cli_tactic_json(&l.g1[i]));
		for (size_t i = 0; stage != 1 && i < l.n2; i++)
			json_array_append_new(g2, cli_tactic_json(&l.g2[i]));
		json_object_set_new(o, "gemm1", g1);
		json_object_set_new(o, "gemm2", g2);
		cli_print_json(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	} else {
		printf("catalog %s (%s)\n", cat->id, cli_rel(&data, cat->path));
		printf("  FlashInfer %s (rules %s, tactic numbering %s), SM%ld, %s\n", vtext,
		       rules->id, numbering_name(rules->tactics.numbering), sm, dtype_name(dt));
		if (cat->numbering == NUM_SHARED) {
			printf("  one list of %zu shared by GEMM1 and GEMM2: ids 0-%zu; fallback -1 = id 0\n",
			       l.n1, l.n1 - 1);
		} else {
			printf("  GEMM1: %zu candidates, ids 0-%zu; fallback -1 = id 0\n", l.n1, l.n1 - 1);
			printf("  GEMM2: %zu candidates, ids %zu-%zu (absolute); fallback -1 = id %zu%s\n",
			       l.n2, l.n1, l.n1 + l.n2 - 1, l.n1,
			       rules->tactics.numbering == TN_SPLIT_RELATIVE
				       ? "; this version also reads 0-n2 as relative" : "");
		}
		if (cat->default_note)
			printf("  default: %s\n", cat->default_note);
		printf("  SWAP: yes = swap_ab copy (tokens on N); T = transposed list (tokens on N)\n");
		if (cat->numbering == NUM_SHARED)
			print_stage("GEMM1 and GEMM2", l.g1, l.n1);
		else {
			if (stage != 2)
				print_stage("GEMM1", l.g1, l.n1);
			if (stage != 1)
				print_stage("GEMM2", l.g2, l.n2);
		}
	}
	tactic_list_release(&l);
out:
	cli_release_data(&data);
	return rc;
}
