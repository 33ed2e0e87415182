/* test_provenance.c: the provenance sidecar (docs/fleet.md "Provenance file"): canonical bytes,
 * read/write round trip, strict reading with located errors; merge's tactic order. */
#include <stdlib.h>
#include <unistd.h>

#include "flashinfer/merge.h"
#include "flashinfer/names.h"
#include "flashinfer/provenance.h"
#include "ttest.h"
#include "base/util.h"

static void add_runs(struct provenance *p, bool reversed)
{
	for (int k = 0; k < 2; k++) {
		int which = reversed ? 1 - k : k;
		struct prov_run_builder *b = prov_run_new();
		prov_run_str(b, "model", which ? "Qwen3-30B-A3B" : "GLM-5");
		prov_run_int(b, "tp", which ? 1 : 8);
		prov_run_bool(b, "profiled", which);
		prov_run_str(b, "calibration", NULL);
		if (which)
			prov_add_run(p, b, "00000000000000bb", 1, 2, "--shard");
		else
			prov_add_run(p, b, "00000000000000aa", 0, 1, NULL);
	}
}

/* Two runs, three entries; reversed adds everything in the other order. */
static void build(struct provenance *p, bool reversed)
{
	memset(p, 0, sizeof *p);
	p->tunetab_version = xstrdup("0.1.0");
	p->flashinfer_version = xstrdup("0.6.18");
	p->device = xstrdup("NVIDIA H200");
	p->py_file = xstrdup("v0_1_trtllm_fused_moe_NVIDIA_H200.py");
	add_runs(p, reversed);
	size_t glm = reversed ? 1 : 0, qwen = reversed ? 0 : 1;
	int ties[] = { 22, 18 };
	struct prov_entry e[3] = {
		{ .key = "('b', 2)", .tactic = "18", .source = PROV_MEASURED, .time_us = 10.95,
		  .lo_us = 10.9, .hi_us = 11.02, .fallback_us = 12.8, .ties = ties, .nties = 2,
		  .run = qwen },
		{ .key = "('a', 1)", .tactic = "-1", .source = PROV_PREDICTED, .time_us = -1,
		  .lo_us = -1, .hi_us = -1, .fallback_us = -1, .run = glm },
		{ .key = "('c', 3)", .tactic = "(8, 34)", .source = PROV_FALLBACK,
		  .time_us = 10.949999999999999, .lo_us = 1.0 / 3, .hi_us = 12, .fallback_us = 10.95,
		  .run = qwen },
	};
	for (int i = 0; i < 3; i++)
		prov_add_entry(p, &e[reversed ? 2 - i : i]);
}

/* A file in a fresh temporary folder (text NULL: none written); tmp_done removes both. */
static char *tmp_file(const char *name, const char *text)
{
	char dir[] = "/tmp/tunetab-unit-prov-XXXXXX";
	if (!mkdtemp(dir))
		return xstrdup("/nonexistent/tunetab-unit-prov");
	char *path = xasprintf("%s/%s", dir, name);
	if (text)
		write_file_atomic(path, text, strlen(text), 0644);
	return path;
}

static void tmp_done(char *path)
{
	unlink(path);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	rmdir(path);
	free(path);
}

TEST(prov_canonical_bytes)
{
	struct provenance a, b;
	build(&a, false);
	build(&b, true);
	struct strbuf sa = STRBUF_INIT, sbb = STRBUF_INIT;
	prov_write(&a, &sa);
	prov_write(&b, &sbb);
	CHECK_STR(sa.buf, sbb.buf); /* the order things were added in does not matter */
	CHECK(str_ends(sa.buf, "}\n"));
	/* keys sorted, two-space indent, times as written by hand, ties sorted */
	CHECK(strstr(sa.buf, "{\n  \"device\": \"NVIDIA H200\",\n  \"entries\": {\n") != NULL);
	CHECK(strstr(sa.buf, "\"time_us\": 10.95\n") != NULL);
	CHECK(strstr(sa.buf, "\"lo_us\": 0.3333333333,") != NULL);
	CHECK(strstr(sa.buf, "\"hi_us\": 12.0,") != NULL);
	CHECK(strstr(sa.buf, "\"ties\": [\n        18,\n        22\n      ]") != NULL);
	CHECK(strstr(sa.buf, "\"time_us\": 10.949999") == NULL);
	CHECK(strstr(sa.buf, "\"fallback_us\": null") != NULL);
	/* runs sorted by content: GLM-5's ("calibration":null,...,"id":"..aa") has "model":"GLM-5" */
	const char *glm = strstr(sa.buf, "\"GLM-5\""), *qwen = strstr(sa.buf, "\"Qwen3-30B-A3B\"");
	CHECK(glm && qwen && glm < qwen);
	CHECK(strstr(sa.buf, "\"shard\": null") != NULL);
	CHECK(strstr(sa.buf, "\"source\": \"--shard\"") != NULL);
	/* entries by key; ('a', 1) points at GLM-5's run, now index 0 */
	const char *ea = strstr(sa.buf, "\"('a', 1)\""), *eb = strstr(sa.buf, "\"('b', 2)\"");
	CHECK(ea && eb && ea < eb);
	CHECK(ea && strstr(ea, "\"run\": 0,") && strstr(ea, "\"run\": 0,") < eb);
	CHECK(strstr(sa.buf, "\"files\": {\n    \"py\": \"v0_1_trtllm_fused_moe_NVIDIA_H200.py\"\n  }"));
	sb_release(&sa);
	sb_release(&sbb);
	prov_release(&a);
	prov_release(&b);
}

