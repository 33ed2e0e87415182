/* pylit.c: parser and printer for the Python-literal subset of FlashInfer tuning modules
 * (flashinfer-formats.md §1.2, §1.3). Handles comments, implicit line joining, string
 * prefixes and escapes, triple quotes, adjacent-literal concatenation and trailing commas. */
#include "flashinfer/pylit.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/unicode_np.h"
#include "flashinfer/pyenc.h"

#define MAX_DEPTH 200
#define MAX_ITEMS (1u << 24)

struct parser {
	const char *p, *end, *start;
	int line, col;
	int depth;        /* bracket depth: newlines are insignificant inside */
	struct arena *a;
	const char *file;
	struct diags *d;
	int failed;
	int zero_copy;      /* plain strings may point into the source text (modules) */
	int escaped;        /* the last string literal had escapes or line breaks */
	/* logical lines (modules): skip_space keeps these */
	int nl_line, nl_col;  /* the first significant newline its last call crossed */
	int line_start;       /* a significant newline was crossed: the next statement starts a line */
	int bol;              /* still in that line's leading whitespace */
	int indent;           /* its indentation: spaces and tabs after the last form feed */
	int cont_eof_line, cont_eof_col; /* a '\\' continuation ran into the end of the text */
	struct strbuf tmp; /* string decoding */
	/* child stacks for containers, reused */
	struct pyv *stack;
	size_t sp, scap;
};

