/* firules.h: how each FlashInfer version range finds, keys and numbers tuning tables
 * (schemas/flashinfer/<id>.yaml; flashinfer-formats.md §1–§3), and the file-name rule for a
 * device they share. */
#ifndef TUNETAB_FIRULES_H
#define TUNETAB_FIRULES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/version.h"

enum prefix_rule { PREFIX_CONSTANT, PREFIX_VERSION };
enum lookup_order { LOOKUP_FIRST_RUNNER, LOOKUP_RUNNER_BY_RUNNER, LOOKUP_LEVEL_BY_LEVEL };
enum runner_slot { SLOT_INDEX, SLOT_IGNORED };
enum miss_line { MISS_KEY, MISS_HASH4, MISS_HASH5 };
enum extras_kind { EXTRAS_NONE, EXTRAS_EMPTY, EXTRAS_FIELDS };
enum entry_value { VALUE_PAIR, VALUE_POLICY };
enum field_type { FT_INT, FT_BOOL, FT_DTYPE };
enum bucket_map { BUCKETS_POW2_FLOOR, BUCKETS_HYBRID_CEIL };
enum tactic_numbering { TN_SHARED, TN_SPLIT_RELATIVE, TN_SPLIT_ABSOLUTE };
enum meta_mismatch { MISMATCH_STRICT, MISMATCH_HARD_SOFT };

struct fr_range {
	char *min, *below;
};

struct fr_bundled {
	enum prefix_rule prefix_rule;
	char *prefix;
	char *stem;
	char *package_dir;
	char *env_var;
	char *env_value;
	enum lookup_order lookup;
	enum runner_slot runner_slot;
	enum miss_line miss_line;
};

struct fr_field {
	char *name;
	enum field_type type;
	char *source; /* a Python literal, or "$variable" of the deployment; NULL = unknown */
};

struct fr_op {
	char *op;
	char **runners;
	unsigned runners_count;
	unsigned shapes;
	unsigned stage;
};

struct fr_key {
	unsigned tuple;
	enum extras_kind extras;
	struct fr_field *extras_fields;
	unsigned extras_fields_count;
	struct fr_op *ops;
	unsigned ops_count;
};

struct fr_phase {
	unsigned upto; /* 0 = unbounded */
	unsigned step; /* 0 = powers of two */
};

struct fr_buckets {
	enum bucket_map map;
	unsigned default_max_tokens;
	struct fr_phase *phases;
	unsigned phases_count;
};

struct fr_json {
	bool supported;
	char **metadata;
	unsigned metadata_count;
	enum meta_mismatch mismatch;
	enum entry_value entry_value; /* pair: extra elements ignored; policy: [2] must be a list */
	char *selection;     /* the first version in the range whose profiling run saves a selection
			      * record after the policy ([3]: time_ms, runner_up_ms, margin,
			      * candidates); NULL: none does */
	char **reserved;
	unsigned reserved_count;
};

struct fr_tactics {
	enum tactic_numbering numbering;
};

struct fi_rules {
	char *id;
	struct fr_range versions;
	char *release;  /* a tagged release in the range, used when no exact version is given */
	struct fr_bundled bundled;
	struct fr_key key;
	struct fr_buckets buckets;
	struct fr_tactics tactics;
	struct fr_json json_cache;
	char *path;
	struct fi_version lo, hi; /* parsed range */
};

struct firules_set {
	struct fi_rules **v; /* sorted by versions.min */
	size_t n;
};

int firules_load_file(const char *path, struct fi_rules **out, struct diags *d);
void firules_free(struct fi_rules *s);
/* Loads all schemas, sorts them and checks that the ranges are contiguous. */
int firules_load_dir(const char *dir, struct firules_set *set, struct diags *d);
void firules_set_release(struct firules_set *set);

/* The version rules whose range holds v; NULL when v is older than every range. A version newer
 * than every range gets the newest rules and *newer is set (may be NULL). */
const struct fi_rules *firules_find(const struct firules_set *set, const struct fi_version *v,
				      bool *newer);
const struct fi_rules *firules_newest(const struct firules_set *set);
/* Whether FlashInfer v (whose rules are s) saves a measured entry with its selection record
 * (json_cache.selection): the one home of that version rule. */
bool firules_saves_selection(const struct fi_rules *s, const struct fi_version *v);

/* The device part of a file name: the CUDA device name with every space made '_', nothing
 * else changed, as FlashInfer names its bundled module (§1.1): "NVIDIA H200" -> "NVIDIA_H200".
 * The one implementation of that rule. It lives here, in the data layer, because this layer
 * needs it (the module's name below, fleet plans' folders, calibration files) and layers call
 * only down; the FlashInfer layer's file names (flashinfer/names.h) call it. Caller frees. */
char *firules_device_part(const char *device);

/* Bundled module file name for a device, e.g. "v0_1_trtllm_fused_moe_NVIDIA_H200.py": the
 * prefix and stem of the rules s, then the device part (firules_device_part). version is used by
 * PREFIX_VERSION schemas. Caller frees. */
char *firules_bundled_name(const struct fi_rules *s, const char *version, const char *device);
/* Splits a bundled module's basename at schema stem: "v0_1_trtllm_fused_moe_NVIDIA_B200.py"
 * with stem "trtllm_fused_moe_" gives *prefix_len 5 ("v0_1_") and the device part
 * "NVIDIA_B200" (*part, *part_len: inside name). false when name does not end in ".py" or
 * holds no stem. */
bool firules_split_bundled(const char *name, const char *stem, size_t *prefix_len,
			    const char **part, size_t *part_len);

/* Token buckets the version's tuner profiles for max_tokens (§3.2), ascending. Caller frees. */
size_t firules_buckets(const struct fi_rules *s, unsigned max_tokens, unsigned **out);
/* The bucket a runtime token count maps to (§3.2). */
unsigned firules_map_tokens(const struct fi_rules *s, unsigned max_tokens, unsigned tokens);

const char *numbering_name(enum tactic_numbering n);
const char *bucket_map_name(enum bucket_map m);

#endif
