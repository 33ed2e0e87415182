/* plan.h: a fleet plan for `generate --plan FILE.yaml` (docs/fleet.md "Plans"): deployments
 * x devices; each process takes the items for the GPU it finds, claiming each through a file
 * in the output tree so that any number of processes on any number of hosts share the list
 * without talking to each other. */
#ifndef TUNETAB_FLEETPLAN_H
#define TUNETAB_FLEETPLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "data/device.h"
#include "base/diag.h"

struct fleet_plan_item {
	char *model, *dtype;
	unsigned tp, ep, max_tokens;      /* 0: the default (1, 1, the version's) */
};

struct fleet_plan {
	char *flashinfer;                 /* NULL: the newest known */
	char *output;                     /* NULL: "." (generate -o wins) */
	bool profile;
	unsigned top, rounds;             /* 0: generate's defaults */
	char **devices;                   /* exact device names */
	unsigned devices_count;
	struct fleet_plan_item *deployments;
	unsigned deployments_count;
	char *path;
};

/* Loads strictly (unknown keys are errors with file:line:col) and checks that every device
 * is a known profile name and every count is sane. */
int fleetplan_load(const char *path, const struct device_set *devices, struct fleet_plan **out, struct diags *d);
void fleetplan_free(struct fleet_plan *p);

/* "03-deepseek-v3-fp8-tp1-ep8": the item's folder name (deployment k of the plan). */
char *fleetplan_item_name(const struct fleet_plan *p, size_t k);
/* "NVIDIA_H200": a device's folder: its file-name part (firules_device_part, as FlashInfer
 * names its module), with any '/' made '_' too. */
char *fleetplan_device_dir(const char *device);

enum fleetplan_claim_result { CLAIM_TAKEN, CLAIM_HELD, CLAIM_DONE };
/* Claims the item folder dir for this process (creates dir/.claim exclusively, holding
 * "host pid"). A claim by a process of this host that no longer exists is stale and taken
 * over. CLAIM_HELD fills holder with the claim's content. Returns the result, or -errno. */
int fleetplan_claim(const char *dir, char *holder, size_t holder_len);
/* Marks the item finished (dir/.done, atomically) and drops the claim. */
int fleetplan_finish(const char *dir);
void fleetplan_unclaim(const char *dir);
bool fleetplan_is_done(const char *dir);

#endif
