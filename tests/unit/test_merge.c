/* test_merge.c: `tunetab merge` as a library call (merge.h): the result's conflicts (sides,
 * sources, times, inputs, the rule that settled each), the merged bytes for every order of the
 * inputs and for a merge of a merge, shards, identity and usage errors with their exit status,
 * merge_write, and the Python literal order of tactics. Inputs are written the way
 * tests/data/merge/mk.py writes them (Qwen3-30B-A3B bf16 keys of FlashInfer 0.6.18). */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/catalog.h"
#include "data/device.h"
#include "data/firules.h"
#include "flashinfer/merge.h"
#include "flashinfer/tableset.h"
#include "ttest.h"
#include "unit_data.h"

#define EXTRAS_20 "(torch.bfloat16, torch.bfloat16, torch.bfloat16, 8, 1, 0, 1, 0, 1, 0, False, " \
		  "False, False, False, False, False, True, 3, False, True)"
#define PY "v0_1_trtllm_fused_moe_NVIDIA_H200.py"
#define PROV "tunetab_provenance_NVIDIA_H200.json"

static const struct validate_data *data(void)
{
	return unit_validate_data();
}

/* The key FlashInfer 0.6.18 builds for a GEMM stage at a token bucket. */
static char *key(int stage, int tokens)
{
	return xasprintf("('trtllm::fused_moe::gemm%d', 'MoERunner', ((%d, 2048), (128, 1536, 2048), "
			 "(0,), (128, 2048, 768), (0,)), " EXTRAS_20 ")", stage, tokens);
}

/* One table entry: source 'm'easured, 'f'allback, 'p'redicted or 0 (no provenance entry);
 * time < 0: null. */
struct ent {
	int stage, tokens, tactic;
	char source;
	double time;
};

/* DIR/<module> and, unless run is NULL, DIR/<provenance> for run (shard "I/N" or NULL). */
static void mk(const char *dir, const char *version, const char *run, const char *shard,
	       const struct ent *e, size_t n)
{
	CHECK_INT(mkdir_p(dir), 0);
	struct strbuf py = STRBUF_INIT, pv = STRBUF_INIT;
	sb_adds(&py, "best_configs = {\n");
	sb_adds(&pv, "{\n  \"device\": \"NVIDIA H200\",\n  \"entries\": {");
	int np = 0;
	for (size_t i = 0; i < n; i++) {
		char *k = key(e[i].stage, e[i].tokens);
		sb_addf(&py, "    \"%s\": (0, %d),\n", k, e[i].tactic);
		if (e[i].source) {
			const char *src = e[i].source == 'm' ? "measured" : e[i].source == 'f' ? "fallback"
										  : "predicted";
			sb_addf(&pv, "%s\n    \"%s\": {\"run\": 0, \"source\": \"%s\", \"tactic\": \"%d\", "
				"\"time_us\": ", np++ ? "," : "", k, src, e[i].tactic);
			if (e[i].time < 0)
				sb_adds(&pv, "null}");
			else
				sb_addf(&pv, "%g}", e[i].time);
		}
		free(k);
	}
	sb_adds(&py, "}\n");
	sb_addf(&pv, "\n  },\n  \"files\": {\"py\": \"" PY "\"},\n  \"flashinfer_version\": \"%s\",\n"
		"  \"format\": 1,\n  \"runs\": [{\"id\": \"%s\", \"model\": \"Qwen3-30B-A3B\", "
		"\"shard\": ", version, run ? run : "");
	int si, sn;
	if (shard && sscanf(shard, "%d/%d", &si, &sn) == 2)
		sb_addf(&pv, "{\"count\": %d, \"index\": %d, \"source\": \"--shard\"}", sn, si);
	else
		sb_adds(&pv, "null");
	sb_adds(&pv, "}],\n  \"tunetab_version\": \"0.1.0\"\n}\n");
	char *p = xasprintf("%s/" PY, dir);
	CHECK_INT(write_file_atomic(p, py.buf, py.len, 0644), 0);
	free(p);
	if (run) {
		p = xasprintf("%s/" PROV, dir);
		CHECK_INT(write_file_atomic(p, pv.buf, pv.len, 0644), 0);
		free(p);
	}
	sb_release(&py);
	sb_release(&pv);
}

static char *tmp_base(void)
{
	char dir[] = "/tmp/tunetab-unit-merge-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	return xstrdup(dir);
}

