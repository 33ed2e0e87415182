/* test_journal.c: the profiling journal (journal.h): the exact bytes written, replay on resume,
 * the reader's records, journals of another run moved aside, journals from before backends
 * were named, torn last lines; identity pairs and file names; the last record winning, text
 * fields kept to one line, lines of other forms skipped, open and read errors. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tune/journal.h"
#include "ttest.h"
#include "base/util.h"

#define ID "version=0.7.4 device=NVIDIA H200 model=Qwen3-30B-A3B profile=1"

/* A fresh temporary folder with path DIR/j.journal holding text (NULL: no file). */
static char *tmp_journal(const char *text)
{
	char dir[] = "/tmp/tunetab-unit-journal-XXXXXX";
	if (!mkdtemp(dir))
		return xstrdup("/nonexistent/j.journal");
	char *path = xasprintf("%s/j.journal", dir);
	if (text)
		write_file_atomic(path, text, strlen(text), 0644);
	return path;
}

static char *slurp(const char *path)
{
	char *text = NULL;
	size_t len;
	if (read_file(path, 0, &text, &len))
		return xstrdup("(unreadable)");
	return text;
}

static void tmp_done(char *path)
{
	unlink(path);
	char *old = xasprintf("%s.old", path);
	unlink(old);
	free(old);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	rmdir(path);
	free(path);
}

static struct prof_result result(int id, int status, double med, const char *why)
{
	struct prof_result r;
	memset(&r, 0, sizeof r);
	r.id = id;
	r.status = (enum prof_status)status;
	r.median_us = med;
	r.lo_us = med - 0.25;
	r.hi_us = med + 0.5;
	r.n = status ? 0 : 15;
	snprintf(r.why, sizeof r.why, "%s", why);
	return r;
}

/* one entry: two candidates timed, predictions, the decision */
static int write_entry(struct journal *j, struct diags *d)
{
	struct prof_result r[2] = { result(19, 0, 5.37976, ""), result(23, 2, 0, "hung: killed") };
	int rc = journal_add_measurements(j, 1, 16, r, 2, d);
	struct lookup_entry e;
	memset(&e, 0, sizeof e);
	e.stage = 1;
	e.tokens = 16;
	e.ntop = 3;
	e.top[0] = 19, e.top[1] = 23, e.top[2] = 7;
	e.top_time[0] = 5.5, e.top_time[1] = 6.25, e.top_time[2] = -1;
	e.tactic = 19;
	e.fallback = -1;
	e.kind = CHOICE_MEASURED;
	return rc ? rc : journal_add_decision(j, &e, false, d);
}

TEST(journal_bytes_and_reader)
{
	char *path = tmp_journal(NULL);
	struct journal j;
	struct diags d = DIAGS_INIT;
	size_t resumed = 9;
	CHECK_INT(journal_open(&j, path, ID " backend=proxy shard=0/1", "tunetab generate\n-q",
			       "proxy cuBLASLt 13.1.0", &resumed, &d), TT_OK);
	CHECK_INT(resumed, 0);
	CHECK_INT(write_entry(&j, &d), TT_OK);
	CHECK(journal_find(&j, 1, 16, 23) && journal_find(&j, 1, 16, 23)->status == PROF_FAILED);
	CHECK(journal_find(&j, 2, 16, 23) == NULL);
	journal_close(&j);
	char *text = slurp(path);
	CHECK_STR(text, "# tunetab journal v1 " ID " backend=proxy shard=0/1\n"
		  "# command tunetab generate -q\n"
		  "# backend proxy cuBLASLt 13.1.0\n"
		  "M 1 16 19 0 5.3798 5.1298 5.8798 15 -\n"
		  "M 1 16 23 2 0.0000 -0.2500 0.5000 0 hung:_killed\n"
		  "P 1 16 19 5.5000\n"
		  "P 1 16 23 6.2500\n"
		  "D 1 16 19 1 -1 0\n");
	free(text);
	struct journal_reader r;
	CHECK_INT(journal_reader_open(&r, path, &d), TT_OK);
	CHECK_STR(r.identity, ID " backend=proxy shard=0/1");
	struct journal_record x;
	int kinds[16], n = 0;
	while (n < 16 && journal_reader_next(&r, &x)) {
		kinds[n++] = (int)x.kind;
		if (x.kind == JOURNAL_COMMAND)
			CHECK_STR(x.text, "tunetab generate -q");
		if (x.kind == JOURNAL_BACKEND)
			CHECK_STR(x.text, "proxy cuBLASLt 13.1.0");
		if (x.kind == JOURNAL_MEASUREMENT && x.m.id == 23) {
			CHECK_STR(x.m.why, "hung: killed");
			CHECK(x.m.status == PROF_FAILED && x.stage == 1 && x.tokens == 16 && x.line == 5);
		}
		if (x.kind == JOURNAL_DECISION)
			CHECK(x.chosen == 19 && x.choice == CHOICE_MEASURED && x.fallback == -1 &&
			      !x.out_of_budget);
	}
	int want[] = { JOURNAL_COMMAND, JOURNAL_BACKEND, JOURNAL_MEASUREMENT, JOURNAL_MEASUREMENT,
		       JOURNAL_PREDICTION, JOURNAL_PREDICTION, JOURNAL_DECISION };
	CHECK_INT(n, 7);
	for (int i = 0; i < n && i < 7; i++)
		CHECK_INT(kinds[i], want[i]);
	journal_reader_close(&r);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	tmp_done(path);
}

