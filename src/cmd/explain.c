/* explain.c: `tunetab explain` (what each entry means) and `tunetab diff` (what changed
 * between two tables), decoded against a FlashInfer version and device (flashinfer/explain.h),
 * printed as text or, with --json, as one JSON document. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "base/util.h"
#include "flashinfer/explain.h"

static int parse_common(int argc, char **argv, const char *cmd, struct validate_opts *vo,
			int nfiles, bool *json)
{
	int c;
	opterr = 0;
	optind = 1;
	vo->dtype = -1;
	while ((c = cli_getopt(argc, argv, cmd)) != -1) {
		switch (c) {
		case 'f': vo->flashinfer = optarg; break;
		case 'd': vo->device = optarg; break;
		case 't': {
			enum dtype dt;
			if (dtype_parse(optarg, &dt))
				return cli_usage_error(cmd, "unknown dtype '%s'", optarg);
			vo->dtype = (int)dt;
			break;
		}
		case 'j': *json = true; break;
		default: return cli_usage_error(cmd, "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != nfiles)
		return cli_usage_error(cmd, "want %d file%s", nfiles, nfiles == 1 ? "" : "s");
	return TT_OK;
}

/* Opens a table for explain or diff; prints why it cannot, or the notes it has. */
static int open_table(const struct tt_data *data, const char *path, const struct validate_opts *vo,
		      bool json, struct explain_target *tg, json_t *notes)
{
	struct validate_data vd = { &data->devices, &data->catalogs, &data->rules, &data->ops };
	struct diags d = DIAGS_INIT;
	int rc = explain_open(&vd, path, vo, tg, &d);
	if (rc) {
		cli_print_diags(&d);
		explain_target_release(tg);
	}
	for (size_t i = 0; !rc && i < d.n; i++)
		if (json)
			json_array_append_new(notes, json_string(d.v[i].msg));
		else
			printf("note: %s\n", d.v[i].msg);
	diags_release(&d);
	return rc;
}

/* A string from bytes that need not be UTF-8: null when they are not. */
static json_t *jstr(const char *s, size_t n)
{
	json_t *v = json_stringn(s, n);
	return v ? v : json_null();
}

/* The same as explain_describe, as a JSON object; the key as stored, status a word. */
static json_t *entry_json(const struct explain_entry *x)
{
	static const char *const status[] = {
		[EXPLAIN_OK] = "ok", [EXPLAIN_BAD_KEY] = "unreadable-key",
		[EXPLAIN_NOT_MOE] = "not-moe", [EXPLAIN_BAD_VALUE] = "unreadable-value",
		[EXPLAIN_FALLBACK] = "fallback", [EXPLAIN_NO_CATALOG] = "no-catalog",
		[EXPLAIN_OUT_OF_RANGE] = "out-of-range",
	};
	json_t *o = json_object();
	json_object_set_new(o, "line", json_integer(x->e->line));
	json_object_set_new(o, "key", jstr(x->e->key, x->e->key_len));
	json_object_set_new(o, "status", json_string(status[x->status]));
	if (x->status == EXPLAIN_BAD_KEY)
		return o;
	json_object_set_new(o, "stage", jstr(x->stage, strlen(x->stage)));
	if (x->status == EXPLAIN_NOT_MOE) {
		json_object_set_new(o, "why", jstr(x->why, strlen(x->why)));
		return o;
	}
	json_t *dts = json_array();
	for (int i = 0; i < x->ndtypes; i++)
		json_array_append_new(dts, json_string(dtype_name(x->dtypes[i])));
	json_object_update_new(o, json_pack("{s:I, s:I, s:I, s:I, s:b, s:o, s:i, s:i}", "tokens",
					    (json_int_t)x->tokens, "hidden", (json_int_t)x->hidden,
					    "experts", (json_int_t)x->experts, "inter",
					    (json_int_t)x->inter, "gated", x->gated, "dtypes", dts,
					    "act_pack", x->act_pack, "weight_pack", x->w_pack));
	if (x->status == EXPLAIN_BAD_VALUE)
		return o;
	json_object_set_new(o, "tactic", json_integer(x->tactic));
	if (x->status == EXPLAIN_OK)
		json_object_set_new(o, "config", cli_tactic_json(x->t));
	return o;
}

