/* dtypes.h: the runner dtypes, the one home of "dtype": their names (enum dtype, the names
 * catalogs and the command line use) and how each appears in tuning keys
 * (configs/dtypes.yaml): element bits, torch dtype names and packing of activations and
 * weights. */
#ifndef TUNETAB_DTYPES_H
#define TUNETAB_DTYPES_H

#include <stddef.h>

#include "base/diag.h"

/* The runners' dtypes; configs/dtypes.yaml describes each under its name. */
enum dtype {
	DT_BF16, DT_FP16, DT_FP8, DT_MXFP8, DT_NVFP4, DT_FP8_MXFP4,
	DT_FP8_BLOCK, DT_W4A16_MXFP4, DT_W4A8, DT_W4A8_MXFP4,
	DT_COUNT
};

/* "bf16", "fp8", ...; "?" outside the enum. */
const char *dtype_name(enum dtype t);
/* Returns 0 and sets *t for "bf16", "fp16", "fp8", "mxfp8", "nvfp4", "fp8_mxfp4", "fp8_block",
 * "w4a16_mxfp4", "w4a8", "w4a8_mxfp4" (any case); -1 otherwise. */
int dtype_parse(const char *s, enum dtype *t);

struct weight_view {
	char *view;   /* "int64", "uint8", ... */
	char *torch;  /* "torch.int64" */
	unsigned pack; /* elements per stored element */
};

struct dtype_info {
	char *name;
	unsigned act_bits;
	char *act_torch;
	unsigned act_pack;
	unsigned weight_bits;
	struct weight_view *weight_views;
	unsigned weight_views_count;
	/* other ways callers pass the input than act_torch/act_pack (SGLang passes NVFP4's input
	 * as bf16 and the kernel quantizes it); none: only the default */
	struct weight_view *input_views;
	unsigned input_views_count;
	char **flags;         /* MoERunner extras set True for this dtype ("use_w4_group_scaling") */
	unsigned flags_count;
	unsigned align;       /* hidden and per-rank intermediate rounded up to this (0: none) */
	/* the correctness gate's bounds (docs/guide.md "the correctness gate"): a tactic's output
	 * against FlashInfer's default tactics', and theirs against the torch reference, as the
	 * largest absolute difference over the largest absolute reference value; 0: not gated */
	struct dtype_gate { double tactic, reference; } *gate;
};

struct dtype_set {
	struct dtype_info *v;
	unsigned v_count;
	char *path;
};

int dtypes_load(const char *path, struct dtype_set **out, struct diags *d);
void dtypes_free(struct dtype_set *s);
const struct dtype_info *dtypes_find(const struct dtype_set *s, const char *name);
/* The named weight view, or the default (first) when view is NULL; NULL if unknown. */
/* Whether the dtype sets the named MoERunner flag (an extras field of the version rules) True. */
int dtype_has_flag(const struct dtype_info *t, const char *flag);
/* n rounded up to the dtype's align (n itself when it has none). */
long dtype_align(const struct dtype_info *t, long n);
const struct weight_view *dtype_weight_view(const struct dtype_info *t, const char *view);
/* The named input view among input_views; NULL when view is NULL (the default input) or
 * unknown (*unknown then set). */
const struct weight_view *dtype_input_view(const struct dtype_info *t, const char *view,
					   int *unknown);

#endif
