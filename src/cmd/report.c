/* cmd_report.c: `tunetab report JOURNAL -o FILE.html`: the HTML report of a profiled run. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "tune/report.h"
#include "base/util.h"

int cmd_report(int argc, char **argv)
{
	const char *out = NULL;
	int quiet = 0, c;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "report")) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'q': quiet = 1; break;
		default:
			return cli_usage_error("report", "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1 || !out)
		return cli_usage_error("report", "want one journal and -o FILE.html");
	struct report r;
	struct diags d = DIAGS_INIT;
	int rc = report_from_journal(argv[optind], &r, &d);
	cli_print_diags(&d);
	diags_release(&d);
	if (!rc) {
		struct strbuf sb = STRBUF_INIT;
		report_write_html(&r, &sb);
		int err = write_file_atomic(out, sb.buf, sb.len, 0644);
		if (err)
			rc = cli_error(TT_INTERNAL, "%s: cannot write: %s", out, strerror(err));
		else if (!quiet)
			fprintf(stderr, "tunetab: wrote %s (%zu entries, %zu bytes)\n", out, r.n, sb.len);
		sb_release(&sb);
	}
	report_release(&r);
	return rc;
}
