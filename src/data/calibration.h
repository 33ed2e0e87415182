/* calibration.h: what `tunetab calibrate` measured on one GPU (calibration YAML files). */
#ifndef TUNETAB_CALIBRATION_H
#define TUNETAB_CALIBRATION_H

#include "base/diag.h"
#include "gpu/gpu.h"

struct cal_tile {
	unsigned m, n;
	double eff_bf16, eff_fp8;
};

struct cal_tflops {
	double bf16, fp8;
};

struct calibration {
	char *device;
	unsigned sm;
	char *measured;      /* UTC time */
	double copy_gbs;
	struct cal_tflops dense_tflops;
	struct cal_tile *tiles;
	unsigned tiles_count;
	char *path;
};

int calibration_load(const char *path, struct calibration **out, struct diags *d);
void calibration_free(struct calibration *c);
/* YAML text of a measurement (the CLI writes it atomically). Caller frees. */
char *calibration_yaml(const char *device, int sm, const char *when, const struct gpu_calibration *g);
/* The default file for a device's calibration: "calibration-<DEVICE>.yaml", the device part
 * as FlashInfer names files (firules_device_part). Caller frees. */
char *calibration_file_name(const char *device);

#endif
