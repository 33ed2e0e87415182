/* metadata.h: how FlashInfer compares a saved _metadata field with the environment it runs in
 * (flashinfer-formats.md §2.3, `_classify_metadata_mismatches` from 0.6.16; before it every
 * difference rejects the file). The one home of that rule: install's merge, the lookup plan's
 * check and doctor's cache report all ask it. */
#ifndef TUNETAB_FI_METADATA_H
#define TUNETAB_FI_METADATA_H

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

/* The mismatch level of a state: 0 none (match, wildcard), 1 soft, 2 hard, -1 cannot tell. */
int fi_meta_level(enum fi_meta_state st);

/* A _metadata value as a file saves it or an environment stamps it: an object of fields
 * (strings, as FlashInfer writes them), or any other JSON value, which then holds no field.
 * Opaque: flashinfer/ reads it as the JSON value itself (cachefile.h hands out views). */
struct fi_meta;

/* An empty _metadata object, a deep copy of m (NULL: NULL), and one with each of m's fields
 * "*" (an empty object when m has none). Free with fi_meta_free. */
struct fi_meta *fi_meta_new(void);
struct fi_meta *fi_meta_copy(const struct fi_meta *m);
struct fi_meta *fi_meta_wildcard(const struct fi_meta *m);
void fi_meta_free(struct fi_meta *m);
/* The field's value when it is a string, else NULL (m NULL or not an object: NULL). */
const char *fi_meta_str(const struct fi_meta *m, const char *field);
/* Sets a field to a string; nothing when value is NULL or m is not an object. */
void fi_meta_set(struct fi_meta *m, const char *field, const char *value);

/* One field of a saved _metadata (NULL: none) against the current value (fi_meta_field). */
enum fi_meta_state fi_meta_judge(const struct fi_meta *saved, const char *field,
				 const char *current);
/* How FlashInfer judges a saved _metadata against the current one (load_configs,
 * _classify_metadata_mismatches), field by field of current: 0 every field equal or "*",
 * 1 soft (missing, null, "unknown", "None"), 2 hard (another value). *field gets the first
 * field of the worst level (NULL when 0); it points into current. */
int fi_meta_mismatch(const struct fi_meta *saved, const struct fi_meta *current,
		     const char **field);

#endif