TEST(prov_round_trip)
{
	struct provenance a, r;
	build(&a, false);
	struct strbuf s1 = STRBUF_INIT, s2 = STRBUF_INIT;
	prov_write(&a, &s1);
	char *path = tmp_file("tunetab_provenance_NVIDIA_H200.json", s1.buf);
	struct diags d = DIAGS_INIT;
	CHECK_INT(prov_read(path, &r, &d), TT_OK);
	CHECK_INT(d.n, 0);
	prov_write(&r, &s2);
	CHECK_STR(s2.buf, s1.buf); /* read, written again: the same bytes */
	CHECK_STR(r.device, "NVIDIA H200");
	CHECK_STR(r.flashinfer_version, "0.6.18");
	CHECK_STR(r.tunetab_version, "0.1.0");
	CHECK_STR(r.py_file, "v0_1_trtllm_fused_moe_NVIDIA_H200.py");
	CHECK(r.json_file == NULL);
	CHECK_INT(r.nruns, 2);
	CHECK_INT(r.n, 3);
	size_t sharded = r.runs[0].shard_count == 2 ? 0 : 1;
	CHECK_STR(r.runs[sharded].id, "00000000000000bb");
	CHECK_INT(r.runs[sharded].shard_index, 1);
	CHECK_STR(r.runs[sharded].shard_source, "--shard");
	CHECK_INT(r.runs[1 - sharded].shard_count, 1);
	CHECK(r.runs[1 - sharded].shard_source == NULL);
	for (size_t i = 0; i < r.n; i++) {
		const struct prov_entry *e = &r.entries[i];
		if (!strcmp(e->key, "('b', 2)")) {
			CHECK_STR(e->tactic, "18");
			CHECK(e->source == PROV_MEASURED);
			CHECK(e->time_us == 10.95 && e->lo_us == 10.9 && e->hi_us == 11.02);
			CHECK(e->nties == 2 && e->ties[0] == 18 && e->ties[1] == 22);
			CHECK_INT(e->run, sharded);
		} else if (!strcmp(e->key, "('c', 3)")) {
			CHECK_STR(e->tactic, "(8, 34)");
			CHECK(e->source == PROV_FALLBACK);
			CHECK(e->time_us == 10.95); /* rounded to PROV_REAL_DIGITS when added */
		} else {
			CHECK_STR(e->key, "('a', 1)");
			CHECK(e->source == PROV_PREDICTED && e->time_us < 0 && e->nties == 0);
			CHECK_INT(e->run, 1 - sharded);
		}
	}
	prov_release(&r);
	prov_release(&a);
	diags_release(&d);
	sb_release(&s1);
	sb_release(&s2);
	tmp_done(path);
}

TEST(prov_file_name_rule)
{
	char *n = names_provenance("NVIDIA RTX PRO 6000 Blackwell Server Edition");
	CHECK_STR(n, "tunetab_provenance_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json");
	free(n);
	char buf[32];
	prov_format_us(10.95, buf, sizeof buf);
	CHECK_STR(buf, "10.95");
	prov_format_us(-1, buf, sizeof buf);
	CHECK_STR(buf, "?");
	CHECK(prov_round_us(0.1 + 0.2) == 0.3);
	CHECK(prov_round_us(-0.5) < 0);
}

#define HEAD "{\"device\": \"NVIDIA H200\", \"files\": {}, \"flashinfer_version\": \"0.6.18\", " \
	     "\"format\": 1, \"tunetab_version\": null,\n"
#define RUNS "\"runs\": [{\"id\": \"aa\", \"shard\": null}],\n"

