/* fuzz_markdown.c: libFuzzer target for the reference pages' renderer (base/markdown.c): the
 * input as a page through md_to_roff (`tunetab help --man`) and md_to_text (`tunetab help
 * COMMAND`), and as a line of the command table through md_roff_inline, with and without
 * Markdown's marks. Oracles: every roff line that starts with '.' or '\'' (a request to roff)
 * is one of the requests the renderer makes itself, none in md_roff_inline's text (the input's
 * dots and quotes at the start of a line are defused); the plain text is not longer than the
 * page plus its indents. */
#include "fuzz_common.h"
#include "base/markdown.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

/* Whether line[0, len) is a request md_to_roff writes: .PP, .RS 4, .nf, .fi, .RE, .TP,
 * ".IP \(bu 2" or ".IP N. 4". */
static bool own_request(const char *line, size_t len)
{
	static const char *const fixed[] = { ".PP", ".RS 4", ".nf", ".fi", ".RE", ".TP",
					     ".IP \\(bu 2" };
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (len == strlen(fixed[i]) && !memcmp(line, fixed[i], len))
			return true;
	if (len < 8 || memcmp(line, ".IP ", 4) || memcmp(line + len - 3, ". 4", 3))
		return false;
	for (size_t i = 4; i < len - 3; i++)
		if (!isdigit((unsigned char)line[i]))
			return false;
	return true;
}

static void check_roff(const struct strbuf *sb, bool requests, const char *what)
{
	const char *p = sb->buf ? sb->buf : "", *end = p + sb->len;
	if (memchr(p, '\0', sb->len))
		abort();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if ((*p == '.' || *p == '\'') && (!requests || !own_request(p, len))) {
			fprintf(stderr, "fuzz_markdown: %s wrote a roff request it does not make: '%.*s'\n",
				what, (int)len, p);
			abort();
		}
		p += len + 1;
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *md = xmalloc(size + 1);
	memcpy(md, data, size);
	md[size] = '\0'; /* a NUL in the input ends the page, as it would the embedded one */
	size_t n = strlen(md), lines = 1;
	for (size_t i = 0; i < n; i++)
		lines += md[i] == '\n';
	struct strbuf sb = STRBUF_INIT;
	md_to_roff(md, &sb);
	check_roff(&sb, true, "md_to_roff");
	sb_reset(&sb);
	md_roff_inline(md, true, &sb);
	check_roff(&sb, false, "md_roff_inline (marks)");
	sb_reset(&sb);
	md_roff_inline(md, false, &sb);
	check_roff(&sb, false, "md_roff_inline");
	sb_reset(&sb);
	md_to_text(md, &sb);
	if (sb.len > n + 6 * lines) /* each line: its text, a code indent, its newline, a gap */
		abort();
	sb_release(&sb);
	free(md);
	return 0;
}
