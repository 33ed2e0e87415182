/* pyenc.c: a Python module's source encoding as CPython finds it (pyenc.h). The rules are
 * CPython 3's (Parser/tokenizer.c, Objects/unicodeobject.c); the names are data,
 * configs/python/source-encodings.yaml, made from Python's own alias table. */
#include "flashinfer/pyenc.h"

#include <string.h>

#include "flashinfer/pyenc_names.h"

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The end of the line that starts at p: its '\r' or '\n' (CPython makes "\r\n" and a lone
 * "\r" one "\n" before it looks), or the end of the text. */
static const char *line_end(const char *p, const char *end)
{
	while (p < end && *p != '\r' && *p != '\n')
		p++;
	return p;
}

/* get_coding_spec: in a line that is only a comment, the first "coding" followed by ':' or
 * '=', spaces or tabs, and one or more of [A-Za-z0-9_.-] (the regex PEP 263 gives,
 * ^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)). Returns the name, or NULL. */
static const char *coding_spec(const char *p, const char *e, size_t *n)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\f'))
		p++;
	if (p >= e || *p != '#')
		return NULL;
	for (; e - p >= 7; p++) {
		if (memcmp(p, "coding", 6) != 0 || (p[6] != ':' && p[6] != '='))
			continue;
		const char *t = p + 7;
		while (t < e && (*t == ' ' || *t == '\t'))
			t++;
		const char *name = t;
		while (t < e && (is_alnum(*t) || *t == '-' || *t == '_' || *t == '.'))
			t++;
		if (t > name) {
			*n = (size_t)(t - name);
			return name;
		}
	}
	return NULL;
}

/* check_coding_spec's test for looking at line 2: line 1 holds nothing but spaces, tabs and
 * form feeds before a '#' or its end. */
static bool blank_or_comment(const char *p, const char *e)
{
	for (; p < e && *p != '#'; p++)
		if (*p != ' ' && *p != '\t' && *p != '\f')
			return false;
	return true;
}

/* get_normal_name's first case: its first 12 characters, lowered and with '_' as '-', are
 * "utf-8" or start with "utf-8-". The tokenizer then reads the text as UTF-8 itself. */
static bool normal_name_utf8(const char *s, size_t n)
{
	char buf[13];
	size_t i;
	for (i = 0; i < n && i < 12; i++)
		buf[i] = s[i] == '_' ? '-' : lower(s[i]);
	buf[i] = '\0';
	return strcmp(buf, "utf-8") == 0 || strncmp(buf, "utf-8-", 6) == 0;
}

/* _Py_normalize_encoding: letters lowered, a run of characters other than letters, digits
 * and '.' one '_' between others. 0 when it does not fit out (then no listed name). */
static size_t normalize(const char *s, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	bool punct = false;
	for (size_t i = 0; i < n; i++) {
		if (is_alnum(s[i]) || s[i] == '.') {
			if (punct && k) {
				if (k + 1 >= cap)
					return 0;
				out[k++] = '_';
			}
			punct = false;
			if (k + 1 >= cap)
				return 0;
			out[k++] = lower(s[i]);
		} else {
			punct = true;
		}
	}
	out[k] = '\0';
	return k;
}

static bool listed(const char *name, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, v[i]) == 0)
			return true;
	return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

void pyenc_detect(const char *text, size_t len, struct pyenc *e)
{
	memset(e, 0, sizeof *e);
	const char *p = text, *end = text + len;
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
		e->bom = true;
		p += 3;
	}
	const char *name = NULL, *line = p;
	for (int no = 1; no <= 2 && line < end; no++) {
		const char *le = line_end(line, end);
		size_t n;
		name = coding_spec(line, le, &n);
		if (name) {
			e->line = no;
			e->col = 1;
			for (const char *q = line; q < name; q++)
				e->col += ((unsigned char)*q & 0xC0) != 0x80;
			e->name = name;
			e->name_len = n;
			break;
		}
		if (!blank_or_comment(line, le) || le >= end)
			break;
		line = le + (le[0] == '\r' && le + 1 < end && le[1] == '\n' ? 2 : 1);
	}
	if (!name || normal_name_utf8(e->name, e->name_len)) {
		e->kind = PYENC_UTF8;
		return;
	}
	if (e->bom) {
		e->kind = PYENC_BOM_CONFLICT;
		return;
	}
	char norm[64];
	if (!normalize(e->name, e->name_len, norm, sizeof norm))
		e->kind = PYENC_OTHER;
	else if (listed(norm, pyenc_utf8_names, COUNT(pyenc_utf8_names)))
		e->kind = PYENC_UTF8;
	else if (listed(norm, pyenc_ascii_names, COUNT(pyenc_ascii_names)))
		e->kind = PYENC_ASCII;
	else
		e->kind = PYENC_OTHER;
}
