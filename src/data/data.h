/* data.h: tunetab's data folder loaded as one value (configs/ and schemas/), and the choice
 * of the FlashInfer version rules a command applies. */
#ifndef TUNETAB_DATA_H
#define TUNETAB_DATA_H

#include <stdbool.h>

#include "base/diag.h"
#include "base/version.h"
#include "data/catalog.h"
#include "data/device.h"
#include "data/dtypes.h"
#include "data/firules.h"
#include "data/model.h"
#include "data/opdefs.h"

enum data_part {
	DATA_DEVICES = 1, DATA_MODELS = 2, DATA_CATALOGS = 4, DATA_SCHEMAS = 8, DATA_OPS = 16,
	DATA_DTYPES = 32, DATA_ALL = 63,
};

struct tt_data {
	char *root;
	struct device_set devices;
	struct model_set models;
	struct catalog_set catalogs;
	struct firules_set rules;
	struct op_set ops;       /* configs/ops: the ops servers tune at start */
	struct dtype_set *dtypes; /* configs/dtypes.yaml */
};

/* Finds the data folder (datadir.h) and loads the parts asked for. Returns the worst status;
 * on failure d says why. Release with data_release either way. */
int data_load(struct tt_data *data, unsigned parts, struct diags *d);
void data_release(struct tt_data *data);
/* Path relative to the data root for display ("configs/devices/h200.yaml"). */
const char *data_rel(const struct tt_data *data, const char *path);

/* The FlashInfer installed on this machine, when one was found (the command layer asks
 * inspect/doctor.h), for a choice without --flashinfer. */
struct data_installed_fi {
	const char *version, *pkg;
};

/* The version rules for `version` (NULL: the installed FlashInfer's, else the newest known
 * release). With announce, the notes on which version was chosen go to d (SEV_NOTE), as does
 * the warning for a version newer than every known one. */
int data_pick_rules(const struct tt_data *data, const char *version,
		    const struct data_installed_fi *installed, struct fi_version *v,
		    const struct fi_rules **rules, bool announce, struct diags *d);

#endif
