/* plan.c: fleet plans (docs/fleet.md "Plans"), loaded strictly with libcyaml, and the claim
 * files through which processes share their items. */
#include "data/fleetplan.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "data/firules.h"
#include "data/yamlload.h"

static const cyaml_schema_value_t device_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, 256),
};

static const cyaml_schema_field_t deployment_fields[] = {
	CYAML_FIELD_STRING_PTR("model", CYAML_FLAG_POINTER, struct fleet_plan_item, model, 1, 256),
	CYAML_FIELD_STRING_PTR("dtype", CYAML_FLAG_POINTER, struct fleet_plan_item, dtype, 1, 32),
	CYAML_FIELD_UINT("tp", CYAML_FLAG_OPTIONAL, struct fleet_plan_item, tp),
	CYAML_FIELD_UINT("ep", CYAML_FLAG_OPTIONAL, struct fleet_plan_item, ep),
	CYAML_FIELD_UINT("max_tokens", CYAML_FLAG_OPTIONAL, struct fleet_plan_item, max_tokens),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t deployment_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct fleet_plan_item, deployment_fields),
};

static const cyaml_schema_field_t plan_fields[] = {
	CYAML_FIELD_STRING_PTR("flashinfer", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct fleet_plan,
			       flashinfer, 1, 32),
	CYAML_FIELD_STRING_PTR("output", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct fleet_plan, output,
			       1, 4096),
	CYAML_FIELD_BOOL("profile", CYAML_FLAG_OPTIONAL, struct fleet_plan, profile),
	CYAML_FIELD_UINT("top", CYAML_FLAG_OPTIONAL, struct fleet_plan, top),
	CYAML_FIELD_UINT("rounds", CYAML_FLAG_OPTIONAL, struct fleet_plan, rounds),
	CYAML_FIELD_SEQUENCE("devices", CYAML_FLAG_POINTER, struct fleet_plan, devices, &device_schema, 1, 64),
	CYAML_FIELD_SEQUENCE("deployments", CYAML_FLAG_POINTER, struct fleet_plan, deployments,
			     &deployment_schema, 1, 1000),
	CYAML_FIELD_END
};

static const struct yaml_kind doc_kind =
	YAML_KIND(doc_kind, "plan", struct fleet_plan, plan_fields);

void fleetplan_free(struct fleet_plan *p)
{
	yaml_kind_free(&doc_kind, p);
}

int fleetplan_load(const char *path, const struct device_set *devices, struct fleet_plan **out, struct diags *d)
{
	*out = NULL;
	struct fleet_plan *p;
	int rc = yaml_kind_load(path, &doc_kind, (void **)&p, d);
	if (rc)
		return rc;
	char yp[96];
	for (unsigned i = 0; i < p->devices_count && !rc; i++) {
		const struct device_profile *dp = device_find(devices, p->devices[i]);
		snprintf(yp, sizeof yp, "plan.devices[%u]", i);
		if (!dp)
			rc = yaml_error_at(d, path, yp, "unknown device '%s' (tunetab devices lists them)",
					   p->devices[i]);
		else if (strcmp(dp->name, p->devices[i]))
			rc = yaml_error_at(d, path, yp, "give the exact device name '%s', not '%s' (the "
					   "name each process compares with its GPU's)", dp->name, p->devices[i]);
		for (unsigned j = 0; j < i && !rc; j++)
			if (!strcmp(p->devices[j], p->devices[i]))
				rc = yaml_error_at(d, path, yp, "device '%s' is listed twice", p->devices[i]);
	}
	for (unsigned i = 0; i < p->deployments_count && !rc; i++) {
		const struct fleet_plan_item *x = &p->deployments[i];
		snprintf(yp, sizeof yp, "plan.deployments[%u]", i);
		if (x->tp > 1024 || x->ep > 1024)
			rc = yaml_error_at(d, path, yp, "tp and ep must be at most 1024");
		for (const char *c = x->model; !rc && *c; c++)
			if (*c == '/' || *c == '\n')
				rc = yaml_error_at(d, path, yp, "model must be a model name, not a path");
		for (unsigned j = 0; j < i && !rc; j++) {
			const struct fleet_plan_item *y = &p->deployments[j];
			if (!strcmp(x->model, y->model) && !strcmp(x->dtype, y->dtype) &&
			    (x->tp ? x->tp : 1) == (y->tp ? y->tp : 1) &&
			    (x->ep ? x->ep : 1) == (y->ep ? y->ep : 1) && x->max_tokens == y->max_tokens)
				rc = yaml_error_at(d, path, yp, "the same deployment as deployments[%u]", j);
		}
	}
	if (rc) {
		fleetplan_free(p);
		return rc;
	}
	*out = p;
	return TT_OK;
}

char *fleetplan_item_name(const struct fleet_plan *p, size_t k)
{
	const struct fleet_plan_item *x = &p->deployments[k];
	char *s = xasprintf("%02zu-%s-%s-tp%u-ep%u", k, x->model, x->dtype, x->tp ? x->tp : 1,
			    x->ep ? x->ep : 1);
	for (char *c = s; *c; c++)
		if (*c == ' ')
			*c = '_';
	return s;
}

char *fleetplan_device_dir(const char *device)
{
	char *s = firules_device_part(device);
	for (char *c = s; *c; c++) /* a folder's name, so no '/' either */
		if (*c == '/')
			*c = '_';
	return s;
}

bool fleetplan_is_done(const char *dir)
{
	char *p = xasprintf("%s/.done", dir);
	bool done = access(p, F_OK) == 0;
	free(p);
	return done;
}

/* "host pid" of this process */
static void me(char *buf, size_t len)
{
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	snprintf(buf, len, "%s %ld\n", host, (long)getpid());
}

int fleetplan_claim(const char *dir, char *holder, size_t holder_len)
{
	holder[0] = '\0';
	if (fleetplan_is_done(dir))
		return CLAIM_DONE;
	int err = mkdir_p(dir);
	if (err)
		return -err;
	char *path = xasprintf("%s/.claim", dir);
	char mine[320];
	me(mine, sizeof mine);
	for (int attempt = 0; attempt < 2; attempt++) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd >= 0) {
			ssize_t w = write(fd, mine, strlen(mine));
			int bad = w != (ssize_t)strlen(mine) || fsync(fd);
			close(fd);
			free(path);
			return bad ? -EIO : CLAIM_TAKEN;
		}
		if (errno != EEXIST) {
			err = errno;
			free(path);
			return -err;
		}
		char *text = NULL;
		size_t len;
		if (read_file(path, 4096, &text, &len)) {
			free(path);
			return -EIO;
		}
		snprintf(holder, holder_len, "%.*s", (int)strcspn(text, "\n"), text);
		char host[256] = "", myhost[256] = "";
		long pid = 0;
		gethostname(myhost, sizeof myhost - 1);
		bool stale = sscanf(text, "%255s %ld", host, &pid) == 2 && !strcmp(host, myhost) &&
			     pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
		free(text);
		if (!stale || fleetplan_is_done(dir))
			break;
		unlink(path); /* its process is gone: take it over */
	}
	free(path);
	return fleetplan_is_done(dir) ? CLAIM_DONE : CLAIM_HELD;
}

void fleetplan_unclaim(const char *dir)
{
	char *path = xasprintf("%s/.claim", dir);
	unlink(path);
	free(path);
}

int fleetplan_finish(const char *dir)
{
	char *path = xasprintf("%s/.done", dir);
	int err = write_file_atomic(path, "done\n", 5, 0644);
	free(path);
	if (!err)
		fleetplan_unclaim(dir);
	return err ? -err : 0;
}
