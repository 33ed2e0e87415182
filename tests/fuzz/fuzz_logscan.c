/* fuzz_logscan.c: libFuzzer target for the server-log scanner: logscan_fd over the input
 * (plain or gzip, through a memfd, as `scan-log` reads a file), every event's strings read
 * in full, and the per-op summary built from the events as `scan-log` builds it. */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "fuzz_common.h"
#include "inspect/logscan.h"

static int memfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	memfd = memfd_create("fuzz-log", 0);
	if (memfd < 0) {
		perror("memfd_create");
		abort();
	}
	return 0;
}

static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

static void on_event(const struct ls_event *ev, void *ctx)
{
	struct ls_summary *sum = ctx;
	size_t n = touch(ev->op) + touch(ev->runner) + touch(ev->tactic) + touch(ev->key) +
		   touch(ev->path) + touch(ev->shapes) + touch(ev->detail) + touch(ev->severity);
	if ((unsigned)ev->kind >= LS_KIND_COUNT || n > ((size_t)8 << 20))
		abort();
	(void)ls_kind_name(ev->kind);
	ls_summary_add(sum, ev);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (ftruncate(memfd, 0) || lseek(memfd, 0, SEEK_SET) ||
	    (size && write(memfd, data, size) != (ssize_t)size) || lseek(memfd, 0, SEEK_SET)) {
		perror("memfd");
		abort();
	}
	struct ls_summary sum = LS_SUMMARY_INIT;
	struct ls_stats st;
	struct diags d = DIAGS_INIT;
	memset(&st, 0, sizeof st);
	logscan_fd(memfd, "fuzz.log", on_event, &sum, &st, &d);
	/* what the text and JSON summaries read */
	size_t n = 0;
	for (size_t i = 0; i < sum.n_ops; i++) {
		n += touch(sum.ops[i].name);
		for (size_t j = 0; j < sum.ops[i].n_affected; j++)
			n += touch(sum.ops[i].affected[j]);
		for (size_t j = 0; j < sum.ops[i].n_passes; j++)
			n += (size_t)sum.ops[i].passes[j].updates;
	}
	for (size_t i = 0; i < sum.n_keys; i++)
		n += touch(sum.keys[i]) + sum.keys_moe[i];
	(void)n;
	ls_summary_release(&sum);
	diags_release(&d);
	return 0;
}