static void rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
	free(cmd);
}

/* Four inputs under base: two measured runs, a predicted one, a table without provenance. */
static void mk_four(const char *base)
{
	static const struct ent meas[] = { { 1, 1, 19, 'm', 10 }, { 1, 2, 36, 'm', 12.5 },
					   { 1, 4, 36, 'm', 14 }, { 2, 8, 100, 'm', 9 } };
	static const struct ent meas2[] = { { 1, 2, 20, 'm', 11 }, { 1, 4, 21, 'm', 14 },
					    { 2, 8, 100, 'f', 9.5 } };
	static const struct ent pred[] = { { 1, 1, 36, 'p', 5 }, { 1, 8, 36, 'p', -1 } };
	static const struct ent bare[] = { { 1, 1, 18, 0, 0 }, { 1, 8, 19, 0, 0 } };
	char *p;
	mk(p = xasprintf("%s/meas", base), "0.6.18", "00000000000000e1", NULL, meas, 4), free(p);
	mk(p = xasprintf("%s/meas2", base), "0.6.18", "00000000000000e2", NULL, meas2, 3), free(p);
	mk(p = xasprintf("%s/pred", base), "0.6.18", "00000000000000f1", NULL, pred, 2), free(p);
	mk(p = xasprintf("%s/bare", base), "0.6.18", NULL, NULL, bare, 2), free(p);
}

static int run_merge(const char *out, char **inputs, size_t n, struct merge_result *r,
		     struct diags *d)
{
	struct merge_opts o = { .out = out, .inputs = inputs, .ninputs = n,
				.tunetab_version = "0.1.0" };
	return merge_run(data(), &o, r, d);
}

static void check_side(const struct merge_side *s, const char *tactic, enum prov_source src,
		       double time, const char *base, const char *input)
{
	CHECK_STR(s->tactic, tactic);
	CHECK_INT(s->source, src);
	CHECK(s->time_us == time);
	CHECK_INT(s->ninputs, 1);
	char *want = xasprintf("%s/%s/" PY, base, input);
	CHECK_STR(s->ninputs ? s->inputs[0] : NULL, want);
	free(want);
}

/* The tactic the merged module gives key (stage, tokens), or -99. */
static long long merged_tactic(const struct merge_output *o, int stage, int tokens)
{
	struct py_module m;
	struct diags d = DIAGS_INIT;
	long long t = -99;
	char *k = key(stage, tokens);
	if (pylit_parse_module(o->bytes.buf, o->bytes.len, "merged", &m, &d) == TT_OK && m.n == 1) {
		const struct pyv *v = m.assigns[0].value;
		for (size_t i = 0; i < v->n; i++)
			if (v->items[2 * i].len == strlen(k) && !memcmp(v->items[2 * i].s, k, strlen(k)))
				t = v->items[2 * i + 1].items[1].i;
	}
	free(k);
	py_module_release(&m);
	diags_release(&d);
	return t;
}

