/* catalog.h: FlashInfer CUTLASS fused-MoE tactic candidate lists (configs/catalogs/flashinfer),
 * expanded the way FlashInfer builds them (cutlass-moe-tactics.md §2). */
#ifndef TUNETAB_CATALOG_H
#define TUNETAB_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/version.h"
#include "data/dtypes.h"

enum numbering { NUM_SPLIT, NUM_SHARED };
enum orientation { ORIENT_NORMAL, ORIENT_TRANSPOSED };
enum mma_mode { MMA_1SM, MMA_2SM };
enum epilogue { EPI_TMA, EPI_NO_SMEM };

/* One entry of a catalog file, as written in YAML. */
struct cat_entry {
	char *cta, *cluster, *warp, *dyn_cluster, *fallback, *mainloop, *note;
	enum mma_mode mma;
	enum epilogue epilogue;
	unsigned stages;
	unsigned sm_version;
	bool *dispatchable;
};

struct cat_range {
	char *min;
	char *below; /* NULL = open-ended */
};

struct tactic_list;

struct catalog {
	char *id;
	struct cat_range flashinfer;
	unsigned *sm;
	unsigned sm_count;
	enum dtype *dtypes;
	unsigned dtypes_count;
	unsigned act_bits;
	enum numbering numbering;
	enum orientation orientation;
	bool gemm2_finalize;
	bool swap_ab_copy;
	bool swap_ab_only;   /* §2 step 6: SM90 mixed-input runners keep only swap_ab entries;
			      * every base entry is swap_ab and no copy is made */
	bool shape_filter;   /* get_valid_tactics keeps only tiles that fit the GEMM's N and K
			      * (use_w4_group_scaling; catalog_tactic_fits) */
	bool tactic_ignored; /* the runner ignores the stored tactic (DeepSeek FP8 block scale) */
	char *default_note;
	struct cat_entry *base;
	unsigned base_count;
	struct cat_entry *sm80;
	unsigned sm80_count;
	char *path;
	/* decoded and checked once, when loaded: [0] without, [1] with the GEMM2 FINALIZE copies
	 * (catalog_expand_finalize hands out copies; choosing a tactic parses nothing) */
	struct tactic_list *decoded[2];
};

/* One decoded candidate. */
struct tactic {
	int id;          /* the integer FlashInfer stores for this stage (absolute) */
	int local;       /* index inside the stage's own list */
	int stage;       /* 1 or 2 */
	int m, n;        /* CTA tile */
	int k_bytes, k_elems;
	int cluster[3];
	int dyn_cluster[3]; /* all 0 when none; static_cluster set for "static" */
	int fallback[3];
	bool static_cluster;
	enum mma_mode mma;
	enum epilogue epilogue;
	bool sm80_style;
	int warp[3];
	int stages;
	int sm_version;
	bool swap_ab;
	bool finalize;
	bool tokens_on_n; /* swap_ab, or a transposed (<= v0.5.2) list */
	bool dispatchable;
	const char *mainloop; /* borrowed from the catalog; may be NULL */
	const char *note;     /* borrowed; may be NULL */
};

struct tactic_list {
	const struct catalog *cat;
	struct tactic *g1, *g2;
	size_t n1, n2;
};

struct catalog_set {
	struct catalog **v;
	size_t n;
};

int catalog_load_file(const char *path, struct catalog **out, struct diags *d);
void catalog_free(struct catalog *c);
int catalog_load_dir(const char *dir, struct catalog_set *set, struct diags *d);
void catalog_set_release(struct catalog_set *set);

/* The ordered candidate lists of both GEMM stages (§2), as FlashInfer numbers them: a copy of
 * what was decoded and checked when the catalog was loaded (caller releases with
 * tactic_list_release). */
int catalog_expand(const struct catalog *c, struct tactic_list *out, struct diags *d);
/* The same for a runner built with use_fused_finalize off: GEMM2 gets no FINALIZE copies, so
 * its list is GEMM1's (cutlass-moe-tactics.md §3: "with it False, G2 = G1"). */
int catalog_expand_finalize(const struct catalog *c, bool fused_finalize, struct tactic_list *out,
			    struct diags *d);
void tactic_list_release(struct tactic_list *l);

/* The catalog serving (version, sm, dtype), or NULL. */
const struct catalog *catalog_find(const struct catalog_set *set, const struct fi_version *v,
				   unsigned sm, enum dtype t);
int catalog_covers_version(const struct catalog *c, const struct fi_version *v);

/* The tactic a stored integer selects for a stage, or NULL when out of range.
 * relative_gemm2: also accept a GEMM2 id below n2 as local (v0.5.3–v0.6.14, formats §3.6). */
const struct tactic *tactic_lookup(const struct tactic_list *l, int stage, int id,
				   bool relative_gemm2);
/* FlashInfer's isProfileShapeSupported for a GEMM with n output features and reduction k:
 * K % tile_k == 0, N >= tile_n, N % tile_m == 0 (tile numbers as the enum names them), and the
 * single-warpgroup rules (PREFILL for K <= 384, ROLLING above, N % 128 == 0). */
bool catalog_tactic_fits(const struct tactic *t, long n, long k);
/* Whether any of c's entries can be dispatched on its SM (SM90 mxfp8: none, its dispatch
 * rejects MXFPX; cutlass-moe-tactics.md §3); when none, *why is the first entry's note (or
 * NULL). A catalog without entries counts as dispatchable. */
bool catalog_dispatchable(const struct catalog *c, const char **why);
/* "128x64x128B (256 el) cluster 2x1x1 2SM dyn 4x1x1/2x1x1 swap_ab finalize" style text. */
void tactic_describe(const struct tactic *t, char *buf, size_t n);
/* The kernel configuration alone, the same for every dtype whose catalog lists it:
 * "128x256x128B cluster 1x2x1 1SM swap_ab finalize" (tile with K in bytes, cluster, MMA,
 * epilogue, swap, finalize; SM80-style: tile, warp, stages). A fit's measurements are kept
 * by it (data/modelfit.h); the heuristic sees it as c.config. */
void tactic_config(const struct tactic *t, char *buf, size_t n);

#endif