static void perr(struct parser *ps, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void perr(struct parser *ps, int line, int col, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	diags_vadd(ps->d, SEV_ERROR, "syntax", ps->file, line, col, "syntax error: ", fmt, ap);
	va_end(ap);
}

static void advance(struct parser *ps)
{
	unsigned char c = (unsigned char)*ps->p++;
	if (c == '\n') {
		ps->line++;
		ps->col = 1;
	} else if ((c & 0xC0) != 0x80) {
		ps->col++;
	}
}

/* Skips spaces, comments, backslash continuations and (inside brackets) newlines, keeping
 * the indentation of a line as Python's tokenizer counts it (a form feed restarts the count;
 * the whitespace after a continuation at the start of a line counts too). Returns 1 if a significant newline (depth 0)
 * was crossed; ps->nl_line/nl_col is then where the first one was. */
static int skip_space(struct parser *ps)
{
	int newline = 0, comment_line = 0, comment_col = 0;
	while (ps->p < ps->end) {
		char c = *ps->p;
		if (c == ' ' || c == '\t') {
			ps->indent += ps->bol;
			advance(ps);
		} else if (c == '\f') {
			ps->indent = 0;
			advance(ps);
		} else if (c == '\r' && ps->p + 1 < ps->end && ps->p[1] == '\n') {
			advance(ps); /* a lone CR, a line break to Python, stops here: not read */
		} else if (c == '#') {
			comment_line = ps->line;
			comment_col = ps->col;
			while (ps->p < ps->end && *ps->p != '\n' &&
			       !(*ps->p == '\r' && (ps->p + 1 >= ps->end || ps->p[1] != '\n')))
				advance(ps);
		} else if (c == '\\' && ps->p + 1 < ps->end &&
			   (ps->p[1] == '\n' || (ps->p[1] == '\r' && ps->p + 2 < ps->end && ps->p[2] == '\n'))) {
			int line = ps->line, col = ps->col + 1;
			advance(ps);
			while (*ps->p != '\n')
				advance(ps);
			advance(ps);
			if (ps->p >= ps->end && !ps->cont_eof_line) {
				ps->cont_eof_line = line;
				ps->cont_eof_col = col;
			}
		} else if (c == '\n') {
			if (ps->depth == 0) {
				if (!newline) {
					/* Python's NEWLINE token starts at a comment before it */
					ps->nl_line = ps->line;
					ps->nl_col = comment_line == ps->line ? comment_col : ps->col;
				}
				newline = 1;
				ps->line_start = ps->bol = 1;
				ps->indent = 0;
			}
			advance(ps);
		} else {
			break;
		}
	}
	return newline;
}

static void push(struct parser *ps, const struct pyv *v)
{
	ALLOC_GROW(ps->stack, ps->sp + 1, ps->scap);
	ps->stack[ps->sp++] = *v;
}

static void utf8_put(struct strbuf *sb, unsigned cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	sb_add(sb, b, n);
}

/* One string literal (prefix already consumed) appended to ps->tmp. */
static void parse_string_literal(struct parser *ps, int raw)
{
	int line = ps->line, col = ps->col;
	ps->escaped = 0;
	char q = *ps->p;
	int triple = ps->p + 2 < ps->end && ps->p[1] == q && ps->p[2] == q;
	advance(ps);
	if (triple) {
		advance(ps);
		advance(ps);
	}
	for (;;) {
		if (ps->p >= ps->end) {
			perr(ps, line, col, "unterminated %sstring", triple ? "triple-quoted " : "");
			return;
		}
		/* a run of ordinary characters goes in one copy */
		const char *run = ps->p;
		/* 8 plain ASCII bytes at a time (no quote, backslash, line break or high bit) */
		{
			const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
			const uint64_t mq = ones * (unsigned char)q, mb = ones * '\\', mn = ones * '\n';
			const uint64_t mr = ones * '\r';
			while (ps->end - ps->p >= 8) {
				uint64_t w, x, y, z, r;
				memcpy(&w, ps->p, 8);
				x = w ^ mq;
				y = w ^ mb;
				z = w ^ mn;
				r = w ^ mr;
				uint64_t hit = ((x - ones) & ~x) | ((y - ones) & ~y) | ((z - ones) & ~z) |
					       ((r - ones) & ~r) | w;
				if (hit & highs)
					break;
				ps->p += 8;
				ps->col += 8;
			}
		}
		while (ps->p < ps->end && *ps->p != q && *ps->p != '\\' && *ps->p != '\n' &&
		       *ps->p != '\r') {
			if (((unsigned char)*ps->p & 0xC0) != 0x80)
				ps->col++;
			ps->p++;
		}
		if (ps->p > run)
			sb_add(&ps->tmp, run, (size_t)(ps->p - run));
		if (ps->p >= ps->end)
			continue;
		char c = *ps->p;
		if (c == q) {
			if (!triple) {
				advance(ps);
				return;
			}
			if (ps->p + 2 < ps->end && ps->p[1] == q && ps->p[2] == q) {
				advance(ps);
				advance(ps);
				advance(ps);
				return;
			}
		}
		if ((c == '\n' || c == '\r') && !triple) { /* Python reads a lone CR as a line break */
			perr(ps, line, col, "unterminated string");
			return;
		}
		ps->escaped = 1;
		if (c != '\\') {
			sb_addc(&ps->tmp, c);
			advance(ps);
			continue;
		}
		int el = ps->line, ec = ps->col;
		if (ps->p + 1 >= ps->end) {
			perr(ps, line, col, "unterminated string");
			return;
		}
		char e = ps->p[1];
		if (raw) {
			/* raw: the backslash stays; an escaped quote does not end the string */
			sb_addc(&ps->tmp, '\\');
			advance(ps);
			if (e == q || e == '\\') {
				sb_addc(&ps->tmp, e);
				advance(ps);
			}
			continue;
		}
		advance(ps);
		advance(ps);
		switch (e) {
		case '\n': break;
		case '\\': sb_addc(&ps->tmp, '\\'); break;
		case '\'': sb_addc(&ps->tmp, '\''); break;
		case '"': sb_addc(&ps->tmp, '"'); break;
		case 'a': sb_addc(&ps->tmp, '\a'); break;
		case 'b': sb_addc(&ps->tmp, '\b'); break;
		case 'f': sb_addc(&ps->tmp, '\f'); break;
		case 'n': sb_addc(&ps->tmp, '\n'); break;
		case 'r': sb_addc(&ps->tmp, '\r'); break;
		case 't': sb_addc(&ps->tmp, '\t'); break;
		case 'v': sb_addc(&ps->tmp, '\v'); break;
		case 'x': case 'u': case 'U': {
			int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
			unsigned cp = 0;
			for (int i = 0; i < digits; i++) {
				int h = ps->p < ps->end ? hex_digit(*ps->p) : -1;
				if (h < 0) {
					perr(ps, el, ec, "truncated \\%c escape", e);
					return;
				}
				cp = cp * 16 + (unsigned)h;
				advance(ps);
			}
			if (cp > 0x10FFFF) {
				perr(ps, el, ec, "escape \\%c out of range", e);
				return;
			}
			if (cp >= 0xD800 && cp <= 0xDFFF) {
				perr(ps, el, ec, "lone surrogate \\%c%04X is not supported", e, cp);
				return;
			}
			utf8_put(&ps->tmp, cp);
			break;
		}
		case 'N':
			perr(ps, el, ec, "\\N{...} escapes are not supported");
			return;
		default:
			if (e >= '0' && e <= '7') {
				unsigned cp = (unsigned)(e - '0');
				for (int i = 0; i < 2 && ps->p < ps->end && *ps->p >= '0' && *ps->p <= '7'; i++) {
					cp = cp * 8 + (unsigned)(*ps->p - '0');
					advance(ps);
				}
				utf8_put(&ps->tmp, cp);
			} else {
				/* unknown escapes keep the backslash (Python warns, but accepts) */
				sb_addc(&ps->tmp, '\\');
				ps->p--;
				ps->col--;
			}
		}
	}
}

static int is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Python 3's keywords (keyword.kwlist): never a name, so never assigned to or read as one. */
static bool is_keyword(const char *s, size_t n)
{
	static const char *const kw[] = {
		"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
		"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
		"if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
		"return", "try", "while", "with", "yield",
	};
	if (n < 2 || n > 8)
		return false;
	for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
		if (kw[i][0] == s[0] && strlen(kw[i]) == n && !memcmp(kw[i], s, n))
			return true;
	return false;
}

/* True, False, None: keywords that are values */
static bool is_constant(const char *s, size_t n)
{
	return (n == 4 && (!memcmp(s, "True", 4) || !memcmp(s, "None", 4))) ||
	       (n == 5 && !memcmp(s, "False", 5));
}

/* Whether the text at p starts a string literal, and its prefix: r, u, b or f alone, or r
 * with b or f, in any case and order (Python 3; ur'' is Python 2 only). Returns 1 for a str
 * literal (*raw, *plen set), -1 for bytes and f-strings (not literals of this subset), -2 for
 * prefix letters no Python 3 string takes (*plen set), 0 when p starts no string. */
static int string_start(const char *p, const char *end, int *raw, int *plen)
{
	*raw = 0;
	*plen = 0;
	if (*p == '\'' || *p == '"')
		return 1;
	const char *q = p;
	while (q < end && q - p < 2 && *q && strchr("rRuUbBfF", *q))
		q++;
	if (q == p || q >= end || (*q != '\'' && *q != '"'))
		return 0;
	*plen = (int)(q - p);
	int r = 0, bf = 0;
	for (const char *x = p; x < q; x++) {
		r += (*x | 0x20) == 'r';
		bf += (*x | 0x20) == 'b' || (*x | 0x20) == 'f';
	}
	if (*plen == 2 && !(r == 1 && bf == 1))
		return -2;
	if (bf)
		return -1;
	*raw = r;
	return 1;
}

/* The error for a string_start() result below 0, at the prefix p (column col). */
static void prefix_error(struct parser *ps, int s, const char *p, int plen, int line, int col)
{
	if (s == -2)
		/* Python points at the quote: the letters before it read as a name */
		perr(ps, line, col + plen, "'%.*s' is not a string prefix Python 3 reads", plen, p);
	else
		perr(ps, line, col, "bytes and f-strings are not literals tunetab reads");
}

static void parse_expr(struct parser *ps, struct pyv *out);

static void parse_container(struct parser *ps, struct pyv *out, char open)
{
	char close = open == '(' ? ')' : open == '[' ? ']' : '}';
	int line = ps->line, col = ps->col;
	advance(ps);
	if (++ps->depth > MAX_DEPTH) {
		perr(ps, line, col, "nesting deeper than %d", MAX_DEPTH);
		return;
	}
	size_t base = ps->sp;
	int count = 0, comma = 0;
	for (;;) {
		skip_space(ps);
		if (ps->p >= ps->end) {
			perr(ps, line, col, "'%c' was never closed", open);
			return;
		}
		if (*ps->p == close)
			break;
		if (count && !comma) {
			perr(ps, ps->line, ps->col, "expected ',' or '%c'", close);
			return;
		}
		struct pyv v;
		parse_expr(ps, &v);
		if (ps->failed)
			return;
		push(ps, &v);
		if (open == '{') {
			skip_space(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				perr(ps, ps->line, ps->col, "expected ':' after dictionary key");
				return;
			}
			advance(ps);
			skip_space(ps);
			parse_expr(ps, &v);
			if (ps->failed)
				return;
			push(ps, &v);
		}
		count++;
		if (ps->sp - base > MAX_ITEMS) {
			perr(ps, line, col, "more than %u items in one container", MAX_ITEMS);
			return;
		}
		skip_space(ps);
		comma = ps->p < ps->end && *ps->p == ',';
		if (comma)
			advance(ps);
	}
	advance(ps); /* close */
	ps->depth--;
	if (open == '(' && count == 1 && !comma) {
		/* (x) is x, not a tuple */
		*out = ps->stack[--ps->sp];
		return;
	}
	memset(out, 0, sizeof *out);
	out->kind = open == '(' ? PV_TUPLE : open == '[' ? PV_LIST : PV_DICT;
	out->line = line;
	out->col = col;
	size_t n = ps->sp - base;
	out->n = open == '{' ? n / 2 : n;
	if (n) {
		out->items = arena_alloc(ps->a, n * sizeof *out->items);
		memcpy(out->items, ps->stack + base, n * sizeof *out->items);
	}
	ps->sp = base;
}

/* An integer literal at ps->p (a digit): decimal, 0x/0o/0b, '_' between digits; a float or
 * complex number is refused with its own message. */
static void parse_number(struct parser *ps, struct pyv *out)
{
	char c = *ps->p;
	char buf[64];
	size_t n = 0;
	int base = 10;
	const char *tok = ps->p;
	if (c == '0' && ps->p + 1 < ps->end && strchr("xXoObB", ps->p[1])) {
		char b = (char)(ps->p[1] | 0x20);
		base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
		advance(ps);
		advance(ps);
	}
	int us_col = 0; /* the first '_' not followed by a digit: Python's error is there */
	while (ps->p < ps->end && (is_ident(*ps->p))) {
		if (*ps->p != '_') {
			if (n + 1 >= sizeof buf) {
				perr(ps, out->line, out->col, "integer literal too long");
				return;
			}
			buf[n++] = *ps->p;
		} else if (!us_col) {
			char next = ps->p + 1 < ps->end ? ps->p[1] : '\0';
			if (base == 16 ? hex_digit(next) < 0 : next < '0' || next > '9')
				us_col = ps->col;
		}
		advance(ps);
	}
	buf[n] = '\0';
	if (us_col) {
		perr(ps, out->line, us_col, "invalid integer literal '%.*s': '_' goes only between "
		     "digits", (int)(ps->p - tok), tok);
		return;
	}
	/* digits then '.', an exponent or 'j': a float or an imaginary number */
	size_t k = base == 10 ? strspn(buf, "0123456789") : n;
	if ((ps->p < ps->end && *ps->p == '.') || buf[k] == 'e' || buf[k] == 'E') {
		perr(ps, out->line, out->col, "floats are not literals tunetab reads");
		return;
	}
	if ((buf[k] == 'j' || buf[k] == 'J') && k + 1 == n) {
		perr(ps, out->line, out->col, "complex numbers are not literals tunetab reads");
		return;
	}
	char *endp = buf;
	long long v = 0;
	errno = 0;
	if (base == 10 && n && n < 19) {
		/* fast path: short decimal */
		for (size_t i = 0; i < n && *endp >= '0' && *endp <= '9'; i++, endp++)
			v = v * 10 + (*endp - '0');
	} else {
		v = strtoll(buf, &endp, base);
	}
	if (errno || *endp || !n || (base == 10 && buf[0] == '0' && n > 1 && strspn(buf, "0") != n)) {
		perr(ps, out->line, out->col, "invalid integer literal '%s'", buf);
		return;
	}
	out->kind = PV_INT;
	out->i = v;
}

void pylit_name(const char *s, size_t n, struct arena *a, struct pyv *out)
{
	if (n == 4 && !memcmp(s, "True", 4))
		out->kind = PV_TRUE;
	else if (n == 5 && !memcmp(s, "False", 5))
		out->kind = PV_FALSE;
	else if (n == 4 && !memcmp(s, "None", 4))
		out->kind = PV_NONE;
	else {
		out->kind = PV_NAME;
		out->s = arena_strndup(a, s, n);
		out->len = n;
	}
}

/* A name at ps->p: True, False, None, or a dotted name none of whose parts is a keyword. */
static void parse_name(struct parser *ps, struct pyv *out)
{
	const char *st = ps->p;
	/* a dotted name, part by part: no part is a keyword (True.real is, the first) */
	for (;;) {
		const char *part = ps->p;
		int col = ps->col;
		while (ps->p < ps->end && is_ident(*ps->p))
			advance(ps);
		size_t pn = (size_t)(ps->p - part);
		if (is_keyword(part, pn) && !(part == st && is_constant(part, pn))) {
			perr(ps, ps->line, col, "'%.*s' is a Python keyword, not a name", (int)pn, part);
			return;
		}
		if (!(ps->p + 1 < ps->end && *ps->p == '.' && is_ident_start(ps->p[1])))
			break;
		advance(ps);
	}
	pylit_name(st, (size_t)(ps->p - st), ps->a, out);
}

static void parse_expr(struct parser *ps, struct pyv *out)
{
	memset(out, 0, sizeof *out);
	if (skip_space(ps)) {
		/* x =<newline>1: the line, and so the statement, ends before its value */
		perr(ps, ps->nl_line, ps->nl_col, "expected a value before the end of the line");
		return;
	}
	out->line = ps->line;
	out->col = ps->col;
	if (ps->p >= ps->end) {
		perr(ps, ps->line, ps->col, "unexpected end of input");
		return;
	}
	char c = *ps->p;
	int raw, plen, s = string_start(ps->p, ps->end, &raw, &plen);
	if (s < 0) {
		prefix_error(ps, s, ps->p, plen, ps->line, ps->col);
		return;
	}
	if (s > 0) {
		sb_reset(&ps->tmp);
		const char *lit = ps->p + plen + 1; /* first character inside the quotes */
		int pieces = 0;
		/* adjacent literals concatenate: 'a' "b" == 'ab' */
		for (;;) {
			pieces++;
			for (int i = 0; i < plen; i++)
				advance(ps);
			parse_string_literal(ps, raw);
			if (ps->failed)
				return;
			const char *save_p = ps->p;
			int sl = ps->line, sc = ps->col;
			int crossed = skip_space(ps);
			s = ps->p < ps->end && !crossed ? string_start(ps->p, ps->end, &raw, &plen) : 0;
			if (s < 0) {
				prefix_error(ps, s, ps->p, plen, ps->line, ps->col);
				return;
			}
			if (s == 0) {
				if (ps->depth == 0) {
					/* do not swallow the statement's newline */
					ps->p = save_p;
					ps->line = sl;
					ps->col = sc;
				}
				break;
			}
		}
		out->kind = PV_STR;
		out->len = ps->tmp.len;
		if (ps->zero_copy && pieces == 1 && !ps->escaped && !raw &&
		    lit[-1] != lit[0])
			out->s = lit; /* the text between the quotes, as is (not NUL-terminated) */
		else
			out->s = arena_strndup(ps->a, ps->tmp.buf ? ps->tmp.buf : "", ps->tmp.len);
		return;
	}
	if (c == '(' || c == '[' || c == '{') {
		parse_container(ps, out, c);
		return;
	}
	if (c == '-' || c == '+') {
		int line = ps->line, col = ps->col;
		advance(ps);
		parse_expr(ps, out);
		if (ps->failed)
			return;
		if (out->kind != PV_INT) {
			perr(ps, line, col, "unary '%c' applies only to integers here", c);
			return;
		}
		if (c == '-')
			out->i = -out->i;
		out->line = line;
		out->col = col;
		return;
	}
	if (c >= '0' && c <= '9') {
		parse_number(ps, out);
		return;
	}
	if (is_ident_start(c)) {
		parse_name(ps, out);
		return;
	}
	if ((unsigned char)c >= 0x80)
		perr(ps, ps->line, ps->col, "unexpected non-ASCII character");
	else if (c < 0x20 || c == 0x7f)
		perr(ps, ps->line, ps->col, "unexpected control character 0x%02x", (unsigned char)c);
	else
		perr(ps, ps->line, ps->col, "unexpected '%c'", c);
}

size_t pylit_bad_utf8(const char *s, size_t len)
{
	const unsigned char *b = (const unsigned char *)s, *p = b, *e = b + len;
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	while (p < e) {
		/* 8 ASCII bytes without a NUL at a time: tables are mostly ASCII */
		uint64_t w;
		while (e - p >= 8 && (memcpy(&w, p, 8), !((w | ((w - ones) & ~w)) & highs)))
			p += 8;
		if (p >= e)
			break;
		unsigned c = *p;
		if (c < 0x80) {
			if (!c)
				break;
			p++;
			continue;
		}
		/* the second byte's range depends on the first (Unicode 15, table 3-7): no overlong
		 * forms, no surrogates (U+D800-DFFF), nothing above U+10FFFF */
		unsigned lo = 0x80, hi = 0xBF;
		int n;
		if (c >= 0xC2 && c <= 0xDF) {
			n = 1;
		} else if (c >= 0xE0 && c <= 0xEF) {
			n = 2;
			lo = c == 0xE0 ? 0xA0 : lo;
			hi = c == 0xED ? 0x9F : hi;
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 3;
			lo = c == 0xF0 ? 0x90 : lo;
			hi = c == 0xF4 ? 0x8F : hi;
		} else {
			break;
		}
		if (e - p <= n || p[1] < lo || p[1] > hi)
			break;
		int i = 2;
		while (i <= n && (p[i] & 0xC0) == 0x80)
			i++;
		if (i <= n)
			break;
		p += n + 1;
	}
	return (size_t)(p - b);
}

/* The container stack and string buffer are kept between parses: a large table parses
 * one key at a time, and reallocating them per key dominated the profile. */
static struct pyv *cached_stack;
static size_t cached_scap;
static struct strbuf cached_tmp;

static void init_parser(struct parser *ps, const char *text, size_t len, struct arena *a,
			const char *file, int line, int col, struct diags *d)
{
	memset(ps, 0, sizeof *ps);
	ps->p = ps->start = text;
	ps->end = text + len;
	ps->line = line;
	ps->col = col;
	ps->a = a;
	ps->file = file;
	ps->d = d;
	ps->tmp = cached_tmp;
	sb_init(&cached_tmp);
	sb_reset(&ps->tmp);
	ps->stack = cached_stack;
	ps->scap = cached_scap;
	cached_stack = NULL;
	cached_scap = 0;
}

static void free_parser(struct parser *ps)
{
	if (ps->scap > cached_scap) {
		free(cached_stack);
		cached_stack = ps->stack;
		cached_scap = ps->scap;
	} else {
		free(ps->stack);
	}
	if (ps->tmp.alloc > cached_tmp.alloc) {
		sb_release(&cached_tmp);
		cached_tmp = ps->tmp;
	} else {
		sb_release(&ps->tmp);
	}
}

/* A located error for the first NUL or invalid UTF-8 byte of the text, counted from where
 * the parser starts (after a BOM, which is no character of line 1). */
static int utf8_guard(struct parser *ps, const char *text, size_t len)
{
	size_t bad = pylit_bad_utf8(text, len);
	if (bad == len)
		return 0;
	int line = ps->line, col = ps->col;
	for (const char *q = ps->p; q < text + bad; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)*q & 0xC0) != 0x80) {
			col++;
		}
	}
	if (text[bad])
		perr(ps, line, col, "invalid UTF-8 byte 0x%02x", (unsigned char)text[bad]);
	else
		perr(ps, line, col, "NUL byte in input");
	return -1;
}