TEST(merge_conflicts_settled)
{
	char *base = tmp_base();
	mk_four(base);
	char *in[4] = { xasprintf("%s/pred", base), xasprintf("%s/bare", base),
			xasprintf("%s/meas2", base), xasprintf("%s/meas", base) };
	char *out = xasprintf("%s/out/", base);
	struct merge_result r;
	struct diags d = DIAGS_INIT;
	CHECK_INT(run_merge(out, in, 4, &r, &d), TT_OK);
	for (size_t i = 0; i < d.n; i++)
		fprintf(stderr, "  diag: %s\n", d.v[i].msg);
	CHECK_INT(d.n, 0);
	CHECK_STR(r.device, "NVIDIA H200");
	CHECK_STR(r.version, "0.6.18");
	CHECK_INT(r.ntables, 4);
	CHECK_INT(r.entries, 5);
	static const char *const files[] = { "bare/" PY, "meas/" PROV, "meas/" PY, "meas2/" PROV,
					     "meas2/" PY, "pred/" PROV, "pred/" PY };
	CHECK_INT(r.nfiles, 7);
	for (size_t i = 0; i < r.nfiles && i < 7; i++) {
		char *want = xasprintf("%s/%s", base, files[i]);
		CHECK_STR(r.files[i], want);
		free(want);
	}
	/* conflicts by key; gemm2 at 8 tokens has one tactic twice: no conflict */
	CHECK_INT(r.nconflicts, 4);
	if (r.nconflicts == 4) {
		const struct merge_conflict *c = r.conflicts;
		char *k = key(1, 1);
		CHECK_STR(c[0].key, k);
		free(k);
		CHECK_INT(c[0].rule, MERGE_RULE_SOURCE);
		CHECK_STR(c[0].why, "measured beats predicted");
		CHECK_INT(c[0].nsides, 3);
		if (c[0].nsides == 3) {
			check_side(&c[0].sides[0], "19", PROV_MEASURED, 10, base, "meas");
			check_side(&c[0].sides[1], "36", PROV_PREDICTED, 5, base, "pred");
			check_side(&c[0].sides[2], "18", PROV_UNKNOWN, -1, base, "bare");
		}
		CHECK_INT(c[1].rule, MERGE_RULE_TIME);
		CHECK_STR(c[1].why, "lower time");
		CHECK_INT(c[1].nsides, 2);
		if (c[1].nsides == 2) {
			check_side(&c[1].sides[0], "20", PROV_MEASURED, 11, base, "meas2");
			check_side(&c[1].sides[1], "36", PROV_MEASURED, 12.5, base, "meas");
		}
		CHECK_INT(c[2].rule, MERGE_RULE_TACTIC);
		CHECK_STR(c[2].why, "lower tactic");
		CHECK(c[2].nsides == 2 && !strcmp(c[2].sides[0].tactic, "21"));
		k = key(1, 8);
		CHECK_STR(c[3].key, k);
		free(k);
		CHECK_INT(c[3].rule, MERGE_RULE_SOURCE);
		CHECK_STR(c[3].why, "predicted beats no provenance");
		if (c[3].nsides == 2) {
			check_side(&c[3].sides[0], "36", PROV_PREDICTED, -1, base, "pred");
			check_side(&c[3].sides[1], "19", PROV_UNKNOWN, -1, base, "bare");
		}
	}
	/* a folder OUT gets the module (the inputs had only modules) and the provenance */
	char *outdir = xasprintf("%s/out", base);
	CHECK_STR(r.outdir, outdir);
	CHECK_INT(r.noutputs, 2);
	if (r.noutputs == 2) {
		char *want = xasprintf("%s/" PY, outdir);
		CHECK_STR(r.outputs[0].path, want);
		free(want);
		want = xasprintf("%s/" PROV, outdir);
		CHECK_STR(r.outputs[1].path, want);
		free(want);
		CHECK_INT(merged_tactic(&r.outputs[0], 1, 1), 19);
		CHECK_INT(merged_tactic(&r.outputs[0], 1, 2), 20);
		CHECK_INT(merged_tactic(&r.outputs[0], 1, 4), 21);
		CHECK_INT(merged_tactic(&r.outputs[0], 1, 8), 36);
		CHECK_INT(merged_tactic(&r.outputs[0], 2, 8), 100);
	}
	/* written, and the merged provenance keeps the better of two identical tactics */
	size_t nw = 9;
	CHECK_INT(merge_write(&r, &nw, &d), TT_OK);
	CHECK_INT(nw, 2);
	struct provenance p;
	char *pp = xasprintf("%s/" PROV, outdir);
	CHECK_INT(prov_read(pp, &p, &d), TT_OK);
	CHECK_INT(p.n, 5); /* every kept tactic has one: none of bare's was kept */
	CHECK_INT(p.nruns, 3);
	CHECK_STR(p.py_file, PY);
	CHECK(p.json_file == NULL);
	char *k = key(2, 8);
	for (size_t i = 0; i < p.n; i++)
		if (!strcmp(p.entries[i].key, k)) {
			CHECK(p.entries[i].source == PROV_MEASURED && p.entries[i].time_us == 9);
			CHECK_STR(p.runs[p.entries[i].run].id, "00000000000000e1");
		}
	free(k);
	prov_release(&p);
	free(pp);
	char *text = NULL;
	size_t len;
	pp = xasprintf("%s/" PY, outdir);
	CHECK_INT(read_file(pp, 0, &text, &len), 0);
	CHECK(text && r.noutputs && len == r.outputs[0].bytes.len &&
	      !memcmp(text, r.outputs[0].bytes.buf, len));
	free(text);
	free(pp);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	merge_result_release(&r);
	CHECK(r.noutputs == 0 && r.outputs == NULL && r.conflicts == NULL);
	for (int i = 0; i < 4; i++)
		free(in[i]);
	free(out);
	free(outdir);
	rm_rf(base);
	free(base);
}

