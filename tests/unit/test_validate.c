/* test_validate.c: FlashInfer's rules applied to tables (validate.h): every broken table of
 * tests/data/tables gives exactly its expected diagnostics and identity through the library
 * call, the check list documents every id they use, the version and device options, a
 * generated table passing every rule, and provenance files checked against their tables. */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "data/catalog.h"
#include "data/consumer.h"
#include "data/device.h"
#include "data/dtypes.h"
#include "data/firules.h"
#include "data/model.h"
#include "flashinfer/table.h"
#include "flashinfer/validate.h"
#include "tune/choose.h"
#include "ttest.h"
#include "unit_data.h"

#define TABLES "tests/data/tables"

static const struct validate_data *data(void)
{
	return unit_validate_data();
}

static bool documented(const char *id)
{
	for (const struct check_info *ci = validate_checks; ci->id; ci++)
		if (!strcmp(ci->id, id))
			return true;
	return false;
}

/* The report `tunetab validate ARGS FILE` prints for one table, built from the library's
 * result and diagnostics alone (the text format of src/cmd/validate.c). */
static char *report(const char *dir, const char *file, const char *args)
{
	struct validate_opts o = { .dtype = -1 };
	bool strict = false;
	char *a = xstrdup(args), *save = NULL;
	for (char *w = strtok_r(a, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		if (!strcmp(w, "--strict"))
			strict = true;
		else if (!strcmp(w, "--flashinfer"))
			o.flashinfer = strtok_r(NULL, " \n", &save);
		else if (!strcmp(w, "--device"))
			o.device = strtok_r(NULL, " \n", &save);
		else if (!strcmp(w, "--dtype")) {
			enum dtype t;
			CHECK_INT(dtype_parse(strtok_r(NULL, " \n", &save), &t), 0);
			o.dtype = (int)t;
		} else {
			CHECK(!"an option this test knows");
		}
	}
	char *path = xasprintf("%s/%s", dir, file);
	struct table t;
	struct diags d = DIAGS_INIT;
	struct validate_result r;
	struct strbuf out = STRBUF_INIT;
	int rc = table_read(path, &t, &d);
	if (rc == TT_OK) {
		CHECK_INT(validate_table(data(), &t, &o, &r, &d), TT_OK);
		sb_addf(&out, "%s: FlashInfer %s (%s; rules %s), device %s%s%s%s, %zu entr%s\n", file,
			r.version, r.version_from, r.rules->id, r.device_name[0] ? "'" : "",
			r.device_name[0] ? r.device_name : "unknown", r.device_name[0] ? "' from " : "",
			r.device_name[0] ? r.device_from : "", r.entries, r.entries == 1 ? "y" : "ies");
		CHECK_INT(r.entries, t.n);
		CHECK(!r.device_name[0] || r.device == NULL || !strcmp(r.device->name, r.device_name));
	}
	for (size_t i = 0; i < d.n; i++) {
		const struct diag *x = &d.v[i];
		CHECK(documented(x->id));
		const char *f = x->file && !strcmp(x->file, path) ? file : x->file ? x->file : file;
		/* a message that names the file (a command to run) names it as the CLI is given it */
		struct strbuf msg = STRBUF_INIT;
		for (const char *m = x->msg, *at; *m; m = at + strlen(path)) {
			if (!(at = strstr(m, path))) {
				sb_adds(&msg, m);
				break;
			}
			sb_add(&msg, m, (size_t)(at - m));
			sb_adds(&msg, file);
		}
		if (x->line)
			sb_addf(&out, "%s:%d:%d: %s: %s [%s]\n", f, x->line, x->col, diag_sev_name(x->sev),
				msg.buf ? msg.buf : "", x->id);
		else
			sb_addf(&out, "%s: %s: %s [%s]\n", f, diag_sev_name(x->sev), msg.buf ? msg.buf : "",
				x->id);
		sb_release(&msg);
	}
	size_t ne = diags_count(&d, SEV_ERROR), nw = diags_count(&d, SEV_WARNING),
	       nn = diags_count(&d, SEV_NOTE);
	bool fail = ne || (strict && nw);
	sb_addf(&out, "%s: %s: %zu error%s, %zu warning%s, %zu note%s\n[exit %d]\n", file,
		fail ? "FAIL" : "ok", ne, ne == 1 ? "" : "s", nw, nw == 1 ? "" : "s", nn,
		nn == 1 ? "" : "s", rc == TT_INTERNAL ? TT_INTERNAL : fail ? 1 : 0);
	table_release(&t);
	diags_release(&d);
	free(path);
	free(a);
	return sb_detach(&out);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

TEST(validate_table_corpus)
{
	DIR *dh = opendir(TABLES);
	CHECK(dh != NULL);
	if (!dh)
		return;
	char *cases[256];
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(dh)) && n < 256)
		if (de->d_name[0] != '.')
			cases[n++] = xstrdup(de->d_name);
	closedir(dh);
	qsort(cases, n, sizeof *cases, cmp_name);
	CHECK(n >= 60);
	size_t failing = 0;
	for (size_t i = 0; i < n; i++) {
		char *dir = xasprintf(TABLES "/%s", cases[i]);
		char *file = NULL;
		DIR *cd = opendir(dir);
		while (cd && (de = readdir(cd)))
			if (de->d_name[0] != '.' && strcmp(de->d_name, "args") && strcmp(de->d_name, "expected"))
				file = xstrdup(de->d_name);
		if (cd)
			closedir(cd);
		char *args = NULL, *want = NULL, *p;
		size_t len;
		CHECK_INT(read_file(p = xasprintf("%s/args", dir), 0, &args, &len), 0);
		free(p);
		CHECK_INT(read_file(p = xasprintf("%s/expected", dir), 0, &want, &len), 0);
		free(p);
		char *got = file && args ? report(dir, file, args) : NULL;
		if (!got || !want || strcmp(got, want)) {
			fprintf(stderr, "  case %s:\n--- got\n%s--- want\n%s", cases[i], got ? got : "",
				want ? want : "");
			ttest_failed_checks++;
		}
		failing += want && strstr(want, "[exit 1]");
		free(got);
		free(want);
		free(args);
		free(file);
		free(dir);
		free(cases[i]);
	}
	CHECK_INT(failing, 50); /* broken tables; the ok-* ones and those with warnings only pass */
}