/* The table's file and target, as explain's first line says them. */
static json_t *target_json(const char *path, const struct explain_target *tg)
{
	const char *dev = tg->r.device_name;
	return json_pack("{s:o, s:I, s:s, s:s, s:o, s:o, s:s}", "file", jstr(path, strlen(path)),
			 "entry_count", (json_int_t)tg->t.n, "flashinfer_version", tg->r.version,
			 "version_from", tg->r.version_from,
			 "device", dev[0] ? jstr(dev, strlen(dev)) : json_null(),
			 "sm", tg->r.device ? json_integer(device_sm(tg->r.device)) : json_null(),
			 "tactic_numbering", numbering_name(tg->r.rules->tactics.numbering));
}

static void print_json(json_t *o)
{
	cli_print_json(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
}

static json_t *us_or_null(double us)
{
	return us >= 0 ? json_real(us) : json_null();
}

/* The layer's tactic pairs (explain.h explain_pairs), as JSON. */
static json_t *pairs_json(const struct explain_pairs *ep)
{
	json_t *loads = json_array(), *buckets = json_array(), *cost = json_object();
	for (size_t l = 0; l < ep->nloads; l++) {
		json_array_append_new(loads, json_string(ep->loads[l]));
		double c = explain_pairs_cost(ep, l);
		json_object_set_new(cost, ep->loads[l], c >= -1 ? json_real(c) : json_null());
	}
	for (size_t i = 0; i < ep->n; i++) {
		const struct explain_pair_bucket *b = &ep->v[i];
		json_t *cu = json_array(), *gu = json_array(), *rg = json_array();
		for (size_t l = 0; l < ep->nloads; l++) {
			json_array_append_new(cu, us_or_null(b->chosen_us[l]));
			json_array_append_new(gu, us_or_null(b->per_gemm_us[l]));
			json_array_append_new(rg, us_or_null(b->regret[l]));
		}
		json_array_append_new(buckets, json_pack(
			"{s:I, s:o, s:[i,i], s:o, s:o, s:o}", "tokens", (json_int_t)b->tokens, "chosen",
			b->chosen[0] >= 0 ? json_pack("[i,i]", b->chosen[0], b->chosen[1]) : json_null(),
			"per_gemm", b->per_gemm[0], b->per_gemm[1], "chosen_us", cu, "per_gemm_us", gu,
			"regret", rg));
	}
	return json_pack("{s:s, s:o, s:o, s:o}", "provenance", ep->provenance, "loads", loads,
			 "cost_over_per_gemm", cost, "buckets", buckets);
}

/* The layer's tactic pairs of a profiled run, from the provenance file beside the table. */
static void print_pairs(const char *path)
{
	struct explain_pairs ep;
	explain_pairs_read(path, &ep);
	if (!ep.n) {
		explain_pairs_release(&ep);
		return;
	}
	printf("\nrouting: each bucket's (GEMM1, GEMM2) pair chosen with the whole MoE layer as the "
	       "judge (%s)\n  tokens  chosen     per-GEMM  ", ep.provenance);
	for (size_t l = 0; l < ep.nloads; l++)
		printf("  %-22s", ep.loads[l]);
	printf("\n%50s", "");
	for (size_t l = 0; l < ep.nloads; l++)
		printf("  %-22s", "us chosen/per-GEMM");
	printf("\n");
	for (size_t i = 0; i < ep.n; i++) {
		const struct explain_pair_bucket *b = &ep.v[i];
		char c[24] = "none", g[24];
		if (b->chosen[0] >= 0)
			snprintf(c, sizeof c, "%d,%d", b->chosen[0], b->chosen[1]);
		snprintf(g, sizeof g, "%d,%d", b->per_gemm[0], b->per_gemm[1]);
		printf("  %-6lld  %-9s  %-9s%s", b->tokens, c, g,
		       b->chosen[0] == b->per_gemm[0] && b->chosen[1] == b->per_gemm[1] ? "   " : " * ");
		for (size_t l = 0; l < ep.nloads; l++) {
			char cell[64];
			snprintf(cell, sizeof cell, "%.2f/%.2f", b->chosen_us[l], b->per_gemm_us[l]);
			printf("  %-22s", cell);
		}
		printf("\n");
	}
	printf("  (* the pair differs from the per-GEMM choice)\n  the choice against the "
	       "per-GEMM pairs, geomean over the buckets:");
	for (size_t l = 0; l < ep.nloads; l++) {
		double c = explain_pairs_cost(&ep, l);
		if (c >= -1)
			printf("%s %s %+.2f%%", l ? ";" : "", ep.loads[l], 100 * c);
	}
	printf(" (the cost under %s is what robustness costs there)\n",
	       ep.nloads ? ep.loads[0] : "balanced");
	explain_pairs_release(&ep);
}

int cmd_explain(int argc, char **argv)
{
	struct validate_opts vo = { 0 };
	bool json = false;
	int rc = parse_common(argc, argv, "explain", &vo, 1, &json);
	if (rc)
		return rc;
	struct tt_data data;
	if ((rc = cli_load_data(&data, DATA_DEVICES | DATA_CATALOGS | DATA_SCHEMAS | DATA_OPS)))
		return rc;
	const char *path = argv[optind];
	struct explain_target tg;
	json_t *notes = json_array();
	if ((rc = open_table(&data, path, &vo, json, &tg, notes))) {
		json_decref(notes);
		cli_release_data(&data);
		return rc;
	}
	struct arena a = ARENA_INIT;
	struct explain_result r;
	explain_table(&tg, &a, &r);
	if (json) {
		json_t *doc = target_json(path, &tg);
		json_object_set(doc, "notes", notes);
		json_t *entries = json_array(), *cov = json_array();
		for (size_t i = 0; i < r.n; i++)
			json_array_append_new(entries, entry_json(&r.entries[i]));
		for (size_t f = 0; f < r.nfamilies; f++) {
			json_t *b = json_array();
			for (size_t j = 0; j < r.families[f].n; j++) {
				long long *v = r.families[f].buckets[j];
				json_array_append_new(b, json_pack("{s:I, s:o}", "tokens", (json_int_t)v[0],
								   "tactic", v[1] == -2 ? json_null()
										     : json_integer(v[1])));
			}
			json_array_append_new(cov, json_pack("{s:s, s:o}", "family", r.families[f].name,
							     "buckets", b));
		}
		json_object_set_new(doc, "entries", entries);
		json_object_set_new(doc, "coverage", cov);
		struct explain_pairs ep;
		explain_pairs_read(path, &ep);
		if (ep.n)
			json_object_set_new(doc, "routing", pairs_json(&ep));
		explain_pairs_release(&ep);
		print_json(doc);
	} else {
		printf("%s: %zu entries; FlashInfer %s (%s), device %s\n", path, tg.t.n, tg.r.version,
		       tg.r.version_from, tg.r.device_name[0] ? tg.r.device_name : "unknown");
		if (tg.r.device)
			printf("  SM%u, tactic numbering %s\n", device_sm(tg.r.device),
			       numbering_name(tg.r.rules->tactics.numbering));
		struct strbuf line = STRBUF_INIT;
		for (size_t i = 0; i < r.n; i++) {
			sb_reset(&line);
			explain_describe(&r.entries[i], &line);
			printf("%5d  %s\n", r.entries[i].e->line, line.buf);
		}
		sb_release(&line);
		printf("\ncoverage per shape family (token bucket:tactic):\n");
		for (size_t f = 0; f < r.nfamilies; f++) {
			printf("  %s:", r.families[f].name);
			for (size_t j = 0; j < r.families[f].n; j++) {
				long long *v = r.families[f].buckets[j];
				printf(v[1] == -2 ? " %lld:?" : " %lld:%lld", v[0], v[1]);
			}
			printf("\n");
		}
		print_pairs(path);
	}
	json_decref(notes);
	explain_result_release(&r);
	arena_release(&a);
	explain_target_release(&tg);
	cli_release_data(&data);
	return TT_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct validate_opts vo = { 0 };
	bool json = false;
	int rc = parse_common(argc, argv, "diff", &vo, 2, &json);
	if (rc)
		return rc;
	struct tt_data data;
	if ((rc = cli_load_data(&data, DATA_DEVICES | DATA_CATALOGS | DATA_SCHEMAS | DATA_OPS)))
		return rc;
	struct explain_target ga, gb;
	const char *pa = argv[optind], *pb = argv[optind + 1];
	json_t *notes = json_array();
	if ((rc = open_table(&data, pa, &vo, json, &ga, notes))) {
		json_decref(notes);
		cli_release_data(&data);
		return rc;
	}
	if ((rc = open_table(&data, pb, &vo, json, &gb, notes))) {
		json_decref(notes);
		explain_target_release(&ga);
		cli_release_data(&data);
		return rc;
	}
	struct arena a = ARENA_INIT;
	struct explain_diff r;
	explain_diff(&ga, &gb, &a, &r);
	if (json) {
		json_t *lists[3] = { json_array(), json_array(), json_array() };
		for (size_t i = 0; i < r.n; i++) {
			const struct explain_diff_item *it = &r.v[i];
			json_t *v = it->kind == EXPLAIN_REMOVED ? entry_json(&it->a)
				  : it->kind == EXPLAIN_ADDED   ? entry_json(&it->b)
								 : json_pack("{s:o, s:o}", "was", entry_json(&it->a),
									     "now", entry_json(&it->b));
			json_array_append_new(lists[it->kind], v);
		}
		print_json(json_pack("{s:o, s:o, s:O, s:o, s:o, s:o, s:{s:I, s:I, s:I, s:I}}",
				     "a", target_json(pa, &ga), "b", target_json(pb, &gb), "notes", notes,
				     "removed", lists[EXPLAIN_REMOVED], "changed", lists[EXPLAIN_CHANGED],
				     "added", lists[EXPLAIN_ADDED], "counts",
				     "added", (json_int_t)r.added, "removed", (json_int_t)r.removed,
				     "changed", (json_int_t)r.changed, "unchanged", (json_int_t)r.unchanged));
	} else {
		printf("--- %s (FlashInfer %s, %s)\n+++ %s (FlashInfer %s, %s)\n", pa, ga.r.version,
		       ga.r.device_name[0] ? ga.r.device_name : "device unknown", pb, gb.r.version,
		       gb.r.device_name[0] ? gb.r.device_name : "device unknown");
		struct strbuf la = STRBUF_INIT, lb = STRBUF_INIT;
		for (size_t i = 0; i < r.n; i++) {
			const struct explain_diff_item *it = &r.v[i];
			sb_reset(&la);
			sb_reset(&lb);
			if (it->kind == EXPLAIN_REMOVED) {
				explain_describe(&it->a, &la);
				printf("- %s\n", la.buf);
			} else if (it->kind == EXPLAIN_ADDED) {
				explain_describe(&it->b, &lb);
				printf("+ %s\n", lb.buf);
			} else {
				explain_describe(&it->a, &la);
				explain_describe(&it->b, &lb);
				const char *was = strstr(la.buf, "-> ");
				printf("~ %s\n    was %s\n", lb.buf, was ? was : la.buf);
			}
		}
		printf("%zu added, %zu removed, %zu changed, %zu unchanged\n", r.added, r.removed,
		       r.changed, r.unchanged);
		sb_release(&la);
		sb_release(&lb);
	}
	rc = r.added || r.removed || r.changed ? TT_INVALID : TT_OK;
	json_decref(notes);
	explain_diff_release(&r);
	arena_release(&a);
	explain_target_release(&ga);
	explain_target_release(&gb);
	cli_release_data(&data);
	return rc;
}
