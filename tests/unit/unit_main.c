/* unit_main.c: runs every unit-test table; prints one line per failure and a summary. */
#include <stdlib.h>

#include "ttest.h"

int ttest_failed_checks;
const char *ttest_current;

extern const struct ttest_case util_tests[], version_tests[], catalog_tests[], firules_tests[],
	data_tests[], provenance_tests[], fleet_tests[], journal_tests[], measure_tests[], key_tests[], pylit_tests[], merge_tests[], gen_tests[], script_tests[], validate_tests[], install_tests[],
	report_tests[], worker_tests[], markdown_tests[], deployment_tests[], plan_tests[], cachefile_tests[],
	robust_tests[];

static const struct ttest_case *const suites[] = {
	util_tests, version_tests, catalog_tests, firules_tests, data_tests, provenance_tests, fleet_tests,
	journal_tests, measure_tests, key_tests, pylit_tests, merge_tests, gen_tests, script_tests, validate_tests, install_tests,
	report_tests, worker_tests, markdown_tests, deployment_tests, plan_tests, cachefile_tests,
	robust_tests,
};

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	const char *only = argc > 1 ? argv[1] : NULL;
	for (size_t s = 0; s < sizeof suites / sizeof suites[0]; s++)
		for (const struct ttest_case *t = suites[s]; t->name; t++) {
			if (only && !strstr(t->name, only))
				continue;
			int before = ttest_failed_checks;
			ttest_current = t->name;
			t->fn();
			if (ttest_failed_checks == before) {
				passed++;
			} else {
				failed++;
				fprintf(stderr, "FAIL %s\n", t->name);
			}
		}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
