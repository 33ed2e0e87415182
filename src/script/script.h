/* script.h: tunetab's whole Lua surface. Heuristic scripts run in a sandbox (base without
 * dofile/loadfile and with text-only load, string, table, math, utf8), under an instruction
 * budget and a memory cap; every call is protected. The API they see is documented in
 * scripts/README.md. */
#ifndef TUNETAB_SCRIPT_H
#define TUNETAB_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "data/catalog.h"
#include "data/calibration.h"
#include "data/modelfit.h"
#include "base/diag.h"

struct script; /* opaque */

struct script_limits {
	size_t mem_bytes;              /* memory cap of the Lua state */
	unsigned long long instructions; /* instruction budget for the whole run */
	/* Where the script's print() goes, as it runs: one call per print, the values
	 * tab-separated, no newline (the command shows it: cli_script_print). NULL drops it. */
	void (*print)(const char *line);
};

/* What a heuristic knows of the device (profile values, or the detected GPU's). A value
 * below zero is unknown and reaches Lua as nil. */
/* A named number: one of the heuristic's parameters set by a fit. */
struct script_value {
	const char *name;
	double value;
};

/* A free parameter the heuristic declares (tunetab.heuristic{ params = {...} }): its
 * datasheet-model default and the range a fit may move it in. */
struct script_param {
	char *name;
	double def, min, max;
};

struct script_device {
	const char *name;
	int sm;
	double sm_count, smem_per_block_optin, smem_per_sm, l2_bytes, memory_bandwidth_gbs,
		boost_clock_mhz, tflops_bf16, tflops_fp8, tflops_fp4;
	const struct calibration *cal; /* measured by `tunetab calibrate`, or NULL */
	/* a fit of the heuristic's free parameters (tunetab learn), as device.fit.NAME; n 0: none */
	const struct script_value *fit;
	size_t nfit;
	/* the fit's measurements (data/modelfit.h), as device.fit_points[stage][config] = a list of
	 * { l, f, k, b, r }; n 0: none */
	const struct fit_group *groups;
	size_t ngroups;
};

struct script_deploy {
	const char *model;
	const char *dtype;
	long act_bits, weight_bits, out_bits;
	long hidden, inter, experts, experts_total, top_k, tp, ep;
	bool gated;
	const char *activation;
};

struct script_rank {
	int id;
	double time_us; /* < 0 when the script gave no time */
};

/* Opens a sandboxed state and runs the heuristic file (text only). data_root locates
 * scripts/lib for tunetab.lib(). Errors: TT_SCRIPT with the script, line and message. */
int script_open(struct script **out, const char *data_root, const char *path,
		const struct script_limits *lim, struct diags *d);
void script_close(struct script *s);
/* Name the script registered with tunetab.heuristic{ name = ... }. */
const char *script_heuristic_name(const struct script *s);
/* The free parameters the heuristic declared (none: 0). Owned by s. */
size_t script_params(const struct script *s, const struct script_param **out);

int script_set_context(struct script *s, const struct script_device *dev,
		       const struct script_deploy *dep, struct diags *d);

/* Ranks the candidates of one GEMM stage at one token bucket: fills out (caller allocates
 * n entries) best first, with *nout ranked ids (each id once, all from cands). features and
 * k are the GEMM's output features and reduction size. The script's table of cands is built
 * once per list and kept while cands is the same pointer: after a list is freed, call
 * script_forget_candidates, since another list may be allocated at its address. */
void script_forget_candidates(struct script *s);
int script_rank(struct script *s, int stage, long tokens, long features, long k,
		const struct tactic *cands, size_t n, int fallback_id, struct script_rank *out,
		size_t *nout, struct diags *d);

/* The other ops' GEMMs (configs/ops; issue #39): rank_op(q) ranks one GEMM's tactics, with
 * q = { op, runner, m, n, k, device, fallback, candidates = { {id, tile = {m, n, k bytes},
 * cluster = {m, n}, swap_ab, stream_k}, ... } }, and returns ids best first (or {id=, time=}),
 * as rank() does. script_set_context must have run (the device). */
struct script_op_gemm {
	const char *op, *runner;
	long m, n, k;
};
struct op_tactic;
bool script_has_rank_op(const struct script *s);
int script_rank_op(struct script *s, const struct script_op_gemm *g, const struct op_tactic *cands,
		   size_t n, int fallback_id, struct script_rank *out, size_t *nout,
		   struct diags *d);

/* Instructions used so far (budget accounting, for reports). */
unsigned long long script_instructions(const struct script *s);

/* --- consumer scripts -------------------------------------------------------------------
 * configs/consumers/<id>.lua reads a serving stack's launch command as that stack reads it
 * (scripts/README.md): tunetab.consumer{ parse = function(words, env) ... end,
 * resolve = function(opts, facts) ... end }. The values exchanged are flat fields. */

enum script_kind { SK_STR, SK_INT, SK_BOOL };

struct script_field {
	char *name;   /* dotted for nesting: "model.hidden" is facts.model.hidden */
	enum script_kind kind;
	char *s;
	long long i;
	bool b;
};

void script_fields_free(struct script_field *v, size_t n);

/* Opens a consumer script in the sandbox; it must call tunetab.consumer{...}. */
int script_open_consumer(struct script **out, const char *data_root, const char *path,
			 const struct script_limits *lim, struct diags *d);

/* parse(words, env): words is the command without the VAR=VALUE words before it, env the
 * server's environment. The options table it returns stays in the state for resolve; *out
 * gets its string, integer and boolean fields (caller frees with script_fields_free). A
 * script that returns nil and a message (a command it does not read) fails TT_USAGE with that
 * message; an error in it, TT_SCRIPT at its line. */
int script_consumer_parse(struct script *s, char *const *words, size_t nwords,
			  const struct script_field *env, size_t nenv, struct script_field **out,
			  size_t *nout, struct diags *d);

/* resolve(opts, facts): facts as nested tables (dotted names). Its table's string, integer
 * and boolean fields go to *out, its `notes` (a list of strings) to *notes. nil and a
 * message (what cannot be derived, asked for by name): TT_USAGE with the message. */
int script_consumer_resolve(struct script *s, const struct script_field *facts, size_t nfacts,
			    struct script_field **out, size_t *nout, char ***notes, size_t *nnotes,
			    struct diags *d);

#endif