/* The profiling-policy rule (validate_policy_used) as FlashInfer 0.7.4's tune mode applies it
 * (autotuner/autotuner.py:2394-2400, 4517-4549): the op's policy from configs/ops, Python's
 * tuple equality, an entry without one read as the op's policy_unset (a store entry: never
 * equal), and no comparison where values carry no policy (0.7.0). */
TEST(validate_policy_rule)
{
	const struct op_def *fp4 = opdefs_find(data()->ops, "fp4_gemm");
	const struct op_def *moe = opdefs_cutlass_moe(data()->ops);
	CHECK(fp4 && moe);
	if (!fp4 || !moe)
		return;
	struct fi_version v074, v070;
	CHECK_INT(version_parse("0.7.4", &v074), 0);
	CHECK_INT(version_parse("0.7.0", &v070), 0);
	const struct fi_rules *r = firules_find(data()->rules, &v074, NULL);
	const struct fi_rules *old = firules_find(data()->rules, &v070, NULL);
	const char *cold = "[\"cuda_graph_profile_replays\",1,\"l2_cache_policy\",\"cold\"]";
	const char *hot = "[\"cuda_graph_profile_replays\", 1, \"l2_cache_policy\", \"hot\"]";
	const char *hot_none = "[\"cuda_graph_profile_replays\", null, \"l2_cache_policy\", \"hot\"]";
	CHECK(validate_policy_used(r, fp4, cold, POLICY_FILE));
	CHECK(validate_policy_used(r, fp4, "[\"cuda_graph_profile_replays\", 1.0, \"l2_cache_policy\", "
				   "\"cold\"]", POLICY_FILE));  /* 1.0 == 1 in Python */
	CHECK(validate_policy_used(r, fp4, "[\"cuda_graph_profile_replays\", true, "
				   "\"l2_cache_policy\", \"cold\"]", POLICY_FILE)); /* True == 1 */
	CHECK(!validate_policy_used(r, fp4, hot, POLICY_FILE));
	CHECK(!validate_policy_used(r, fp4, NULL, POLICY_FILE)); /* none: read as hot */
	CHECK(!validate_policy_used(r, fp4, "\"cold\"", POLICY_FILE));
	CHECK(!validate_policy_used(r, fp4, "[\"cuda_graph_profile_replays\", 1, \"l2_cache_policy\", "
				    "\"cold\", \"cuda_graph_timing_mode\", \"individual\"]", POLICY_FILE));
	/* the CUTLASS MoE: no CUDA graph, hot L2; an entry without a policy is used in a file,
	 * not in the store */
	CHECK(validate_policy_used(r, moe, hot_none, POLICY_FILE));
	CHECK(validate_policy_used(r, moe, NULL, POLICY_FILE));
	CHECK(!validate_policy_used(r, moe, NULL, POLICY_STORE));
	CHECK(!validate_policy_used(r, moe, hot, POLICY_FILE));
	CHECK(!validate_policy_used(r, moe, "[\"cuda_graph_profile_replays\", false, "
				    "\"l2_cache_policy\", \"hot\"]", POLICY_FILE)); /* False != None */
	/* 0.7.0 reads [runner, tactic] only */
	CHECK(old && validate_policy_used(old, fp4, hot, POLICY_FILE));
	/* the policy install gives the managed store's CUTLASS MoE entries (flashinfer.yaml
	 * entry_policy) is the one the op requests */
	struct consumer *fi = NULL;
	struct diags d = DIAGS_INIT;
	CHECK_INT(consumer_load(".", "flashinfer", &fi, &d), 0);
	CHECK(fi && fi->managed_store &&
	      validate_policy_used(r, moe, fi->managed_store->entry_policy, POLICY_STORE));
	if (fi)
		consumer_free(fi);
	diags_release(&d);
}

