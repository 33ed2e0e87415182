/* metadata.c: FlashInfer's _metadata comparison (metadata.h). */
#include "flashinfer/metadata.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* A struct fi_meta is the JSON value itself. */
static json_t *meta_json(const struct fi_meta *m)
{
	return (json_t *)m;
}

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

int fi_meta_level(enum fi_meta_state st)
{
	switch (st) {
	case FI_META_SOFT: return 1;
	case FI_META_HARD: return 2;
	case FI_META_UNKNOWN: return -1;
	default: return 0;
	}
}

struct fi_meta *fi_meta_new(void)
{
	return (struct fi_meta *)json_object();
}

struct fi_meta *fi_meta_copy(const struct fi_meta *m)
{
	return (struct fi_meta *)json_deep_copy(meta_json(m));
}

struct fi_meta *fi_meta_wildcard(const struct fi_meta *m)
{
	json_t *w = json_object();
	const char *k;
	json_t *x;
	json_object_foreach(meta_json(m), k, x)
		json_object_set_new(w, k, json_string("*"));
	return (struct fi_meta *)w;
}

void fi_meta_free(struct fi_meta *m)
{
	json_decref(meta_json(m));
}

const char *fi_meta_str(const struct fi_meta *m, const char *field)
{
	return json_string_value(json_object_get(meta_json(m), field));
}

void fi_meta_set(struct fi_meta *m, const char *field, const char *value)
{
	json_object_set_new(meta_json(m), field, json_string(value));
}

enum fi_meta_state fi_meta_judge(const struct fi_meta *saved, const char *field,
				 const char *current)
{
	/* tests: a wrong copy of FlashInfer's rule (a field it compares taken as equal), which
	 * FlashInfer's own loader, asked by doctor --for, must catch (tests/cli/210) */
	const char *wrong = getenv("TUNETAB_TEST_META_IGNORE");
	if (wrong && !strcmp(wrong, field))
		return FI_META_MATCH;
	json_t *s = meta_json(saved);
	json_t *sv = json_is_object(s) ? json_object_get(s, field) : NULL;
	return fi_meta_field(sv != NULL, json_is_null(sv), json_string_value(sv), current);
}

int fi_meta_mismatch(const struct fi_meta *saved, const struct fi_meta *current,
		     const char **field)
{
	int worst = 0;
	const char *k;
	json_t *cur;
	*field = NULL;
	json_object_foreach(meta_json(current), k, cur) {
		int level = fi_meta_level(fi_meta_judge(saved, k, json_string_value(cur)));
		if (level > worst) {
			worst = level;
			*field = k;
		}
	}
	return worst;
}
