/* explain.h: what each entry of a tuning table means for a FlashInfer version and device
 * (GEMM stage, token bucket, shapes, dtype, the tactic's config), the token buckets each
 * shape family covers, and the entries two tables differ in. `tunetab explain` and
 * `tunetab diff` print these as text or JSON. */
#ifndef TUNETAB_EXPLAIN_H
#define TUNETAB_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/util.h"
#include "data/catalog.h"
#include "flashinfer/table.h"
#include "flashinfer/validate.h"

/* A table read and resolved against its target (version, device); catalogs are expanded on
 * first use. */
struct explain_target {
	struct table t;
	struct validate_result r;
	struct fi_version v;
	const struct catalog_set *catalogs;
	struct tactic_list lists[DT_COUNT][2]; /* [dtype][use_fused_finalize] */
	int state[DT_COUNT][2]; /* 0 not tried, 1 expanded, -1 no catalog */
};

/* Reads path and resolves its target as validate does (vo: --flashinfer, --device, --dtype).
 * On success d holds what a reader should be told first (the 'never-loaded' finding, when the
 * version can never load the file); on failure, why. Release with explain_target_release,
 * also after a failure. */
int explain_open(const struct validate_data *vd, const char *path, const struct validate_opts *vo,
		 struct explain_target *tg, struct diags *d);
void explain_target_release(struct explain_target *tg);

/* How far an entry could be decoded. */
enum explain_status {
	EXPLAIN_OK,            /* decoded, the tactic's config found */
	EXPLAIN_BAD_KEY,       /* the key is no (op, runner, profile[, extras]) tuple */
	EXPLAIN_NOT_MOE,       /* not a cutlass fused-MoE key: why says what did not decode */
	EXPLAIN_BAD_VALUE,     /* the value holds no integer tactic */
	EXPLAIN_FALLBACK,      /* tactic -1 */
	EXPLAIN_NO_CATALOG,    /* no catalog for this device, dtype and version */
	EXPLAIN_OUT_OF_RANGE,  /* the tactic is in no list of the catalog */
};

/* One entry decoded. Shapes are set from EXPLAIN_BAD_VALUE on, the tactic from
 * EXPLAIN_FALLBACK on, t for EXPLAIN_OK. */
struct explain_entry {
	const struct table_entry *e;
	enum explain_status status;
	const char *stage;      /* "gemm1", "gemm2", or the op (arena or table) */
	char why[160];          /* EXPLAIN_NOT_MOE */
	long long tokens, hidden, experts, inter;
	bool gated;
	int ndtypes;            /* 0: unknown; 2: bf16 or fp8 (the keys cannot tell) */
	enum dtype dtypes[2];
	int act_pack, w_pack;
	long long tactic;
	const struct tactic *t; /* into the target's lists */
	char family[96];        /* "gemm1 E256 I256 H7168", "" before EXPLAIN_BAD_VALUE */
};

/* The token buckets a shape family covers, in token order; tactic -2 for an unreadable one. */
struct explain_family {
	char *name;
	size_t n, buckets_alloc;
	long long (*buckets)[2]; /* {tokens, tactic} */
};

struct explain_result {
	struct explain_entry *entries; /* one per table entry, in family order (below) */
	size_t n;
	struct explain_family *families; /* in order of first appearance */
	size_t nfamilies, families_alloc;
};

/* Decodes one entry of tg's table; a: the key's parse (lives as long as x). */
void explain_entry(struct explain_target *tg, const struct table_entry *e, struct arena *a,
		   struct explain_entry *x);
/* The one-line text of an entry, as far as it decoded ("gemm1 T=1     hidden 7168, 256 experts
 * x inter 256 ..., nvfp4 (act pack 2, weight pack 16) -> tactic 5 = 128x64x128B ..."). */
void explain_describe(const struct explain_entry *x, struct strbuf *out);
/* Every entry of tg's table, and the coverage per shape family. Entries are in family order:
 * the shape families in the order they first appear in the table, each family's entries by
 * token bucket as numbers (1, 128, 1024: not the text order of a JSON cache's sorted keys), equal
 * ones in table order; an entry of no family (its key does not decode) where the table has it. */
void explain_table(struct explain_target *tg, struct arena *a, struct explain_result *r);
void explain_result_release(struct explain_result *r);

/* The entries two tables differ in, by key (the last of duplicate keys, as Python keeps):
 * removed (a only), changed and added (b only), in explain_table's family order over a's
 * entries then b's added ones (removed before changed before added at equal tokens). */
enum explain_change { EXPLAIN_REMOVED, EXPLAIN_CHANGED, EXPLAIN_ADDED };
struct explain_diff_item {
	enum explain_change kind;
	struct explain_entry a, b; /* a: removed, changed; b: changed, added */
};
struct explain_diff {
	struct explain_diff_item *v;
	size_t n, alloc, added, removed, changed, unchanged;
};
void explain_diff(struct explain_target *ta, struct explain_target *tb, struct arena *a,
		  struct explain_diff *r);
void explain_diff_release(struct explain_diff *r);

/* The tactic pairs a profiled run chose with the whole MoE layer as the judge (issue #49), from
 * the provenance file beside a table (its entries' "layer"): per bucket, the chosen and the
 * per-GEMM pair and their layer times under each routing load. */
#define EXPLAIN_LOADS_MAX 8
struct explain_pair_bucket {
	long long tokens;
	int chosen[2], per_gemm[2];   /* chosen[0] < 0: no pair could be chosen */
	double chosen_us[EXPLAIN_LOADS_MAX], per_gemm_us[EXPLAIN_LOADS_MAX]; /* < 0: none */
	double regret[EXPLAIN_LOADS_MAX]; /* the chosen pair's against the best timed, < 0: none */
};
struct explain_pairs {
	char *provenance;             /* the file read (NULL: none beside the table) */
	char *loads[EXPLAIN_LOADS_MAX];
	size_t nloads;
	struct explain_pair_bucket *v; /* by tokens */
	size_t n;
};
/* Reads them for the table at path (nothing when it has no provenance file or no pairs). */
void explain_pairs_read(const char *path, struct explain_pairs *r);
/* The geomean over the buckets of the chosen pairs' time over the per-GEMM pairs' under load
 * l, minus 1 (what the choice costs, or saves where negative); < -1: no bucket has both. */
double explain_pairs_cost(const struct explain_pairs *r, size_t l);
void explain_pairs_release(struct explain_pairs *r);

#endif