TEST(validate_check_list)
{
	size_t n = 0;
	for (const struct check_info *ci = validate_checks; ci->id; ci++, n++) {
		CHECK(ci->what && *ci->what);
		for (const struct check_info *cj = validate_checks; cj != ci; cj++)
			CHECK(strcmp(ci->id, cj->id));
	}
	CHECK_INT(n, 31);
	CHECK_STR(validate_checks[0].id, "syntax");
	CHECK_STR(validate_checks[n - 1].id, "no-entries");
}

/* A bf16 Qwen3-30B-A3B table as generate writes it for FlashInfer version on an H200: every
 * key of the deployment with the fallback tactic, through the module writer. */
static char *generated_module(const char *version, const char **name)
{
	struct diags d = DIAGS_INIT;
	struct model_set models;
	struct dtype_set *dtypes;
	CHECK_INT(model_load_dir("configs/models", &models, &d), 0);
	CHECK_INT(dtypes_load("configs/dtypes.yaml", &dtypes, &d), 0);
	const struct model_profile *m = model_find(&models, "Qwen3-30B-A3B");
	const struct dtype_info *dt = dtypes_find(dtypes, "bf16");
	struct fi_version v;
	CHECK(version_parse(version, &v) == 0);
	const struct fi_rules *s = firules_find(data()->rules, &v, NULL);
	struct deployment dep = {
		.model_name = m->name, .hidden = (long)m->hidden_size,
		.inter_total = (long)m->moe_intermediate_size, .experts_total = (long)m->routed_experts,
		.top_k = (long)m->top_k, .activation = m->activation, .tp = 1, .ep = 1, .dt = dt,
		.dtype = DT_BF16, .wv = dtype_weight_view(dt, NULL), .sm = 90, .max_tokens = 8192,
		.fused_finalize = true,
	};
	struct lookup_list p;
	CHECK_INT(lookup_deploy(s, &dep, &p, &d), TT_OK);
	for (size_t i = 0; i < p.n; i++)
		p.v[i].tactic = p.v[i].stage == 1 ? 0 : 45;
	struct table t;
	lookup_to_table(s, &p, NULL, &t);
	struct strbuf sb = STRBUF_INIT;
	table_write_py(&t, &sb);
	*name = "v0_1_trtllm_fused_moe_NVIDIA_H200.py";
	table_release(&t);
	lookup_list_release(&p);
	dtypes_free(dtypes);
	model_set_release(&models);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	return sb_detach(&sb);
}

