/* validate_bytes.h: bytes about to be written as a table, checked with validate's rules first
 * (generate and merge write nothing that does not pass). Beside validate.c rather than in it
 * only while that file is being edited elsewhere; it belongs with validate_table. */
#ifndef TUNETAB_VALIDATE_BYTES_H
#define TUNETAB_VALIDATE_BYTES_H

#include <stddef.h>

#include "base/diag.h"
#include "flashinfer/validate.h"

/* Reads buf (len bytes) as the table file `name` (the name the file-name checks and the
 * diagnostics see) and validates it with data and o. What the read and the checks find goes
 * to d. Returns TT_OK when the bytes pass (no error added to d); else the read's or validate's code,
 * or TT_INVALID when only the checks failed. */
int validate_bytes(const struct validate_data *data, const char *name, const char *buf,
		   size_t len, const struct validate_opts *o, struct diags *d);

#endif
