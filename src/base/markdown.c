/* markdown.c: the reference pages' Markdown subset as roff and as plain text (markdown.h).
 * Line by line: a line is a heading, a fence, a table row, a list item, a blank or part of
 * a paragraph, as the reference pages write them. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "base/markdown.h"

#define OPTIONS_BEGIN "<!-- options: "
#define OPTIONS_END "<!-- end options -->"

/* One line of the page at a time: [*p, end of line); *p moves past it. */
static bool next_line(const char **p, const char **line, size_t *len)
{
	if (!**p)
		return false;
	*line = *p;
	*len = strcspn(*p, "\n");
	*p += *len + ((*p)[*len] == '\n');
	return true;
}

static bool starts(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && !memcmp(line, prefix, n);
}

static bool blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)line[i]))
			return false;
	return true;
}

static size_t indent_of(const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && line[i] == ' ')
		i++;
	return i;
}

/* Moves past what neither renderer shows: the title on the first line, an option table
 * block, an HTML comment line. True when the line is one of them. */
static bool hidden_line(const char **p, const char *line, size_t len, bool first)
{
	if (first && starts(line, len, "# "))
		return true;
	if (starts(line, len, OPTIONS_BEGIN)) {
		const char *l;
		size_t n;
		while (next_line(p, &l, &n))
			if (starts(l, n, OPTIONS_END))
				break;
		return true;
	}
	return starts(line, len, "<!--");
}

static size_t heading_level(const char *line, size_t len)
{
	size_t n = 0;
	while (n < len && n < 5 && line[n] == '#')
		n++;
	return n >= 1 && n <= 4 && n < len && line[n] == ' ' ? n : 0;
}

/* "- x", "* x" or "12. x": the length of the marker and its space, else 0. */
static size_t list_marker(const char *line, size_t len, bool *numbered)
{
	if (len >= 2 && (line[0] == '-' || line[0] == '*') && line[1] == ' ') {
		*numbered = false;
		return 2;
	}
	size_t i = 0;
	while (i < len && isdigit((unsigned char)line[i]))
		i++;
	if (i && i + 1 < len && line[i] == '.' && line[i + 1] == ' ') {
		*numbered = true;
		return i + 2;
	}
	return 0;
}

/* ---------------------------------------------------------------- roff */

/* One character as roff; *bol: at the start of an output line. UTF-8 sequences as
 * \[uXXXX] (no preprocessor needed); returns the bytes it consumed. */
static size_t roff_char(const char *s, size_t avail, bool *bol, struct strbuf *out)
{
	unsigned char b = (unsigned char)*s;
	if (*bol && (b == '.' || b == '\''))
		sb_adds(out, "\\&");
	*bol = b == '\n';
	if (b == '-') {
		sb_adds(out, "\\-");
	} else if (b == '\\') {
		sb_adds(out, "\\e");
	} else if (b >= 0xC0) {
		size_t more = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : 1, used = 1;
		unsigned cp = b & (0x3Fu >> more);
		for (; more && used < avail && ((unsigned char)s[used] & 0xC0) == 0x80; more--)
			cp = cp << 6 | ((unsigned char)s[used++] & 0x3F);
		sb_addf(out, "\\[u%04X]", cp);
		return used;
	} else {
		sb_addc(out, (char)b);
	}
	return 1;
}

struct fonts {
	bool code, bold, italic;
	bool marks; /* false: only `code` is a mark (the command table's strings) */
};

static void font(const struct fonts *f, struct strbuf *out)
{
	bool b = f->code || f->bold;
	sb_adds(out, b && f->italic ? "\\f(BI" : b ? "\\fB" : f->italic ? "\\fI" : "\\fR");
}

