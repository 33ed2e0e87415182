/* calibration.c: calibration YAML files, written by `tunetab calibrate`, loaded strictly. */
#include "data/calibration.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/firules.h"
#include "data/yamlload.h"

static const cyaml_schema_field_t tile_fields[] = {
	CYAML_FIELD_UINT("m", CYAML_FLAG_DEFAULT, struct cal_tile, m),
	CYAML_FIELD_UINT("n", CYAML_FLAG_DEFAULT, struct cal_tile, n),
	CYAML_FIELD_FLOAT("eff_bf16", CYAML_FLAG_DEFAULT, struct cal_tile, eff_bf16),
	CYAML_FIELD_FLOAT("eff_fp8", CYAML_FLAG_DEFAULT, struct cal_tile, eff_fp8),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t tile_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct cal_tile, tile_fields),
};
static const cyaml_schema_field_t tflops_fields[] = {
	CYAML_FIELD_FLOAT("bf16", CYAML_FLAG_DEFAULT, struct cal_tflops, bf16),
	CYAML_FIELD_FLOAT("fp8", CYAML_FLAG_DEFAULT, struct cal_tflops, fp8),
	CYAML_FIELD_END
};
static const cyaml_schema_field_t cal_fields[] = {
	CYAML_FIELD_STRING_PTR("device", CYAML_FLAG_POINTER, struct calibration, device, 1, 255),
	CYAML_FIELD_UINT("sm", CYAML_FLAG_DEFAULT, struct calibration, sm),
	CYAML_FIELD_STRING_PTR("measured", CYAML_FLAG_POINTER, struct calibration, measured, 1, 64),
	CYAML_FIELD_FLOAT("copy_gbs", CYAML_FLAG_DEFAULT, struct calibration, copy_gbs),
	CYAML_FIELD_MAPPING("dense_tflops", CYAML_FLAG_DEFAULT, struct calibration, dense_tflops,
			    tflops_fields),
	CYAML_FIELD_SEQUENCE("tiles", CYAML_FLAG_POINTER, struct calibration, tiles, &tile_schema, 0, 64),
	CYAML_FIELD_END
};
static const struct yaml_kind doc_kind =
	YAML_KIND(doc_kind, "calibration", struct calibration, cal_fields);

void calibration_free(struct calibration *c)
{
	yaml_kind_free(&doc_kind, c);
}

int calibration_load(const char *path, struct calibration **out, struct diags *d)
{
	*out = NULL;
	struct calibration *c;
	int rc = yaml_kind_load(path, &doc_kind, (void **)&c, d);
	if (rc)
		return rc;
	if (c->copy_gbs <= 0 || c->copy_gbs > 1e6)
		rc = yaml_error_at(d, path, "calibration.copy_gbs", "bandwidth %g GB/s is out of range", c->copy_gbs);
	if (c->dense_tflops.bf16 < 0 || c->dense_tflops.fp8 < 0)
		rc = yaml_error_at(d, path, "calibration.dense_tflops", "throughput must not be negative");
	for (unsigned i = 0; i < c->tiles_count; i++)
		if (c->tiles[i].eff_bf16 < 0 || c->tiles[i].eff_bf16 > 1.5 || c->tiles[i].eff_fp8 < 0 ||
		    c->tiles[i].eff_fp8 > 1.5) {
			char yp[48];
			snprintf(yp, sizeof yp, "calibration.tiles[%u]", i);
			rc = yaml_error_at(d, path, yp, "tile efficiency out of range");
		}
	if (rc) {
		calibration_free(c);
		return rc;
	}
	*out = c;
	return TT_OK;
}

char *calibration_file_name(const char *device)
{
	char *part = firules_device_part(device);
	char *name = xasprintf("calibration-%s.yaml", part);
	free(part);
	return name;
}

char *calibration_yaml(const char *device, int sm, const char *when, const struct gpu_calibration *g)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "# tunetab calibration: measured on this GPU by `tunetab calibrate`.\n"
		     "# copy_gbs: device-to-device copy (read + write) bandwidth; dense_tflops: the best\n"
		     "# cuBLASLt GEMM of 8192^3 over the tiles below; eff: each tile's share of that best.\n"
		     "calibration:\n  device: \"%s\"\n  sm: %d\n  measured: \"%s\"\n  copy_gbs: %.1f\n"
		     "  dense_tflops: {bf16: %.1f, fp8: %.1f}\n  tiles:\n", device, sm, when, g->copy_gbs,
		g->tflops_bf16, g->tflops_fp8);
	for (int i = 0; i < g->ntiles; i++)
		sb_addf(&sb, "    - {m: %d, n: %d, eff_bf16: %.4f, eff_fp8: %.4f}\n", g->tiles[i].m,
			g->tiles[i].n, g->tiles[i].eff_bf16, g->tiles[i].eff_fp8);
	return sb_detach(&sb);
}
