/* unit_data.h: the checkout's devices, catalogs and version rules as validate's data, loaded
 * once per test file (the unit tests run from the checkout's root). */
#ifndef TUNETAB_UNIT_DATA_H
#define TUNETAB_UNIT_DATA_H

#include "data/catalog.h"
#include "data/device.h"
#include "data/firules.h"
#include "data/opdefs.h"
#include "flashinfer/validate.h"
#include "ttest.h"

static inline const struct validate_data *unit_validate_data(void)
{
	static struct device_set devs;
	static struct catalog_set cats;
	static struct firules_set rules;
	static struct op_set ops;
	static struct validate_data vdata;
	static int loaded;
	if (!loaded) {
		struct diags d = DIAGS_INIT;
		CHECK_INT(device_load_dir("configs/devices", &devs, &d), 0);
		CHECK_INT(catalog_load_dir("configs/catalogs/flashinfer", &cats, &d), 0);
		CHECK_INT(firules_load_dir("schemas/flashinfer", &rules, &d), 0);
		CHECK_INT(opdefs_load(".", &ops, &d), 0);
		CHECK_INT(d.n, 0);
		diags_release(&d);
		vdata = (struct validate_data){ &devs, &cats, &rules, &ops };
		loaded = 1;
	}
	return &vdata;
}

#endif
