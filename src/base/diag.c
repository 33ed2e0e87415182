/* diag.c: located diagnostics. */
#include "base/diag.h"

#include <stdarg.h>
#include <stdlib.h>

#include "base/util.h"

void diags_vadd(struct diags *d, enum diag_sev sev, const char *id, const char *file, int line,
		int col, const char *prefix, const char *fmt, va_list ap)
{
	ALLOC_GROW(d->v, d->n + 1, d->alloc);
	struct diag *x = &d->v[d->n++];
	x->sev = sev;
	x->id = xstrdup(id);
	x->file = file ? xstrdup(file) : NULL;
	x->line = line;
	x->col = col;
	x->msg = xvasprintf(fmt, ap);
	if (prefix) {
		char *msg = x->msg;
		x->msg = xasprintf("%s%s", prefix, msg);
		free(msg);
	}
}

void diags_add(struct diags *d, enum diag_sev sev, const char *id, const char *file, int line,
	       int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diags_vadd(d, sev, id, file, line, col, NULL, fmt, ap);
	va_end(ap);
}

int diag_error(struct diags *d, int status, const char *id, const char *file, int line, int col,
	       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diags_vadd(d, SEV_ERROR, id, file, line, col, NULL, fmt, ap);
	va_end(ap);
	return status;
}

void diags_append(struct diags *d, const struct diags *from)
{
	for (size_t i = 0; i < from->n; i++) {
		const struct diag *x = &from->v[i];
		diags_add(d, x->sev, x->id, x->file, x->line, x->col, "%s", x->msg);
	}
}

void diags_flush(struct diags *d, void (*fn)(void *ctx, const struct diag *x), void *ctx)
{
	size_t keep = 0;
	for (size_t i = 0; i < d->n; i++) {
		struct diag *x = &d->v[i];
		if (x->sev == SEV_ERROR) {
			d->v[keep++] = *x;
			continue;
		}
		if (fn)
			fn(ctx, x);
		free(x->id);
		free(x->file);
		free(x->msg);
	}
	d->n = keep;
}

size_t diags_count(const struct diags *d, enum diag_sev sev)
{
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		n += d->v[i].sev == sev;
	return n;
}

void diags_release(struct diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].id);
		free(d->v[i].file);
		free(d->v[i].msg);
	}
	free(d->v);
	d->v = NULL;
	d->n = d->alloc = 0;
}

const char *diag_sev_name(enum diag_sev sev)
{
	switch (sev) {
	case SEV_NOTE: return "note";
	case SEV_WARNING: return "warning";
	default: return "error";
	}
}