TEST(journal_resume_and_foreign)
{
	char *path = tmp_journal(NULL);
	struct journal j;
	struct diags d = DIAGS_INIT;
	size_t resumed;
	const char *id = ID " backend=fake shard=0/1";
	CHECK_INT(journal_open(&j, path, id, NULL, "fake", &resumed, &d), TT_OK);
	CHECK_INT(write_entry(&j, &d), TT_OK);
	journal_close(&j);
	/* the same run again: both measurements replayed, the file appended to */
	CHECK_INT(journal_open(&j, path, id, "again", NULL, &resumed, &d), TT_OK);
	CHECK_INT(resumed, 2);
	CHECK(journal_find(&j, 1, 16, 19) && journal_find(&j, 1, 16, 19)->median_us == 5.3798);
	journal_close(&j);
	char *text = slurp(path);
	CHECK(str_ends(text, "D 1 16 19 1 -1 0\n# command again\n"));
	free(text);
	/* another run (another backend): the journal is moved aside, a new one started */
	CHECK_INT(journal_open(&j, path, ID " backend=proxy shard=0/1", NULL, NULL, &resumed, &d), TT_OK);
	CHECK_INT(resumed, 0);
	CHECK_INT(j.n, 0);
	journal_close(&j);
	text = slurp(path);
	CHECK_STR(text, "# tunetab journal v1 " ID " backend=proxy shard=0/1\n");
	free(text);
	char *old = xasprintf("%s.old", path);
	text = slurp(old);
	CHECK(str_starts(text, "# tunetab journal v1 " ID " backend=fake shard=0/1\n# backend fake\n"));
	free(text);
	free(old);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	tmp_done(path);
}

TEST(journal_before_backends)
{
	/* a proxy run's journal from before backends were named resumes a proxy run only */
	const char *legacy = "# tunetab journal v1 " ID " shard=0/1\n# command old\n"
			     "M 1 16 19 0 5.3798 5.1298 5.8798 15 -\n";
	char *path = tmp_journal(legacy);
	struct journal j;
	struct diags d = DIAGS_INIT;
	size_t resumed;
	CHECK_INT(journal_open(&j, path, ID " backend=proxy shard=0/1", NULL, "proxy", &resumed, &d),
		  TT_OK);
	CHECK_INT(resumed, 1);
	journal_close(&j);
	char *text = slurp(path);
	CHECK(str_starts(text, legacy)); /* its header is kept */
	free(text);
	CHECK_INT(journal_open(&j, path, ID " backend=proxy shard=1/2", NULL, NULL, &resumed, &d),
		  TT_OK);
	CHECK_INT(resumed, 0); /* another shard */
	journal_close(&j);
	tmp_done(path);
	path = tmp_journal(legacy);
	CHECK_INT(journal_open(&j, path, ID " backend=fake shard=0/1", NULL, NULL, &resumed, &d), TT_OK);
	CHECK_INT(resumed, 0);
	journal_close(&j);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	tmp_done(path);
}

