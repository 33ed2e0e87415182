/* datafile.h: one YAML data file of any kind, checked strictly (tunetab check-data FILE). */
#ifndef TUNETAB_DATAFILE_H
#define TUNETAB_DATAFILE_H

#include "base/diag.h"

/* Loads the file with the loader its top-level key names (device, model, catalog, dtypes,
 * model_fit, ranking, flashinfer_schema), which checks it, and frees it. Returns 0 or the
 * loader's status with its diagnostics in d; a file of no known kind is TT_INVALID ("data-kind"), located at
 * its top-level key (a YAML syntax error is reported, located, by the device loader). */
int datafile_check(const char *path, struct diags *d);

#endif
