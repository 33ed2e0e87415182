/* fienv.h: FlashInfer's own view of a Python environment, as scripts/tunetab-fi-env.py asks
 * it in that environment's interpreter: the FlashInfer version it imports, the _metadata its
 * _collect_metadata stamps, its cache folders, the serving stacks' versions and the modules
 * a consumer's script probes. The one reader of that script's answer. */
#ifndef TUNETAB_FIENV_H
#define TUNETAB_FIENV_H

#include <stdbool.h>
#include <stddef.h>

#include "flashinfer/metadata.h"

/* FlashInfer as an environment imports it (the script's answer where it imports). */
struct fienv_fi {
	char *version;             /* flashinfer.__version__ */
	char *workspace_dir;       /* its JIT workspace folder, NULL when not said */
	struct fi_meta *metadata;  /* the _metadata its _collect_metadata stamps, NULL: none */
};

/* The probe of python: true with out filled when FlashInfer imports there, else false with
 * the reason in why (out is then empty). Release out with fienv_fi_release. */
bool fienv_flashinfer(const char *python, struct fienv_fi *out, char *why, size_t n);
void fienv_fi_release(struct fienv_fi *f);

/* What a serving stack's launch reads of the environment, as plain C: the FlashInfer version
 * (NULL when it does not import), the consumer's version (NULL: not installed there), and
 * each module the probe looked for (name, whether it imports). */
struct fienv_module {
	char *name;
	bool present;
};

struct fienv_summary {
	char *flashinfer, *consumer_version;
	struct fienv_module *modules;
	size_t nmodules;
};

/* The probe of python summarised for consumer (its id in "consumers"). False with why when
 * the script cannot run (out is then empty). */
bool fienv_summary(const char *python, const char *consumer, struct fienv_summary *out,
		   char *why, size_t n);
void fienv_summary_release(struct fienv_summary *s);

/* Runs scripts/<name> of tunetab's data folder in python, with one argument arg (NULL: none)
 * and its stderr to /dev/null, and reads its stdout as one JSON value: that value (caller
 * json_decref()s), or NULL with the reason in why ("scripts/NAME failed": it exited non-zero
 * or printed no JSON). For flashinfer/'s readers of such scripts (fienv, fijudge). */
struct json_t;
struct json_t *fienv_run(const char *python, const char *name, const char *arg, char *why,
			 size_t n);

#endif