TEST(journal_torn_last_line)
{
	const char *whole = "# tunetab journal v1 " ID " backend=fake shard=0/1\n"
			    "M 1 16 19 0 5.3798 5.1298 5.8798 15 -\n";
	char *torn = xasprintf("%sM 1 16 23 0 6.1", whole);
	char *path = tmp_journal(torn);
	/* the reader leaves it out */
	struct journal_reader r;
	struct journal_record x;
	struct diags d = DIAGS_INIT;
	CHECK_INT(journal_reader_open(&r, path, &d), TT_OK);
	int n = 0;
	while (journal_reader_next(&r, &x))
		n++;
	CHECK_INT(n, 1);
	journal_reader_close(&r);
	/* a resume cuts it off before appending */
	struct journal j;
	size_t resumed;
	CHECK_INT(journal_open(&j, path, ID " backend=fake shard=0/1", "c", NULL, &resumed, &d), TT_OK);
	CHECK_INT(resumed, 1);
	journal_close(&j);
	char *text = slurp(path);
	char *want = xasprintf("%s# command c\n", whole);
	CHECK_STR(text, want);
	free(want);
	free(text);
	free(torn);
	tmp_done(path);
	/* a torn header is no journal of this run: moved aside */
	path = tmp_journal("# tunetab journal v1 " ID " backend=fa");
	CHECK_INT(journal_open(&j, path, ID " backend=fake shard=0/1", NULL, NULL, &resumed, &d), TT_OK);
	CHECK_INT(resumed, 0);
	journal_close(&j);
	text = slurp(path);
	CHECK_STR(text, "# tunetab journal v1 " ID " backend=fake shard=0/1\n");
	free(text);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	tmp_done(path);
}

TEST(journal_reader_errors)
{
	struct journal_reader r;
	struct diags d = DIAGS_INIT;
	char *path = tmp_journal("M 1 1 19 0 1 1 1 1 -\n");
	CHECK_INT(journal_reader_open(&r, path, &d), TT_INVALID);
	CHECK(d.n == 1 && d.v[0].line == 1 && strstr(d.v[0].msg, "not a tunetab journal"));
	diags_release(&d);
	tmp_done(path);
	path = tmp_journal(NULL);
	CHECK_INT(journal_reader_open(&r, path, &d), TT_INVALID);
	CHECK(d.n == 1 && strstr(d.v[0].msg, "cannot read the journal: No such file"));
	diags_release(&d);
	tmp_done(path);
}

TEST(journal_identity_and_names)
{
	struct strbuf id = STRBUF_INIT;
	journal_identity_add(&id, "version", "%s", "0.7.4");
	journal_identity_add(&id, "device", "%s", "NVIDIA H200\nNVL");
	journal_identity_add(&id, "tp", "%d", 8);
	journal_identity_add(&id, "keys", "%s", "my keys.txt");
	CHECK_STR(id.buf, "version=0.7.4 device=NVIDIA H200 NVL tp=8 keys=my keys.txt");
	char *v = journal_identity_value(id.buf, "device");
	CHECK_STR(v, "NVIDIA H200 NVL");
	free(v);
	v = journal_identity_value(id.buf, "keys");
	CHECK_STR(v, "my keys.txt");
	free(v);
	CHECK(journal_identity_value(id.buf, "backend") == NULL);
	sb_release(&id);
	char *p = journal_path("out/x", "v0_1_trtllm_fused_moe_NVIDIA_H200.py");
	CHECK_STR(p, "out/x/v0_1_trtllm_fused_moe_NVIDIA_H200.journal");
	char *m = journal_module(p);
	CHECK_STR(m, "v0_1_trtllm_fused_moe_NVIDIA_H200.py");
	free(m);
	free(p);
}

TEST(journal_last_record_wins)
{
	char *path = tmp_journal(NULL);
	struct journal j;
	struct diags d = DIAGS_INIT;
	size_t resumed;
	const char *id = ID " backend=fake shard=0/1";
	CHECK_INT(journal_open(&j, path, id, NULL, NULL, &resumed, &d), TT_OK);
	struct prof_result first[2] = { result(5, 2, 0, "launch failed"), result(6, 0, 7.25, "") };
	struct prof_result again = result(5, 0, 3.125, "");
	CHECK_INT(journal_add_measurements(&j, 2, 512, first, 2, &d), TT_OK);
	CHECK_INT(journal_add_measurements(&j, 2, 512, &again, 1, &d), TT_OK);
	const struct prof_result *f = journal_find(&j, 2, 512, 5);
	CHECK(f && f->status == PROF_OK && f->median_us == 3.125);
	CHECK(journal_find(&j, 2, 512, 6) && journal_find(&j, 2, 512, 6)->median_us == 7.25);
	CHECK(journal_find(&j, 2, 256, 5) == NULL);
	CHECK(journal_find(&j, 1, 512, 5) == NULL);
	journal_close(&j);
	CHECK(j.fd == -1 && j.v == NULL && j.n == 0 && j.path == NULL);
	/* and after a resume: every measurement replayed, the last one found */
	CHECK_INT(journal_open(&j, path, id, NULL, NULL, &resumed, &d), TT_OK);
	CHECK_INT(resumed, 3);
	CHECK_INT(j.n, 3);
	f = journal_find(&j, 2, 512, 5);
	CHECK(f && f->status == PROF_OK && f->median_us == 3.125 && f->n == 15 && f->why[0] == '\0');
	CHECK(f && f->lo_us == 2.875 && f->hi_us == 3.625);
	journal_close(&j);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	tmp_done(path);
}

