/* modelfit.h: a fit of a heuristic's free parameters to measurements on one GPU (the YAML
 * file `tunetab learn` writes and `generate --model-fit FILE` reads). */
#ifndef TUNETAB_MODELFIT_H
#define TUNETAB_MODELFIT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

struct fit_value {
	char *name;
	double value;
};

/* One measured candidate of one entry a fit was trained on (`tunetab learn`): where the GEMM
 * was (lam = lookup_tokens_per_expert: tokens x top_k / all experts; the output features f,
 * the reduction k, the weight bits b) and how much slower than that entry's fastest it
 * measured (r = log(t/best)). The default heuristic ranks a new entry's candidates by these,
 * near ones weighing most (scripts/lib/moe_cost.lua, "measured neighbours"). */
struct fit_point {
	double l, f, k, b, r;
};

/* The points of one candidate configuration (tactic_describe's text) at one GEMM stage. */
struct fit_group {
	char *config;
	unsigned stage;
	struct fit_point *points;
	unsigned points_count;
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
	struct fit_group *measured;   /* optional: the training measurements, by configuration */
	unsigned measured_count;
	char *path;
};

/* Where fits are looked for, in order: the user's ($XDG_CONFIG_HOME/tunetab/fits, default
 * ~/.config/tunetab/fits), then the shipped <data>/configs/fits. Fills dirs (caller frees
 * both). */
void model_fit_dirs(const char *data_root, char *dirs[2]);

/* The fit `generate --model-fit auto` uses for a device: `<dir>/<DEVICE>.yaml` (the device
 * part of file names, firules_device_part) in each folder of dirs in order (a user's folder
 * first, then the shipped configs/fits), else, for a sister GPU, the first fit (file names in
 * order) of a device with the same SM in those folders. NULL when none. *sister is set when
 * the fit is another GPU's. Caller frees. */
char *model_fit_find(const char *const *dirs, size_t ndirs, const char *device, unsigned sm,
		     bool *sister);

/* The device's own fit file, `<dir>/<DEVICE>.yaml` in the first folder that has one, or NULL
 * (caller frees). */
char *model_fit_own(const char *const *dirs, size_t ndirs, const char *device);

/* The same choice for many devices (tunetab devices, with model_fit_own first): every fit in dirs read once (a fit that
 * does not load is left out), then picked per device, an own file first, else a sister's. A
 * file of the device's name that does not load is skipped here, where model_fit_find would
 * return it (and generate would report why it does not load). */
struct model_fit_ref {
	char *path;
	char *name;               /* the file name */
	unsigned sm;
	size_t dir;               /* index in dirs */
};
struct model_fits {
	struct model_fit_ref *v;
	size_t n;
};
void model_fits_scan(const char *const *dirs, size_t ndirs, struct model_fits *out);
char *model_fits_pick(const struct model_fits *fs, const char *device, unsigned sm, bool *sister);
void model_fits_release(struct model_fits *fs);

/* Loads strictly (unknown keys are errors; names unique, values finite). */
int model_fit_load(const char *path, struct model_fit **out, struct diags *d);
void model_fit_free(struct model_fit *f);

#endif
