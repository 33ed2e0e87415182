/* cmd_detect.c: `tunetab detect`: every visible GPU, its profile, and what FlashInfer
 * would import on it (flashinfer-formats.md §1.1). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "gpu/gpu.h"
#include "base/util.h"
#include "flashinfer/names.h"

/* Consecutive version ranges that import the same file name are printed together. */
struct name_row {
	const char *from, *below;
	char *file;
	bool per_version;
};

static size_t bundled_rows(const struct tt_data *data, const char *device, struct name_row *rows,
			   size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < data->rules.n && n < max; i++) {
		const struct fi_rules *s = data->rules.v[i];
		char *file = firules_bundled_name(s, s->release, device);
		bool per_version = s->bundled.prefix_rule == PREFIX_VERSION;
		if (n && !per_version && !rows[n - 1].per_version && strcmp(rows[n - 1].file, file) == 0) {
			rows[n - 1].below = s->versions.below;
			free(file);
			continue;
		}
		rows[n].from = s->versions.min;
		rows[n].below = s->versions.below;
		rows[n].file = file;
		rows[n].per_version = per_version;
		n++;
	}
	return n;
}

static void profile_diffs(const struct device_profile *p, const struct gpu_info *g,
			  struct strbuf *out)
{
	struct { const char *what; const uint64_t *prof; uint64_t real; } rows[] = {
		{ "SM count", p->sm_count, (uint64_t)g->sm_count },
		{ "shared memory opt-in per block", p->smem_per_block_optin, g->smem_per_block_optin },
		{ "shared memory per SM", p->smem_per_sm, g->smem_per_sm },
		{ "L2 bytes", p->l2_bytes, g->l2_bytes },
		{ "memory bytes", p->memory_bytes, g->total_mem },
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		if (rows[i].prof && *rows[i].prof != rows[i].real)
			sb_addf(out, "%s: profile %llu, GPU %llu; ", rows[i].what,
				(unsigned long long)*rows[i].prof, (unsigned long long)rows[i].real);
	if (p->cc.major != (unsigned)g->cc_major || p->cc.minor != (unsigned)g->cc_minor)
		sb_addf(out, "compute capability: profile %u.%u, GPU %d.%d; ", p->cc.major,
			p->cc.minor, g->cc_major, g->cc_minor);
	if (out->len >= 2)
		out->buf[out->len -= 2] = '\0';
}

static double peak_bw_gbs(const struct gpu_info *g)
{
	/* DDR: two transfers per memory clock. */
	return 2.0 * g->mem_clock_khz * 1e3 * (g->mem_bus_width / 8.0) / 1e9;
}

static void print_text(const struct tt_data *data, const struct gpu_info *g, int n,
		       const struct gpu_env *env)
{
	printf("CUDA driver %d.%d, runtime %d.%d; %d GPU%s visible\n", env->driver_version / 1000,
	       env->driver_version % 1000 / 10, env->runtime_version / 1000,
	       env->runtime_version % 1000 / 10, n, n == 1 ? "" : "s");
	for (int i = 0; i < n; i++) {
		const struct gpu_info *x = &g[i];
		printf("\nGPU %d: %s\n", x->index, x->name);
		printf("  compute capability  %d.%d (SM%d)\n", x->cc_major, x->cc_minor,
		       x->cc_major * 10 + x->cc_minor);
		printf("  SMs                 %d\n", x->sm_count);
		printf("  shared memory       %zu B opt-in per block, %zu B per SM\n",
		       x->smem_per_block_optin, x->smem_per_sm);
		printf("  L2 cache            %zu B (%.1f MiB)\n", x->l2_bytes,
		       x->l2_bytes / 1048576.0);
		printf("  memory              %zu B (%.1f GiB), %d-bit bus at %d MHz, %.0f GB/s peak\n",
		       x->total_mem, x->total_mem / 1073741824.0, x->mem_bus_width,
		       x->mem_clock_khz / 1000, peak_bw_gbs(x));
		printf("  max SM clock        %d MHz\n", x->clock_khz / 1000);
		printf("  PCI bus id          %s\n", x->pci_bus_id);
		const struct device_profile *p = device_find(&data->devices, x->name);
		if (p && strcmp(p->name, x->name) == 0) {
			struct strbuf diff = STRBUF_INIT;
			profile_diffs(p, x, &diff);
			printf("  profile             %s (%s)\n", p->id, cli_rel(data, p->path));
			if (diff.len)
				printf("  profile differs     %s (tunetab uses the GPU's values)\n",
				       diff.buf);
			sb_release(&diff);
		} else {
			const char *near[3];
			size_t k = device_nearest(&data->devices, x->name, near, 3);
			char *nt = nearest_text(near, k);
			printf("  profile             no profile for '%s'%s\n", x->name, nt);
			free(nt);
		}
		if (x->index != 0) {
			printf("  FlashInfer          uses device 0's name for the bundled file "
			       "(formats §1.1), not this GPU's\n");
			continue;
		}
		printf("  FlashInfer bundled table this GPU would import (in flashinfer/tuning_configs/):\n");
		struct name_row rows[64];
		size_t nr = bundled_rows(data, x->name, rows, ARRAY_SIZE(rows));
		for (size_t r = 0; r < nr; r++) {
			char range[64];
			snprintf(range, sizeof range, "%s to below %s", rows[r].from, rows[r].below);
			printf("    %-28s %s%s\n", range, rows[r].file,
			       rows[r].per_version ? "  (prefix follows the exact version)" : "");
			free(rows[r].file);
		}
		if (strchr(x->name, '.'))
			printf("  warning             the device name contains '.', which breaks "
			       "FlashInfer's import of the module\n");
	}
}

static json_t *gpu_json(const struct tt_data *data, const struct gpu_info *x)
{
	json_t *o = json_object();
	json_object_set_new(o, "index", json_integer(x->index));
	json_object_set_new(o, "name", json_string(x->name));
	char cc[16];
	snprintf(cc, sizeof cc, "%d.%d", x->cc_major, x->cc_minor);
	json_object_set_new(o, "compute_capability", json_string(cc));
	json_object_set_new(o, "sm", json_integer(x->cc_major * 10 + x->cc_minor));
	json_object_set_new(o, "sm_count", json_integer(x->sm_count));
	json_object_set_new(o, "smem_per_block_optin", json_integer((json_int_t)x->smem_per_block_optin));
	json_object_set_new(o, "smem_per_sm", json_integer((json_int_t)x->smem_per_sm));
	json_object_set_new(o, "l2_bytes", json_integer((json_int_t)x->l2_bytes));
	json_object_set_new(o, "memory_bytes", json_integer((json_int_t)x->total_mem));
	json_object_set_new(o, "memory_bus_width_bits", json_integer(x->mem_bus_width));
	json_object_set_new(o, "memory_clock_mhz", json_integer(x->mem_clock_khz / 1000));
	json_object_set_new(o, "memory_bandwidth_gbs_peak", json_real(peak_bw_gbs(x)));
	json_object_set_new(o, "max_sm_clock_mhz", json_integer(x->clock_khz / 1000));
	json_object_set_new(o, "pci_bus_id", json_string(x->pci_bus_id));
	const struct device_profile *p = device_find(&data->devices, x->name);
	if (p && strcmp(p->name, x->name) == 0) {
		json_object_set_new(o, "profile", json_string(p->id));
	} else {
		json_object_set_new(o, "profile", json_null());
		const char *near[3];
		size_t k = device_nearest(&data->devices, x->name, near, 3);
		json_t *a = json_array();
		for (size_t j = 0; j < k; j++)
			json_array_append_new(a, json_string(near[j]));
		json_object_set_new(o, "nearest_profiles", a);
	}
	json_t *files = json_array();
	if (x->index == 0) {
		struct name_row rows[64];
		size_t nr = bundled_rows(data, x->name, rows, ARRAY_SIZE(rows));
		for (size_t r = 0; r < nr; r++) {
			json_t *f = json_object();
			json_object_set_new(f, "flashinfer_min", json_string(rows[r].from));
			json_object_set_new(f, "flashinfer_below", json_string(rows[r].below));
			json_object_set_new(f, "file", json_string(rows[r].file));
			json_object_set_new(f, "prefix_follows_version", json_boolean(rows[r].per_version));
			json_array_append_new(files, f);
			free(rows[r].file);
		}
	}
	json_object_set_new(o, "bundled_files", files);
	/* the JSON cache generate writes for this GPU (names.h): scripts take it from here rather
	 * than spell the name rule again (tests/gpu) */
	char *cache = names_json_cache(x->name);
	json_object_set_new(o, "json_cache", json_string(cache));
	free(cache);
	return o;
}

/* --json where no GPU can be read: the document still comes, with no GPUs and the reason
 * (the error goes to stderr too, and the exit status is the same as without --json). */
static void print_json_error(const struct gpu_env *env, const char *err)
{
	json_t *o = json_pack("{s:i, s:i, s:[], s:s}", "driver_version", env->driver_version,
			      "runtime_version", env->runtime_version, "gpus", "error", err);
	cli_print_json(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
}

int cmd_detect(int argc, char **argv)
{
	bool json;
	int rc = cli_json_flag(argc, argv, "detect", &json);
	if (rc)
		return rc;
	struct gpu_info *g;
	int n;
	struct gpu_env env;
	char err[512];
	rc = gpu_query(&g, &n, &env, err, sizeof err);
	if (rc && json)
		print_json_error(&env, err);
	if (rc)
		return cli_error(rc, "%s", err);
	struct tt_data data;
	rc = cli_load_data(&data, DATA_DEVICES | DATA_SCHEMAS);
	if (rc) {
		free(g);
		return rc;
	}
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "driver_version", json_integer(env.driver_version));
		json_object_set_new(o, "runtime_version", json_integer(env.runtime_version));
		json_t *a = json_array();
		for (int i = 0; i < n; i++)
			json_array_append_new(a, gpu_json(&data, &g[i]));
		json_object_set_new(o, "gpus", a);
		cli_print_json(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	} else {
		print_text(&data, g, n, &env);
	}
	free(g);
	cli_release_data(&data);
	return TT_OK;
}