TEST(journal_text_fields_one_line)
{
	char *path = tmp_journal(NULL);
	struct journal j;
	struct diags d = DIAGS_INIT;
	size_t resumed;
	CHECK_INT(journal_open(&j, path, ID " backend=fake shard=0/1", "tunetab generate \\\n  --profile",
			       "fake\nseed 7", &resumed, &d), TT_OK);
	/* a reason's spaces and newlines become '_', an empty one '-'; times have 4 decimals */
	struct prof_result r[3] = { result(1, 3, 0, "a b\nc"), result(2, 0, 2.71828, ""),
				    result(3, 1, 0, "x") };
	CHECK_INT(journal_add_measurements(&j, 1, 1, r, 3, &d), TT_OK);
	/* a fallback decision out of budget; predictions only for known times */
	struct lookup_entry e;
	memset(&e, 0, sizeof e);
	e.stage = 2;
	e.tokens = 8192;
	e.ntop = 3;
	e.top[0] = 4, e.top[1] = 9, e.top[2] = 11;
	e.top_time[0] = -1, e.top_time[1] = 0, e.top_time[2] = 12.34567;
	e.tactic = 11;
	e.fallback = 4;
	e.kind = CHOICE_FALLBACK;
	CHECK_INT(journal_add_decision(&j, &e, true, &d), TT_OK);
	e.ntop = 0;
	e.kind = CHOICE_PREDICTED;
	CHECK_INT(journal_add_decision(&j, &e, false, &d), TT_OK);
	journal_close(&j);
	char *text = slurp(path);
	CHECK_STR(text, "# tunetab journal v1 " ID " backend=fake shard=0/1\n"
		  "# command tunetab generate \\   --profile\n"
		  "# backend fake seed 7\n"
		  "M 1 1 1 3 0.0000 -0.2500 0.5000 0 a_b_c\n"
		  "M 1 1 2 0 2.7183 2.4683 3.2183 15 -\n"
		  "M 1 1 3 1 0.0000 -0.2500 0.5000 0 x\n"
		  "P 2 8192 9 0.0000\n"
		  "P 2 8192 11 12.3457\n"
		  "D 2 8192 11 2 4 1\n"
		  "D 2 8192 11 0 4 0\n");
	free(text);
	struct journal_reader rd;
	CHECK_INT(journal_reader_open(&rd, path, &d), TT_OK);
	struct journal_record x;
	int n = 0;
	while (journal_reader_next(&rd, &x)) {
		n++;
		if (x.line == 2)
			CHECK(x.kind == JOURNAL_COMMAND && !strcmp(x.text, "tunetab generate \\   --profile"));
		if (x.line == 3)
			CHECK(x.kind == JOURNAL_BACKEND && !strcmp(x.text, "fake seed 7"));
		if (x.line == 4)
			CHECK(x.kind == JOURNAL_MEASUREMENT && x.m.status == 3 && !strcmp(x.m.why, "a b c"));
		if (x.line == 5)
			CHECK(x.kind == JOURNAL_MEASUREMENT && x.m.median_us == 2.7183 &&
			      x.m.lo_us == 2.4683 && x.m.hi_us == 3.2183 && x.m.n == 15 && !x.m.why[0]);
		if (x.line == 8)
			CHECK(x.kind == JOURNAL_PREDICTION && x.stage == 2 && x.tokens == 8192 &&
			      x.id == 11 && x.pred_us == 12.3457);
		if (x.line == 9)
			CHECK(x.kind == JOURNAL_DECISION && x.chosen == 11 && x.choice == CHOICE_FALLBACK &&
			      x.fallback == 4 && x.out_of_budget);
	}
	CHECK_INT(n, 9);
	journal_reader_close(&rd);
	CHECK_INT(d.n, 0);
	diags_release(&d);
	tmp_done(path);
}

