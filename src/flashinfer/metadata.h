/* metadata.h: how FlashInfer compares a saved _metadata field with the environment it runs in
 * (flashinfer-formats.md §2.3, `_classify_metadata_mismatches` from 0.6.16; before it every
 * difference rejects the file). The one home of that rule: install's merge, the lookup plan's
 * check and doctor's cache report all ask it. */
#ifndef TUNETAB_FI_METADATA_H
#define TUNETAB_FI_METADATA_H

#include <jansson.h>
#include <stdbool.h>

enum fi_meta_state {
	FI_META_MATCH,     /* equal to the current value (type-sensitive: strings only) */
	FI_META_WILDCARD,  /* "*" */
	FI_META_SOFT,      /* missing, null, or "unknown"/"None" against a known other value */
	FI_META_HARD,      /* a definite value that differs */
	FI_META_UNKNOWN,   /* not "*", not missing or null, and the current value is not known */
};

/* One field: present/null say whether the saved _metadata has it and whether it is JSON null
 * (a _metadata that is not an object: not present), str its value when it is a string (else
 * NULL), current this environment's value (NULL: not known). Order: "*", equal, missing or
 * null, not known, indeterminate string, else hard. */
enum fi_meta_state fi_meta_field(bool present, bool null, const char *str, const char *current);

/* The same for a saved JSON value (NULL: missing). */
enum fi_meta_state fi_meta_field_json(json_t *saved, const char *current);

/* The mismatch level of a state: 0 none (match, wildcard), 1 soft, 2 hard, -1 cannot tell. */
int fi_meta_level(enum fi_meta_state st);

#endif