/* The bytes of every output of merging inputs into out (NULL after an error). */
static char *merged_bytes(const char *out, char **inputs, size_t n)
{
	struct merge_result r;
	struct diags d = DIAGS_INIT;
	struct strbuf all = STRBUF_INIT;
	int rc = run_merge(out, inputs, n, &r, &d);
	CHECK_INT(rc, TT_OK);
	for (size_t i = 0; !rc && i < r.noutputs; i++) {
		const char *b = strrchr(r.outputs[i].path, '/');
		sb_addf(&all, "== %s\n", b ? b + 1 : r.outputs[i].path);
		sb_add(&all, r.outputs[i].bytes.buf, r.outputs[i].bytes.len);
	}
	if (!rc) {
		size_t nw;
		CHECK_INT(merge_write(&r, &nw, &d), TT_OK);
	}
	merge_result_release(&r);
	diags_release(&d);
	return rc ? NULL : sb_detach(&all);
}

TEST(merge_order_independent)
{
	char *base = tmp_base();
	mk_four(base);
	char *names[4] = { xasprintf("%s/meas", base), xasprintf("%s/meas2", base),
			   xasprintf("%s/pred", base), xasprintf("%s/bare", base) };
	char *out = xasprintf("%s/out", base);
	char *first = merged_bytes(out, names, 4);
	CHECK(first && strstr(first, "== " PY "\n") && strstr(first, "== " PROV "\n"));
	/* every order of the inputs: the same bytes */
	int perm[4] = { 0, 1, 2, 3 }, orders = 0;
	for (;;) {
		char *in[4];
		for (int i = 0; i < 4; i++)
			in[i] = names[perm[i]];
		char *b = merged_bytes(out, in, 4);
		CHECK_STR(b, first);
		free(b);
		orders++;
		/* the next permutation */
		int i = 2;
		while (i >= 0 && perm[i] > perm[i + 1])
			i--;
		if (i < 0)
			break;
		int j = 3;
		while (perm[j] < perm[i])
			j--;
		int t = perm[i];
		perm[i] = perm[j], perm[j] = t;
		for (int a = i + 1, z = 3; a < z; a++, z--)
			t = perm[a], perm[a] = perm[z], perm[z] = t;
	}
	CHECK_INT(orders, 24);
	/* a merge of a merge with the rest: the same bytes as everything at once */
	char *half = xasprintf("%s/half", base), *out2 = xasprintf("%s/out2", base);
	char *h = merged_bytes(half, names, 2);
	free(h);
	char *in[3] = { names[3], half, names[2] };
	char *b = merged_bytes(out2, in, 3);
	CHECK_STR(b, first);
	free(b);
	/* the same input named twice (and its folder) is read once */
	char *py = xasprintf("%s/" PY, names[0]);
	char *twice[5] = { names[0], py, names[1], names[2], names[3] };
	b = merged_bytes(out2, twice, 5);
	CHECK_STR(b, first);
	free(b);
	free(py);
	free(first);
	free(half);
	free(out2);
	for (int i = 0; i < 4; i++)
		free(names[i]);
	free(out);
	rm_rf(base);
	free(base);
}

/* merge_run's status and its first diagnostic of severity sev; extra: OUT and the options. */
static void check_fails(char **in, size_t n, const struct merge_opts *extra, int status,
			enum diag_sev sev, const char *msg)
{
	struct merge_opts o = { .out = "/nonexistent-tunetab-out", .inputs = in, .ninputs = n };
	if (extra) {
		o.out = extra->out ? extra->out : o.out;
		o.format = extra->format;
		o.flashinfer = extra->flashinfer;
		o.device = extra->device;
		o.partial = extra->partial;
	}
	struct merge_result r;
	struct diags d = DIAGS_INIT;
	CHECK_INT(merge_run(data(), &o, &r, &d), status);
	const char *got = NULL;
	for (size_t i = 0; i < d.n && !got; i++)
		if (d.v[i].sev == sev)
			got = d.v[i].msg;
	CHECK_STR(got, msg);
	if (status)
		CHECK(r.noutputs == 0 && r.outputs == NULL);
	merge_result_release(&r);
	diags_release(&d);
}

