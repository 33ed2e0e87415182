/* routing.c: the routing loads of the layer's pair choice (routing.h). */
#include "tune/routing.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static struct routing_load_def *add(struct routing *r, const char *name)
{
	r->v = xrealloc(r->v, (r->n + 1) * sizeof *r->v);
	struct routing_load_def *l = &r->v[r->n++];
	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	return l;
}

/* The measured rank's experts are the first of the popularity order, the others follow in
 * their order: expert e's place (0-based) in it. */
static long hot_place(long e, long local, long ep_rank)
{
	long first = ep_rank * local;
	if (e >= first && e < first + local)
		return e - first;
	return local + (e < first ? e : e - local);
}

void routing_defaults(struct routing *r, long experts_total, long ep, long ep_rank)
{
	memset(r, 0, sizeof *r);
	add(r, "balanced");
	static const double hot[] = ROUTING_HOT;
	long local = ep > 0 ? experts_total / ep : experts_total;
	for (size_t k = 0; k < ARRAY_SIZE(hot); k++) {
		char name[32];
		snprintf(name, sizeof name, "hot-%g", hot[k]);
		struct routing_load_def *l = add(r, name);
		l->n = (size_t)experts_total;
		l->weights = xcalloc(l->n ? l->n : 1, sizeof *l->weights);
		for (long e = 0; e < experts_total; e++)
			l->weights[e] = 1.0 / pow((double)(hot_place(e, local, ep_rank) + 1), hot[k]);
	}
}

static int bad_line(struct diags *d, const char *path, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int bad_line(struct diags *d, const char *path, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diags_vadd(d, SEV_ERROR, "routing", path, line, col, NULL, fmt, ap);
	va_end(ap);
	return TT_INVALID;
}

int routing_read(struct routing *r, const char *path, long experts_total, long ep, long ep_rank,
		 long top_k, struct diags *d)
{
	memset(r, 0, sizeof *r);
	char *text = NULL;
	size_t len = 0;
	int err = read_file(path, 16u << 20, &text, &len);
	if (err)
		return diag_error(d, path_err_status(err), "routing", path, 0, 0,
				  "cannot read the routing histogram: %s", path_strerror(path, err));
	double *w = xcalloc(experts_total > 0 ? (size_t)experts_total : 1, sizeof *w);
	bool *seen = xcalloc(experts_total > 0 ? (size_t)experts_total : 1, sizeof *seen);
	int rc = TT_OK, line = 1;
	char num[64];
	for (const char *p = text; p < text + len && !rc; line++) {
		const char *end = memchr(p, '\n', (size_t)(text + len - p));
		if (!end)
			end = text + len;
		const char *q = p;
		long e = -1;
		double c = -1;
		for (int field = 0; field < 3 && !rc; field++) {
			while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
				q++;
			if (q == end || *q == '#') {
				if (field == 1)
					rc = bad_line(d, path, line, (int)(q - p) + 1, "an expert without its "
						      "count: a line is `EXPERT COUNT`");
				break;
			}
			if (field == 2) {
				rc = bad_line(d, path, line, (int)(q - p) + 1, "more than `EXPERT COUNT` "
					      "on the line");
				break;
			}
			const char *w0 = q;
			while (q < end && !isspace((unsigned char)*q) && *q != '#')
				q++;
			size_t n = (size_t)(q - w0);
			snprintf(num, sizeof num, "%.*s", (int)(n < sizeof num - 1 ? n : sizeof num - 1), w0);
			char *stop;
			errno = 0;
			int col = (int)(w0 - p) + 1;
			if (field == 0) {
				long v = strtol(num, &stop, 10);
				if (n >= sizeof num || *stop || stop == num || errno || v < 0)
					rc = bad_line(d, path, line, col, "'%s' is not an expert (an integer "
						      "from 0)", num);
				else if (v >= experts_total)
					rc = bad_line(d, path, line, col, "expert '%s' is past the layer's "
						      "experts (0 to %ld)", num, experts_total - 1);
				else if (seen[v])
					rc = bad_line(d, path, line, col, "expert '%s' is listed twice", num);
				else
					e = v;
			} else {
				double v = strtod(num, &stop);
				if (n >= sizeof num || *stop || stop == num || errno || !isfinite(v) || v < 0)
					rc = bad_line(d, path, line, col, "'%s' is not a count (a "
						      "non-negative number)", num);
				else
					c = v;
			}
		}
		if (!rc && e >= 0 && c >= 0) {
			seen[e] = true;
			w[e] = c;
		}
		p = end + 1;
	}
	long nonzero = 0;
	for (long e = 0; e < experts_total; e++)
		nonzero += w[e] > 0;
	if (!rc && nonzero < top_k)
		rc = bad_line(d, path, 0, 0, "%ld experts have picks, a token picks %ld distinct ones: "
			      "the histogram must give at least %ld experts a count above 0", nonzero,
			      top_k, top_k);
	free(text);
	free(seen);
	if (rc) {
		free(w);
		return rc;
	}
	/* the hottest rank's experts on the measured rank: their groups swapped */
	long local = ep > 0 ? experts_total / ep : experts_total, hot = 0;
	double best = -1;
	for (long k = 0; k < (ep > 0 ? ep : 1); k++) {
		double sum = 0;
		for (long e = k * local; e < (k + 1) * local; e++)
			sum += w[e];
		if (sum > best)
			best = sum, hot = k;
	}
	if (hot != ep_rank)
		for (long i = 0; i < local; i++) {
			double t = w[hot * local + i];
			w[hot * local + i] = w[ep_rank * local + i];
			w[ep_rank * local + i] = t;
		}
	add(r, "balanced");
	const char *base = strrchr(path, '/');
	struct routing_load_def *l = add(r, base ? base + 1 : path);
	l->weights = w;
	l->n = (size_t)experts_total;
	return TT_OK;
}

char *routing_popularity(const struct routing_load_def *l)
{
	if (!l->weights)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	for (size_t e = 0; e < l->n; e++)
		sb_addf(&sb, "%s%.6g", e ? "," : "", l->weights[e]);
	return sb_detach(&sb);
}

double routing_peak(const struct routing_load_def *l, long ep, long ep_rank)
{
	if (!l->weights || !l->n)
		return 1.0;
	long local = ep > 0 ? (long)l->n / ep : (long)l->n;
	double total = 0, top = 0;
	for (size_t e = 0; e < l->n; e++)
		total += l->weights[e];
	for (long e = ep_rank * local; e < (ep_rank + 1) * local && e < (long)l->n; e++)
		top = fmax(top, l->weights[e]);
	return total > 0 ? top / total * (double)l->n : 1.0;
}

void routing_release(struct routing *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].weights);
	free(r->v);
	memset(r, 0, sizeof *r);
}
