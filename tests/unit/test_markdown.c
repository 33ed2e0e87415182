/* test_markdown.c: the reference pages' Markdown as roff and as plain text: what is left out
 * (title, option table), each block's roff, inline marks, escapes. */
#include <string.h>

#include "base/markdown.h"
#include "ttest.h"

static const char page[] = "# tunetab demo\n"
			   "\n"
			   "Reads a `table` and **checks** it; see [validate](validate.md).\n"
			   "A second line.\n"
			   "\n"
			   "<!-- options: tunetab help --markdown demo (made from src/cmd.c) -->\n"
			   "| option | meaning |\n"
			   "|---|---|\n"
			   "| `--json` | JSON |\n"
			   "<!-- end options -->\n"
			   "\n"
			   "## Checks\n"
			   "\n"
			   "| id | level | finds |\n"
			   "|---|---|---|\n"
			   "| `a-b` | error | x \\| y |\n"
			   "\n"
			   "- one\n"
			   "  more\n"
			   "2. two *it*\n"
			   "\n"
			   "```sh\n"
			   ".hidden -x \\n\n"
			   "```\n"
			   "Wait \xe2\x80\x94 see <https://x> [site](https://e.org/a).\n";

TEST(roff_blocks)
{
	struct strbuf sb = STRBUF_INIT;
	md_to_roff(page, &sb);
	const char *want = ".PP\n"
			   "Reads a \\fBtable\\fR and \\fBchecks\\fR it; see validate.\n"
			   "A second line.\n"
			   ".PP\n\\fBChecks\\fR\n"
			   ".TP\n\\fBa\\-b\\fR\n"
			   "level: error; finds: x | y\n"
			   ".IP \\(bu 2\none\n"
			   "more\n"
			   ".IP 2. 4\ntwo \\fIit\\fR\n"
			   ".PP\n.RS 4\n.nf\n"
			   "\\&.hidden \\-x \\en\n"
			   ".fi\n.RE\n"
			   ".PP\n"
			   "Wait \\[u2014] see <https://x> site <https://e.org/a>.\n";
	CHECK_STR(sb.buf, want);
	sb_release(&sb);
}

TEST(text_keeps_markdown)
{
	struct strbuf sb = STRBUF_INIT;
	md_to_text(page, &sb);
	const char *want = "Reads a `table` and **checks** it; see [validate](validate.md).\n"
			   "A second line.\n"
			   "\n"
			   "Checks\n"
			   "\n"
			   "| id | level | finds |\n"
			   "|---|---|---|\n"
			   "| `a-b` | error | x \\| y |\n"
			   "\n"
			   "- one\n"
			   "  more\n"
			   "2. two *it*\n"
			   "\n"
			   "    .hidden -x \\n\n"
			   "Wait \xe2\x80\x94 see <https://x> [site](https://e.org/a).\n";
	CHECK_STR(sb.buf, want);
	sb_release(&sb);
}

/* A table row's second cell starts the .TP's body: its leading dot or quote is defused as at
 * the start of any line (issue #48, found by fuzzing: '.journal files' was a roff request),
 * and so is a column's name printed before it. */
TEST(roff_table_cell_at_line_start)
{
	struct strbuf sb = STRBUF_INIT;
	md_to_roff("| option | meaning |\n|---|---|\n| `--x` | .journal files |\n| `--y` | 'q |\n"
		   "\n| .a | .b | c |\n|---|---|---|\n| x | y | z |\n", &sb);
	CHECK_STR(sb.buf, ".TP\n\\fB\\-\\-x\\fR\n\\&.journal files\n"
			  ".TP\n\\fB\\-\\-y\\fR\n\\&'q\n"
			  ".TP\nx\n\\&.b: y; c: z\n");
	sb_release(&sb);
}

TEST(roff_inline_escapes)
{
	struct strbuf sb = STRBUF_INIT;
	md_roff_inline(".a `b*c` 3 * 4 \\* 'q", true, &sb);
	CHECK_STR(sb.buf, "\\&.a \\fBb*c\\fR 3 * 4 * 'q");
	sb_reset(&sb);
	md_roff_inline("**bold `code` *both***", true, &sb);
	CHECK_STR(sb.buf, "\\fBbold \\fBcode\\fB \\f(BIboth\\fI\\fR");
	sb_reset(&sb);
	md_roff_inline("\"*\" **x**", false, &sb);
	CHECK_STR(sb.buf, "\"*\" **x**");
	sb_release(&sb);
}

TTEST_SUITE(markdown_tests) = {
	{ "roff_blocks", roff_blocks },
	{ "text_keeps_markdown", text_keeps_markdown },
	{ "roff_inline_escapes", roff_inline_escapes },
	{ "roff_table_cell_at_line_start", roff_table_cell_at_line_start },
	TTEST_END
};