TEST(merge_shards_and_identity)
{
	char *base = tmp_base();
	static const struct ent e0[] = { { 1, 1, 19, 'm', 10 } }, e2[] = { { 1, 2, 20, 'm', 11 } };
	char *s0 = xasprintf("%s/s0", base), *s2 = xasprintf("%s/s2", base);
	mk(s0, "0.6.18", "00000000000000c1", "0/3", e0, 1);
	mk(s2, "0.6.18", "00000000000000c1", "2/3", e2, 1);
	char *in[2] = { s2, s0 };
	char *msg = xasprintf("run '00000000000000c1' has 3 shards, but shard 1 is missing (shards "
			      "here: 0 in %s/" PROV "; 2 in %s/" PROV "): merge every shard, or give "
			      "--partial; nothing written", s0, s2);
	check_fails(in, 2, NULL, TT_INVALID, SEV_ERROR, msg);
	free(msg);
	char *out = xasprintf("%s/out", base);
	struct merge_opts partial = { .partial = true, .out = out };
	check_fails(in, 2, &partial, TT_OK, SEV_NOTE, "run '00000000000000c1': merged 2 of its 3 "
		    "shards; missing 1 (--partial)");

	/* another FlashInfer version (same key form) */
	char *v71 = xasprintf("%s/v71", base);
	mk(v71, "0.7.1", "00000000000000c2", NULL, e2, 1);
	char *in2[2] = { v71, s0 };
	msg = xasprintf("FlashInfer version '0.7.1' (provenance) differs from '0.6.18' (provenance of "
			"%s/" PROV "): every input must be for one FlashInfer version; nothing written",
			s0);
	check_fails(in2, 2, &partial, TT_INVALID, SEV_ERROR, msg);
	free(msg);

	/* a table that says neither device nor version: the options must */
	char *lone = xasprintf("%s/lone/table.py", base), *lonedir = xasprintf("%s/lone", base);
	CHECK_INT(mkdir_p(lonedir), 0);
	char *k = key(1, 1), *text = xasprintf("best_configs = {\"%s\": (0, 19)}\n", k);
	CHECK_INT(write_file_atomic(lone, text, strlen(text), 0644), 0);
	free(k);
	free(text);
	char *in3[1] = { lone };
	check_fails(in3, 1, NULL, TT_USAGE, SEV_ERROR, "no input says which device the tables are "
		    "for: give --device NAME");
	struct merge_opts dev = { .device = "NVIDIA H200" };
	check_fails(in3, 1, &dev, TT_USAGE, SEV_ERROR, "no input says which FlashInfer version the "
		    "tables are for: give --flashinfer VERSION");
	/* 4-tuple keys are not those of 0.6.12 (3-tuples) */
	struct merge_opts old = { .device = "NVIDIA H200", .flashinfer = "0.6.12" };
	check_fails(in3, 1, &old, TT_INVALID, SEV_ERROR, "4-tuple keys (FlashInfer 0.6.13 on), but "
		    "FlashInfer 0.6.12 builds 3-tuple keys: every input must be for one FlashInfer "
		    "version (formats §1.3); nothing written");
	/* one file OUT: that file alone, no folder, no provenance */
	char *one = xasprintf("%s/one.py", base);
	struct merge_opts o = { .out = one, .inputs = in3, .ninputs = 1, .device = "NVIDIA H200",
				.flashinfer = "0.6.18" };
	struct merge_result r;
	struct diags d = DIAGS_INIT;
	CHECK_INT(merge_run(data(), &o, &r, &d), TT_OK);
	CHECK(r.outdir == NULL && r.noutputs == 1 && !strcmp(r.outputs[0].path, one));
	CHECK_INT(r.noutputs ? merged_tactic(&r.outputs[0], 1, 1) : -1, 19);
	merge_result_release(&r);
	diags_release(&d);
	struct merge_opts fmt = { .out = one, .format = "json", .device = "NVIDIA H200",
				  .flashinfer = "0.6.18" };
	msg = xasprintf("OUT '%s' is one module file; --format json does not apply (give a folder)",
			one);
	check_fails(in3, 1, &fmt, TT_USAGE, SEV_ERROR, msg);
	free(msg);

	/* nothing to merge; a missing input */
	char *empty = xasprintf("%s/empty", base);
	CHECK_INT(mkdir_p(empty), 0);
	char *in4[1] = { empty };
	check_fails(in4, 1, NULL, TT_INVALID, SEV_ERROR, "no table among the inputs (a bundled module "
		    ".py or a JSON cache .json, or a provenance file beside them)");
	char *missing = xasprintf("%s/missing", base);
	in4[0] = missing;
	check_fails(in4, 1, NULL, TT_INVALID, SEV_ERROR, "cannot read file: No such file or directory");
	/* a provenance file that does not describe its table */
	static const struct ent e9[] = { { 1, 1, 18, 'm', 10 } };
	char *lie = xasprintf("%s/lie", base);
	mk(lie, "0.6.18", "00000000000000c3", NULL, e9, 1);
	char *pyp = xasprintf("%s/" PY, lie);
	k = key(1, 1);
	text = xasprintf("best_configs = {\n    \"%s\": (0, 19),\n}\n", k);
	CHECK_INT(write_file_atomic(pyp, text, strlen(text), 0644), 0);
	in4[0] = lie;
	msg = xasprintf("tactic 19 differs from the 18 that %s/" PROV " records for this key: the "
			"provenance does not describe this table", lie);
	check_fails(in4, 1, NULL, TT_INVALID, SEV_ERROR, msg);
	free(msg);
	free(k);
	free(text);
	free(pyp);
	free(lie);
	free(missing);
	free(empty);
	free(one);
	free(lone);
	free(lonedir);
	free(v71);
	free(out);
	free(s0);
	free(s2);
	rm_rf(base);
	free(base);
}