TEST(validate_options_and_generated)
{
	const char *name;
	char *text = generated_module("0.6.18", &name);
	struct table t;
	struct diags d = DIAGS_INIT;
	struct validate_result r;
	CHECK_INT(table_read_mem(name, text, strlen(text), &t, &d), TT_OK);
	/* what generate writes passes every rule of its version: not one diagnostic */
	struct validate_opts o = { .flashinfer = "0.6.18", .dtype = -1 };
	CHECK_INT(validate_table(data(), &t, &o, &r, &d), TT_OK);
	for (size_t i = 0; i < d.n; i++)
		fprintf(stderr, "  %d:%d %s [%s]\n", d.v[i].line, d.v[i].col, d.v[i].msg, d.v[i].id);
	CHECK_INT(d.n, 0);
	CHECK_INT(r.entries, 42);
	CHECK_STR(r.version, "0.6.18");
	CHECK_STR(r.version_from, "--flashinfer");
	CHECK_STR(r.rules->id, "v0_6_18");
	CHECK_STR(r.device_name, "NVIDIA H200");
	CHECK_STR(r.device_from, "file name");
	CHECK(r.device && !r.never_loaded);
	/* the version from the provenance beside it, else the newest; the device by its alias */
	o = (struct validate_opts){ .provenance_version = "0.6.18", .device = "h200", .dtype = -1 };
	CHECK_INT(validate_table(data(), &t, &o, &r, &d), TT_OK);
	CHECK_STR(r.version_from, "tunetab provenance");
	CHECK_STR(r.device_name, "NVIDIA H200");
	CHECK_STR(r.device_from, "--device");
	CHECK_INT(d.n, 0);
	o = (struct validate_opts){ .dtype = -1 };
	CHECK_INT(validate_table(data(), &t, &o, &r, &d), TT_OK);
	CHECK_STR(r.version_from, "newest known");
	CHECK_STR(r.version, firules_newest(data()->rules)->release);
	/* 0.7.4 keys have 17 extras: every 20-extras key misses */
	CHECK(r.never_loaded);
	CHECK(d.n == 1 && !strcmp(d.v[0].id, "never-loaded"));
	CHECK_STR(d.n ? d.v[0].msg : NULL, "none of the 42 keys can ever hit in FlashInfer 0.7.4: its "
		  "MoERunner keys end in the 17-field (no ranks, 0.7.2+) extras and no key here has "
		  "them (formats §1.3, §3.3)");
	diags_release(&d);
	/* a version newer than every range: the newest rules, and a warning */
	o = (struct validate_opts){ .flashinfer = "9.0.0", .dtype = -1 };
	CHECK_INT(validate_table(data(), &t, &o, &r, &d), TT_OK);
	CHECK(d.n >= 1 && !strcmp(d.v[0].id, "version") && d.v[0].sev == SEV_WARNING);
	CHECK_STR(d.n ? d.v[0].msg : NULL, "FlashInfer 9.0.0 is newer than every known version; "
		  "applying the rules of v0_7_2");
	diags_release(&d);
	/* bad versions are usage errors */
	o = (struct validate_opts){ .flashinfer = "0.2.8", .dtype = -1 };
	CHECK_INT(validate_table(data(), &t, &o, &r, &d), TT_USAGE);
	CHECK_STR(d.n ? d.v[0].msg : NULL, "FlashInfer 0.2.8 predates tuning-table support (the "
		  "oldest known rules start at 0.2.9)");
	diags_release(&d);
	o = (struct validate_opts){ .flashinfer = "latest", .dtype = -1 };
	CHECK_INT(validate_table(data(), &t, &o, &r, &d), TT_USAGE);
	CHECK_STR(d.n ? d.v[0].msg : NULL, "'latest' is not a FlashInfer version (want e.g. 0.6.18)");
	diags_release(&d);
	/* a --device no known GPU reports is not a usage error (validate.h): a warning, and the
	 * name checked as given */
	o = (struct validate_opts){ .flashinfer = "0.6.18", .device = "NVIDIA H300", .dtype = -1 };
	CHECK_INT(validate_table(data(), &t, &o, &r, &d), TT_OK);
	CHECK_STR(r.device_name, "NVIDIA H300");
	CHECK_STR(r.device_from, "--device");
	CHECK(r.device == NULL);
	CHECK(d.n >= 1 && !strcmp(d.v[0].id, "unknown-device") && d.v[0].sev == SEV_WARNING);
	CHECK_STR(d.n ? d.v[0].msg : NULL, "no known GPU reports the device name 'NVIDIA H300'; "
		  "nearest known: 'NVIDIA H200', 'NVIDIA H20', 'NVIDIA H100 PCIe'");
	diags_release(&d);
	/* another GPU's --device: the file is never read there */
	o = (struct validate_opts){ .flashinfer = "0.6.18", .device = "NVIDIA B200", .dtype = -1 };
	CHECK_INT(validate_table(data(), &t, &o, &r, &d), TT_OK);
	CHECK(d.n >= 1 && !strcmp(d.v[0].id, "device-mismatch"));
	CHECK_STR(d.n ? d.v[0].msg : NULL, "the file name is for 'NVIDIA H200' but --device is "
		  "'NVIDIA B200': FlashInfer on that GPU imports v0_1_trtllm_fused_moe_NVIDIA_B200.py "
		  "and never reads this file");
	diags_release(&d);
	table_release(&t);
	free(text);
}

