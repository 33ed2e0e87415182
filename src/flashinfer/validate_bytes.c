/* validate_bytes.c: bytes about to be written, checked as the table they are (validate_bytes.h). */
#include "flashinfer/validate_bytes.h"

#include "flashinfer/table.h"

int validate_bytes(const struct validate_data *data, const char *name, const char *buf,
		   size_t len, const struct validate_opts *o, struct diags *d)
{
	size_t errors = diags_count(d, SEV_ERROR);
	struct table t;
	int rc = table_read_mem(name, buf, len, &t, d);
	if (!rc) {
		struct validate_result r;
		rc = validate_table(data, &t, o, &r, d);
	}
	table_release(&t);
	if (!rc && diags_count(d, SEV_ERROR) > errors)
		rc = TT_INVALID;
	return rc;
}
