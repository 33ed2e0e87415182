/* modelfit.h: a fit of a heuristic's free parameters to measurements on one GPU (the YAML
 * file `tunetab learn` writes and `generate --model-fit FILE` reads). */
#ifndef TUNETAB_MODELFIT_H
#define TUNETAB_MODELFIT_H

#include "base/diag.h"

struct fit_value {
	char *name;
	double value;
};

struct model_fit {
	char *heuristic;          /* the heuristic whose params these are ("default") */
	char *device;             /* the GPU measured */
	unsigned sm;
	char *method;             /* how it was fitted, in words */
	char **trained_on;        /* the deployments whose journals it was fitted to */
	unsigned trained_on_count;
	struct fit_value *params;
	unsigned params_count;
	char *path;
};

/* Loads strictly (unknown keys are errors; names unique, values finite). */
int model_fit_load(const char *path, struct model_fit **out, struct diags *d);
void model_fit_free(struct model_fit *f);

#endif
