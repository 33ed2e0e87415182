/* opdefs.h: the FlashInfer ops a server tunes at start, as data (configs/ops/<id>.yaml): for
 * each, the op string of its keys, the key builder that lays out its inputs (src/ops/), its
 * bucket rule, the profiling policy its entries carry, and per runner class the SMs it has
 * tactics for and what its fallback tactic does. Fills structs and diagnostics; never
 * prints. */
#ifndef TUNETAB_OPDEFS_H
#define TUNETAB_OPDEFS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/version.h"

enum op_buckets {
	OPB_SCHEMA,          /* the version schema's buckets (the CUTLASS MoE) */
	OPB_HYBRID_UNCAPPED, /* hybrid buckets of the call's M, rounded up without a cap */
	OPB_HYBRID_CLAMPED,  /* hybrid buckets of tune_max, rounded up and clamped to it */
};

/* One integer tactic of a runner, as FlashInfer's getConfigs() lists it. */
struct op_tactic {
	unsigned id;
	unsigned *tile;      /* CTA M, N, K bytes */
	unsigned tile_count;
	unsigned *cluster;   /* M, N */
	unsigned cluster_count;
	bool swap_ab, stream_k;
};

struct op_tactics {
	unsigned *sm;
	unsigned sm_count;
	unsigned count;      /* integer tactics 0..count-1; 0: not determinable from the wheel */
	int fallback_id;     /* the tactic -1 runs (given where count > 0), -1 where count is 0 */
	char *read;
	struct op_tactic *list; /* count of them (list_count 0: not described) */
	unsigned list_count;
};

struct op_runner {
	char *name;          /* the class name in the key */
	char *backend;       /* the consumer's name for it: cutlass, cutedsl, trtllm */
	char *read, *fallback;
	struct op_tactics *tactics;
	unsigned tactics_count;
};

struct op_extra {
	char *name;
	char *field;         /* a call field, or NULL */
	char *literal;       /* a Python literal, or NULL */
	bool is_bool;        /* the field's integer printed as True/False */
	bool is_enum;        /* the field's name looked up in enums */
};

struct op_enum {
	char *name;
	long value;
};

struct op_def {
	char *id, *name, *builder, *what, *read, *flashinfer_min;
	char *policy;        /* the profiling policy the op requests (JSON array text) */
	char *policy_unset;  /* the one FlashInfer assumes for an entry saved without one */
	unsigned inputs;     /* shapes in the key's profile */
	enum op_buckets buckets;
	struct op_runner *runners;
	unsigned runners_count;
	struct op_extra *extras;
	unsigned extras_count;
	struct op_enum *enums;
	unsigned enums_count;
	struct fi_version min;  /* flashinfer_min parsed (checked when loaded) */
	char *path;
	const char *rel;     /* path from the data root: "configs/ops/fp4_gemm.yaml" */
};

struct op_set {
	struct op_def **v;
	size_t n;
};

/* Every configs/ops/<id>.yaml under data_root. */
int opdefs_load(const char *data_root, struct op_set *set, struct diags *d);
void opdefs_release(struct op_set *set);
/* One op file on its own (check-data FILE). */
int opdefs_check_file(const char *path, struct diags *d);
const struct op_def *opdefs_find(const struct op_set *set, const char *id_or_name);
/* FlashInfer's CUTLASS fused MoE (the op whose builder is cutlass_moe), or NULL. */
const struct op_def *opdefs_cutlass_moe(const struct op_set *set);
const struct op_runner *opdef_runner(const struct op_def *op, const char *name);
/* The runner's tactics on SM sm, or NULL when it has none there. */
const struct op_tactics *opdef_tactics(const struct op_runner *r, unsigned sm);
/* Whether tunetab knows op's key layout in FlashInfer v (flashinfer_min and newer). */
bool opdef_keys_known(const struct op_def *op, const struct fi_version *v);
/* An enum's value by name; false when op has no such name. */
bool opdef_enum(const struct op_def *op, const char *name, long *value);

#endif
