/* fleet.h: a run split across processes (docs/fleet.md "Shards"): --shard I/N, the rank and
 * count a launcher (Slurm, Open MPI, PMI) gives a process, and the GPU it should use. Pure
 * logic over an environment lookup, so tests can hand it any environment. */
#ifndef TUNETAB_FLEET_H
#define TUNETAB_FLEET_H

#include <stddef.h>

struct shard {
	int index, count;     /* 0 and 1: the whole work list */
	char source[96];      /* "--shard", "SLURM_PROCID/SLURM_NTASKS", ...; "" when not sharded */
};

/* Looks an environment variable up (getenv, or a test's table). */
typedef const char *(*fleet_env_fn)(const char *name);

/* "I/N" with 0 <= I < N <= FLEET_MAX_SHARDS. Returns 0, or 1 with a reason in err. */
#define FLEET_MAX_SHARDS 65536
int fleet_parse_shard(const char *s, struct shard *out, char *err, size_t errlen);

/* The rank and count a launcher set, in the order docs/fleet.md lists. Returns 0 with
 * out->count == 1 when none is set, 0 with the shard when one is, 1 with a reason in err
 * when the variables contradict each other (a rank beyond the count, not a number). */
int fleet_shard_from_env(fleet_env_fn env, struct shard *out, char *err, size_t errlen);

/* The GPU index this process should use: the only one CUDA_VISIBLE_DEVICES leaves, else the
 * launcher's local rank, else 0. *why names the source ("SLURM_LOCALID", ...; "" for 0). */
int fleet_local_gpu(fleet_env_fn env, const char **why);

/* Splits n work items with the given costs into count shards: longest first, each to the
 * shard with the least cost so far (ties: the lower item index, the lower shard). owner[i] gets
 * item i's shard. The result depends only on the costs, so every process that computes the
 * same costs gets the same split: disjoint shards that cover every item. */
void fleet_assign(const double *cost, size_t n, int count, int *owner);

/* --devices "0,2,3" -> {0,2,3} (at most max distinct indices below 1024). Returns 0, or 1 on
 * anything else. */
int fleet_parse_gpu_list(const char *s, int *ids, size_t max, size_t *n);

#endif