TEST(journal_reader_other_lines)
{
	/* lines of no known form are skipped; line numbers stay those of the file */
	char *path = tmp_journal("# tunetab journal v1 id=1\n"
				 "\n"
				 "# a comment\n"
				 "M 1 16 19 0 5.0 4.0 6.0 15\n"
				 "M 1 16 19 zero\n"
				 "X 1 2 3\n"
				 "P 1 16 19\n"
				 "D 1 16 19 1 -1\n"
				 "P 1 16 19 2.5 trailing\n"
				 " M 1 16 19 0 5.0 4.0 6.0 15 -\n"
				 "D 1 16 19 1 -1 0\n");
	struct journal_reader r;
	struct diags d = DIAGS_INIT;
	CHECK_INT(journal_reader_open(&r, path, &d), TT_OK);
	CHECK_STR(r.identity, "id=1");
	struct journal_record x;
	int lines[8], n = 0;
	while (n < 8 && journal_reader_next(&r, &x)) {
		if (x.line == 4)
			CHECK(x.kind == JOURNAL_MEASUREMENT && x.m.median_us == 5.0 && x.m.n == 15 &&
			      x.m.why[0] == '\0');
		if (x.line == 9)
			CHECK(x.kind == JOURNAL_PREDICTION && x.pred_us == 2.5);
		lines[n++] = x.line;
	}
	CHECK_INT(n, 3);
	CHECK(n == 3 && lines[0] == 4 && lines[1] == 9 && lines[2] == 11);
	CHECK(!journal_reader_next(&r, &x)); /* and stays at the end */
	journal_reader_close(&r);
	CHECK(r.text == NULL);
	tmp_done(path);
	/* a torn header: its identity as far as it goes, no records */
	path = tmp_journal("# tunetab journal v1 version=0.7");
	CHECK_INT(journal_reader_open(&r, path, &d), TT_OK);
	CHECK_STR(r.identity, "version=0.7");
	CHECK(!journal_reader_next(&r, &x));
	journal_reader_close(&r);
	tmp_done(path);
	/* an empty file is no journal */
	path = tmp_journal("");
	CHECK_INT(journal_reader_open(&r, path, &d), TT_INVALID);
	CHECK(d.n == 1 && d.v[0].line == 1 && d.v[0].col == 1);
	CHECK_STR(d.n ? d.v[0].msg : NULL, "not a tunetab journal (its first line should start "
		  "'# tunetab journal v1 ')");
	diags_release(&d);
	tmp_done(path);
	/* a folder */
	char dir[] = "/tmp/tunetab-unit-journal-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(journal_reader_open(&r, dir, &d), TT_INVALID);
	CHECK(d.n == 1 && strstr(d.v[0].msg, "cannot read the journal: a folder, not a file"));
	CHECK_STR(d.n ? d.v[0].file : NULL, dir);
	diags_release(&d);
	rmdir(dir);
}

