/* fienv.h: FlashInfer's own view of a Python environment, as scripts/tunetab-fi-env.py asks
 * it in that environment's interpreter: the FlashInfer version it imports, the _metadata its
 * _collect_metadata stamps, its cache folders, the serving stacks' versions and the modules
 * a consumer's script probes. The one reader of that script's answer. */
#ifndef TUNETAB_FIENV_H
#define TUNETAB_FIENV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The script's whole answer, also when FlashInfer does not import (then "error" says why):
 * {"version", "metadata": {...}, "workspace_dir", "managed_root", "consumers": {...},
 * "modules": {...}}. NULL with the reason in why when it cannot run. Caller json_decref()s. */
json_t *fienv_probe(const char *python, char *why, size_t n);

/* The same, NULL (with why) also when FlashInfer does not import. */
json_t *fienv_flashinfer(const char *python, char *why, size_t n);

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

#endif
