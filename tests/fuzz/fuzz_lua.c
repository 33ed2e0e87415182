/* fuzz_lua.c: libFuzzer target for the Lua API surface (script.c) and choose_tactics. The first
 * input byte picks the mode: even, the fixed driver tests/fuzz/lua_driver.lua runs with the
 * rest of the input as its data (every tunetab.* and sandbox function called with hostile
 * arguments, and a rank() returning hostile rankings); odd, the rest of the input is itself
 * the heuristic script. Either way the script runs under a 16 MiB memory cap and a budget of
 * two million instructions, then script_set_context and choose_tactics run it over the keys of a
 * DeepSeek-V3 TP8 deployment on a B200 (dtype bf16, fp8 or nvfp4, from the input size). */
#include "fuzz_common.h"
#include "tune/choose.h"
#include "script/script.h"
#include "base/version.h"

static char *scratch, *script_path, *driver;
static size_t driver_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_load_data();
	scratch = fuzz_scratch_dir();
	script_path = xasprintf("%s/heuristic.lua", scratch);
	char *p = xasprintf("%s/tests/fuzz/lua_driver.lua", fz.root);
	if (read_file(p, 0, &driver, &driver_len)) {
		fprintf(stderr, "fuzz: cannot read %s\n", p);
		abort();
	}
	free(p);
	return 0;
}

static double opt_u(const uint64_t *v)
{
	return v ? (double)*v : -1;
}

static double opt_f(const double *v)
{
	return v ? *v : -1;
}

static void run_script(size_t size)
{
	const struct device_profile *prof = device_find(&fz.devices, "b200");
	const struct model_profile *model = model_find(&fz.models, "deepseek-v3");
	static const enum dtype dts[] = { DT_BF16, DT_FP8, DT_NVFP4 };
	enum dtype dt = dts[size % 3];
	const struct dtype_info *dti = dtypes_find(fz.dtypes, dtype_name(dt));
	const struct fi_rules *rules = firules_newest(&fz.rules);
	struct fi_version fv;
	if (!prof || !model || !dti || version_parse(rules->release, &fv))
		abort();
	int sm = (int)device_sm(prof);
	const struct catalog *cat = catalog_find(&fz.catalogs, &fv, (unsigned)sm, dt);
	if (!cat)
		abort();
	struct deployment dep = {
		.model_name = model->name, .hidden = model->hidden_size,
		.inter_total = model->moe_intermediate_size, .experts_total = model->routed_experts,
		.top_k = model->top_k, .activation = model->activation,
		.biases = model->activation == ACT_SWIGLU_BIAS, .tp = 8, .ep = 1, .dt = dti,
		.dtype = dt, .wv = dtype_weight_view(dti, NULL), .sm = sm, .max_tokens = 256,
		.fused_finalize = true,
	};
	struct diags d = DIAGS_INIT;
	struct lookup_list plan = { 0 };
	struct script *sc = NULL;
	struct script_limits lim = { .mem_bytes = 16u << 20, .instructions = 2000000ULL }; /* print() dropped */
	if (lookup_deploy(rules, &dep, &plan, &d))
		abort();
	if (script_open(&sc, fz.root, script_path, &lim, &d) == TT_OK) {
		struct script_device sdev = {
			.name = prof->name, .sm = sm, .sm_count = opt_u(prof->sm_count),
			.smem_per_block_optin = opt_u(prof->smem_per_block_optin),
			.smem_per_sm = opt_u(prof->smem_per_sm), .l2_bytes = opt_u(prof->l2_bytes),
			.memory_bandwidth_gbs = opt_f(prof->memory_bandwidth_gbs),
			.boost_clock_mhz = opt_u(prof->boost_clock_mhz),
			.tflops_bf16 = opt_f(prof->dense_tflops.bf16),
			.tflops_fp8 = opt_f(prof->dense_tflops.fp8),
			.tflops_fp4 = opt_f(prof->dense_tflops.fp4),
		};
		struct script_deploy sdep = {
			.model = dep.model_name, .dtype = dti->name, .act_bits = (int)dti->act_bits,
			.weight_bits = (int)dti->weight_bits, .out_bits = 16, .hidden = dep.hidden,
			.inter = dep.inter_total / dep.tp, .experts = dep.experts_total / dep.ep,
			.experts_total = dep.experts_total, .top_k = dep.top_k, .tp = dep.tp, .ep = dep.ep,
			.gated = model_activation_gated(dep.activation),
			.activation = model_activation_name(dep.activation),
		};
		if (script_set_context(sc, &sdev, &sdep, &d) == TT_OK &&
		    choose_tactics(sc, cat, &dep, &plan, &d) == TT_OK) {
			/* every choice must be a candidate of its stage */
			for (size_t i = 0; i < plan.n; i++) {
				const struct lookup_entry *e = &plan.v[i];
				if (!tactic_lookup(&plan.list, e->stage, e->tactic, false) &&
				    e->tactic != e->fallback)
					abort();
			}
		}
		(void)script_heuristic_name(sc);
		(void)script_instructions(sc);
		script_close(sc);
	}
	lookup_list_release(&plan);
	diags_release(&d);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size < 1)
		return 0;
	fuzz_scratch_begin();
	struct strbuf sb = STRBUF_INIT;
	if (data[0] & 1) {
		sb_add(&sb, data + 1, size - 1);
	} else {
		sb_adds(&sb, "local D = \"");
		for (size_t i = 1; i < size && i <= 4096; i++)
			sb_addf(&sb, "\\%03u", data[i]);
		sb_adds(&sb, "\"\n");
		sb_add(&sb, driver, driver_len);
	}
	fuzz_write(script_path, sb.buf ? sb.buf : "", sb.len);
	sb_release(&sb);
	run_script(size);
	fuzz_scratch_cleanup();
	return 0;
}