TEST(journal_open_cases)
{
	struct journal j;
	struct diags d = DIAGS_INIT;
	size_t resumed = 7;
	/* an empty file is moved aside like any other */
	char *path = tmp_journal("");
	CHECK_INT(journal_open(&j, path, "id=1", NULL, NULL, &resumed, &d), TT_OK);
	CHECK_INT(resumed, 0);
	journal_close(&j);
	char *text = slurp(path);
	CHECK_STR(text, "# tunetab journal v1 id=1\n");
	free(text);
	char *old = xasprintf("%s.old", path);
	text = slurp(old);
	CHECK_STR(text, "");
	free(text);
	free(old);
	tmp_done(path);
	/* a journal from before backends were named, for a run whose last pair is backend=proxy */
	path = tmp_journal("# tunetab journal v1 a=1 b=2\nM 1 1 1 0 1.0 1.0 1.0 1 -\n");
	CHECK_INT(journal_open(&j, path, "a=1 b=2 backend=proxy", NULL, NULL, &resumed, &d), TT_OK);
	CHECK_INT(resumed, 1);
	journal_close(&j);
	tmp_done(path);
	/* ... but not for backend=proxy2, nor when another pair differs */
	static const char *const others[] = { "a=1 b=2 backend=proxy2", "a=1 b=3 backend=proxy",
					      "a=1 backend=proxy b=2 c=3", "a=1 b=2 backend=fake" };
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
		path = tmp_journal("# tunetab journal v1 a=1 b=2\nM 1 1 1 0 1.0 1.0 1.0 1 -\n");
		CHECK_INT(journal_open(&j, path, others[i], NULL, NULL, &resumed, &d), TT_OK);
		CHECK_INT(resumed, 0);
		journal_close(&j);
		tmp_done(path);
	}
	/* a journal of a named backend never stands for another */
	path = tmp_journal("# tunetab journal v1 a=1 backend=fake\nM 1 1 1 0 1.0 1.0 1.0 1 -\n");
	CHECK_INT(journal_open(&j, path, "a=1 backend=proxy", NULL, NULL, &resumed, &d), TT_OK);
	CHECK_INT(resumed, 0);
	journal_close(&j);
	tmp_done(path);
	CHECK_INT(d.n, 0);
	/* errors: no folder, a folder in the way */
	CHECK_INT(journal_open(&j, "/nonexistent-tunetab/x.journal", "id=1", NULL, NULL, &resumed, &d),
		  TT_INTERNAL);
	CHECK(d.n == 1 && !strcmp(d.v[0].id, "io"));
	CHECK_STR(d.n ? d.v[0].msg : NULL, "cannot open the journal: No such file or directory");
	CHECK_STR(d.n ? d.v[0].file : NULL, "/nonexistent-tunetab/x.journal");
	journal_close(&j);
	diags_release(&d);
	char dir[] = "/tmp/tunetab-unit-journal-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(journal_open(&j, dir, "id=1", NULL, NULL, &resumed, &d), TT_INVALID);
	CHECK_STR(d.n ? d.v[0].msg : NULL, "cannot read the journal: a folder, not a file");
	journal_close(&j);
	diags_release(&d);
	rmdir(dir);
}

TEST(journal_identity_edges)
{
	static const char *const cases[][3] = {
		/* identity, key, value (NULL: absent) */
		{ "tp_rank=3 rank=5", "rank", "5" },
		{ "rank=5 tp_rank=3", "rank", "5" },
		{ "tp_rank=3", "rank", NULL },
		{ "xversion=1 version=2", "version", "2" },
		{ "device=NVIDIA H200 NVL=x tp=8", "device", "NVIDIA H200 NVL=x" },
		{ "keys=a=b tp=8", "keys", "a=b" },
		{ "model=m tp2=8 ep=1", "model", "m tp2=8" },
		{ "model=m _x=8 ep=1", "model", "m" },
		{ "model=m X=8 ep=1", "model", "m X=8" },
		{ "model=m out_dir=8", "model", "m" },
		{ "model= tp=8", "model", "" },
		{ "model=a  b tp=8", "model", "a  b" },
		{ "model=a tp=", "tp", "" },
		{ "", "tp", NULL },
		{ "tp", "tp", NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *v = journal_identity_value(cases[i][0], cases[i][1]);
		if (cases[i][2])
			CHECK_STR(v, cases[i][2]);
		else
			CHECK(v == NULL);
		free(v);
	}
	struct strbuf id = STRBUF_INIT;
	journal_identity_add(&id, "a", "%s", "");
	journal_identity_add(&id, "b", "x\n\ny");
	CHECK_STR(id.buf, "a= b=x  y");
	sb_release(&id);
	char *p = journal_path("o", "module");
	CHECK_STR(p, "o/module.journal");
	free(p);
	p = journal_path("o", "a.py.py");
	CHECK_STR(p, "o/a.py.journal");
	free(p);
	p = journal_module("plain.journal");
	CHECK_STR(p, "plain.py");
	free(p);
	p = journal_module("/x/y/z.log");
	CHECK_STR(p, "z.log.py");
	free(p);
}

TTEST_SUITE(journal_tests) = {
	{ "journal_bytes_and_reader", journal_bytes_and_reader },
	{ "journal_resume_and_foreign", journal_resume_and_foreign },
	{ "journal_before_backends", journal_before_backends },
	{ "journal_torn_last_line", journal_torn_last_line },
	{ "journal_reader_errors", journal_reader_errors },
	{ "journal_identity_and_names", journal_identity_and_names },
	{ "journal_last_record_wins", journal_last_record_wins },
	{ "journal_text_fields_one_line", journal_text_fields_one_line },
	{ "journal_reader_other_lines", journal_reader_other_lines },
	{ "journal_open_cases", journal_open_cases },
	{ "journal_identity_edges", journal_identity_edges },
	TTEST_END,
};