/* DIR with the table of tests/data/merge/bad and one of its provenance files beside it. */
static char *prov_case(const char *which, char **dir)
{
	char tmpl[] = "/tmp/tunetab-unit-validate-XXXXXX";
	CHECK(mkdtemp(tmpl) != NULL);
	*dir = xstrdup(tmpl);
	static const char *const src[2] = { "v0_1_trtllm_fused_moe_NVIDIA_H200.py", NULL };
	for (int k = 0; k < 2; k++) {
		char *from = xasprintf("tests/data/merge/bad/%s", k ? which : src[0]);
		char *to = xasprintf("%s/%s", *dir, k ? "tunetab_provenance_NVIDIA_H200.json" : src[0]);
		char *text = NULL;
		size_t len = 0;
		CHECK_INT(read_file(from, 0, &text, &len), 0);
		CHECK_INT(write_file_atomic(to, text, len, 0644), 0);
		free(text);
		free(from);
		free(to);
	}
	return xasprintf("%s/tunetab_provenance_NVIDIA_H200.json", *dir);
}

static void prov_done(char *path, char *dir)
{
	unlink(path);
	char *py = xasprintf("%s/v0_1_trtllm_fused_moe_NVIDIA_H200.py", dir);
	unlink(py);
	free(py);
	rmdir(dir);
	free(dir);
	free(path);
}

TEST(validate_provenance_beside)
{
	struct diags d = DIAGS_INIT;
	size_t entries = 9;
	char *dir, *path = prov_case("ok.json", &dir);
	char *py = xasprintf("%s/v0_1_trtllm_fused_moe_NVIDIA_H200.py", dir);
	/* ok.json records the first key only: the second is reported at its line */
	CHECK_INT(validate_provenance(path, &entries, &d), TT_OK);
	CHECK_INT(entries, 1);
	CHECK_INT(d.n, 1);
	if (d.n == 1) {
		CHECK_STR(d.v[0].file, py);
		CHECK(d.v[0].line == 3 && d.v[0].col == 5 && !strcmp(d.v[0].id, "provenance"));
		char *want = xasprintf("this key is not in the provenance file %s (the table changed "
				       "after it was written?)", path);
		CHECK_STR(d.v[0].msg, want);
		free(want);
	}
	diags_release(&d);
	free(py);
	prov_done(path, dir);

	path = prov_case("tactic-differs.json", &dir);
	CHECK_INT(validate_provenance(path, &entries, &d), TT_OK);
	CHECK_INT(d.n, 2);
	CHECK(d.n == 2 && d.v[0].line == 2 && d.v[0].col == 247);
	CHECK_STR(d.n ? d.v[0].msg : NULL, "tactic 19 here, but the provenance file records 20 "
		  "(measured)");
	diags_release(&d);
	prov_done(path, dir);

	/* a second table it names is not there */
	path = prov_case("names-missing.json", &dir);
	CHECK_INT(validate_provenance(path, &entries, &d), TT_OK);
	CHECK(d.n >= 1);
	CHECK_STR(d.n ? d.v[d.n - 1].msg : NULL, "names 'flashinfer_autotune_NVIDIA_H200.json', which "
		  "cannot be read as a table beside it");
	CHECK_STR(d.n ? d.v[d.n - 1].file : NULL, path);
	diags_release(&d);
	prov_done(path, dir);

	/* an unreadable provenance file is its reader's error */
	path = prov_case("syntax.json", &dir);
	entries = 9;
	CHECK_INT(validate_provenance(path, &entries, &d), TT_INVALID);
	CHECK_INT(entries, 0);
	CHECK(d.n == 1 && d.v[0].sev == SEV_ERROR && d.v[0].line == 8 && d.v[0].col == 15);
	CHECK_STR(d.n ? d.v[0].msg : NULL, "JSON syntax error: string or '}' expected near ','");
	CHECK_STR(d.n ? d.v[0].id : NULL, "syntax");
	diags_release(&d);
	prov_done(path, dir);
}

TTEST_SUITE(validate_tests) = {
	{ "validate_table_corpus", validate_table_corpus },
	{ "validate_check_list", validate_check_list },
	{ "validate_policy_rule", validate_policy_rule },
	{ "validate_options_and_generated", validate_options_and_generated },
	{ "validate_provenance_beside", validate_provenance_beside },
	TTEST_END,
};
