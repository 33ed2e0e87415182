/* tableset.c: the undo-logged set of tables generate and merge write into a folder: recovery by
 * the next writer, the check readers make (tableset.h). */
#include "flashinfer/tableset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

/* The commands whose undo logs a folder of tables may hold; install's is the rank-file
 * folders' (deploy/install.c), listed for the readers. */
static const char *const writers[] = { TABLESET_GENERATE, TABLESET_MERGE };
static const char *const any_writer[] = { TABLESET_GENERATE, TABLESET_MERGE, "install" };

int tableset_recover(const char *dir, struct diags *d)
{
	if (!path_is_dir(dir)) /* none yet, or not a folder: the writer that follows says so */
		return TT_OK;
	for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
		char *undo = file_set_undo_path(dir, writers[i]);
		int found = 0;
		size_t n = 0;
		int e = file_set_recover(undo, &found, &n);
		int rc = TT_OK;
		if (e)
			rc = diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot restore '%s' from the "
					"journal of an interrupted %s '%s': %s", dir, writers[i], undo,
					e == EBADMSG ? "not a journal this tunetab reads" : strerror(e));
		else if (found)
			diags_add(d, SEV_WARNING, writers[i], NULL, 0, 0, "restored '%s' to its state "
				  "before an interrupted %s (%zu file%s)", dir, writers[i], n,
				  n == 1 ? "" : "s");
		free(undo);
		if (rc)
			return rc;
	}
	return TT_OK;
}

char *tableset_interrupted(const char *dir, const char **who)
{
	for (size_t i = 0; i < sizeof any_writer / sizeof *any_writer; i++) {
		char *undo = file_set_undo_path(dir, any_writer[i]);
		if (!access(undo, F_OK)) {
			if (who)
				*who = any_writer[i];
			return undo;
		}
		free(undo);
	}
	return NULL;
}
