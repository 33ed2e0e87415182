/* cmd_calibrate.c: `tunetab calibrate`: measure this GPU for the heuristics. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/calibration.h"
#include "cmd/cli.h"
#include "base/util.h"
#include "tune/worker.h"

int cmd_calibrate(int argc, char **argv)
{
	long dev = 0;
	const char *out = NULL;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "calibrate")) != -1) {
		if (c == 'd' && !parse_long(optarg, &dev) && dev >= 0)
			continue;
		if (c == 'o') {
			out = optarg;
			continue;
		}
		return cli_usage_error("calibrate", "bad option '%s'", argv[optind - 1]);
	}
	struct tt_data data;
	int rc = cli_load_data(&data, DATA_CATALOGS | DATA_SCHEMAS);
	if (rc)
		return rc;
	struct diags d = DIAGS_INIT;
	struct worker w;
	int up = 0;
	char *path = NULL;
	if ((rc = worker_start(&w, (int)dev, 600, &d)))
		goto out;
	up = 1;
	struct worker_device wd;
	if ((rc = worker_info(&w, &wd, &d)))
		goto out;
	/* the distinct CTA tiles of this SM's candidate lists, newest FlashInfer */
	int sm = wd.gpu.cc_major * 10 + wd.gpu.cc_minor, tiles[32][2], nt = 0;
	struct fi_version v;
	version_parse(firules_newest(&data.rules)->release, &v);
	for (size_t i = 0; i < data.catalogs.n; i++) {
		const struct catalog *cat = data.catalogs.v[i];
		int serves = 0;
		for (unsigned k = 0; k < cat->sm_count; k++)
			serves |= cat->sm[k] == (unsigned)sm;
		if (!serves || !catalog_covers_version(cat, &v))
			continue;
		struct tactic_list l;
		struct diags tmp = DIAGS_INIT;
		if (catalog_expand(cat, &l, &tmp) == 0)
			for (size_t k = 0; k < l.n1 && nt < 32; k++) {
				int m = l.g1[k].m, n = l.g1[k].n, seen = 0;
				for (int q = 0; q < nt; q++)
					seen |= tiles[q][0] == m && tiles[q][1] == n;
				if (!seen) {
					tiles[nt][0] = m;
					tiles[nt][1] = n;
					nt++;
				}
			}
		tactic_list_release(&l);
		diags_release(&tmp);
	}
	fprintf(stderr, "tunetab: calibrating %s (GPU %ld, SM%d): copy bandwidth, dense GEMM "
		"throughput, %d tile shapes\n", wd.gpu.name, dev, sm, nt);
	struct gpu_calibration cal;
	if ((rc = worker_calibrate(&w, (const int (*)[2])tiles, nt, &cal, &d)))
		goto out;
	char when[32];
	time_t now = time(NULL);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	char *yaml = calibration_yaml(wd.gpu.name, sm, when, &cal);
	if (out) {
		path = xstrdup(out);
	} else {
		path = calibration_file_name(wd.gpu.name);
	}
	int err = write_file_atomic(path, yaml, strlen(yaml), 0644);
	free(yaml);
	if (err) {
		rc = cli_error(TT_INTERNAL, "cannot write '%s': %s", path, strerror(err));
		goto out;
	}
	struct calibration *back;
	if ((rc = calibration_load(path, &back, &d)))
		goto out;
	calibration_free(back);
	printf("%s: copy %.0f GB/s, bf16 %.0f TFLOPS, fp8 %.0f TFLOPS, %d tiles\n", path, cal.copy_gbs,
	       cal.tflops_bf16, cal.tflops_fp8, cal.ntiles);
out:
	if (up)
		worker_stop(&w);
	cli_print_diags(&d);
	diags_release(&d);
	free(path);
	cli_release_data(&data);
	return rc;
}
