/* names.c: the file names of a FlashInfer table set (names.h). */
#include "flashinfer/names.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

char *names_json_cache(const char *device)
{
	char *part = firules_device_part(device);
	char *name = xasprintf("flashinfer_autotune_%s.json", part);
	free(part);
	return name;
}

char *names_provenance(const char *device)
{
	char *part = firules_device_part(device);
	char *name = xasprintf(NAMES_PROVENANCE_PREFIX "%s.json", part);
	free(part);
	return name;
}

bool names_is_provenance(const char *base)
{
	return str_starts(base, NAMES_PROVENANCE_PREFIX) && str_ends(base, ".json");
}

bool names_same_device(const char *a, const char *b)
{
	char *pa = firules_device_part(a), *pb = firules_device_part(b);
	bool same = !strcmp(pa, pb);
	free(pa);
	free(pb);
	return same;
}

char *names_module_device(const struct firules_set *set, const char *base)
{
	if (base[0] != 'v')
		return NULL;
	for (size_t i = 0; i < set->n; i++) {
		const char *stem = set->v[i]->bundled.stem, *part;
		size_t prefix_len, n;
		if (stem && firules_split_bundled(base, stem, &prefix_len, &part, &n) && prefix_len &&
		    n)
			return xstrndup(part, n);
	}
	return NULL;
}
