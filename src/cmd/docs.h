/* docs.h: the reference pages under docs/ built into the binary (scripts/dev/embed-docs.sh
 * writes build/.../gen/docs_embed.c): each command's page docs/commands/<command>.md, and
 * docs/exit-codes.md and docs/environment.md for the man page's EXIT STATUS and ENVIRONMENT.
 * Rendered by base/markdown.h. */
#ifndef TUNETAB_DOCS_H
#define TUNETAB_DOCS_H

struct embedded_doc {
	const char *name; /* its path under docs/ less ".md": "commands/validate" */
	const char *text; /* the Markdown */
};

/* Ends with { NULL, NULL }. */
extern const struct embedded_doc embedded_docs[];

/* The page by name, or NULL. */
const char *embedded_doc(const char *name);

#endif
