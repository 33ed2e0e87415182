/* validate.h: every rule FlashInfer applies to a tuning table, for one target version and
 * device (flashinfer-formats.md §1, §2, §3, §7; cutlass-moe-tactics.md §1, §3). Fills
 * diagnostics; never prints. */
#ifndef TUNETAB_VALIDATE_H
#define TUNETAB_VALIDATE_H

#include <stdbool.h>

#include "data/catalog.h"
#include "data/device.h"
#include "base/diag.h"
#include "data/firules.h"
#include "flashinfer/table.h"

struct validate_data {
	const struct device_set *devices;
	const struct catalog_set *catalogs;
	const struct fischema_set *schemas;
};

struct validate_opts {
	const char *flashinfer; /* NULL: JSON _metadata.flashinfer_version, else the provenance's,
				 * else the newest */
	const char *provenance_version; /* from the tunetab provenance file beside it, or NULL */
	const char *device;     /* NULL: from the file name, else JSON _metadata.gpu */
	int dtype;              /* enum dtype, or -1 to infer per entry */
};

struct validate_result {
	const struct fi_schema *schema;
	char version[48];
	const char *version_from;   /* "--flashinfer", "_metadata.flashinfer_version", "tunetab
				     * provenance", "newest known" */
	const struct device_profile *device;
	char device_name[256];      /* "" when unknown */
	const char *device_from;    /* "--device", "file name", "_metadata.gpu", NULL */
	bool never_loaded;
	size_t entries;
};

/* One description line per check id, in the order the README lists them. */
struct check_info {
	const char *id;
	const char *what;
};
extern const struct check_info validate_checks[];

/* Validates t. Returns TT_OK, or TT_USAGE for a bad --flashinfer/--device. */
int validate_table(const struct validate_data *data, const struct table *t,
		   const struct validate_opts *o, struct validate_result *r, struct diags *d);

/* Checks a tunetab provenance file and the tables beside it that it names: the same keys,
 * the same tactics. Errors go to d; returns TT_OK, or the status of an unreadable file. */
int validate_provenance(const char *path, size_t *entries, struct diags *d);

#endif
