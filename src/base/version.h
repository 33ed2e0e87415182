/* version.h: FlashInfer version strings (a PEP 440 subset) parsed and ordered. */
#ifndef TUNETAB_VERSION_H
#define TUNETAB_VERSION_H

struct fi_version {
	int major, minor, patch;
	int pre;      /* 0 = dev, 1 = a, 2 = b, 3 = rc, 4 = final release */
	int pre_num;
	int post;     /* .postN, -1 when absent */
	char local[32]; /* text after '+', "" when absent */
};

/* Parses "0.6.18", "0.6.18rc2", "0.2.9.post1", "0.6.7+cu128", "0.0.0+unknown".
 * Returns 0 on success, -1 when s is not a version. */
int version_parse(const char *s, struct fi_version *v);
/* Orders as pip does (local part ignored): <0, 0, >0. */
int version_cmp(const struct fi_version *a, const struct fi_version *b);
/* version_parse + version_cmp for literals; both strings must parse (else BUG(): a caller
 * passes only strings it has checked). */
int version_cmp_str(const char *a, const char *b);

#endif
