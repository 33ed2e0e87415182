/* test_fleet.c: --shard parsing, launcher environments (Slurm, Open MPI, PMI), the local GPU,
 * and that the shards of a work list are disjoint and cover it (docs/fleet.md "Shards"). */
#include <stdlib.h>

#include "tune/fleet.h"
#include "ttest.h"

/* a fake environment: NULL-terminated name/value pairs */
static const char *const *fake;

static const char *fake_env(const char *name)
{
	for (const char *const *p = fake; p && *p; p += 2)
		if (!strcmp(p[0], name))
			return p[1];
	return NULL;
}

static int from(const char *const *env, struct shard *s)
{
	char err[256];
	fake = env;
	return fleet_shard_from_env(fake_env, s, err, sizeof err);
}

TEST(shard_option_parses)
{
	struct shard s;
	char err[256];
	CHECK(fleet_parse_shard("1/4", &s, err, sizeof err) == 0 && s.index == 1 && s.count == 4);
	CHECK_STR(s.source, "--shard");
	CHECK(fleet_parse_shard("0/1", &s, err, sizeof err) == 0 && s.count == 1 && !s.source[0]);
	const char *bad[] = { "4/4", "-1/4", "1/0", "1", "/4", "1/", "a/b", "1/4x", "0/65537", "1//4",
			      "99999999999999999999/2" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(fleet_parse_shard(bad[i], &s, err, sizeof err) == 1);
}

TEST(no_launcher_is_one_shard)
{
	struct shard s;
	static const char *const none[] = { "HOME", "/root", NULL };
	CHECK(from(none, &s) == 0 && s.index == 0 && s.count == 1);
}

TEST(slurm_tasks_only_in_a_step)
{
	struct shard s;
	static const char *const step[] = { "SLURM_PROCID", "3", "SLURM_NTASKS", "8", "SLURM_STEP_ID", "0", NULL };
	CHECK(from(step, &s) == 0 && s.index == 3 && s.count == 8);
	CHECK_STR(s.source, "SLURM_PROCID/SLURM_NTASKS");
	/* the batch script: SLURM_NTASKS is set but it is one process */
	static const char *const batch[] = { "SLURM_PROCID", "0", "SLURM_NTASKS", "8", NULL };
	CHECK(from(batch, &s) == 0 && s.count == 1);
	static const char *const batchstep[] = { "SLURM_PROCID", "0", "SLURM_NTASKS", "8", "SLURM_STEP_ID",
						  "4294967294", NULL };
	CHECK(from(batchstep, &s) == 0 && s.count == 1);
	static const char *const bad[] = { "SLURM_PROCID", "8", "SLURM_NTASKS", "8", "SLURM_STEP_ID", "1", NULL };
	CHECK(from(bad, &s) == 1);
}

TEST(slurm_array_positions)
{
	struct shard s;
	static const char *const arr[] = { "SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "4", NULL };
	CHECK(from(arr, &s) == 0 && s.index == 2 && s.count == 4);
	/* --array=1-4: ids start at 1 */
	static const char *const one[] = { "SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_COUNT", "4",
					   "SLURM_ARRAY_TASK_MIN", "1", NULL };
	CHECK(from(one, &s) == 0 && s.index == 0 && s.count == 4);
	/* --array=0-12:4: ids 0 4 8 12 */
	static const char *const step[] = { "SLURM_ARRAY_TASK_ID", "8", "SLURM_ARRAY_TASK_COUNT", "4",
					    "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_STEP", "4", NULL };
	CHECK(from(step, &s) == 0 && s.index == 2 && s.count == 4);
	static const char *const off[] = { "SLURM_ARRAY_TASK_ID", "7", "SLURM_ARRAY_TASK_COUNT", "4",
					   "SLURM_ARRAY_TASK_STEP", "4", NULL };
	CHECK(from(off, &s) == 1);
	/* an array of 3 jobs, each an srun step of 2 tasks: 6 shards */
	static const char *const both[] = { "SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "3",
					    "SLURM_PROCID", "1", "SLURM_NTASKS", "2", "SLURM_STEP_ID", "0", NULL };
	CHECK(from(both, &s) == 0 && s.index == 5 && s.count == 6);
	CHECK_STR(s.source, "SLURM_ARRAY_TASK_ID/COUNT x SLURM_PROCID/SLURM_NTASKS");
}

TEST(mpi_and_pmi)
{
	struct shard s;
	static const char *const ompi[] = { "OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2", NULL };
	CHECK(from(ompi, &s) == 0 && s.index == 1 && s.count == 2);
	CHECK_STR(s.source, "OMPI_COMM_WORLD_RANK/SIZE");
	static const char *const pmi[] = { "PMI_RANK", "0", "PMI_SIZE", "3", NULL };
	CHECK(from(pmi, &s) == 0 && s.index == 0 && s.count == 3);
	static const char *const half[] = { "PMI_RANK", "0", NULL };
	CHECK(from(half, &s) == 1);
	static const char *const junk[] = { "OMPI_COMM_WORLD_RANK", "x", "OMPI_COMM_WORLD_SIZE", "2", NULL };
	CHECK(from(junk, &s) == 1);
}

TEST(local_gpu)
{
	const char *why;
	static const char *const bound[] = { "CUDA_VISIBLE_DEVICES", "3", "SLURM_LOCALID", "1", NULL };
	fake = bound;
	CHECK_INT(fleet_local_gpu(fake_env, &why), 0);
	CHECK_STR(why, "CUDA_VISIBLE_DEVICES");
	static const char *const two[] = { "CUDA_VISIBLE_DEVICES", "0,1", "OMPI_COMM_WORLD_LOCAL_RANK", "1", NULL };
	fake = two;
	CHECK_INT(fleet_local_gpu(fake_env, &why), 1);
	CHECK_STR(why, "OMPI_COMM_WORLD_LOCAL_RANK");
	static const char *const slurm[] = { "SLURM_LOCALID", "3", NULL };
	fake = slurm;
	CHECK_INT(fleet_local_gpu(fake_env, &why), 3);
	static const char *const none[] = { NULL };
	fake = none;
	CHECK_INT(fleet_local_gpu(fake_env, &why), 0);
	CHECK_STR(why, "");
}

TEST(shards_partition_the_work)
{
	/* equal costs: round-robin in the plan's order */
	double eq[5] = { 1, 1, 1, 1, 1 };
	int own[64];
	fleet_assign(eq, 5, 2, own);
	CHECK(own[0] == 0 && own[1] == 1 && own[2] == 0 && own[3] == 1 && own[4] == 0);
	/* longest first, each to the least-loaded shard */
	double c[6] = { 1, 9, 4, 4, 2, 8 };
	fleet_assign(c, 6, 2, own);
	CHECK(own[1] == 0 && own[5] == 1 && own[2] == 1 && own[3] == 0 && own[4] == 1 && own[0] == 0);
	unsigned seed = 7;
	for (int count = 1; count <= 7; count++)
		for (size_t n = 0; n <= 60; n += 3) {
			double cost[64], load[8] = { 0 }, most = 0;
			for (size_t i = 0; i < n; i++) {
				seed = seed * 1103515245u + 12345u;
				cost[i] = 1 + (seed >> 16) % 1000;
				most = cost[i] > most ? cost[i] : most;
			}
			int a[64], b[64];
			fleet_assign(cost, n, count, a);
			fleet_assign(cost, n, count, b);
			for (size_t i = 0; i < n; i++) {
				CHECK(a[i] >= 0 && a[i] < count); /* every item in exactly one shard */
				CHECK_INT(a[i], b[i]);            /* the same split every time */
				load[a[i]] += cost[i];
			}
			double hi = 0, lo = 1e18;
			for (int k = 0; k < count; k++) {
				hi = load[k] > hi ? load[k] : hi;
				lo = load[k] < lo ? load[k] : lo;
			}
			if (n >= (size_t)count)
				CHECK(hi - lo <= most); /* balanced to within one item */
		}
}

TTEST_SUITE(fleet_tests) = {
	{ "shard_option_parses", shard_option_parses },
	{ "no_launcher_is_one_shard", no_launcher_is_one_shard },
	{ "slurm_tasks_only_in_a_step", slurm_tasks_only_in_a_step },
	{ "slurm_array_positions", slurm_array_positions },
	{ "mpi_and_pmi", mpi_and_pmi },
	{ "local_gpu", local_gpu },
	{ "shards_partition_the_work", shards_partition_the_work },
	TTEST_END
};
