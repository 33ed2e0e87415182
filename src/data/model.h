/* model.h: MoE model geometries from configs/models/<id>.yaml (devices-models.md Table 2). */
#ifndef TUNETAB_MODEL_H
#define TUNETAB_MODEL_H

#include <stdbool.h>

#include <stddef.h>

#include "base/diag.h"

/* Expert activation; values are FlashInfer's ActivationType (flashinfer-formats.md §3.3). */
enum model_activation {
	ACT_GELU = 0,
	ACT_RELU = 1,
	ACT_SILU = 2,
	ACT_SWIGLU = 3,
	ACT_GEGLU = 4,
	ACT_SWIGLU_BIAS = 5,
	ACT_RELU2 = 6,
};

struct model_profile {
	char *id;
	char *name;
	char **aliases;
	unsigned aliases_count;
	unsigned hidden_size;
	unsigned moe_intermediate_size;
	unsigned routed_experts;
	unsigned top_k;
	unsigned shared_experts;
	enum model_activation activation;
	unsigned moe_layers;
	unsigned total_layers;
	bool fp8_block;        /* its FP8 checkpoint is block-scaled: servers run it as fp8_block */
	char *path;
};

struct model_set {
	struct model_profile **v;
	size_t n;
};

/* The model sizes tunetab takes (issue #48: checked where a model enters, config.json,
 * --model FILE and the flags, before any heuristic runs; beyond them an input error, exit 2).
 * Far above any model served today (hidden sizes up to 16384, expert intermediates up to
 * 4096, 512 experts); their one limit is that one expert's gated weights at 4 bits
 * (3 x hidden x intermediate / 2 bytes) fit in one GPU's memory: MODEL_EXPERT_BYTES_MAX, above
 * the largest GPU in configs/devices (288 GB). */
#define MODEL_HIDDEN_MAX 262144L
#define MODEL_INTER_MAX 262144L
#define MODEL_EXPERTS_MAX 65536L
#define MODEL_EXPERT_BYTES_MAX (512LL << 30)
/* NULL when hidden, inter, experts and top_k (0: not given) are in range and top_k is at
 * most experts; else what is wrong, in buf ("top_k 300 exceeds the 256 routed experts"). */
const char *model_sizes_problem(long long hidden, long long inter, long long experts,
				long long top_k, char *buf, size_t n);

int model_load_file(const char *path, struct model_profile **out, struct diags *d);
void model_free(struct model_profile *m);
int model_load_dir(const char *dir, struct model_set *set, struct diags *d);
void model_set_release(struct model_set *set);
/* By id, name or alias, case-insensitively; NULL when none. */
const struct model_profile *model_find(const struct model_set *set, const char *name);
/* Up to max model ids for a name model_find does not know, best first (suggest_names). */
size_t model_nearest(const struct model_set *set, const char *name, const char **out, size_t max);
const char *model_activation_name(enum model_activation a);
/* The activation named name (configs/models' spelling); -1 when none is. */
int model_activation_parse(const char *name, enum model_activation *out);
/* Gated activations fuse two halves into fc1: N1 = 2 * intermediate (§3.1). */
int model_activation_gated(enum model_activation a);

#endif