TEST(merge_write_errors)
{
	char *base = tmp_base();
	struct merge_result r;
	memset(&r, 0, sizeof r);
	r.outdir = xasprintf("%s/a/b/c", base);
	r.outputs = xcalloc(1, sizeof *r.outputs);
	r.noutputs = 1;
	r.outputs[0].path = xasprintf("%s/a/b/c/x.py", base);
	sb_adds(&r.outputs[0].bytes, "best_configs = {}\n");
	struct diags d = DIAGS_INIT;
	size_t nw = 9;
	CHECK_INT(merge_write(&r, &nw, &d), TT_OK);
	CHECK_INT(nw, 1);
	char *text = NULL;
	size_t len;
	CHECK_INT(read_file(r.outputs[0].path, 0, &text, &len), 0);
	CHECK_STR(text, "best_configs = {}\n");
	free(text);
	/* a folder where a file is: nothing written */
	free(r.outdir);
	r.outdir = xasprintf("%s/a/b/c/x.py/d", base);
	CHECK_INT(merge_write(&r, &nw, &d), TT_INVALID); /* the user's path (#48) */
	CHECK_INT(nw, 0);
	CHECK(d.n == 1 && strstr(d.v[0].msg, "cannot create folder: '") &&
	      strstr(d.v[0].msg, "/x.py' is not a folder"));
	CHECK_STR(d.n ? d.v[0].file : NULL, r.outdir);
	diags_release(&d);
	/* an output that cannot be written: none is, the ones before it included (one set) */
	free(r.outdir);
	r.outdir = NULL;
	sb_reset(&r.outputs[0].bytes);
	sb_adds(&r.outputs[0].bytes, "best_configs = {'new': (0, 1)}\n");
	r.outputs = xrealloc(r.outputs, 2 * sizeof *r.outputs);
	r.noutputs = 2;
	r.outputs[1].path = xasprintf("%s/none/y.py", base);
	sb_init(&r.outputs[1].bytes);
	sb_adds(&r.outputs[1].bytes, "y");
	CHECK_INT(merge_write(&r, &nw, &d), TT_INTERNAL);
	CHECK_INT(nw, 0);
	CHECK(d.n == 1 && !strcmp(d.v[0].msg, "cannot write: No such file or directory"));
	CHECK_STR(d.n ? d.v[0].file : NULL, r.outputs[1].path);
	CHECK_INT(read_file(r.outputs[0].path, 0, &text, &len), 0);
	CHECK_STR(text, "best_configs = {}\n");
	free(text);
	diags_release(&d);
	merge_result_release(&r);
	rm_rf(base);
	free(base);
}

