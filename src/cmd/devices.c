/* cmd_devices.c: `tunetab devices`: the known GPU profiles. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "data/modelfit.h"
#include "base/util.h"

static void put_u(char *buf, size_t n, const uint64_t *v)
{
	if (v)
		snprintf(buf, n, "%llu", (unsigned long long)*v);
	else
		snprintf(buf, n, "-");
}

static void put_f(char *buf, size_t n, const double *v)
{
	if (v)
		snprintf(buf, n, "%g", *v);
	else
		snprintf(buf, n, "-");
}

static json_t *ju(const uint64_t *v)
{
	return v ? json_integer((json_int_t)*v) : json_null();
}

static json_t *jf(const double *v)
{
	return v ? json_real(*v) : json_null();
}

/* What the heuristic's model is for a profile: "fit" (this GPU's own, tunetab learn),
 * "sister" (a fit of another GPU with the same SM), or "datasheet"; *file the fit's path.
 * The fit folders are read once (fs, filled on the first call), not once per profile. */
struct fits_seen {
	char *dirs[2];
	struct model_fits fs;
	bool scanned;
};

static const char *model_of(struct fits_seen *f, const struct device_profile *p, char **file)
{
	const char *const *dirs = (const char *const *)f->dirs;
	bool sister = false;
	*file = model_fit_own(dirs, 2, p->name);
	if (!*file) {
		if (!f->scanned)
			model_fits_scan(dirs, 2, &f->fs);
		f->scanned = true;
		*file = model_fits_pick(&f->fs, p->name, device_sm(p), &sister);
	}
	return !*file ? "datasheet" : sister ? "sister" : "fit";
}

int cmd_devices(int argc, char **argv)
{
	bool json;
	int rc = cli_json_flag(argc, argv, "devices", &json);
	if (rc)
		return rc;
	struct tt_data data;
	rc = cli_load_data(&data, DATA_DEVICES);
	if (rc)
		return rc;
	struct fits_seen seen = { 0 };
	model_fit_dirs(data.root, seen.dirs);
	if (json) {
		json_t *a = json_array();
		for (size_t i = 0; i < data.devices.n; i++) {
			const struct device_profile *p = data.devices.v[i];
			json_t *o = json_object();
			json_object_set_new(o, "id", json_string(p->id));
			json_object_set_new(o, "name", json_string(p->name));
			char cc[16];
			snprintf(cc, sizeof cc, "%u.%u", p->cc.major, p->cc.minor);
			json_object_set_new(o, "compute_capability", json_string(cc));
			json_object_set_new(o, "sm_count", ju(p->sm_count));
			json_object_set_new(o, "smem_per_block_optin", ju(p->smem_per_block_optin));
			json_object_set_new(o, "smem_per_sm", ju(p->smem_per_sm));
			json_object_set_new(o, "l2_bytes", ju(p->l2_bytes));
			json_object_set_new(o, "memory_bytes", ju(p->memory_bytes));
			json_object_set_new(o, "memory_bandwidth_gbs", jf(p->memory_bandwidth_gbs));
			json_object_set_new(o, "boost_clock_mhz", ju(p->boost_clock_mhz));
			json_object_set_new(o, "tdp_watts", ju(p->tdp_watts));
			json_t *t = json_object();
			json_object_set_new(t, "bf16", jf(p->dense_tflops.bf16));
			json_object_set_new(t, "fp8", jf(p->dense_tflops.fp8));
			json_object_set_new(t, "fp4", jf(p->dense_tflops.fp4));
			json_object_set_new(o, "dense_tflops", t);
			json_object_set_new(o, "file", json_string(cli_rel(&data, p->path)));
			char *fit;
			const char *kind = model_of(&seen, p, &fit);
			json_object_set_new(o, "model", json_pack("{s:s, s:o}", "kind", kind, "fit",
								  fit ? json_string(cli_rel(&data, fit))
								      : json_null()));
			free(fit);
			json_array_append_new(a, o);
		}
		cli_print_json(a, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	} else {
		printf("%-26s %-56s %-5s %4s %7s %10s %7s %7s %7s %7s %s\n", "ID", "DEVICE NAME", "CC",
		       "SMs", "SMEM/B", "L2", "GB/s", "BF16", "FP8", "FP4", "MODEL");
		for (size_t i = 0; i < data.devices.n; i++) {
			const struct device_profile *p = data.devices.v[i];
			char sms[24], smem[24], l2[24], bw[24], b16[24], f8[24], f4[24], cc[16];
			put_u(sms, sizeof sms, p->sm_count);
			put_u(smem, sizeof smem, p->smem_per_block_optin);
			put_u(l2, sizeof l2, p->l2_bytes);
			put_f(bw, sizeof bw, p->memory_bandwidth_gbs);
			put_f(b16, sizeof b16, p->dense_tflops.bf16);
			put_f(f8, sizeof f8, p->dense_tflops.fp8);
			put_f(f4, sizeof f4, p->dense_tflops.fp4);
			snprintf(cc, sizeof cc, "%u.%u", p->cc.major, p->cc.minor);
			char *fit;
			const char *kind = model_of(&seen, p, &fit);
			free(fit);
			printf("%-26s %-56s %-5s %4s %7s %10s %7s %7s %7s %7s %s\n", p->id, p->name, cc, sms,
			       smem, l2, bw, b16, f8, f4, kind);
		}
		printf("(%zu profiles; TFLOPS dense; '-' = unknown; MODEL: the heuristic's cost model, "
		       "'fit' = fitted to this GPU's measurements (tunetab learn; generate --model-fit "
		       "auto), 'sister' = a fit of another GPU of its architecture, 'datasheet' = the "
		       "defaults)\n", data.devices.n);
	}
	model_fits_release(&seen.fs);
	free(seen.dirs[0]);
	free(seen.dirs[1]);
	cli_release_data(&data);
	return TT_OK;
}