/* s[0, len) with its inline marks; *bol as in roff_char. */
static void roff_span(const char *s, size_t len, bool *bol, struct fonts *f, struct strbuf *out)
{
	for (size_t i = 0; i < len;) {
		char c = s[i];
		if (c == '`') {
			f->code = !f->code;
			font(f, out);
			i++;
			continue;
		}
		if (f->code || !f->marks) {
			i += roff_char(s + i, len - i, bol, out);
			continue;
		}
		if (c == '\\' && i + 1 < len && ispunct((unsigned char)s[i + 1])) {
			i += 1 + roff_char(s + i + 1, len - i - 1, bol, out);
			continue;
		}
		if (c == '*' && i + 1 < len && s[i + 1] == '*') {
			f->bold = !f->bold;
			font(f, out);
			i += 2;
			continue;
		}
		if (c == '*' && (f->italic || (i + 1 < len && !isspace((unsigned char)s[i + 1])))) {
			f->italic = !f->italic;
			font(f, out);
			i++;
			continue;
		}
		if (c == '[') {
			/* [text](address): the text; the address too when it is absolute */
			const char *close = memchr(s + i, ']', len - i);
			if (close && (size_t)(close - s) + 1 < len && close[1] == '(') {
				const char *end = memchr(close, ')', len - (size_t)(close - s));
				if (end) {
					roff_span(s + i + 1, (size_t)(close - s - i - 1), bol, f, out);
					const char *addr = close + 2;
					size_t alen = (size_t)(end - addr);
					if (alen > 7 && (!strncmp(addr, "http://", 7) || !strncmp(addr, "https://", 8))) {
						sb_adds(out, " <");
						for (size_t k = 0; k < alen;)
							k += roff_char(addr + k, alen - k, bol, out);
						sb_adds(out, ">");
					}
					i = (size_t)(end - s) + 1;
					continue;
				}
			}
		}
		i += roff_char(s + i, len - i, bol, out);
	}
}

/* s[0, len) with its inline marks (marks: all of Markdown's, else only `code`), fonts reset
 * at its end; bol: it starts an output line. */
static void roff_text(const char *s, size_t len, bool bol, bool marks, struct strbuf *out)
{
	struct fonts f = { false, false, false, marks };
	roff_span(s, len, &bol, &f, out);
	if (f.code || f.bold || f.italic)
		sb_adds(out, "\\fR");
}

void md_roff_inline(const char *s, bool marks, struct strbuf *out)
{
	roff_text(s, strlen(s), true, marks, out);
}

/* Inline text (lines of one block) on lines of its own. */
static void roff_line(const char *s, size_t len, struct strbuf *out)
{
	roff_text(s, len, true, true, out);
	sb_addc(out, '\n');
}

/* A table row's cells, trimmed, "\|" kept as one cell's text; returns how many (≤ max). */
static size_t table_cells(const char *line, size_t len, const char **cell, size_t *clen, size_t max)
{
	size_t n = 0, i = 0;
	while (i < len && line[i] == ' ')
		i++;
	if (i < len && line[i] == '|')
		i++;
	while (i < len && n < max) {
		size_t start = i;
		bool code = false;
		while (i < len && (line[i] != '|' || code)) {
			if (line[i] == '\\' && i + 1 < len)
				i++;
			else if (line[i] == '`')
				code = !code;
			i++;
		}
		if (i >= len && blank(line + start, i - start))
			break;
		size_t a = start, b = i;
		while (a < b && line[a] == ' ')
			a++;
		while (b > a && line[b - 1] == ' ')
			b--;
		cell[n] = line + a;
		clen[n++] = b - a;
		i++;
	}
	return n;
}

static bool table_separator(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr("|-: ", line[i]))
			return false;
	return true;
}

/* A cell's text as roff: a "\|" as "|" (roff_span drops the backslash of \-escaped
 * punctuation outside code; inside code, where Markdown keeps it, this does); bol: the cell
 * starts an output line. */
static void roff_cell(const char *s, size_t len, bool bol, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len && s[i + 1] == '|')
			continue;
		sb_addc(&sb, s[i]);
	}
	roff_text(sb.buf ? sb.buf : "", sb.len, bol, true, out);
	sb_release(&sb);
}

#define MAX_CELLS 16

/* The paragraph or list item being gathered: its lines, rendered together so that a code
 * span or emphasis may go on across a line break. */
static void flush_block(struct strbuf *block, struct strbuf *out)
{
	if (!block->len)
		return;
	roff_line(block->buf, block->len, out);
	sb_reset(block);
}

