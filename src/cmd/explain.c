/* cmd_explain.c: `tunetab explain` (what each entry means) and `tunetab diff` (what changed
 * between two tables), decoded against a FlashInfer version and device. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "flashinfer/key.h"
#include "flashinfer/table.h"
#include "base/util.h"
#include "flashinfer/validate.h"

struct target {
	struct validate_result r;
	struct tactic_list lists[DT_COUNT];
	int state[DT_COUNT];
	struct fi_version v;
};

static void target_release(struct target *tg)
{
	for (int i = 0; i < DT_COUNT; i++)
		if (tg->state[i] == 1)
			tactic_list_release(&tg->lists[i]);
}

static const struct tactic_list *target_list(struct target *tg, const struct tt_data *data,
					     enum dtype dt)
{
	if (!tg->r.device)
		return NULL;
	if (!tg->state[dt]) {
		tg->state[dt] = -1;
		const struct catalog *c = catalog_find(&data->catalogs, &tg->v, device_sm(tg->r.device), dt);
		struct diags d = DIAGS_INIT;
		if (c && catalog_expand(c, &tg->lists[dt], &d) == 0)
			tg->state[dt] = 1;
		diags_release(&d);
	}
	return tg->state[dt] == 1 ? &tg->lists[dt] : NULL;
}

/* The decoded meaning of one entry's key and tactic, as one line. */
static void explain_entry(const struct tt_data *data, struct target *tg, const struct table_entry *e,
			  struct arena *a, struct strbuf *out, struct strbuf *family,
			  long long *tokens_out)
{
	struct diags d = DIAGS_INIT;
	const struct pyv *tuple = key_parse(e->key, e->key_len, a, NULL, 0, 0, &d);
	diags_release(&d);
	struct moe_key k;
	if (!tuple || key_decode(tuple, &k)) {
		sb_adds(out, "unreadable key");
		return;
	}
	const char *stage_s = strstr(k.op, "gemm1") ? "gemm1" : strstr(k.op, "gemm2") ? "gemm2" : k.op;
	int stage = !strcmp(stage_s, "gemm1") ? 1 : !strcmp(stage_s, "gemm2") ? 2 : 0;
	key_decode_moe(&k);
	if (!k.moe_ok) {
		sb_addf(out, "%s: %s", stage_s, k.why);
		return;
	}
	enum dtype dts[2];
	int nd = key_dtypes(tg->r.schema, &k, dts);
	sb_addf(out, "%s T=%-5lld hidden %lld, %lld experts x inter %lld%s, %s", stage_s, k.tokens,
		k.hidden, k.e1, k.inter, k.gated ? " (gated: fc1 N = 2 x inter)" : "",
		nd == 0 ? "dtype ?" : nd == 1 ? dtype_name(dts[0]) : "bf16 or fp8");
	sb_addf(out, " (act pack %d, weight pack %d)", k.act_pack, k.w_pack);
	sb_addf(family, "%s E%lld I%lld H%lld", stage_s, k.e1, k.inter, k.hidden);
	*tokens_out = k.tokens;
	if (!e->value_ok || !e->tactic || e->tactic->kind != PV_INT) {
		sb_adds(out, " -> unreadable value");
		return;
	}
	long long id = e->tactic->i;
	sb_addf(out, " -> tactic %lld", id);
	if (id == -1) {
		sb_adds(out, " = fallback (first entry)");
		return;
	}
	const struct tactic_list *l = nd ? target_list(tg, data, dts[0]) : NULL;
	const struct tactic *t = l ? tactic_lookup(l, stage ? stage : 1, (int)id,
						   tg->r.schema->tactics.numbering == TN_SPLIT_RELATIVE)
				   : NULL;
	if (!l) {
		sb_adds(out, " (no catalog for this device/dtype/version)");
	} else if (!t) {
		sb_adds(out, " = OUT OF RANGE");
	} else {
		char dsc[256];
		tactic_describe(t, dsc, sizeof dsc);
		sb_addf(out, " = %s", dsc);
		if (t->tokens_on_n)
			sb_adds(out, " [tokens on N]");
	}
}

