/* generate_fleet.c: `generate --plan`: the items of a fleet plan claimed, generated and
 * merged per device (docs/fleet.md "Plans"; generate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/generate_int.h"
#include "base/util.h"
#include "data/fleetplan.h"
#include "flashinfer/merge.h"
#include "gpu/gpu.h"

/* The device's items merged into its folder (tunetab merge's rules, docs/fleet.md). */
static int merge_into(const struct generate_session *S, const char *devdir, char *const *items,
		      size_t n, bool quiet, struct diags *d)
{
	const struct tt_data *data = S->data;
	struct validate_data vd = { &data->devices, &data->catalogs, &data->rules, &data->ops };
	struct merge_opts mo = { .out = devdir, .inputs = items, .ninputs = n,
				 .tunetab_version = TUNETAB_VERSION };
	struct merge_result r;
	struct diags md = DIAGS_INIT;
	int rc = merge_run(&vd, &mo, &r, &md);
	size_t nwritten = 0;
	if (!rc)
		rc = merge_write(&r, &nwritten, &md);
	if (!quiet || rc) {
		diags_append(d, &md);
		if (!rc)
			gen_hear(S, d);
	}
	diags_release(&md);
	for (size_t k = 0; !quiet && k < nwritten; k++)
		gen_say(S, "tunetab: wrote %s", r.outputs[k].path);
	if (!rc && !quiet)
		gen_say(S, "tunetab: merged %zu items of '%s': %zu entries, %zu conflicts settled", n,
		    r.device, r.entries, r.nconflicts);
	merge_result_release(&r);
	return rc;
}

/* Which device this process is, for a plan: the profiled GPU, --device NAME, or GPU 0. */
static int fleet_device(const struct generate_request *o, struct generate_session *S,
		       struct generate_request *base, char *devname, size_t len, struct diags *d)
{
	int rc;
	if (base->profile) {
		if ((rc = gen_start_workers(S, base, d)))
			return rc;
		snprintf(devname, len, "%s", S->wd.gpu.name);
		base->device = "auto";
	} else if (o->device && strcmp(o->device, "auto")) {
		const struct device_profile *dp = device_find(&S->data->devices, o->device);
		if (!dp)
			return diag_error(d, TT_INVALID, "device", NULL, 0, 0, "no profile for '%s'",
					  o->device);
		snprintf(devname, len, "%s", dp->name);
		base->device = devname;
	} else {
		struct gpu_info *gpus;
		int n;
		struct gpu_env env;
		char err[512];
		if ((rc = gpu_query(&gpus, &n, &env, err, sizeof err)))
			return diag_error(d, rc, "gpu", NULL, 0, 0, "--plan without --device NAME: %s", err);
		snprintf(devname, len, "%s", gpus[0].name);
		free(gpus);
		base->device = "auto";
	}
	return TT_OK;
}

/* Runs the plan's items this process can claim; returns the first failure's status. */
static int fleet_items(const struct generate_request *base, struct generate_session *S,
		      const struct fleet_plan *pl, char **items, size_t *failed, size_t *ran, struct diags *d)
{
	int rc = TT_OK;
	for (size_t k = 0; k < pl->deployments_count; k++) {
		char holder[320];
		int r = fleetplan_claim(items[k], holder, sizeof holder);
		if (r < 0)
			return diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot claim '%s': %s",
					  items[k], strerror(-r));
		if (r == CLAIM_DONE)
			continue;
		if (r == CLAIM_HELD) {
			if (!base->quiet)
				gen_say(S, "tunetab: %s is taken by %s (if that process is gone, delete "
				    "%s/.claim)", items[k], holder, items[k]);
			continue;
		}
		const struct fleet_plan_item *x = &pl->deployments[k];
		struct generate_request io = *base;
		io.model = x->model;
		io.dtype = x->dtype;
		io.runner.tp = x->tp ? x->tp : 1;
		io.runner.ep = x->ep ? x->ep : 1;
		io.runner.max_tokens = (unsigned)x->max_tokens;
		struct shard whole = { .index = 0, .count = 1 };
		if (!base->quiet)
			gen_say(S, "tunetab: plan item %s", items[k]);
		struct diags id = DIAGS_INIT;
		int r2 = generate_table(&io, S, &whole, items[k], &id);
		/* an item's errors are told when it ends, as each item's own */
		if (S->hooks && S->hooks->diag)
			for (size_t i = 0; i < id.n; i++)
				S->hooks->diag(S->hooks->ctx, &id.v[i]);
		diags_release(&id);
		(*ran)++;
		if (r2) {
			fleetplan_unclaim(items[k]);
			(*failed)++;
			if (!rc)
				rc = r2;
			continue;
		}
		if ((r = fleetplan_finish(items[k])) < 0)
			return diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot mark '%s' done: %s",
					  items[k], strerror(-r));
	}
	return rc;
}

int generate_fleet_plan(const struct generate_request *o, struct generate_session *S,
		      struct diags *d)
{
	struct fleet_plan *pl = NULL;
	int rc = fleetplan_load(o->plan, &S->data->devices, &pl, d);
	gen_hear(S, d);
	if (rc)
		return rc;
	struct generate_request base = *o;
	base.profile = o->profile || pl->profile;
	if (!base.flashinfer)
		base.flashinfer = pl->flashinfer;
	if (!base.top && pl->top)
		base.top = pl->top;
	if (!base.rounds && pl->rounds)
		base.rounds = pl->rounds;
	const char *root = o->outdir ? o->outdir : pl->output ? pl->output : ".";
	char devname[256] = "";
	if ((rc = fleet_device(o, S, &base, devname, sizeof devname, d))) {
		fleetplan_free(pl);
		return rc;
	}
	bool mine = false;
	for (unsigned i = 0; i < pl->devices_count; i++)
		mine |= !strcmp(pl->devices[i], devname);
	if (!mine) {
		if (!o->quiet)
			gen_say(S, "tunetab: %s has no items for this process's '%s': nothing to do", o->plan,
			    devname);
		fleetplan_free(pl);
		return TT_OK;
	}
	char *dd = fleetplan_device_dir(devname);
	char *devdir = xasprintf("%s/%s", root, dd);
	free(dd);
	size_t n = pl->deployments_count, done = 0, ran = 0, failed = 0;
	char **items = xcalloc(n, sizeof *items);
	for (size_t k = 0; k < n; k++) {
		char *name = fleetplan_item_name(pl, k);
		items[k] = xasprintf("%s/items/%s", devdir, name);
		free(name);
	}
	rc = fleet_items(&base, S, pl, items, &failed, &ran, d);
	/* count again: an item another process held may have finished meanwhile. Each process
	 * marks its items done before it counts, so the last one to count sees them all. */
	for (size_t k = 0; k < n; k++)
		done += fleetplan_is_done(items[k]);
	if (!rc && done == n) {
		/* every process that sees the device complete merges: the merge is deterministic and
		 * written atomically, so two of them write the same bytes */
		rc = merge_into(S, devdir, items, n, o->quiet, d);
	} else if (!rc && !o->quiet) {
		gen_say(S, "tunetab: %zu of %zu items of '%s' done; the process that finishes the last one "
		    "merges them into %s", done, n, devname, devdir);
	}
	if (!o->quiet && failed)
		gen_say(S, "tunetab: %zu of the %zu items this process ran failed (their claims are dropped: "
		    "a re-run retries them)", failed, ran);
	for (size_t k = 0; k < n; k++)
		free(items[k]);
	free(items);
	free(devdir);
	fleetplan_free(pl);
	return rc;
}
