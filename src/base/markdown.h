/* markdown.h: the reference pages (docs/commands/<command>.md, docs/exit-codes.md,
 * docs/environment.md) as the man page's roff and as `tunetab help COMMAND`'s plain text.
 *
 * The pages keep to a subset of Markdown: "#" to "####" headings, paragraphs, fenced code
 * (```), "- " and "1. " list items (continuation lines indented), pipe tables, `code`,
 * **bold**, *italic* and [text](link). Both renderers leave out the page's title (its first
 * line, "# ...") and the option table that `make docs` makes from the command table
 * (between "<!-- options: " and "<!-- end options -->"): the callers print those from
 * src/cmd.c, so each fact has one home. Appends to out; never prints. */
#ifndef TUNETAB_MARKDOWN_H
#define TUNETAB_MARKDOWN_H

#include <stdbool.h>

#include "base/util.h"

/* roff for man(7): headings as bold paragraphs, code as .nf blocks, list items as .IP, a
 * table row as .TP (first cell the tag, the others "header: cell" joined by "; "). Inline
 * `code` and **bold** in bold, *italic* in italic, a link as its text (and the address
 * when it is absolute), characters outside ASCII as \[uXXXX]. */
void md_to_roff(const char *md, struct strbuf *out);

/* Plain text for a terminal: the Markdown as written, less the title, the option table,
 * the heading marks and the code fences (code indented by four). */
void md_to_text(const char *md, struct strbuf *out);

/* Text as roff for the callers' own lines (usage, option help); marks: Markdown's inline
 * marks rendered as md_to_roff does, else only `code` (in bold). A leading '.' or '\'' of a
 * line is defused. */
void md_roff_inline(const char *s, bool marks, struct strbuf *out);

#endif
