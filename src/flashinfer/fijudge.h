/* fijudge.h: FlashInfer's own loader as the judge of a lookup plan (issue #47): in the
 * server's Python, scripts/tunetab-fi-judge.py loads each rank file with FlashInfer's
 * AutoTuner.load_configs and looks up each of that rank's keys with its search_cache, in tune
 * mode as the server's start-up autotune does. This module is the one writer of its request
 * and reader of its answer (the protocol: docs/development.md "The loader's judgement");
 * plain C structs, never prints. */
#ifndef TUNETAB_FIJUDGE_H
#define TUNETAB_FIJUDGE_H

#include <stdbool.h>
#include <stddef.h>

/* One key set (several rank files may look up the same). */
struct fijudge_keys {
	char *const *v;
	size_t n;
};

/* The profiling policy an op requests (a JSON array's text), where tunetab knows one. */
struct fijudge_op {
	const char *op;                /* the key's op string */
	const char *policy;
};

struct fijudge_request {
	const char *python;            /* the server's Python */
	const char *flashinfer;        /* the version the plan is for (the Python must import it) */
	const char *gpu;               /* the server's GPU as _metadata.gpu names it */
	const struct fijudge_op *ops;
	size_t nops;
	const struct fijudge_keys *keysets;
	size_t nkeysets;
	const char *const *paths;      /* the rank files, in the plan's order */
	const size_t *keyset;          /* per path: its key set */
	size_t npaths;
};

enum fijudge_load { FIJ_MISSING, FIJ_LOADED, FIJ_IGNORED, FIJ_RAISES };

/* One lookup: hit 1, miss 0, -1 not judged; why (a miss's or why not judged) and looked_up
 * (the string FlashInfer looked up, where it is not the key) NULL when not said. */
struct fijudge_key {
	int hit;
	char *why, *looked_up;
};

struct fijudge_file {
	enum fijudge_load load;
	char *detail;                  /* FlashInfer's message (ignored, raises), or NULL */
	struct fijudge_key *keys;      /* per key of its key set when loaded, else none */
	size_t nkeys;
};

struct fijudge_result {
	char *flashinfer, *package;    /* the version that answered and its package folder */
	struct fijudge_file *files;    /* per path of the request */
	size_t nfiles;
};

/* Asks FlashInfer in r->python. True with out filled when its loader judged every file;
 * false with the reason in why when it cannot (no such script, the Python gives no answer of
 * this protocol, another FlashInfer version, one without a JSON cache loader); out is then
 * empty. Release out with fijudge_release. */
bool fijudge_run(const struct fijudge_request *r, struct fijudge_result *out, char *why,
		 size_t n);
void fijudge_release(struct fijudge_result *out);

#endif