/* A located error, at the declared name, for a module whose text Python does not read as the
 * UTF-8 this parser reads (pyenc.h): another codec, a BOM that contradicts the declaration,
 * or an ASCII declaration over a byte >= 0x80. */
static int encoding_guard(struct parser *ps, const char *text, size_t len)
{
	struct pyenc e;
	pyenc_detect(text, len, &e);
	/* a name is [A-Za-z0-9_.-]+, any length: at most 40 characters of it are quoted */
	int n = e.name_len > 40 ? 40 : (int)e.name_len;
	const char *more = e.name_len > 40 ? "..." : "";
	if (e.kind == PYENC_OTHER) {
		perr(ps, e.line, e.col, "declared encoding '%.*s%s' is neither UTF-8 nor ASCII: Python "
		     "decodes the module with that codec, or refuses a name it does not know (PEP "
		     "263), so its text is not the UTF-8 tunetab reads", n, e.name, more);
		return -1;
	}
	if (e.kind == PYENC_BOM_CONFLICT) {
		perr(ps, e.line, e.col, "declared encoding '%.*s%s' after a UTF-8 BOM: Python refuses "
		     "the module (PEP 263: a BOM allows only utf-8)", n, e.name, more);
		return -1;
	}
	if (e.kind != PYENC_ASCII)
		return 0;
	int line = 1, col = 1;
	for (const char *q = text; q < text + len; q++) {
		if ((unsigned char)*q >= 0x80) {
			perr(ps, e.line, e.col, "declared encoding '%.*s%s' is ASCII, but line %d, column "
			     "%d holds the byte 0x%02x: Python refuses to decode the module", n, e.name,
			     more, line, col, (unsigned char)*q);
			return -1;
		}
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	return 0;
}

int pylit_parse_module(const char *text, size_t len, const char *file, struct py_module *m,
		       struct diags *d)
{
	memset(m, 0, sizeof *m);
	struct parser ps;
	init_parser(&ps, text, len, &m->arena, file, 1, 1, d);
	ps.zero_copy = 1;
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		ps.p += 3; /* UTF-8 BOM */
	ps.line_start = ps.bol = 1;
	size_t alloc = 0;
	if (encoding_guard(&ps, text, len) || utf8_guard(&ps, text, len))
		goto fail;
	for (;;) {
		skip_space(&ps);
		if (ps.p >= ps.end) {
			if (ps.cont_eof_line) {
				perr(&ps, ps.cont_eof_line, ps.cont_eof_col, "unexpected end of file after a "
				     "line continuation");
				goto fail;
			}
			break;
		}
		int line = ps.line, col = ps.col;
		if (ps.line_start && ps.indent) {
			/* Python points at the last character of the indentation */
			perr(&ps, line, col > 1 ? col - 1 : 1, "unexpected indent");
			goto fail;
		}
		ps.line_start = ps.bol = 0;
		struct pyv v;
		if (is_ident_start(*ps.p) && string_start(ps.p, ps.end, &(int){ 0 }, &(int){ 0 }) == 0) {
			const char *st = ps.p;
			while (ps.p < ps.end && is_ident(*ps.p))
				advance(&ps);
			size_t n = (size_t)(ps.p - st);
			const char *name = arena_strndup(&m->arena, st, n);
			int end_line = ps.line, end_col = ps.col;
			int nl = skip_space(&ps);
			bool eq = ps.p < ps.end && *ps.p == '=' && !(ps.p + 1 < ps.end && ps.p[1] == '=');
			if (nl && eq) {
				/* x<newline>= 1: two statements, the second starting with '=' */
				perr(&ps, ps.line, ps.col, "unexpected '=' at the start of a line");
				goto fail;
			}
			if (nl || !eq) {
				perr(&ps, nl ? end_line : ps.line, nl ? end_col : ps.col, "expected '=' after "
				     "'%s' (tunetab reads only literal assignments)", name);
				goto fail;
			}
			if (is_keyword(st, n)) {
				if (is_constant(st, n))
					perr(&ps, line, col, "cannot assign to %s", name);
				else
					perr(&ps, line, col, "'%s' is a Python keyword, not a name", name);
				goto fail;
			}
			advance(&ps);
			parse_expr(&ps, &v);
			if (ps.failed)
				goto fail;
			if (m->n == alloc) {
				alloc = alloc ? 2 * alloc : 4;
				struct py_assign *na = arena_alloc(&m->arena, alloc * sizeof *na);
				if (m->n)
					memcpy(na, m->assigns, m->n * sizeof *na);
				m->assigns = na;
			}
			struct pyv *val = arena_alloc(&m->arena, sizeof *val);
			*val = v;
			m->assigns[m->n++] = (struct py_assign){ name, line, col, val };
		} else {
			/* a bare expression statement, e.g. a docstring */
			parse_expr(&ps, &v);
			if (ps.failed)
				goto fail;
			if (v.kind != PV_STR) {
				perr(&ps, line, col, "expected an assignment (tunetab reads only literal "
				     "assignments and docstrings)");
				goto fail;
			}
		}
		/* end of statement: a newline (not one a '\\' continues), ';' or the end of the file */
		if (skip_space(&ps) || ps.p >= ps.end)
			continue;
		if (*ps.p == ';') {
			advance(&ps);
			continue;
		}
		if (*ps.p == '\\' && ps.p + 1 >= ps.end)
			perr(&ps, ps.line, ps.col + 1, "unexpected end of file after a line continuation");
		else if (*ps.p == '\\')
			perr(&ps, ps.line, ps.col + 1, "unexpected character after line continuation "
			     "character");
		else if (*ps.p == '\r')
			perr(&ps, ps.line, ps.col, "a carriage return without a line feed (Python reads "
			     "it as a line break; tunetab reads only LF and CRLF)");
		else
			perr(&ps, ps.line, ps.col, "expected end of statement");
		goto fail;
	}
	free_parser(&ps);
	return TT_OK;
fail:
	free_parser(&ps);
	return TT_INVALID;
}

void py_module_release(struct py_module *m)
{
	arena_release(&m->arena);
	m->assigns = NULL;
	m->n = 0;
}

struct pyv *pylit_parse_expr(const char *text, size_t len, struct arena *a, const char *file,
			     int line, int col, struct diags *d)
{
	struct parser ps;
	init_parser(&ps, text, len, a, file, line, col, d);
	ps.depth = 1; /* newlines are not statements here */
	struct pyv *v = NULL;
	{
		v = arena_alloc(a, sizeof *v);
		parse_expr(&ps, v);
		skip_space(&ps);
		if (!ps.failed && ps.p < ps.end)
			perr(&ps, ps.line, ps.col, "unexpected text after the value");
	}
	int failed = ps.failed;
	free_parser(&ps);
	return failed ? NULL : v;
}

/* --- printing ------------------------------------------------------------- */

static int nonprintable(unsigned cp)
{
	size_t lo = 0, hi = sizeof unicode_np_ranges / sizeof unicode_np_ranges[0];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cp < unicode_np_ranges[mid][0])
			hi = mid;
		else if (cp > unicode_np_ranges[mid][1])
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

static unsigned utf8_next(const unsigned char **pp, const unsigned char *end)
{
	const unsigned char *p = *pp;
	unsigned cp = *p++;
	int n = cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : cp >= 0xC0 ? 1 : 0;
	if (n)
		cp &= 0x3F >> n;
	while (n-- && p < end)
		cp = (cp << 6) | (*p++ & 0x3F);
	*pp = p;
	return cp;
}

void py_str_repr(const char *s, size_t len, struct strbuf *out)
{
	/* Python picks ' unless the text has ' and no " (unicode_repr in CPython). */
	int sq = memchr(s, '\'', len) != NULL, dq = memchr(s, '"', len) != NULL;
	char q = sq && !dq ? '"' : '\'';
	sb_addc(out, q);
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		/* runs of plain printable ASCII go in one copy */
		const unsigned char *run = p;
		while (p < end && *p >= 0x20 && *p < 0x7F && *p != '\\' && *p != (unsigned char)q)
			p++;
		if (p > run)
			sb_add(out, run, (size_t)(p - run));
		if (p >= end)
			break;
		const unsigned char *st = p;
		unsigned cp = utf8_next(&p, end);
		if (cp == (unsigned char)q || cp == '\\') {
			sb_addc(out, '\\');
			sb_addc(out, (char)cp);
		} else if (cp == '\t') {
			sb_adds(out, "\\t");
		} else if (cp == '\n') {
			sb_adds(out, "\\n");
		} else if (cp == '\r') {
			sb_adds(out, "\\r");
		} else if (cp < 0x20 || cp == 0x7F) {
			sb_addf(out, "\\x%02x", cp);
		} else if (cp < 0x7F) {
			sb_addc(out, (char)cp);
		} else if (nonprintable(cp)) {
			if (cp <= 0xFF)
				sb_addf(out, "\\x%02x", cp);
			else if (cp <= 0xFFFF)
				sb_addf(out, "\\u%04x", cp);
			else
				sb_addf(out, "\\U%08x", cp);
		} else {
			sb_add(out, st, (size_t)(p - st));
		}
	}
	sb_addc(out, q);
}