static int parse_common(int argc, char **argv, const char *cmd, struct validate_opts *vo,
			int nfiles)
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
		default: return cli_usage_error(cmd, "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != nfiles)
		return cli_usage_error(cmd, "want %d file%s", nfiles, nfiles == 1 ? "" : "s");
	return TT_OK;
}

/* Reads a table and resolves its target; prints read errors. */
static int open_table(const struct tt_data *data, const char *path, const struct validate_opts *vo,
		      struct table *t, struct target *tg)
{
	struct diags d = DIAGS_INIT;
	memset(tg, 0, sizeof *tg);
	int rc = table_read(path, t, &d);
	if (rc) {
		cli_print_diags(&d);
		diags_release(&d);
		table_release(t); /* what the failed read kept (path, text, parse tree) */
		return rc;
	}
	struct validate_data vd = { &data->devices, &data->catalogs, &data->schemas };
	diags_release(&d);
	rc = validate_table(&vd, t, vo, &tg->r, &d);
	if (rc) {
		cli_print_diags(&d);
		diags_release(&d);
		table_release(t);
		return rc;
	}
	version_parse(tg->r.version, &tg->v);
	if (tg->r.never_loaded)
		for (size_t i = 0; i < d.n; i++)
			if (!strcmp(d.v[i].id, "never-loaded"))
				printf("note: %s\n", d.v[i].msg);
	diags_release(&d);
	return TT_OK;
}

struct cov {
	long long (*v)[2];
	size_t n;
};

