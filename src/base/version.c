/* version.c: FlashInfer version strings parsed and ordered (PEP 440 subset). */
#include "base/version.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static int read_num(const char **p, int *out)
{
	if (!isdigit((unsigned char)**p))
		return -1;
	long v = 0;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v > 1000000)
			return -1;
		(*p)++;
	}
	*out = (int)v;
	return 0;
}

int version_parse(const char *s, struct fi_version *v)
{
	memset(v, 0, sizeof *v);
	v->pre = 4;
	v->post = -1;
	const char *p = s;
	if (*p == 'v')
		p++;
	if (read_num(&p, &v->major) || *p++ != '.' || read_num(&p, &v->minor))
		return -1;
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		p++;
		read_num(&p, &v->patch);
	}
	static const struct { const char *tag; int rank; } pre[] = {
		{ "rc", 3 }, { "a", 1 }, { "b", 2 }, { ".dev", 0 }, { "dev", 0 },
	};
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
		size_t n = strlen(pre[i].tag);
		if (strncmp(p, pre[i].tag, n) == 0 && isdigit((unsigned char)p[n])) {
			p += n;
			v->pre = pre[i].rank;
			read_num(&p, &v->pre_num);
			break;
		}
	}
	if (strncmp(p, ".post", 5) == 0 && isdigit((unsigned char)p[5])) {
		p += 5;
		read_num(&p, &v->post);
	}
	if (*p == '+') {
		p++;
		size_t n = strlen(p);
		if (n == 0 || n >= sizeof v->local)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (!isalnum((unsigned char)p[i]) && p[i] != '.' && p[i] != '_' && p[i] != '-')
				return -1;
		memcpy(v->local, p, n + 1);
		p += n;
	}
	return *p ? -1 : 0;
}

static int cmp_int(int a, int b)
{
	return (a > b) - (a < b);
}

int version_cmp(const struct fi_version *a, const struct fi_version *b)
{
	int c;
	if ((c = cmp_int(a->major, b->major)) || (c = cmp_int(a->minor, b->minor)) ||
	    (c = cmp_int(a->patch, b->patch)) || (c = cmp_int(a->pre, b->pre)) ||
	    (c = cmp_int(a->pre_num, b->pre_num)))
		return c;
	return cmp_int(a->post, b->post);
}

int version_cmp_str(const char *a, const char *b)
{
	struct fi_version va, vb;
	if (version_parse(a, &va))
		BUG("version_cmp_str: '%s' is not a version", a);
	if (version_parse(b, &vb))
		BUG("version_cmp_str: '%s' is not a version", b);
	return version_cmp(&va, &vb);
}