void pyv_repr(const struct pyv *v, struct strbuf *out)
{
	switch (v->kind) {
	case PV_INT: sb_addll(out, v->i); break;
	case PV_STR: py_str_repr(v->s, v->len, out); break;
	case PV_TRUE: sb_adds(out, "True"); break;
	case PV_FALSE: sb_adds(out, "False"); break;
	case PV_NONE: sb_adds(out, "None"); break;
	case PV_NAME: sb_add(out, v->s, v->len); break;
	case PV_TUPLE:
	case PV_LIST:
		sb_addc(out, v->kind == PV_TUPLE ? '(' : '[');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				sb_adds(out, ", ");
			pyv_repr(&v->items[i], out);
		}
		if (v->kind == PV_TUPLE && v->n == 1)
			sb_addc(out, ',');
		sb_addc(out, v->kind == PV_TUPLE ? ')' : ']');
		break;
	case PV_DICT:
		sb_addc(out, '{');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				sb_adds(out, ", ");
			pyv_repr(&v->items[2 * i], out);
			sb_adds(out, ": ");
			pyv_repr(&v->items[2 * i + 1], out);
		}
		sb_addc(out, '}');
		break;
	}
}

bool pyv_equal(const struct pyv *a, const struct pyv *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case PV_INT: return a->i == b->i;
	case PV_STR:
	case PV_NAME: return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
	case PV_TUPLE:
	case PV_LIST:
	case PV_DICT: {
		size_t n = a->kind == PV_DICT ? 2 * a->n : a->n;
		if (a->n != b->n)
			return false;
		for (size_t i = 0; i < n; i++)
			if (!pyv_equal(&a->items[i], &b->items[i]))
				return false;
		return true;
	}
	default: return true;
	}
}

const char *pyv_kind_name(enum pyv_kind k)
{
	static const char *const names[] = { "int", "str", "bool", "bool", "None", "tuple",
					     "list", "dict", "name" };
	return names[k];
}

struct pyv *pyv_clone(struct arena *a, const struct pyv *v)
{
	struct pyv *c = arena_alloc(a, sizeof *c);
	*c = *v;
	if (v->s)
		c->s = arena_strndup(a, v->s, v->len);
	size_t n = v->kind == PV_DICT ? 2 * v->n : v->n;
	if (v->items && n) {
		c->items = arena_alloc(a, n * sizeof *c->items);
		for (size_t i = 0; i < n; i++) {
			struct pyv *x = pyv_clone(a, &v->items[i]);
			c->items[i] = *x;
		}
	}
	return c;
}

void pylit_release_cache(void)
{
	free(cached_stack);
	cached_stack = NULL;
	cached_scap = 0;
	sb_release(&cached_tmp);
}