static int tcmp(const char *a, const char *b)
{
	struct arena ar = ARENA_INIT;
	struct diags d = DIAGS_INIT;
	const struct pyv *x = pylit_parse_expr(a, strlen(a), &ar, "a", 1, 1, &d);
	const struct pyv *y = pylit_parse_expr(b, strlen(b), &ar, "b", 1, 1, &d);
	int c = x && y ? merge_tactic_cmp(x, y) : 99;
	int back = x && y ? merge_tactic_cmp(y, x) : 99;
	if ((c < 0) != (back > 0) || (c == 0) != (back == 0))
		c = 77; /* not antisymmetric */
	arena_release(&ar);
	diags_release(&d);
	return c == 77 || c == 99 ? c : c < 0 ? -1 : c > 0;
}

TEST(merge_tactic_order_more)
{
	CHECK_INT(tcmp("-5", "-1"), -1);
	CHECK_INT(tcmp("False", "True"), -1);
	CHECK_INT(tcmp("False", "0"), 1); /* equal for Python: "0" < "False" as spelled */
	CHECK_INT(tcmp("2", "True"), 1);
	CHECK_INT(tcmp("99", "'1'"), -1); /* numbers, then strings */
	CHECK_INT(tcmp("'a'", "'ab'"), -1);
	CHECK_INT(tcmp("'b'", "'ab'"), 1);
	CHECK_INT(tcmp("'é'", "'z'"), 1); /* by UTF-8 bytes, as Python by code point */
	CHECK_INT(tcmp("'zz'", "(0,)"), -1); /* strings, then sequences */
	CHECK_INT(tcmp("(1,)", "[1]"), -1); /* equal elements: the spelling */
	CHECK_INT(tcmp("[1, 2]", "(1, 3)"), -1);
	CHECK_INT(tcmp("()", "(0,)"), -1);
	CHECK_INT(tcmp("(1, 'a')", "(1, 2)"), 1);
	CHECK_INT(tcmp("(9,)", "None"), -1); /* anything else last */
	CHECK_INT(tcmp("None", "torch.int64"), -1);
	CHECK_INT(tcmp("(5, 7)", "(5, 7)"), 0);
}

/* The set generate or merge was killed committing: the next writer rolls it back and says
 * whose it was; readers see the journal (install's too), writers leave install's alone. */
TEST(tableset_recovers_generate_and_merge)
{
	char *base = tmp_base();
	char *n = xasprintf("%s/n.py", base), *j = xasprintf("%s/.tunetab-generate.journal", base);
	char *ij = xasprintf("%s/.tunetab-install.journal", base);
	const char *journal = "tunetab file-set journal 1\nfile 4:n.py none 15:.n.py.tmpNNNNNN\nend 1\n";
	CHECK_INT(write_file_atomic(n, "x", 1, 0644), 0); /* renamed in before the kill */
	CHECK_INT(write_file_atomic(j, journal, strlen(journal), 0644), 0);
	const char *who = NULL;
	char *found = tableset_interrupted(base, &who);
	CHECK_STR(found, j);
	CHECK_STR(who, "generate");
	free(found);
	struct diags d = DIAGS_INIT;
	CHECK_INT(tableset_recover(base, &d), TT_OK);
	char *want = xasprintf("restored '%s' to its state before an interrupted generate (1 file)", base);
	CHECK(d.n == 1 && d.v[0].sev == SEV_WARNING);
	CHECK_STR(d.n ? d.v[0].msg : NULL, want);
	free(want);
	diags_release(&d);
	CHECK(access(n, F_OK) != 0 && access(j, F_OK) != 0);
	CHECK(tableset_interrupted(base, NULL) == NULL);
	/* install's journal: a reader sees it, generate and merge leave it to install */
	CHECK_INT(write_file_atomic(ij, journal, strlen(journal), 0644), 0);
	found = tableset_interrupted(base, &who);
	CHECK_STR(found, ij);
	CHECK_STR(who, "install");
	free(found);
	CHECK_INT(tableset_recover(base, &d), TT_OK);
	CHECK_INT(d.n, 0);
	CHECK(access(ij, F_OK) == 0);
	free(n);
	free(j);
	free(ij);
	rm_rf(base);
	free(base);
}

TTEST_SUITE(merge_tests) = {
	{ "merge_conflicts_settled", merge_conflicts_settled },
	{ "merge_order_independent", merge_order_independent },
	{ "merge_shards_and_identity", merge_shards_and_identity },
	{ "merge_write_errors", merge_write_errors },
	{ "merge_tactic_order_more", merge_tactic_order_more },
	{ "tableset_recovers_generate_and_merge", tableset_recovers_generate_and_merge },
	TTEST_END,
};
