/* metadata.c: FlashInfer's _metadata comparison (metadata.h). */
#include "flashinfer/metadata.h"

#include <string.h>

enum fi_meta_state fi_meta_field(bool present, bool null, const char *str, const char *current)
{
	if (str && !strcmp(str, "*"))
		return FI_META_WILDCARD;
	if (str && current && !strcmp(str, current))
		return FI_META_MATCH;
	if (!present || null)
		return FI_META_SOFT;
	if (!current)
		return FI_META_UNKNOWN; /* "unknown" saved against "unknown" current is a match */
	if (str && (!strcmp(str, "unknown") || !strcmp(str, "None")))
		return FI_META_SOFT;
	return FI_META_HARD;
}

enum fi_meta_state fi_meta_field_json(json_t *saved, const char *current)
{
	return fi_meta_field(saved != NULL, json_is_null(saved), json_string_value(saved), current);
}

int fi_meta_level(enum fi_meta_state st)
{
	switch (st) {
	case FI_META_SOFT: return 1;
	case FI_META_HARD: return 2;
	case FI_META_UNKNOWN: return -1;
	default: return 0;
	}
}
