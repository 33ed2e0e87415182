/* keydiff.h: why a key a server looks up is not among a table's keys: the table's nearest
 * key of the same op (the same token bucket first) and the fields in which the two differ,
 * named as FlashInfer names them (the profile's shapes, the MoERunner extras of schema s,
 * flashinfer-formats.md §3.1, §3.3). Fills structs; never prints. */
#ifndef TUNETAB_KEYDIFF_H
#define TUNETAB_KEYDIFF_H

#include <stddef.h>

#include "data/firules.h"

#define KEYDIFF_MAX 8

struct keydiff {
	const char *nearest;          /* the table key compared with (one of have[]), or NULL when
				       * the table has none of this op */
	size_t n;
	struct {
		const char *field;    /* "tokens", "input", "fc1", "fc1_bias", "fc2", "fc2_bias",
				       * "runner", or an extras field ("use_fused_finalize") */
		char want[64], have[64]; /* the values, as Python prints them */
	} f[KEYDIFF_MAX];
};

/* want against have[0..nhave). Keys that do not parse compare as wholly different. */
void keydiff(const struct fi_rules *s, const char *want, const char *const *have, size_t nhave,
	     struct keydiff *out);

#endif
