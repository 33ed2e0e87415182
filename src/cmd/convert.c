/* cmd_convert.c: `tunetab convert`: a table rewritten in FlashInfer's own layout. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "flashinfer/table.h"
#include "base/util.h"

/* JSON metadata fields of the newest layout (formats §2.3); "*" matches any environment. */
static const char *const meta_fields[] = {
	"flashinfer_version", "cuda_version", "cublas_version", "cudnn_version",
	"cudnn_frontend_version", "gpu",
};

int cmd_convert(int argc, char **argv)
{
	const char *out = NULL, *to = NULL;
	char **metas = xcalloc((size_t)argc, sizeof *metas);
	int nmeta = 0, gen = 1, c;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "convert")) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': to = optarg; break;
		case 'm':
			if (!strchr(optarg, '=')) {
				free(metas);
				return cli_usage_error("convert", "--metadata wants KEY=VALUE, not '%s'", optarg);
			}
			metas[nmeta++] = optarg;
			break;
		case 'g': gen = 0; break;
		default:
			free(metas);
			return cli_usage_error("convert", "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1 || !out) {
		free(metas);
		return cli_usage_error("convert", "want one input file and -o OUT");
	}
	if (!to)
		to = str_ends(out, ".json") ? "json" : "py";
	if (strcmp(to, "py") && strcmp(to, "json")) {
		free(metas);
		return cli_usage_error("convert", "--to must be py or json, not '%s'", to);
	}
	struct table t;
	struct diags d = DIAGS_INIT;
	int rc = table_read(argv[optind], &t, &d);
	cli_print_diags(&d);
	diags_release(&d);
	if (rc) {
		free(metas);
		table_release(&t);
		return rc;
	}
	struct strbuf sb = STRBUF_INIT;
	if (!strcmp(to, "py")) {
		table_sort(&t);
		table_write_py(&t, &sb);
	} else {
		if (!t.has_metadata)
			for (size_t i = 0; i < ARRAY_SIZE(meta_fields); i++)
				table_set_meta(&t, meta_fields[i], "*");
		for (int i = 0; i < nmeta; i++) {
			char *eq = strchr(metas[i], '=');
			*eq = '\0';
			table_set_meta(&t, metas[i], eq + 1);
			*eq = '=';
		}
		/* entries from a module carry runner slots, not names: the cutlass MoE's is MoERunner */
		table_sort(&t);
		table_write_json(&t, gen, &sb);
	}
	int err = write_file_atomic(out, sb.buf, sb.len, 0644);
	if (err)
		rc = cli_error(TT_INTERNAL, "%s: cannot write: %s", out, strerror(err));
	else
		fprintf(stderr, "tunetab: wrote %s (%zu entries)\n", out, t.n);
	sb_release(&sb);
	table_release(&t);
	free(metas);
	return rc;
}
