/* diag.h: status codes and located diagnostics, filled by modules and printed by the CLI. */
#ifndef TUNETAB_DIAG_H
#define TUNETAB_DIAG_H

#include <stdarg.h>
#include <stddef.h>

/* Status codes double as the process exit codes (docs/exit-codes.md). */
enum tt_status {
	TT_OK = 0,
	TT_INVALID = 1,   /* findings, or invalid input */
	TT_USAGE = 2,     /* bad command line */
	TT_SCRIPT = 3,    /* Lua script error */
	TT_GPU = 4,       /* no GPU, no CUDA support, or a CUDA error */
	TT_INTERNAL = 5,  /* bug or environment failure (I/O, missing data) */
	TT_UNKNOWN = 6,   /* a check cannot tell (doctor: what it cannot see, and what shows it) */
};

/* The id of an error that is a bad command line: the command layer follows it with the
 * command's usage line. */
#define DIAG_SHOW_USAGE "show-usage"

enum diag_sev { SEV_NOTE, SEV_WARNING, SEV_ERROR };

struct diag {
	enum diag_sev sev;
	char *id;    /* stable check id, e.g. "yaml-syntax"; never NULL */
	char *file;  /* may be NULL */
	int line;    /* 1-based; 0 = unknown */
	int col;     /* 1-based; 0 = unknown */
	char *msg;   /* lowercase, problem first, subject quoted */
};

struct diags {
	struct diag *v;
	size_t n, alloc;
};

#define DIAGS_INIT { NULL, 0, 0 }

void diags_add(struct diags *d, enum diag_sev sev, const char *id, const char *file, int line,
	       int col, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* diags_add with a va_list; prefix, when not NULL, goes before the message ("syntax error: "). */
void diags_vadd(struct diags *d, enum diag_sev sev, const char *id, const char *file, int line,
		int col, const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 8, 0)));
/* Appends an error and returns status (for `return diag_error(...)`). */
int diag_error(struct diags *d, int status, const char *id, const char *file, int line, int col,
	       const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* Appends a copy of every diagnostic of from, in order. */
void diags_append(struct diags *d, const struct diags *from);
/* Hands every note and warning to fn (may be NULL) in order and drops it; errors stay in d,
 * in order. */
void diags_flush(struct diags *d, void (*fn)(void *ctx, const struct diag *x), void *ctx);
size_t diags_count(const struct diags *d, enum diag_sev sev);
void diags_release(struct diags *d);
const char *diag_sev_name(enum diag_sev sev);

#endif