/* One bad file: the error's line, column and a part of its message. */
static void bad_case(const char *text, int line, int col, const char *msg)
{
	char *path = tmp_file("tunetab_provenance_bad.json", text);
	struct provenance p;
	struct diags d = DIAGS_INIT;
	int rc = prov_read(path, &p, &d);
	CHECK_INT(rc, TT_INVALID);
	CHECK_INT(d.n, 1);
	if (d.n == 1) {
		CHECK_STR(d.v[0].file, path);
		CHECK_INT(d.v[0].line, line);
		CHECK_INT(d.v[0].col, col);
		if (!strstr(d.v[0].msg, msg))
			CHECK_STR(d.v[0].msg, msg);
	}
	CHECK(p.n == 0 && p.nruns == 0 && p.device == NULL); /* nothing half-read */
	diags_release(&d);
	tmp_done(path);
}

TEST(prov_read_errors_located)
{
	bad_case("{\"format\": 1,,}", 1, 14, "JSON syntax error");
	bad_case("[]", 1, 1, "the top level must be an object");
	bad_case(HEAD RUNS "\"entries\": {}, \"extra\": 1}", 3, 16, "unknown key 'extra'");
	bad_case("{\"format\": 1}", 1, 1, "the top level has no 'device'");
	bad_case(HEAD RUNS "\"entries\": []}", 3, 12, "'entries' must be an object, not a list");
	bad_case("{\"device\": \"NVIDIA H200\", \"files\": {}, \"flashinfer_version\": \"0.6.18\", "
		 "\"format\": 2, \"tunetab_version\": null, \"runs\": [], \"entries\": {}}",
		 1, 82, "this tunetab reads format 1");
	bad_case(HEAD "\"runs\": [{\"id\": \"aa\", \"shard\": {\"count\": 2, \"index\": 2, "
		 "\"source\": \"--shard\"}}],\n\"entries\": {}}", 2, 54, "runs[0].shard.index");
	bad_case(HEAD "\"runs\": [{\"id\": 7, \"shard\": null}],\n\"entries\": {}}", 2, 17,
		 "'id' must be a string");
	bad_case(HEAD RUNS "\"entries\": {\"k\": {\"tactic\": \"5\", \"source\": \"guessed\", "
		 "\"run\": 0}}}", 3, 44, "'source' must be");
	bad_case(HEAD RUNS "\"entries\": {\n  \"k\": {\"tactic\": \"5\", \"source\": \"measured\", "
		 "\"run\": 1}}}", 4, 53, "'run' must index 'runs'");
	bad_case(HEAD RUNS "\"entries\": {\n  \"k\": {\"tactic\": \"5 +\", \"source\": \"measured\", "
		 "\"run\": 0}}}", 4, 19, "is not a tactic literal");
	bad_case(HEAD RUNS "\"entries\": {\n  \"k\": {\"tactic\": \"5\", \"source\": \"measured\", "
		 "\"run\": 0, \"time_us\": -3}}}", 4, 67, "'time_us' is negative");
	bad_case(HEAD RUNS "\"entries\": {\n  \"k\": {\"tactic\": \"5\", \"source\": \"measured\", "
		 "\"run\": 0, \"ties\": [1, \"2\"]}}}", 4, 68, "'ties' must hold tactic ids");
	bad_case(HEAD RUNS "\"entries\": {\n  \"k\": {\"tactic\": \"5\", \"why\": 1, \"source\": "
		 "\"measured\", \"run\": 0}}}", 4, 24, "unknown key 'why' in the entry");
	bad_case(HEAD RUNS "\"entries\": {\"k\": {}, \"k\": {}}}", 3, 24, "duplicate object key");
	bad_case("{\"device\": \"NVIDIA H200\", \"files\": {\"py\": \"../x.py\"}, \"flashinfer_version\": "
		 "\"0.6.18\", \"format\": 1, \"tunetab_version\": null, \"runs\": [], \"entries\": {}}",
		 1, 43, "must be a file name beside the provenance file");
}

TEST(prov_read_accepts_minimal)
{
	/* optional entry fields may be left out; tactics are stored canonically */
	char *path = tmp_file("tunetab_provenance_ok.json", HEAD RUNS "\"entries\": {\"k\": "
			      "{\"tactic\": \"(8,34)\", \"source\": \"predicted\", \"run\": 0}}}");
	struct provenance p;
	struct diags d = DIAGS_INIT;
	CHECK_INT(prov_read(path, &p, &d), TT_OK);
	CHECK_INT(p.n, 1);
	if (p.n == 1) {
		CHECK_STR(p.entries[0].tactic, "(8, 34)");
		CHECK(p.entries[0].time_us < 0 && p.entries[0].fallback_us < 0);
	}
	CHECK(p.tunetab_version == NULL);
	prov_release(&p);
	diags_release(&d);
	tmp_done(path);
	path = tmp_file("missing.json", NULL);
	CHECK_INT(prov_read(path, &p, &d), TT_INVALID);
	CHECK(d.n == 1 && strstr(d.v[0].msg, "No such file"));
	diags_release(&d);
	tmp_done(path);
}