static int cmp_cov(const void *a, const void *b)
{
	const long long *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

int cmd_explain(int argc, char **argv)
{
	struct validate_opts vo = { 0 };
	int rc = parse_common(argc, argv, "explain", &vo, 1);
	if (rc)
		return rc;
	struct tt_data data;
	if ((rc = cli_load_data(&data, DATA_DEVICES | DATA_CATALOGS | DATA_SCHEMAS)))
		return rc;
	struct table t;
	struct target tg;
	const char *path = argv[optind];
	if ((rc = open_table(&data, path, &vo, &t, &tg))) {
		cli_release_data(&data);
		return rc;
	}
	printf("%s: %zu entries; FlashInfer %s (%s), device %s\n", path, t.n, tg.r.version,
	       tg.r.version_from, tg.r.device_name[0] ? tg.r.device_name : "unknown");
	if (tg.r.device)
		printf("  SM%u, tactic numbering %s\n", device_sm(tg.r.device),
		       numbering_name(tg.r.schema->tactics.numbering));
	struct arena a = ARENA_INIT;
	struct strbuf line = STRBUF_INIT, fam = STRBUF_INIT;
	/* coverage: families in order of appearance with their buckets */
	char **fams = NULL;
	struct cov *fam_buckets = NULL;
	size_t nf = 0;
	for (size_t i = 0; i < t.n; i++) {
		sb_reset(&line);
		sb_reset(&fam);
		long long tokens = 0;
		explain_entry(&data, &tg, &t.entries[i], &a, &line, &fam, &tokens);
		printf("%5d  %s\n", t.entries[i].line, line.buf);
		if (!fam.len)
			continue;
		size_t f;
		for (f = 0; f < nf && strcmp(fams[f], fam.buf); f++)
			;
		if (f == nf) {
			fams = xrealloc(fams, (nf + 1) * sizeof *fams);
			fam_buckets = xrealloc(fam_buckets, (nf + 1) * sizeof *fam_buckets);
			fams[nf] = xstrdup(fam.buf);
			memset(&fam_buckets[nf], 0, sizeof fam_buckets[nf]);
			nf++;
		}
		const struct pyv *tv = t.entries[i].tactic;
		struct cov *cv = &fam_buckets[f];
		cv->v = xrealloc(cv->v, (cv->n + 1) * sizeof *cv->v);
		cv->v[cv->n][0] = tokens;
		cv->v[cv->n][1] = tv && tv->kind == PV_INT ? tv->i : -2;
		cv->n++;
	}
	printf("\ncoverage per shape family (token bucket:tactic):\n");
	for (size_t f = 0; f < nf; f++) {
		struct cov *cv = &fam_buckets[f];
		qsort(cv->v, cv->n, sizeof *cv->v, cmp_cov);
		printf("  %s:", fams[f]);
		for (size_t j = 0; j < cv->n; j++)
			printf(cv->v[j][1] == -2 ? " %lld:?" : " %lld:%lld", cv->v[j][0], cv->v[j][1]);
		printf("\n");
		free(fams[f]);
		free(cv->v);
	}
	free(fams);
	free(fam_buckets);
	sb_release(&line);
	sb_release(&fam);
	arena_release(&a);
	target_release(&tg);
	table_release(&t);
	cli_release_data(&data);
	return TT_OK;
}

static const struct table_entry *find_key(const struct table *t, const struct table_entry *e)
{
	for (size_t i = t->n; i-- > 0;) /* the last duplicate wins, as in Python */
		if (t->entries[i].key_len == e->key_len && !memcmp(t->entries[i].key, e->key, e->key_len))
			return &t->entries[i];
	return NULL;
}

int cmd_diff(int argc, char **argv)
{
	struct validate_opts vo = { 0 };
	int rc = parse_common(argc, argv, "diff", &vo, 2);
	if (rc)
		return rc;
	struct tt_data data;
	if ((rc = cli_load_data(&data, DATA_DEVICES | DATA_CATALOGS | DATA_SCHEMAS)))
		return rc;
	struct table ta, tb;
	struct target ga, gb;
	const char *pa = argv[optind], *pb = argv[optind + 1];
	if ((rc = open_table(&data, pa, &vo, &ta, &ga))) {
		cli_release_data(&data);
		return rc;
	}
	if ((rc = open_table(&data, pb, &vo, &tb, &gb))) {
		target_release(&ga);
		table_release(&ta);
		cli_release_data(&data);
		return rc;
	}
	printf("--- %s (FlashInfer %s, %s)\n+++ %s (FlashInfer %s, %s)\n", pa, ga.r.version,
	       ga.r.device_name[0] ? ga.r.device_name : "device unknown", pb, gb.r.version,
	       gb.r.device_name[0] ? gb.r.device_name : "device unknown");
	struct arena a = ARENA_INIT;
	struct strbuf la = STRBUF_INIT, lb = STRBUF_INIT, fam = STRBUF_INIT;
	size_t added = 0, removed = 0, changed = 0, same = 0;
	long long tok;
	for (size_t i = 0; i < ta.n; i++) {
		const struct table_entry *e = &ta.entries[i];
		if (find_key(&ta, e) != e)
			continue;
		const struct table_entry *o = find_key(&tb, e);
		sb_reset(&la);
		explain_entry(&data, &ga, e, &a, &la, &fam, &tok);
		if (!o) {
			printf("- %s\n", la.buf);
			removed++;
			continue;
		}
		bool eq = e->value_ok && o->value_ok && pyv_equal(e->tactic, o->tactic) &&
			  e->runner_id == o->runner_id;
		if (eq) {
			same++;
			continue;
		}
		sb_reset(&lb);
		explain_entry(&data, &gb, o, &a, &lb, &fam, &tok);
		printf("~ %s\n    was %s\n", lb.buf, strstr(la.buf, "-> ") ? strstr(la.buf, "-> ") : la.buf);
		changed++;
	}
	for (size_t i = 0; i < tb.n; i++) {
		const struct table_entry *e = &tb.entries[i];
		if (find_key(&tb, e) != e || find_key(&ta, e))
			continue;
		sb_reset(&lb);
		explain_entry(&data, &gb, e, &a, &lb, &fam, &tok);
		printf("+ %s\n", lb.buf);
		added++;
	}
	printf("%zu added, %zu removed, %zu changed, %zu unchanged\n", added, removed, changed, same);
	sb_release(&la);
	sb_release(&lb);
	sb_release(&fam);
	arena_release(&a);
	target_release(&ga);
	target_release(&gb);
	table_release(&ta);
	table_release(&tb);
	cli_release_data(&data);
	return added || removed || changed ? TT_INVALID : TT_OK;
}
