/* test_journal.c: the profiling journal (journal.h): the exact bytes written, replay on resume,
 * the reader's records, journals of another run moved aside, journals from before backends
 * were named, torn last lines; identity pairs and file names. */
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
	struct gen_entry e;
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

TTEST_SUITE(journal_tests) = {
	{ "journal_bytes_and_reader", journal_bytes_and_reader },
	{ "journal_resume_and_foreign", journal_resume_and_foreign },
	{ "journal_before_backends", journal_before_backends },
	{ "journal_torn_last_line", journal_torn_last_line },
	{ "journal_reader_errors", journal_reader_errors },
	{ "journal_identity_and_names", journal_identity_and_names },
	TTEST_END,
};
