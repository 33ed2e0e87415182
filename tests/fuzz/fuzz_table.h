/* fuzz_table.h: what the CLI's `validate` does with one table held in memory: read it, then
 * validate it with the default options, with a version and a device chosen from the input's
 * size (deterministic), and write it back out in both formats. */
#ifndef TUNETAB_FUZZ_TABLE_H
#define TUNETAB_FUZZ_TABLE_H

#include "fuzz_common.h"
#include "flashinfer/table.h"
#include "flashinfer/validate.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_load_data();
	return 0;
}

static const char *const fuzz_meta_fields[] = { "flashinfer_version", "cuda_version", "cublas_version",
	"cudnn_version", "cudnn_frontend_version", "gpu" };

static void fuzz_table(const char *name, const unsigned char *data, size_t size, int json_only)
{
	/* the module reader keeps pointers into the text: give it its own NUL-terminated copy */
	char *text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	struct table t;
	struct diags d = DIAGS_INIT;
	int rc;
	if (json_only) {
		memset(&t, 0, sizeof t);
		t.path = xstrdup(name);
		rc = table_json_read(name, text, size, &t, &d);
	} else {
		rc = table_read_mem(name, text, size, &t, &d);
	}
	if (rc == TT_OK) {
		struct validate_data vd = { &fz.devices, &fz.catalogs, &fz.rules, &fz.ops };
		struct validate_opts vo = { .flashinfer = NULL, .device = NULL, .dtype = -1 };
		struct validate_result r;
		validate_table(&vd, &t, &vo, &r, &d);
		vo.flashinfer = fz.rules.v[size % fz.rules.n]->release;
		vo.device = fz.devices.n ? fz.devices.v[(size / 7) % fz.devices.n]->name : NULL;
		vo.dtype = (int)(size % (DT_COUNT + 1)) - 1;
		validate_table(&vd, &t, &vo, &r, &d);
		/* what `tunetab convert` does next, both ways */
		struct strbuf out = STRBUF_INIT;
		table_sort(&t);
		table_write_py(&t, &out);
		sb_reset(&out);
		if (!t.has_metadata)
			for (size_t i = 0; i < ARRAY_SIZE(fuzz_meta_fields); i++)
				table_set_meta(&t, fuzz_meta_fields[i], "*");
		table_write_json(&t, true, &out);
		sb_release(&out);
	}
	table_release(&t);
	diags_release(&d);
	free(text);
}

#endif
