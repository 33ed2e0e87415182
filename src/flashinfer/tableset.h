/* tableset.h: a folder's set of tables as generate and merge write it (the module, the JSON
 * cache, the provenance file), committed as one under an undo log in the folder
 * (util.h file_set_undo; issue #46): SIGKILL at any point leaves the old set, the new set,
 * or the undo log with which the next generate or merge into that folder first puts the old
 * set back. Readers that take the files of a folder together (validate, merge's inputs)
 * report an undo log they find; they write nothing. */
#ifndef TUNETAB_TABLESET_H
#define TUNETAB_TABLESET_H

#include "base/diag.h"

/* Whose undo log: the `who` of util.h file_set_undo_path. */
#define TABLESET_GENERATE "generate"
#define TABLESET_MERGE "merge"

/* Rolls back the set an interrupted generate or merge left in dir (either's undo log: both
 * write the same files), before a writer reads or writes the folder: a warning in d per set
 * restored, naming the command. TT_OK (also when there is nothing to restore, or dir is no
 * folder), or TT_INTERNAL with an error in d (the undo log then stays). */
int tableset_recover(const char *dir, struct diags *d);

/* The undo log an interrupted generate, merge or install left in dir, or NULL; *who (may be
 * NULL) names that command. Caller frees. */
char *tableset_interrupted(const char *dir, const char **who);

#endif