TEST(prov_run_backend)
{
	/* a run's backend: as written; none: the proxy's, unless it measured nothing */
	char *path = tmp_file("tunetab_provenance_ok.json", HEAD "\"runs\": [{\"id\": \"aa\", "
			      "\"shard\": null}, {\"id\": \"bb\", \"shard\": null, \"profiled\": false}, "
			      "{\"id\": \"cc\", \"shard\": null, \"profiled\": true, \"backend\": "
			      "\"flashinfer 0.7.4 (torch 2.11.0+cu130)\"}],\n\"entries\": {}}");
	struct provenance p;
	struct diags d = DIAGS_INIT;
	CHECK_INT(prov_read(path, &p, &d), TT_OK);
	CHECK_INT(p.nruns, 3);
	if (p.nruns == 3) {
		CHECK_STR(p.runs[0].backend, "proxy");
		CHECK(p.runs[1].backend == NULL);
		CHECK_STR(p.runs[2].backend, "flashinfer 0.7.4 (torch 2.11.0+cu130)");
		struct provenance c;
		memset(&c, 0, sizeof c);
		prov_copy_run(&c, &p.runs[2]);
		CHECK_STR(c.runs[0].backend, "flashinfer 0.7.4 (torch 2.11.0+cu130)");
		prov_release(&c);
	}
	prov_release(&p);
	tmp_done(path);
	char buf[32];
	CHECK_STR(prov_backend_name("proxy cuBLASLt 13.1.0", buf, sizeof buf), "proxy");
	CHECK_STR(prov_backend_name("flashinfer 0.7.4 (torch 2.11.0+cu130)", buf, sizeof buf), "flashinfer");
	CHECK_STR(prov_backend_name(NULL, buf, sizeof buf), "proxy");
	CHECK_STR(prov_backend_name("fake", buf, sizeof buf), "fake");
	/* built runs read their own "backend" */
	memset(&p, 0, sizeof p);
	struct prov_run_builder *b = prov_run_new();
	prov_run_bool(b, "profiled", true);
	prov_run_str(b, "backend", "fake");
	prov_add_run(&p, b, "00000000000000aa", 0, 1, NULL);
	CHECK_STR(p.runs[0].backend, "fake");
	prov_release(&p);
	/* a backend that is not a string is an error, located */
	path = tmp_file("tunetab_provenance_bad.json", HEAD "\"runs\": [{\"id\": \"aa\", "
			"\"shard\": null, \"backend\": 3}],\n\"entries\": {}}");
	CHECK_INT(prov_read(path, &p, &d), TT_INVALID);
	CHECK(d.n == 1 && d.v[0].line == 2 && strstr(d.v[0].msg, "'backend' must be a string"));
	diags_release(&d);
	tmp_done(path);
}

static int tcmp(const char *a, const char *b)
{
	struct arena ar = ARENA_INIT;
	struct diags d = DIAGS_INIT;
	const struct pyv *x = pylit_parse_expr(a, strlen(a), &ar, "a", 1, 1, &d);
	const struct pyv *y = pylit_parse_expr(b, strlen(b), &ar, "b", 1, 1, &d);
	int c = x && y ? merge_tactic_cmp(x, y) : 99;
	arena_release(&ar);
	diags_release(&d);
	return c < 0 ? -1 : c > 0;
}

TEST(merge_tactic_order)
{
	CHECK_INT(tcmp("-1", "5"), -1);
	CHECK_INT(tcmp("10", "9"), 1); /* numerically, not as text */
	CHECK_INT(tcmp("7", "7"), 0);
	CHECK_INT(tcmp("100", "(1,)"), -1); /* numbers before tuples */
	CHECK_INT(tcmp("(1, 2)", "(1, 10)"), -1);
	CHECK_INT(tcmp("(1, 10)", "(2,)"), -1); /* element-wise */
	CHECK_INT(tcmp("(8,)", "(8, 34)"), -1); /* a prefix first */
	CHECK_INT(tcmp("(8, (1, 2))", "(8, (1, 3))"), -1);
	CHECK_INT(tcmp("True", "1"), 1); /* equal for Python: the spelling decides (total order) */
}

TTEST_SUITE(provenance_tests) = {
	{ "prov_canonical_bytes", prov_canonical_bytes },
	{ "prov_round_trip", prov_round_trip },
	{ "prov_file_name_rule", prov_file_name_rule },
	{ "prov_read_errors_located", prov_read_errors_located },
	{ "prov_read_accepts_minimal", prov_read_accepts_minimal },
	{ "prov_run_backend", prov_run_backend },
	{ "merge_tactic_order", merge_tactic_order },
	TTEST_END,
};
