/* fuzz_journal.c: libFuzzer target for the profiling journal's readers: the input as a
 * journal file read record by record (journal_reader, what resume and report use), by
 * `tunetab report` (report_from_journal, the page built too) and by `tunetab learn`
 * (learn_read_journal: the identity as a deployment, the last median of each candidate;
 * learn_read_ranking: the input as a ranking file, its table read relative to it: the seeds
 * name the input itself and /dev/null). The readers take paths, so the input is written to a
 * private folder under /dev/shm. */
#include "fuzz_common.h"
#include "tune/journal.h"
#include "tune/learn.h"
#include "tune/report.h"

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	path = xasprintf("%s/journal", fuzz_scratch_dir());
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	fuzz_scratch_begin();
	fuzz_write(path, data, size);
	struct diags d = DIAGS_INIT;
	struct journal_reader jr;
	if (journal_reader_open(&jr, path, &d) == TT_OK) {
		struct journal_record x;
		size_t n = 0;
		while (journal_reader_next(&jr, &x))
			n += x.text ? strlen(x.text) : 0;
		struct journal_run_text t;
		journal_run_read(jr.identity, &t);
		journal_run_text_release(&t);
		journal_reader_close(&jr);
		if (n > size)
			abort();
	}
	struct report r;
	if (report_from_journal(path, &r, &d) == TT_OK) {
		struct strbuf sb = STRBUF_INIT;
		report_write_html(&r, &sb);
		sb_release(&sb);
		report_release(&r);
	}
	learn_read_journal(path, &d);
	learn_read_ranking(path, &d);
	diags_release(&d);
	fuzz_scratch_cleanup();
	return 0;
}