void md_to_roff(const char *md, struct strbuf *out)
{
	const char *p = md, *line, *head[MAX_CELLS];
	size_t len, hlen[MAX_CELLS], nhead = 0;
	bool first = true, code = false, table = false;
	struct strbuf block = STRBUF_INIT;
	while (next_line(&p, &line, &len)) {
		bool was_first = first;
		first = false;
		size_t ind = indent_of(line, len);
		if (starts(line + ind, len - ind, "```")) {
			flush_block(&block, out);
			sb_adds(out, code ? ".fi\n.RE\n" : ".PP\n.RS 4\n.nf\n");
			code = !code;
			continue;
		}
		if (code) {
			bool bol = true;
			size_t skip = ind < 4 ? ind : 4; /* the fence's own indent within a list */
			for (size_t i = skip; i < len;)
				i += roff_char(line + i, len - i, &bol, out);
			sb_addc(out, '\n');
			continue;
		}
		if (hidden_line(&p, line, len, was_first))
			continue;
		if (blank(line, len)) {
			flush_block(&block, out);
			table = false;
			continue;
		}
		size_t h = heading_level(line, len);
		if (h) {
			flush_block(&block, out);
			sb_adds(out, ".PP\n\\fB");
			bool bol = false;
			for (size_t i = h + 1; i < len;)
				i += line[i] == '`' ? 1 : roff_char(line + i, len - i, &bol, out);
			sb_adds(out, "\\fR\n");
			continue;
		}
		if (line[ind] == '|') {
			flush_block(&block, out);
			const char *cell[MAX_CELLS];
			size_t clen[MAX_CELLS];
			size_t n = table_cells(line, len, cell, clen, MAX_CELLS);
			if (!table) {
				nhead = n;
				memcpy(head, cell, sizeof cell);
				memcpy(hlen, clen, sizeof clen);
				table = true;
			} else if (!table_separator(line, len) && n) {
				sb_adds(out, ".TP\n");
				roff_cell(cell[0], clen[0], true, out);
				sb_addc(out, '\n');
				for (size_t k = 1; k < n; k++) {
					bool bol = k == 1; /* the second cell starts the .TP's body */
					if (k > 1)
						sb_adds(out, "; ");
					if (nhead > 2 && k < nhead && hlen[k]) {
						roff_cell(head[k], hlen[k], bol, out);
						sb_adds(out, ": ");
						bol = false;
					}
					roff_cell(cell[k], clen[k], bol, out);
				}
				sb_addc(out, '\n');
			}
			continue;
		}
		bool numbered;
		size_t m = list_marker(line + ind, len - ind, &numbered);
		if (m) {
			flush_block(&block, out);
			table = false;
			if (numbered)
				sb_addf(out, ".IP %.*s 4\n", (int)(m - 1), line + ind);
			else
				sb_adds(out, ".IP \\(bu 2\n");
			sb_add(&block, line + ind + m, len - ind - m);
			continue;
		}
		table = false;
		if (!block.len)
			sb_adds(out, ".PP\n");
		else
			sb_addc(&block, '\n');
		sb_add(&block, line + ind, len - ind);
	}
	flush_block(&block, out);
	if (code)
		sb_adds(out, ".fi\n.RE\n");
	sb_release(&block);
}

/* ---------------------------------------------------------------- plain text */

void md_to_text(const char *md, struct strbuf *out)
{
	const char *p = md, *line;
	size_t len;
	bool first = true, code = false, gap = false, any = false;
	while (next_line(&p, &line, &len)) {
		bool was_first = first;
		first = false;
		size_t ind = indent_of(line, len);
		if (starts(line + ind, len - ind, "```")) {
			code = !code;
			continue;
		}
		if (!code && hidden_line(&p, line, len, was_first))
			continue;
		if (!code && blank(line, len)) {
			gap = any;
			continue;
		}
		if (gap)
			sb_addc(out, '\n');
		gap = false;
		any = true;
		if (code) {
			sb_adds(out, "    ");
			sb_add(out, line, len);
		} else {
			size_t h = heading_level(line, len);
			sb_add(out, line + (h ? h + 1 : 0), len - (h ? h + 1 : 0));
		}
		sb_addc(out, '\n');
	}
}
