/* cmd_check_data.c: `tunetab check-data`: strict load of every YAML data file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "data/datafile.h"
#include "data/dtypes.h"
#include "base/util.h"

int cmd_check_data(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("check-data", "unknown option '%s'", argv[i]);
	if (argc > 1) {
		struct diags d = DIAGS_INIT;
		int rc = TT_OK;
		for (int i = 1; i < argc; i++) {
			int r = datafile_check(argv[i], &d);
			if (r > rc)
				rc = r;
		}
		cli_print_diags(&d);
		diags_release(&d);
		if (!rc)
			printf("%d file%s ok\n", argc - 1, argc == 2 ? "" : "s");
		return rc;
	}
	struct tt_data data;
	int rc = cli_load_data(&data, DATA_ALL);
	if (rc)
		return rc;
	struct diags dd = DIAGS_INIT;
	struct dtype_set *ds;
	char *dpath = xasprintf("%s/configs/dtypes.yaml", data.root);
	rc = dtypes_load(dpath, &ds, &dd);
	free(dpath);
	cli_print_diags(&dd);
	diags_release(&dd);
	dtypes_free(ds);
	if (rc) {
		cli_release_data(&data);
		return rc;
	}
	size_t entries = 0;
	for (size_t i = 0; i < data.catalogs.n; i++) {
		struct tactic_list l;
		struct diags d = DIAGS_INIT;
		catalog_expand(data.catalogs.v[i], &l, &d);
		entries += l.n1 + l.n2;
		tactic_list_release(&l);
		diags_release(&d);
	}
	size_t listed = 0;
	for (size_t i = 0; i < data.ops.n; i++)
		for (unsigned r = 0; r < data.ops.v[i]->runners_count; r++)
			for (unsigned t = 0; t < data.ops.v[i]->runners[r].tactics_count; t++)
				listed += data.ops.v[i]->runners[r].tactics[t].list_count;
	printf("data in %s: %zu device profiles, %zu models, %zu catalogs (%zu candidates), "
	       "%zu FlashInfer schemas (%s to below %s), %zu ops (%zu tactics listed): ok\n",
	       data.root, data.devices.n, data.models.n, data.catalogs.n, entries, data.rules.n,
	       data.rules.v[0]->versions.min, data.rules.v[data.rules.n - 1]->versions.below,
	       data.ops.n, listed);
	cli_release_data(&data);
	return TT_OK;
}
