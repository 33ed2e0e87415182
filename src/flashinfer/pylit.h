/* pylit.h: the Python-literal subset FlashInfer's tuning modules use (assignments, dict,
 * tuple, list, str, int, True/False/None, dotted names such as torch.int64), parsed with the
 * line and column of every value, and printed back exactly as Python's repr()/str() would. */
#ifndef TUNETAB_PYLIT_H
#define TUNETAB_PYLIT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/util.h"

enum pyv_kind { PV_INT, PV_STR, PV_TRUE, PV_FALSE, PV_NONE, PV_TUPLE, PV_LIST, PV_DICT, PV_NAME };

struct pyv {
	enum pyv_kind kind;
	int line, col;       /* 1-based; col counts characters */
	long long i;         /* PV_INT */
	const char *s;       /* PV_STR (UTF-8, may hold NUL bytes; in a module's tree it may point
			      * into the source text, unterminated: use len), PV_NAME (dotted) */
	size_t len;
	struct pyv *items;   /* TUPLE/LIST: n items; DICT: 2n items, key then value */
	size_t n;
};

struct py_assign {
	const char *name;
	int line, col;
	struct pyv *value;
};

struct py_module {
	struct py_assign *assigns;
	size_t n;
	struct arena arena; /* owns everything above */
};

struct pylit_limits {
	size_t max_depth;   /* nesting of brackets */
	size_t max_items;   /* items in one container */
};

/* Parses a whole module of literal assignments. text must stay alive as long as m: plain
 * strings point into it. What Python 3 would not compile is an error too (invalid UTF-8, an
 * unexpected indent, a statement split by a newline, a keyword as a name, ur'' strings), as
 * is anything beyond the subset, and a module Python would not read as UTF-8: a PEP 263
 * coding declaration of another codec (pyenc.h) is an error at the declared name. On error adds one located diagnostic (id "syntax") to d and
 * returns TT_INVALID. file is used in diagnostics only. */
int pylit_parse_module(const char *text, size_t len, const char *file, struct py_module *m,
		       struct diags *d);
void py_module_release(struct py_module *m);

/* Frees the buffers kept between parses (for leak checkers; optional). */
void pylit_release_cache(void);

/* Parses one expression (e.g. a key string's content) into arena a. text must be valid
 * UTF-8 (it comes from a parsed module or from jansson, which both check). line/col give the
 * position of text[0] in its file, for diagnostics. Returns NULL after adding a diagnostic. */
struct pyv *pylit_parse_expr(const char *text, size_t len, struct arena *a, const char *file,
			     int line, int col, struct diags *d);

/* A Python name n bytes long at s (dotted ones too) as a value: True, False and None are those
 * constants, any other name a PV_NAME whose text is copied into arena a. */
void pylit_name(const char *s, size_t n, struct arena *a, struct pyv *out);

/* Byte offset of the first NUL byte or invalid UTF-8 sequence in s as Python's decoder
 * sees it (overlong forms, encoded surrogates and code points above U+10FFFF are invalid),
 * or len when there is none. */
size_t pylit_bad_utf8(const char *s, size_t len);

/* Appends Python's repr() of v (str() for containers, as tuple printing uses repr of items). */
void pyv_repr(const struct pyv *v, struct strbuf *out);
/* Python's repr() of a str given as UTF-8. */
void py_str_repr(const char *s, size_t len, struct strbuf *out);
/* Deep equality (DICT compares pairs in order). */
bool pyv_equal(const struct pyv *a, const struct pyv *b);
const char *pyv_kind_name(enum pyv_kind k);
/* Deep copy into arena a. */
struct pyv *pyv_clone(struct arena *a, const struct pyv *v);

#endif
