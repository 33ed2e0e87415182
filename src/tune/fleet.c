/* fleet.c: shard arithmetic and launcher environments (docs/fleet.md "Shards"). */
#include "tune/fleet.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a non-negative decimal that fits an int; -1 when s is not one */
static long number(const char *s)
{
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end || errno || v < 0 || v > 1L << 30)
		return -1;
	return v;
}

int fleet_parse_shard(const char *s, struct shard *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->count = 1;
	const char *slash = strchr(s, '/');
	char idx[32];
	if (!slash || (size_t)(slash - s) >= sizeof idx) {
		snprintf(err, errlen, "--shard wants I/N (0 <= I < N), not '%s'", s);
		return 1;
	}
	memcpy(idx, s, (size_t)(slash - s));
	idx[slash - s] = '\0';
	long i = number(idx), n = number(slash + 1);
	if (i < 0 || n < 1 || n > FLEET_MAX_SHARDS || i >= n) {
		snprintf(err, errlen, "--shard wants I/N with 0 <= I < N <= %d, not '%s'", FLEET_MAX_SHARDS, s);
		return 1;
	}
	out->index = (int)i;
	out->count = (int)n;
	snprintf(out->source, sizeof out->source, "%s", n > 1 ? "--shard" : "");
	return 0;
}

/* rank and count from one pair of variables; 0 when the pair is absent, 1 set, -1 bad */
static int pair(fleet_env_fn env, const char *rk, const char *sz, long *rank, long *size,
		char *err, size_t errlen)
{
	const char *r = env(rk), *s = env(sz);
	if (!r && !s)
		return 0;
	*rank = number(r);
	*size = number(s);
	if (*rank < 0 || *size < 1 || *rank >= *size || *size > FLEET_MAX_SHARDS) {
		snprintf(err, errlen, "the launcher's %s='%s' and %s='%s' are not a rank below a count "
			 "(give --shard I/N)", rk, r ? r : "", sz, s ? s : "");
		return -1;
	}
	return 1;
}

int fleet_shard_from_env(fleet_env_fn env, struct shard *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->count = 1;
	long rank = 0, size = 1, ar = 0, as = 1;
	int got;
	/* a Slurm job array: the array task's position (ids may start anywhere and step) */
	if (env("SLURM_ARRAY_TASK_ID") && env("SLURM_ARRAY_TASK_COUNT")) {
		long id = number(env("SLURM_ARRAY_TASK_ID")), cnt = number(env("SLURM_ARRAY_TASK_COUNT"));
		long min = env("SLURM_ARRAY_TASK_MIN") ? number(env("SLURM_ARRAY_TASK_MIN")) : 0;
		long step = env("SLURM_ARRAY_TASK_STEP") ? number(env("SLURM_ARRAY_TASK_STEP")) : 1;
		if (id < 0 || cnt < 1 || min < 0 || step < 1 || id < min || (id - min) % step ||
		    (id - min) / step >= cnt || cnt > FLEET_MAX_SHARDS) {
			snprintf(err, errlen, "the Slurm array variables do not give a task position: "
				 "SLURM_ARRAY_TASK_ID='%s' COUNT='%s' MIN='%s' STEP='%s' (give --shard I/N)",
				 env("SLURM_ARRAY_TASK_ID"), env("SLURM_ARRAY_TASK_COUNT"),
				 env("SLURM_ARRAY_TASK_MIN") ? env("SLURM_ARRAY_TASK_MIN") : "",
				 env("SLURM_ARRAY_TASK_STEP") ? env("SLURM_ARRAY_TASK_STEP") : "");
			return 1;
		}
		ar = (id - min) / step;
		as = cnt;
	}
	/* Slurm tasks only inside a job step: the batch script has SLURM_NTASKS too, but is one
	 * process */
	const char *src = NULL;
	const char *step = env("SLURM_STEP_ID") ? env("SLURM_STEP_ID") : env("SLURM_STEPID");
	if (step && strcmp(step, "4294967294") && strcmp(step, "batch")) { /* not the batch step */
		if ((got = pair(env, "SLURM_PROCID", "SLURM_NTASKS", &rank, &size, err, errlen)) < 0)
			return 1;
		if (got)
			src = "SLURM_PROCID/SLURM_NTASKS";
	}
	if (!src) {
		if ((got = pair(env, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", &rank, &size, err, errlen)) < 0)
			return 1;
		if (got)
			src = "OMPI_COMM_WORLD_RANK/SIZE";
	}
	if (!src) {
		if ((got = pair(env, "PMI_RANK", "PMI_SIZE", &rank, &size, err, errlen)) < 0)
			return 1;
		if (got)
			src = "PMI_RANK/PMI_SIZE";
	}
	if (as * size > FLEET_MAX_SHARDS) {
		snprintf(err, errlen, "%ld array tasks x %ld processes is more than %d shards", as, size,
			 FLEET_MAX_SHARDS);
		return 1;
	}
	out->index = (int)(ar * size + rank);
	out->count = (int)(as * size);
	if (out->count > 1)
		snprintf(out->source, sizeof out->source, "%s%s%s",
			 as > 1 ? "SLURM_ARRAY_TASK_ID/COUNT" : "", as > 1 && src ? " x " : "",
			 src ? src : "");
	return 0;
}

static const double *sort_cost;

static int by_cost(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	if (sort_cost[i] != sort_cost[j])
		return sort_cost[i] > sort_cost[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

void fleet_assign(const double *cost, size_t n, int count, int *owner)
{
	if (count <= 1) {
		for (size_t i = 0; i < n; i++)
			owner[i] = 0;
		return;
	}
	size_t *order = xcalloc(n ? n : 1, sizeof *order);
	double *load = xcalloc((size_t)count, sizeof *load);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sort_cost = cost; /* qsort has no context argument in C11 */
	qsort(order, n, sizeof *order, by_cost);
	for (size_t k = 0; k < n; k++) {
		int best = 0;
		for (int s = 1; s < count; s++)
			if (load[s] < load[best])
				best = s;
		owner[order[k]] = best;
		load[best] += cost[order[k]];
	}
	free(order);
	free(load);
}

int fleet_local_gpu(fleet_env_fn env, const char **why)
{
	*why = "";
	const char *cvd = env("CUDA_VISIBLE_DEVICES");
	if (cvd && *cvd && !strchr(cvd, ',')) {
		*why = "CUDA_VISIBLE_DEVICES";
		return 0;
	}
	static const char *const local[] = { "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK",
					     "MPI_LOCALRANKID", "PMI_LOCAL_RANK" };
	for (size_t k = 0; k < sizeof local / sizeof local[0]; k++) {
		long v = number(env(local[k]));
		if (v >= 0) {
			*why = local[k];
			return (int)v;
		}
	}
	return 0;
}

int fleet_parse_gpu_list(const char *s, int *ids, size_t max, size_t *n)
{
	*n = 0;
	for (const char *p = s;;) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || v < 0 || v > 1023 || *n == max)
			return 1;
		for (size_t k = 0; k < *n; k++)
			if (ids[k] == v)
				return 1;
		ids[(*n)++] = (int)v;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return 1;
		p = end + 1;
	}
}
