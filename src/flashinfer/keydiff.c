/* keydiff.c: the nearest key and the fields that differ (keydiff.h). */
#include "flashinfer/keydiff.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "flashinfer/key.h"
#include "flashinfer/pylit.h"

static const struct pyv *parse(const char *key, struct arena *a)
{
	const struct pyv *t = key_parse_any(key, strlen(key), a);
	return t && t->kind == PV_TUPLE && t->n >= 3 ? t : NULL;
}

static void repr(const struct pyv *v, char *out, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	if (v)
		pyv_repr(v, &sb);
	else
		sb_adds(&sb, "(none)");
	snprintf(out, n, "%s", sb.buf ? sb.buf : "");
	sb_release(&sb);
}

static const struct pyv *item(const struct pyv *t, size_t i)
{
	return t && (t->kind == PV_TUPLE || t->kind == PV_LIST) && i < t->n ? &t->items[i] : NULL;
}

static bool same(const struct pyv *a, const struct pyv *b)
{
	return a && b ? pyv_equal(a, b) : a == b;
}

/* The fields of w and h that differ, into out (at most KEYDIFF_MAX). */
static void compare(const struct fi_rules *s, const struct pyv *w, const struct pyv *h,
		    struct keydiff *out)
{
	static const char *const shapes[] = { "input", "fc1", "fc1_bias", "fc2", "fc2_bias" };
	out->n = 0;
#define ADD(name, a, b)                                                                \
	do {                                                                           \
		if (out->n < KEYDIFF_MAX) {                                            \
			out->f[out->n].field = (name);                                 \
			repr(a, out->f[out->n].want, sizeof out->f[out->n].want);      \
			repr(b, out->f[out->n].have, sizeof out->f[out->n].have);      \
			out->n++;                                                      \
		}                                                                      \
	} while (0)
	if (!same(item(w, 1), item(h, 1)))
		ADD("runner", item(w, 1), item(h, 1));
	const struct pyv *wp = item(w, 2), *hp = item(h, 2);
	/* the token count: dimension 0 of the input shape */
	const struct pyv *wt = item(item(wp, 0), 0), *ht = item(item(hp, 0), 0);
	if (!same(wt, ht))
		ADD("tokens", wt, ht);
	for (size_t i = 0; i < 5; i++) {
		const struct pyv *a = item(wp, i), *b = item(hp, i);
		if (i == 0) { /* the input's width only */
			a = item(a, 1);
			b = item(b, 1);
		}
		if (!same(a, b))
			ADD(shapes[i], a, b);
	}
	const struct pyv *we = item(w, 3), *he = item(h, 3);
	size_t ne = we && he ? (we->n > he->n ? we->n : he->n) : 0;
	if ((we == NULL) != (he == NULL) || (we && he && we->n != he->n))
		ADD("extras", we, he);
	else
		for (size_t i = 0; i < ne; i++)
			if (!same(item(we, i), item(he, i)))
				ADD(s && i < s->key.extras_fields_count ? s->key.extras_fields[i].name
								       : "extras",
				    item(we, i), item(he, i));
#undef ADD
}

void keydiff(const struct fi_rules *s, const char *want, const char *const *have, size_t nhave,
	     struct keydiff *out)
{
	memset(out, 0, sizeof *out);
	struct arena a = ARENA_INIT;
	const struct pyv *w = parse(want, &a);
	size_t best_score = (size_t)-1;
	for (size_t i = 0; w && i < nhave; i++) {
		const struct pyv *h = parse(have[i], &a);
		if (!h || !same(item(w, 0), item(h, 0)))
			continue; /* another op */
		struct keydiff d;
		compare(s, w, h, &d);
		/* fewest differences, the token bucket counting more than any other field */
		size_t score = d.n * 2;
		for (size_t k = 0; k < d.n; k++)
			score += !strcmp(d.f[k].field, "tokens") ? 16 : 0;
		if (score < best_score) {
			best_score = score;
			*out = d;
			out->nearest = have[i];
		}
	}
	arena_release(&a);
}
