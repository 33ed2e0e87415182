/* ttest.h: a tiny unit-test harness. Each test file defines TEST(name) functions and lists
 * them in a table; unit_main.c runs every table and prints "N passed, N failed". */
#ifndef TUNETAB_TTEST_H
#define TUNETAB_TTEST_H

#include <stdio.h>
#include <string.h>

struct ttest_case {
	const char *name;
	void (*fn)(void);
};

extern int ttest_failed_checks;
extern const char *ttest_current;

#define TEST(name) static void name(void)

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "  %s:%d: %s: check failed: %s\n", __FILE__, __LINE__, \
				ttest_current, #cond);                                     \
			ttest_failed_checks++;                                             \
		}                                                                          \
	} while (0)

#define CHECK_INT(a, b)                                                                    \
	do {                                                                               \
		long long a_ = (long long)(a), b_ = (long long)(b);                        \
		if (a_ != b_) {                                                            \
			fprintf(stderr, "  %s:%d: %s: %s == %lld, want %lld\n", __FILE__,   \
				__LINE__, ttest_current, #a, a_, b_);                      \
			ttest_failed_checks++;                                             \
		}                                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                                    \
	do {                                                                               \
		const char *a_ = (a), *b_ = (b);                                           \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                        \
			fprintf(stderr, "  %s:%d: %s: %s == \"%s\", want \"%s\"\n", __FILE__,\
				__LINE__, ttest_current, #a, a_ ? a_ : "(null)",           \
				b_ ? b_ : "(null)");                                       \
			ttest_failed_checks++;                                             \
		}                                                                          \
	} while (0)

#define TTEST_SUITE(var) const struct ttest_case var[]
#define TTEST_END { NULL, NULL }

#endif
