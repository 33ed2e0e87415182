/* test_pylit.c: the Python-literal reader and printer (pylit.h): Python's repr() of tricky
 * strings and str() of tricky literals (tables from pylit_oracle.py, Python 3.11.7), modules
 * with the line and column of every value, located syntax errors, equality and deep copies. */
#include <stdlib.h>

#include "flashinfer/pylit.h"
#include "ttest.h"

static char *repr(const struct pyv *v)
{
	struct strbuf sb = STRBUF_INIT;
	pyv_repr(v, &sb);
	return sb_detach(&sb);
}

static struct arena pa = ARENA_INIT;

/* text parsed as one expression at line 1, column 1; NULL (and a failed check) if it does not */
static struct pyv *expr(const char *text)
{
	struct diags d = DIAGS_INIT;
	struct pyv *v = pylit_parse_expr(text, strlen(text), &pa, "e", 1, 1, &d);
	if (d.n)
		fprintf(stderr, "  %s: %d:%d: %s\n", text, d.v[0].line, d.v[0].col, d.v[0].msg);
	CHECK(v != NULL && d.n == 0);
	diags_release(&d);
	return v;
}

TEST(pylit_str_repr_as_python)
{
	static const struct {
		const char *s;
		size_t len;
		const char *want;
	} cases[] = {
		{ "", 0, "''" },
		{ "plain", 5, "'plain'" },
		{ "it's", 4, "\"it's\"" },
		{ "say \"hi\"", 8, "'say \"hi\"'" },
		{ "both ' and \"", 12, "'both \\' and \"'" },
		{ "'", 1, "\"'\"" },
		{ "\"", 1, "'\"'" },
		{ "\\", 1, "'\\\\'" },
		{ "back\\slash 'q'", 14, "\"back\\\\slash 'q'\"" },
		{ "\011\012\015", 3, "'\\t\\n\\r'" },
		{ "\000\001\007\010\013\014\033\037", 8,
		  "'\\x00\\x01\\x07\\x08\\x0b\\x0c\\x1b\\x1f'" },
		{ "\177", 1, "'\\x7f'" },
		{ "\302\200\302\205\302\237", 6, "'\\x80\\x85\\x9f'" },
		{ "\302\240", 2, "'\\xa0'" },
		{ "\302\241\302\251\302\255\302\256\303\277", 10, "'¡©\\xad®ÿ'" },
		{ "caf\303\251", 5, "'café'" },
		{ "e\314\201", 3, "'é'" },
		{ "\315\270", 2, "'\\u0378'" },
		{ "\327\220\327\221", 4, "'אב'" },
		{ "\342\200\213\342\200\216\342\200\250\342\200\251\342\201\240", 15,
		  "'\\u200b\\u200e\\u2028\\u2029\\u2060'" },
		{ "\343\200\200", 3, "'\\u3000'" },
		{ "\344\270\255\346\226\207", 6, "'中文'" },
		{ "\356\200\200", 3, "'\\ue000'" },
		{ "\357\243\277", 3, "'\\uf8ff'" },
		{ "\357\273\277", 3, "'\\ufeff'" },
		{ "\357\277\275", 3, "'�'" },
		{ "\357\277\277", 3, "'\\uffff'" },
		{ "\360\237\230\200", 4, "'😀'" },
		{ "\360\237\247\277", 4, "'🧿'" },
		{ "\360\237\253\270", 4, "'\\U0001faf8'" },
		{ "\363\240\200\201", 4, "'\\U000e0001'" },
		{ "\363\240\204\200", 4, "'󠄀'" },
		{ "\364\217\277\277", 4, "'\\U0010ffff'" },
		{ "\360\240\200\200", 4, "'𠀀'" },
		{ "\330\200", 2, "'\\u0600'" },
		{ "\330\234", 2, "'\\u061c'" },
		{ "\341\232\200", 3, "'\\u1680'" },
		{ "\341\240\216", 3, "'\\u180e'" },
		{ "\342\200\200", 3, "'\\u2000'" },
		{ "\342\200\257", 3, "'\\u202f'" },
		{ "\342\201\237", 3, "'\\u205f'" },
		{ "\355\237\277", 3, "'\\ud7ff'" },
		{ "mix \000 '\303\251' \"\360\237\230\200\" \\n", 20,
		  "'mix \\x00 \\'é\\' \"😀\" \\\\n'" },
		{ "\302\255\315\217\330\234\341\205\237\341\236\264", 12, "'\\xad͏\\u061cᅟ឴'" },
		{ "\340\272\275\340\272\276", 6, "'ຽ\\u0ebe'" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct strbuf sb = STRBUF_INIT;
		py_str_repr(cases[i].s, cases[i].len, &sb);
		CHECK_STR(sb.buf, cases[i].want);
		/* the repr reads back as the same string */
		struct pyv *v = expr(sb.buf);
		CHECK(v && v->kind == PV_STR && v->len == cases[i].len &&
		      !memcmp(v->s, cases[i].s, cases[i].len));
		sb_release(&sb);
	}
	arena_release(&pa);
}

TEST(pylit_literals_as_python)
{
	static const char *const cases[][2] = {
		{ "(1, 'a', (\"b\",), [], {}, (), [()], {1: (2,)}, None, True, False)",
		  "(1, 'a', ('b',), [], {}, (), [()], {1: (2,)}, None, True, False)" },
		{ "{'k': [1, -2, 0x1F], \"v\": {'n': None}, (1, 2): 'x'}",
		  "{'k': [1, -2, 31], 'v': {'n': None}, (1, 2): 'x'}" },
		{ "('a' \"b\" 'c', '''tri'ple''', \"\"\"do\"uble\"\"\", r'raw\\n', "
		  "R\"\\q\", U'up', r'\\'', r\"a\\\"b\")",
		  "('abc', \"tri'ple\", 'do\"uble', 'raw\\\\n', '\\\\q', 'up', \"\\\\'\", 'a\\\\\"b')" },
		{ "(\012  1,  # one\012  2,\012)", "(1, 2)" },
		{ "['\\x41\\101\\u0041\\U00000041', '\\0', '\\12', '\\777', '\\1234', '\\177']",
		  "['AAAA', '\\x00', '\\n', 'ǿ', 'S4', '\\x7f']" },
		{ "('\\a\\b\\f\\v', '\\z', 'line\\\012cont', '''two\012lines''', \"\\'\\\"\")",
		  "('\\x07\\x08\\x0c\\x0b', '\\\\z', 'linecont', 'two\\nlines', '\\'\"')" },
		{ "[-0, +5, - 3, 0_0, 1_000_000, 0XfF, 0O7_7, 0B1_0, -9223372036854775807, 9223372036854775807]",
		  "[0, 5, -3, 0, 1000000, 255, 63, 2, -9223372036854775807, 9223372036854775807]" },
		{ "(('\\u00e9',), \"\\U0001f600\", '\\u00a0', 'a\\tb', \"it's\", '\"', '\\xad\\u200b')",
		  "(('é',), '😀', '\\xa0', 'a\\tb', \"it's\", '\"', '\\xad\\u200b')" },
		{ "{(1,): [{}], 'é': ('\\U0010ffff',)}", "{(1,): [{}], 'é': ('\\U0010ffff',)}" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pyv *v = expr(cases[i][0]);
		if (!v)
			continue;
		char *s = repr(v);
		CHECK_STR(s, cases[i][1]);
		/* printing is a fixed point: the printed text parses to an equal value */
		struct pyv *w = expr(s);
		CHECK(w && pyv_equal(v, w));
		free(s);
	}
	arena_release(&pa);
}

/* A module the way FlashInfer's and hand-edited tables look: a BOM, comments, a docstring,
 * ';', a dict over lines, a backslash continuation, CRLF. */
static const char module_text[] =
	"\xEF\xBB\xBF# header comment\n"      /* 1 */
	"\"\"\"docstring\n"                   /* 2 */
	"two lines\"\"\"\n"                   /* 3 */
	"a = 1; b = 'x'  # c\n"               /* 4 */
	"best_configs = {\n"                  /* 5 */
	"    \"('k', 1)\": (0, 5),\n"         /* 6 */
	"    'é': [1,\n"                      /* 7 */
	"          2],\n"                     /* 8 */
	"}\n"                                 /* 9 */
	"c = \\\n"                            /* 10 */
	"    -7\n"                            /* 11 */
	"d = 'it\\'s'\r\n"                    /* 12 */
	"e = ()";                             /* 13 */

static void check_at(const struct pyv *v, int line, int col)
{
	CHECK(v != NULL);
	if (!v)
		return;
	CHECK_INT(v->line, line);
	CHECK_INT(v->col, col);
}

TEST(pylit_module_positions)
{
	struct py_module m;
	struct diags d = DIAGS_INIT;
	CHECK_INT(pylit_parse_module(module_text, sizeof module_text - 1, "t.py", &m, &d), TT_OK);
	CHECK_INT(d.n, 0);
	CHECK_INT(m.n, 6);
	if (m.n != 6) {
		py_module_release(&m);
		diags_release(&d);
		return;
	}
	static const char *const names[] = { "a", "b", "best_configs", "c", "d", "e" };
	static const int at[][2] = { { 4, 1 }, { 4, 8 }, { 5, 1 }, { 10, 1 }, { 12, 1 }, { 13, 1 } };
	static const char *const values[] = { "1", "'x'", "{\"('k', 1)\": (0, 5), 'é': [1, 2]}", "-7",
					      "\"it's\"", "()" };
	for (size_t i = 0; i < 6; i++) {
		CHECK_STR(m.assigns[i].name, names[i]);
		CHECK_INT(m.assigns[i].line, at[i][0]);
		CHECK_INT(m.assigns[i].col, at[i][1]);
		char *s = repr(m.assigns[i].value);
		CHECK_STR(s, values[i]);
		free(s);
	}
	check_at(m.assigns[0].value, 4, 5);
	check_at(m.assigns[1].value, 4, 12);
	const struct pyv *bc = m.assigns[2].value;
	check_at(bc, 5, 16);
	CHECK(bc->kind == PV_DICT && bc->n == 2);
	check_at(&bc->items[0], 6, 5);
	check_at(&bc->items[1], 6, 17);
	check_at(&bc->items[1].items[1], 6, 21);
	check_at(&bc->items[2], 7, 5);  /* 'é' */
	check_at(&bc->items[3], 7, 10); /* columns count characters, not bytes */
	check_at(&bc->items[3].items[0], 7, 11);
	check_at(&bc->items[3].items[1], 8, 11);
	check_at(m.assigns[3].value, 11, 5);
	check_at(m.assigns[4].value, 12, 5);
	/* plain strings point into the text; decoded ones are copies */
	const char *x = strstr(module_text, "'x'") + 1;
	CHECK(m.assigns[1].value->s == x && m.assigns[1].value->len == 1);
	const struct pyv *its = m.assigns[4].value;
	CHECK(its->len == 4 && !memcmp(its->s, "it's", 4));
	CHECK(its->s < module_text || its->s >= module_text + sizeof module_text);
	py_module_release(&m);
	CHECK(m.n == 0 && m.assigns == NULL);
	diags_release(&d);
}

/* pylit_parse_module's one diagnostic for text (len bytes: it may hold NUL). */
static void check_module_error(const char *text, size_t len, int line, int col, const char *msg)
{
	struct py_module m;
	struct diags d = DIAGS_INIT;
	CHECK_INT(pylit_parse_module(text, len, "bad.py", &m, &d), TT_INVALID);
	CHECK_INT(d.n, 1);
	if (d.n == 1) {
		if (d.v[0].line != line || d.v[0].col != col || strcmp(d.v[0].msg, msg))
			fprintf(stderr, "  module: %.60s\n", text);
		CHECK_STR(d.v[0].id, "syntax");
		CHECK_STR(d.v[0].file, "bad.py");
		CHECK_INT(d.v[0].sev, SEV_ERROR);
		CHECK_INT(d.v[0].line, line);
		CHECK_INT(d.v[0].col, col);
		CHECK_STR(d.v[0].msg, msg);
	}
	py_module_release(&m);
	diags_release(&d);
}

#define BAD(text, line, col, msg) check_module_error(text, sizeof text - 1, line, col, msg)

TEST(pylit_module_errors)
{
	BAD("x = 1\ny = ", 2, 5, "syntax error: unexpected end of input");
	BAD("x == 1\n", 1, 3, "syntax error: expected '=' after 'x' (tunetab reads only literal "
	    "assignments)");
	BAD("a.b = 1\n", 1, 2, "syntax error: expected '=' after 'a' (tunetab reads only literal "
	    "assignments)");
	BAD("x = 1\n1\n", 2, 1, "syntax error: expected an assignment (tunetab reads only literal "
	    "assignments and docstrings)");
	BAD("x = 1 y = 2\n", 1, 7, "syntax error: expected end of statement");
	BAD("x = 1, 2\n", 1, 6, "syntax error: expected end of statement");
	BAD("x = 1;; y = 2\n", 1, 7, "syntax error: unexpected ';'");
	BAD("x = '''abc\n\n", 1, 5, "syntax error: unterminated triple-quoted string");
	BAD("x = 'a\nb'\n", 1, 5, "syntax error: unterminated string");
	BAD("x = {\n  'a': 1,\n", 1, 5, "syntax error: '{' was never closed");
	BAD("x = {\n  'a' 1}\n", 2, 7, "syntax error: expected ':' after dictionary key");
	BAD("x = [1,\n  2\n  3]\n", 3, 3, "syntax error: expected ',' or ']'");
	BAD("x = (,)\n", 1, 6, "syntax error: unexpected ','");
	BAD("x = 1.5\n", 1, 5, "syntax error: floats are not literals tunetab reads");
	BAD("x = (2, 0.25)\n", 1, 9, "syntax error: floats are not literals tunetab reads");
	BAD("x = 1.\n", 1, 5, "syntax error: floats are not literals tunetab reads");
	BAD("x = .5\n", 1, 5, "syntax error: unexpected '.'");
	BAD("x = -.5\n", 1, 6, "syntax error: unexpected '.'");
	BAD("x = 1e3\n", 1, 5, "syntax error: floats are not literals tunetab reads");
	BAD("x = (1, 2E-3)\n", 1, 9, "syntax error: floats are not literals tunetab reads");
	BAD("x = 1j\n", 1, 5, "syntax error: complex numbers are not literals tunetab reads");
	BAD("x = f'{a}'\n", 1, 5, "syntax error: bytes and f-strings are not literals tunetab reads");
	BAD("x = 'a' b'c'\n", 1, 9, "syntax error: bytes and f-strings are not literals tunetab reads");
	BAD("x = Rb'a'\n", 1, 5, "syntax error: bytes and f-strings are not literals tunetab reads");
	BAD("x = '\\N{DASH}'\n", 1, 6, "syntax error: \\N{...} escapes are not supported");
	BAD("x = '\\U00110000'\n", 1, 6, "syntax error: escape \\U out of range");
	BAD("x = '\\udfff'\n", 1, 6, "syntax error: lone surrogate \\uDFFF is not supported");
	BAD("x = '\\u12'\n", 1, 6, "syntax error: truncated \\u escape");
	BAD("x = 0x\n", 1, 5, "syntax error: invalid integer literal ''");
	BAD("x = 0_7\n", 1, 5, "syntax error: invalid integer literal '07'");
	BAD("x = 0xffffffffffffffff\n", 1, 5, "syntax error: invalid integer literal 'ffffffffffffffff'");
	BAD("x = -9223372036854775808\n", 1, 6,
	    "syntax error: invalid integer literal '9223372036854775808'");
	BAD("x = 12345678901234567890123456789012345678901234567890123456789012345\n", 1, 5,
	    "syntax error: integer literal too long");
	BAD("x = not_a_value(1)\n", 1, 16, "syntax error: expected end of statement");
	/* bytes no Python source may hold, located */
	BAD("x = 1\0\n", 1, 6, "syntax error: NUL byte in input");
	BAD("a = 1\nx = '\xc3\xa9\xc3'\n", 2, 7, "syntax error: invalid UTF-8 byte 0xc3");
	BAD("x = '\xff'\n", 1, 6, "syntax error: invalid UTF-8 byte 0xff");
	BAD("x = '\xc0\xaf'\n", 1, 6, "syntax error: invalid UTF-8 byte 0xc0");
	BAD("x = '\xf5\x80\x80\x80'\n", 1, 6, "syntax error: invalid UTF-8 byte 0xf5");
	BAD("x = '\xe2\x82'", 1, 6, "syntax error: invalid UTF-8 byte 0xe2");
	BAD("x = \x01\n", 1, 5, "syntax error: unexpected control character 0x01");
	/* Python reads a lone CR as a line break; FlashInfer's tables have none */
	BAD("x = 1\ry = 2\n", 1, 6, "syntax error: a carriage return without a line feed (Python "
	    "reads it as a line break; tunetab reads only LF and CRLF)");
	BAD("x = \r1\n", 1, 5, "syntax error: unexpected control character 0x0d");
	BAD("x = \xc2\xa0\n", 1, 5, "syntax error: unexpected non-ASCII character");
}

/* Modules Python 3 does not compile (ast.parse raises SyntaxError: pylit_oracle.py prints its
 * line and offset for each), once accepted: each is an error, at Python's line and column
 * unless a comment says otherwise. */
TEST(pylit_module_python_rejects)
{
	/* a newline ends the statement before its value, or before its '=' */
	BAD("x =\n1\n", 1, 4, "syntax error: expected a value before the end of the line");
	BAD("x =   # c\n1\n", 1, 7, "syntax error: expected a value before the end of the line");
	BAD("x = -\n1\n", 1, 6, "syntax error: expected a value before the end of the line");
	BAD("x = \\\n\n1\n", 2, 1, "syntax error: expected a value before the end of the line");
	BAD("x\n= 1\n", 2, 1, "syntax error: unexpected '=' at the start of a line");
	/* indentation (Python points at the last character of it) */
	BAD("  x = 1\n", 1, 2, "syntax error: unexpected indent");
	BAD("x = 1\n  y = 2\n", 2, 2, "syntax error: unexpected indent");
	BAD("x = 1\n    \n\ty = 2\n", 3, 1, "syntax error: unexpected indent");
	BAD("'''doc'''\n    x = 1\n", 2, 4, "syntax error: unexpected indent");
	BAD("x = 1;\n  y = 2\n", 2, 2, "syntax error: unexpected indent");
	BAD("x = 'a'\n  'b'\n", 2, 2, "syntax error: unexpected indent");
	BAD("x = 1 # \\\n  y = 2\n", 2, 2, "syntax error: unexpected indent");
	BAD("\\\n  x = 1\n", 2, 2, "syntax error: unexpected indent");
	BAD("\xEF\xBB\xBF\tx = 1\r\n", 1, 1, "syntax error: unexpected indent");
	/* a backslash joins the next line: no statement starts there */
	BAD("x = 1 \\\ny = 2\n", 2, 1, "syntax error: expected end of statement");
	BAD("x = 1 \\\n", 1, 8, "syntax error: unexpected end of file after a line continuation");
	BAD("x = 1 \\", 1, 8, "syntax error: unexpected end of file after a line continuation");
	BAD("x = 'a' \\\n", 1, 10, "syntax error: unexpected end of file after a line continuation");
	BAD("x = 1\n\\\n", 2, 2, "syntax error: unexpected end of file after a line continuation");
	BAD("x = 1 \\ y\n", 1, 8, "syntax error: unexpected character after line continuation "
	    "character");
	/* a lone CR is a line break to Python */
	BAD("x = 'a\rb'\n", 1, 5, "syntax error: unterminated string");
	/* keywords are no names (Python: 1:4, the '=', for 'if = 1') */
	BAD("True = 1\n", 1, 1, "syntax error: cannot assign to True");
	BAD("None = 1\n", 1, 1, "syntax error: cannot assign to None");
	BAD("if = 1\n", 1, 1, "syntax error: 'if' is a Python keyword, not a name");
	BAD("x = (1, if)\n", 1, 9, "syntax error: 'if' is a Python keyword, not a name");
	BAD("x = torch.None\n", 1, 11, "syntax error: 'None' is a Python keyword, not a name");
	/* Python 2's string prefixes (Python points at the quote) */
	BAD("x = ur'a'\n", 1, 7, "syntax error: 'ur' is not a string prefix Python 3 reads");
	BAD("x = (Ru\"a\",)\n", 1, 8, "syntax error: 'Ru' is not a string prefix Python 3 reads");
	BAD("x = bu'a'\n", 1, 7, "syntax error: 'bu' is not a string prefix Python 3 reads");
	BAD("x = rr'a'\n", 1, 7, "syntax error: 'rr' is not a string prefix Python 3 reads");
	/* '_' only between digits (Python points at the '_') */
	BAD("x = 1_\n", 1, 6, "syntax error: invalid integer literal '1_': '_' goes only between digits");
	BAD("x = 1__0\n", 1, 6, "syntax error: invalid integer literal '1__0': '_' goes only between "
	    "digits");
	BAD("x = 0x1f_\n", 1, 9, "syntax error: invalid integer literal '0x1f_': '_' goes only between "
	    "digits");
	BAD("x = [0b_]\n", 1, 8, "syntax error: invalid integer literal '0b_': '_' goes only between "
	    "digits");
	/* UTF-8 Python's decoder rejects: surrogates, overlong forms, above U+10FFFF (Python gives
	 * the string's column; tunetab the byte's) */
	BAD("x = '\xed\xa0\x80'\n", 1, 6, "syntax error: invalid UTF-8 byte 0xed");
	BAD("x = '\xed\xbf\xbf'\n", 1, 6, "syntax error: invalid UTF-8 byte 0xed");
	BAD("x = '\xe0\x80\xaf'\n", 1, 6, "syntax error: invalid UTF-8 byte 0xe0");
	BAD("x = '\xe0\x9f\xbf'\n", 1, 6, "syntax error: invalid UTF-8 byte 0xe0");
	BAD("x = '\xf0\x8f\xbf\xbf'\n", 1, 6, "syntax error: invalid UTF-8 byte 0xf0");
	BAD("x = '\xf4\x90\x80\x80'\n", 1, 6, "syntax error: invalid UTF-8 byte 0xf4");
	BAD("a = 1\nx = '\xc3\xa9\xed\xa0\x80'\n", 2, 7, "syntax error: invalid UTF-8 byte 0xed");
	/* a BOM is no character of line 1 */
	BAD("\xEF\xBB\xBFx = '\xff'\n", 1, 6, "syntax error: invalid UTF-8 byte 0xff");
	BAD("\xEF\xBB\xBF\xc3\xa9x = 1\0\n", 1, 7, "syntax error: NUL byte in input");
}

/* What Python 3 compiles, near those edges, still reads. */
TEST(pylit_module_python_accepts)
{
	static const char *const ok[] = {
		"\fx = 1\n",                         /* a form feed restarts the indentation */
		"x = 1; \\\n  y = 2\n",              /* a continuation is no new line */
		"x = 1 \\\n\n",                       /* ... and may join an empty one */
		"x = ( 1 \\\n)\n",
		"x = 'a' \\\n 'b'\n",
		"x = 1 \\\n;y = 2\n",
		"x = 1\n  # an indented comment\n\n \ny = 2\n",
		"x = {\n}\n",
		"x = 1\r\ny = [\r\n  2]\r\n",
		"x = (0x_1f, 1_000, 0_0, 00, 0o_7, 0B1_0)\n",
		"x = (u'a', U'b', r'c', R'd')\n",
		"x = True.real\n",
		"x = ('\xed\x9f\xbf', '\xee\x80\x80', '\xe0\xa0\x80', '\xf0\x90\x80\x80', '\xf4\x8f\xbf\xbf')\n",
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		struct py_module m;
		struct diags d = DIAGS_INIT;
		int rc = pylit_parse_module(ok[i], strlen(ok[i]), "ok.py", &m, &d);
		if (rc != TT_OK)
			fprintf(stderr, "  module: %s\n  %d:%d: %s\n", ok[i], d.v[0].line, d.v[0].col,
				d.v[0].msg);
		CHECK_INT(rc, TT_OK);
		py_module_release(&m);
		diags_release(&d);
	}
}

TEST(pylit_nesting_limit)
{
	/* 200 brackets deep is read; 201 is an error at the 201st */
	struct strbuf t = STRBUF_INIT;
	for (int depth = 200; depth <= 201; depth++) {
		sb_reset(&t);
		sb_adds(&t, "x = ");
		for (int i = 0; i < depth; i++)
			sb_addc(&t, '[');
		for (int i = 0; i < depth; i++)
			sb_addc(&t, ']');
		sb_addc(&t, '\n');
		struct py_module m;
		struct diags d = DIAGS_INIT;
		int rc = pylit_parse_module(t.buf, t.len, "deep.py", &m, &d);
		if (depth == 200) {
			CHECK_INT(rc, TT_OK);
			CHECK_INT(d.n, 0);
			const struct pyv *v = m.n ? m.assigns[0].value : NULL;
			int n = 0;
			while (v && v->kind == PV_LIST && v->n == 1)
				v = &v->items[0], n++;
			CHECK(v && v->kind == PV_LIST && v->n == 0);
			CHECK_INT(n, 199);
		} else {
			CHECK_INT(rc, TT_INVALID);
			CHECK(d.n == 1 && d.v[0].line == 1 && d.v[0].col == 205);
			CHECK_STR(d.n ? d.v[0].msg : NULL, "syntax error: nesting deeper than 200");
		}
		py_module_release(&m);
		diags_release(&d);
	}
	sb_release(&t);
}

TEST(pylit_expr_positions)
{
	/* text[0] is at line 5, column 10; later lines start at column 1 */
	struct diags d = DIAGS_INIT;
	const char *text = "(1,\n 'é', x.y,\n\t[True])";
	struct pyv *v = pylit_parse_expr(text, strlen(text), &pa, "e", 5, 10, &d);
	CHECK(v != NULL && d.n == 0);
	if (v && v->kind == PV_TUPLE && v->n == 4) {
		check_at(v, 5, 10);
		check_at(&v->items[0], 5, 11);
		check_at(&v->items[1], 6, 2);
		check_at(&v->items[2], 6, 7);
		CHECK(v->items[2].kind == PV_NAME && v->items[2].len == 3);
		CHECK_STR(v->items[2].s, "x.y");
		check_at(&v->items[3], 7, 2);
		check_at(&v->items[3].items[0], 7, 3);
	} else {
		CHECK(!"a 4-tuple");
	}
	const char *bad = "(1,\n 'é', 2 3)";
	CHECK(pylit_parse_expr(bad, strlen(bad), &pa, "e", 5, 10, &d) == NULL);
	CHECK(d.n == 1 && d.v[0].line == 6 && d.v[0].col == 9);
	CHECK_STR(d.n ? d.v[0].msg : NULL, "syntax error: expected ',' or ')'");
	CHECK_STR(d.n ? d.v[0].file : NULL, "e");
	diags_release(&d);
	/* a newline inside an expression is not the end of a statement */
	v = expr("'a'\n'b'");
	CHECK(v && v->kind == PV_STR && v->len == 2 && !memcmp(v->s, "ab", 2));
	arena_release(&pa);
}

TEST(pylit_equal_clone_kinds)
{
	struct pyv *a = expr("{'k': (1, [None, True]), 2: 'a\\x00b'}");
	struct pyv *b = expr("{\"k\": (1, [None, True],), 2: 'a\\0b'}");
	CHECK(a && b && pyv_equal(a, b));
	static const char *const differ[] = {
		"{2: 'a\\x00b', 'k': (1, [None, True])}", /* pairs in order */
		"{'k': (1, [None, False]), 2: 'a\\x00b'}",
		"{'k': (1, (None, True)), 2: 'a\\x00b'}",
		"{'k': (1, [None, True]), 2: 'a\\x00c'}",
		"{'k': (1, [None, True]), 2: 'a\\x00'}",
		"{'k': (1, [None, True, 0]), 2: 'a\\x00b'}",
		"{'k': (1, [None, True]), 3: 'a\\x00b'}",
		"{'k': (1, [None, True])}",
	};
	for (size_t i = 0; a && i < sizeof differ / sizeof differ[0]; i++) {
		struct pyv *c = expr(differ[i]);
		CHECK(c && !pyv_equal(a, c) && !pyv_equal(c, a));
	}
	struct pyv *n = expr("torch.int64"), *s = expr("'torch.int64'");
	CHECK(n && s && n->kind == PV_NAME && s->kind == PV_STR && !pyv_equal(n, s));

	/* a clone outlives the arena and the text it came from */
	struct arena keep = ARENA_INIT;
	char *text = xstrdup("x = {'plain': ('s', 3, [torch.uint8, None]), 'é\\n': ()}\n");
	struct py_module m;
	struct diags d = DIAGS_INIT;
	CHECK_INT(pylit_parse_module(text, strlen(text), "c.py", &m, &d), TT_OK);
	struct pyv *c = m.n ? pyv_clone(&keep, m.assigns[0].value) : NULL;
	CHECK(c && pyv_equal(c, m.assigns[0].value));
	char *before = c ? repr(c) : NULL;
	py_module_release(&m);
	memset(text, '#', strlen(text));
	free(text);
	char *after = c ? repr(c) : NULL;
	CHECK_STR(after, "{'plain': ('s', 3, [torch.uint8, None]), 'é\\n': ()}");
	CHECK_STR(after, before);
	CHECK(c && c->line == 1 && c->col == 5 && c->items[1].col == 15);
	free(before);
	free(after);
	arena_release(&keep);
	diags_release(&d);

	static const char *const kinds[] = { "int", "str", "bool", "bool", "None", "tuple", "list",
					     "dict", "name" };
	for (int k = PV_INT; k <= PV_NAME; k++)
		CHECK_STR(pyv_kind_name((enum pyv_kind)k), kinds[k]);
	arena_release(&pa);
	pylit_release_cache();
}

/* PEP 263 (pyenc.h): what CPython does not read as this UTF-8 text is an error at the declared
 * name; the spellings it reads as UTF-8 or ASCII are read. tests/cli/230 checks them all
 * against python3. */
TEST(pylit_module_encodings)
{
	static const char *const other = "' is neither UTF-8 nor ASCII: Python decodes the module "
		"with that codec, or refuses a name it does not know (PEP 263), so its text is not "
		"the UTF-8 tunetab reads";
	static const struct {
		const char *text;
		int line, col;
		const char *name;
	} bad[] = {
		{ "# -*- coding: utf-7 -*-\n# +AAo-import os\nx = 1\n", 1, 15, "utf-7" },
		{ "#!/usr/bin/python\n# vim: set fileencoding=latin-1 :\nx = 1\n", 2, 25, "latin-1" },
		{ "\n#coding=cp1252\nx = 1\n", 2, 9, "cp1252" },
		{ " \f\t# comment\r\n  # coding: UTF-16\r\nx = 1\r\n", 2, 13, "UTF-16" },
		{ "# caf\xc3\xa9 coding: utf.8\n", 1, 16, "utf.8" },
		{ "# coding: # coding=koi8-r\n", 1, 20, "koi8-r" },
		{ "# coding: -utf8.\n", 1, 11, "-utf8." },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *msg = xasprintf("syntax error: declared encoding '%s%s", bad[i].name, other);
		check_module_error(bad[i].text, strlen(bad[i].text), bad[i].line, bad[i].col, msg);
		free(msg);
	}
	BAD("\xef\xbb\xbf# coding: utf8\nx = 1\n", 1, 11, "syntax error: declared encoding 'utf8' "
	    "after a UTF-8 BOM: Python refuses the module (PEP 263: a BOM allows only utf-8)");
	BAD("\xef\xbb\xbf\n# coding: latin-1\nx = 1\n", 2, 11, "syntax error: declared encoding "
	    "'latin-1' after a UTF-8 BOM: Python refuses the module (PEP 263: a BOM allows only utf-8)");
	BAD("# coding: us-ascii\nx = 1\ny = '\xc3\xa9'\n", 1, 11, "syntax error: declared encoding "
	    "'us-ascii' is ASCII, but line 3, column 6 holds the byte 0xc3: Python refuses to "
	    "decode the module");
	BAD("# coding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", 1, 11,
	    "syntax error: declared encoding 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' is neither "
	    "UTF-8 nor ASCII: Python decodes the module with that codec, or refuses a name it does "
	    "not know (PEP 263), so its text is not the UTF-8 tunetab reads");
	static const char *const ok[] = {
		"# -*- coding: utf-8 -*-\nx = '\xc3\xa9'\n",
		"\xef\xbb\xbf# coding: UTF_8\nx = '\xc3\xa9'\n",
		"\xef\xbb\xbf# coding: utf-8-unix\nx = '\xc3\xa9'\n",
		"# coding=utf8\nx = '\xc3\xa9'\n",
		"#!/usr/bin/python\n# coding: U8\nx = '\xc3\xa9'\n",
		"# coding: --cp65001--\nx = '\xc3\xa9'\n",
		"# coding: _utf_8_sig\nx = '\xc3\xa9'\n",
		"# coding: utf8.ucs4\nx = '\xc3\xa9'\n",
		"# coding: ascii\nx = 1\n",
		"# coding: ANSI.X3.4.1968\nx = 1\n",
		"x = 1\n# coding: latin-1\ny = '\xc3\xa9'\n",         /* line 2 after code: ignored */
		"#\n#\n# coding: latin-1\ny = '\xc3\xa9'\n",          /* line 3: ignored */
		"# Coding: latin-1\ny = '\xc3\xa9'\n",                 /* no declaration */
		"# coding : latin-1\ny = '\xc3\xa9'\n",
		"# coding: \xc3\xa9\ny = 1\n",                         /* no name */
		"# coding:",
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		struct py_module m;
		struct diags d = DIAGS_INIT;
		int rc = pylit_parse_module(ok[i], strlen(ok[i]), "ok.py", &m, &d);
		if (rc != TT_OK)
			fprintf(stderr, "  module: %s\n  %d:%d: %s\n", ok[i], d.v[0].line, d.v[0].col,
				d.v[0].msg);
		CHECK_INT(rc, TT_OK);
		py_module_release(&m);
		diags_release(&d);
	}
}

TTEST_SUITE(pylit_tests) = {
	{ "pylit_str_repr_as_python", pylit_str_repr_as_python },
	{ "pylit_literals_as_python", pylit_literals_as_python },
	{ "pylit_module_positions", pylit_module_positions },
	{ "pylit_module_errors", pylit_module_errors },
	{ "pylit_module_python_rejects", pylit_module_python_rejects },
	{ "pylit_module_python_accepts", pylit_module_python_accepts },
	{ "pylit_module_encodings", pylit_module_encodings },
	{ "pylit_nesting_limit", pylit_nesting_limit },
	{ "pylit_expr_positions", pylit_expr_positions },
	{ "pylit_equal_clone_kinds", pylit_equal_clone_kinds },
	TTEST_END,
};
