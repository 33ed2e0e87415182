/* test_measure.c: measure.c's rounds on made-up times: medians and intervals, racing, the
 * screen (who goes on, what the others keep), a candidate that fails while timed. */
#include <math.h>
#include <string.h>

#include "gpu/measure.h"
#include "ttest.h"

/* times[i] plus a small deterministic wobble; fail_at: candidate that fails in round 2 */
struct fake {
	double times[8];
	double screen[8]; /* > 0: candidate i's time in round 0 (a screening sample) instead */
	double wobble; /* 0: 0.1% steps */
	int fail_at;
	int calls[8];
	int rounds_seen;
	size_t last_k;
};

static int fake_round(void *vp, int r, const size_t *idx, size_t k, double *us)
{
	struct fake *f = vp;
	f->rounds_seen = r + 1;
	f->last_k = k;
	for (size_t j = 0; j < k; j++) {
		size_t i = idx[j];
		f->calls[i]++;
		double t = r == 0 && f->screen[i] > 0 ? f->screen[i] : f->times[i];
		us[j] = t * (1.0 + (f->wobble ? f->wobble : 0.001) * ((r * 7 + (int)i) % 5));
		if ((int)i == f->fail_at && r == 2)
			us[j] = -1;
	}
	return 0;
}

static void reset(struct prof_result *out, size_t n)
{
	memset(out, 0, n * sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[i].id = (int)i, out[i].status = PROF_OK;
}

TEST(measure_median_interval)
{
	double v[] = { 5, 1, 4, 2, 3 }, med, lo, hi;
	measure_median_ci(v, 5, &med, &lo, &hi);
	CHECK(med == 3);
	CHECK(lo <= med && med <= hi);
	CHECK(lo == 1 && hi == 5); /* 5 samples: the interval is the whole range */
}

TEST(measure_full_runs_every_round)
{
	struct fake f = { .times = { 10, 20, 30 }, .fail_at = -1 };
	struct prof_result out[3];
	reset(out, 3);
	CHECK_INT(measure_rounds(out, 3, 9, 2, 0, fake_round, &f), 0);
	for (int i = 0; i < 3; i++) {
		CHECK_INT(out[i].n, 9);
		CHECK(fabs(out[i].median_us - f.times[i]) < 0.01 * f.times[i]);
		CHECK(out[i].lo_us <= out[i].median_us && out[i].median_us <= out[i].hi_us);
	}
}

TEST(measure_racing_drops_the_slow)
{
	struct fake f = { .times = { 10, 10.005, 30 }, .fail_at = -1 };
	struct prof_result out[3];
	reset(out, 3);
	CHECK_INT(measure_rounds(out, 3, 15, 0, 0, fake_round, &f), 0);
	CHECK_INT(out[2].n, MEASURE_RACE_MIN); /* wholly above the leader from round 5 on */
	CHECK(out[0].n > MEASURE_RACE_MIN);
}

TEST(measure_screen_keeps_the_fastest)
{
	/* 8 candidates, keep 2: the first cut keeps 2 x MEASURE_SEMIFINAL = 6 (0, 1, 5, 2, 3,
	 * 4), the second, on their first full sample, 0 and 1, and 5 too (within the margin of
	 * the 2nd, and less than MEASURE_FINAL_MARGIN behind the 1st) */
	struct fake f = { .times = { 10, 10.3, 20, 30, 40, 10.4, 50, 60 }, .fail_at = -1 };
	struct prof_result out[8];
	reset(out, 8);
	CHECK_INT(measure_rounds(out, 8, 9, 0, 2, fake_round, &f), 0);
	for (int i = 0; i < 8; i++) {
		int finalist = i == 0 || i == 1 || i == 5, semifinalist = i < 6;
		CHECK_INT(measure_screened_out(&out[i]), !finalist);
		CHECK_INT(out[i].status, PROF_OK);
		if (!finalist) {
			CHECK_INT(out[i].n, 1); /* its last sample is its result */
			CHECK_INT(f.calls[i], semifinalist ? 2 : 1);
			CHECK(fabs(out[i].median_us - f.times[i]) < 0.01 * f.times[i]);
		}
	}
	/* the finalists' results come from the rounds after the screen (8 of 9 at most) */
	CHECK(out[0].n >= 1 && out[0].n <= 8);
	CHECK(fabs(out[0].median_us - 10) < 0.1);
}

TEST(measure_final_margin_drops_the_far_behind)
{
	/* as above, but 5's first full sample (10.62) is a near-tie of the 2nd (10.33, within
	 * MEASURE_SCREEN_MARGIN) and more than MEASURE_FINAL_MARGIN behind the 1st (10.02): it
	 * races no further, its full sample its result */
	struct fake f = { .times = { 10, 10.3, 20, 30, 40, 10.6, 50, 60 }, .fail_at = -1 };
	struct prof_result out[8];
	reset(out, 8);
	CHECK_INT(measure_rounds(out, 8, 9, 0, 2, fake_round, &f), 0);
	CHECK_INT(measure_screened_out(&out[0]), 0);
	CHECK_INT(measure_screened_out(&out[1]), 0);
	CHECK_INT(measure_screened_out(&out[5]), 1);
	CHECK_INT(f.calls[5], 2);
	CHECK_INT(out[5].n, 1);
	CHECK(fabs(out[5].median_us - 10.6) < 0.01 * 10.6);
	/* the margin never drops the fastest: with one semifinalist left it goes on alone */
	CHECK(out[0].n > 1);
}

TEST(measure_second_cut_rescues_a_misjudged_screen)
{
	/* candidate 5 is the fastest (9) but its screening sample (14) ranks 6th: the first cut
	 * (keep 2: 6 semifinalists) lets it through, its full sample puts it first, it wins; 6
	 * (screened at 15, 7th) is dropped at the first cut whatever it is */
	struct fake f = { .times = { 10, 11, 12, 13, 13.5, 9, 8, 20 },
			  .screen = { 10, 11, 12, 13, 13.5, 14, 15, 20 }, .fail_at = -1 };
	struct prof_result out[8];
	reset(out, 8);
	CHECK_INT(measure_rounds(out, 8, 9, 0, 2, fake_round, &f), 0);
	CHECK_INT(measure_screened_out(&out[5]), 0);
	CHECK(fabs(out[5].median_us - 9) < 0.1);
	CHECK_INT(measure_screened_out(&out[6]), 1);
	CHECK_INT(f.calls[6], 1);
	for (int i = 0; i < 8; i++)
		if (i != 5 && !measure_screened_out(&out[i]))
			CHECK(out[i].median_us > out[5].median_us);
}

TEST(measure_screened_race_stops_near_ties)
{
	/* after a screen: 1 can beat 0 by no more than MEASURE_INDIFFERENCE, so it stops at
	 * the first racing round; 2 (2% slower) lies wholly above; the rounds end there */
	struct fake f = { .times = { 10, 10.02, 10.2 }, .fail_at = -1 };
	struct prof_result out[3];
	reset(out, 3);
	CHECK_INT(measure_rounds(out, 3, 0, 0, 3, fake_round, &f), 0);
	CHECK_INT(out[1].n, MEASURE_RACE_MIN - 1); /* racing samples, after the screen */
	CHECK_INT(out[2].n, MEASURE_RACE_MIN - 1);
	CHECK_INT(f.rounds_seen, MEASURE_RACE_MIN);
	/* without a screen the same near-tie races on to the last round */
	struct fake g = { .times = { 10, 10.02 }, .fail_at = -1 };
	reset(out, 2);
	CHECK_INT(measure_rounds(out, 2, 0, 0, 0, fake_round, &g), 0);
	CHECK_INT(g.rounds_seen, MEASURE_ROUNDS);
}

TEST(measure_screen_default_rounds)
{
	/* two equal candidates, too noisy (1% steps) to be near-ties: a screen's rounds end at
	 * MEASURE_SCREEN_ROUNDS */
	struct fake f = { .times = { 10, 10 }, .wobble = 0.01, .fail_at = -1 };
	struct prof_result out[2];
	reset(out, 2);
	CHECK_INT(measure_rounds(out, 2, 0, 0, 2, fake_round, &f), 0);
	CHECK_INT(f.rounds_seen, MEASURE_SCREEN_ROUNDS);
	CHECK_INT(out[0].n + 1, f.rounds_seen);
}

TEST(measure_failure_while_timed)
{
	struct fake f = { .times = { 10, 12, 14 }, .fail_at = 1 };
	struct prof_result out[3];
	reset(out, 3);
	snprintf(out[1].why, sizeof out[1].why, "raised");
	CHECK_INT(measure_rounds(out, 3, 6, 2, 0, fake_round, &f), 0);
	CHECK_INT(out[1].status, PROF_FAILED);
	CHECK_INT(f.calls[1], 3); /* not asked again after it failed */
	CHECK_INT(out[0].n, 6);
	CHECK_STR(out[1].why, "raised");
}

TEST(measure_flashinfer_method_one_round)
{
	struct fake f = { .times = { 10, 12 }, .fail_at = -1 };
	struct prof_result out[2];
	reset(out, 2);
	CHECK_INT(measure_rounds(out, 2, 15, 1, 4, fake_round, &f), 0);
	CHECK_INT(f.rounds_seen, 1);
	CHECK_INT(out[0].n, 1);
	CHECK_INT(measure_screened_out(&out[0]), 0);
}


/* method 3 ("sequential", issue #40): a paired test on each round's times */
TEST(measure_sequential_stops_a_clear_race_early)
{
	struct fake f = { .times = { 10, 20, 30 }, .fail_at = -1 };
	struct prof_result out[3];
	reset(out, 3);
	CHECK_INT(measure_rounds(out, 3, 15, 3, 0, fake_round, &f), 0);
	CHECK_INT(f.rounds_seen, MEASURE_SEQ_MIN); /* both slower with confidence at once */
	CHECK_INT(out[1].n, MEASURE_SEQ_MIN);
	CHECK(out[0].median_us < out[1].median_us);
}

TEST(measure_sequential_drops_an_indifferent_tie)
{
	/* 0.1% apart, 0.1%-step wobble: it cannot win by more than MEASURE_INDIFFERENCE */
	struct fake f = { .times = { 10, 10.01 }, .fail_at = -1 };
	struct prof_result out[2];
	reset(out, 2);
	CHECK_INT(measure_rounds(out, 2, 15, 3, 0, fake_round, &f), 0);
	CHECK(f.rounds_seen < 15);
	CHECK(out[0].median_us < out[1].median_us);
}

TEST(measure_sequential_runs_a_noisy_race_longer)
{
	/* 1% apart under 3%-step noise: not separated after 3 rounds, the race goes on */
	struct fake f = { .times = { 10, 10.1 }, .wobble = 0.03, .fail_at = -1 };
	struct prof_result out[2];
	reset(out, 2);
	CHECK_INT(measure_rounds(out, 2, 15, 3, 0, fake_round, &f), 0);
	CHECK(f.rounds_seen > MEASURE_SEQ_MIN);
	struct fake g = { .times = { 10, 10.1 }, .wobble = 0.0005, .fail_at = -1 };
	reset(out, 2);
	CHECK_INT(measure_rounds(out, 2, 15, 3, 0, fake_round, &g), 0);
	CHECK_INT(g.rounds_seen, MEASURE_SEQ_MIN); /* the same gap under small noise: at once */
	CHECK(out[0].median_us < out[1].median_us);
}

TTEST_SUITE(measure_tests) = {
	{ "measure_median_interval", measure_median_interval },
	{ "measure_full_runs_every_round", measure_full_runs_every_round },
	{ "measure_racing_drops_the_slow", measure_racing_drops_the_slow },
	{ "measure_screen_keeps_the_fastest", measure_screen_keeps_the_fastest },
	{ "measure_final_margin_drops_the_far_behind", measure_final_margin_drops_the_far_behind },
	{ "measure_second_cut_rescues_a_misjudged_screen", measure_second_cut_rescues_a_misjudged_screen },
	{ "measure_screened_race_stops_near_ties", measure_screened_race_stops_near_ties },
	{ "measure_screen_default_rounds", measure_screen_default_rounds },
	{ "measure_failure_while_timed", measure_failure_while_timed },
	{ "measure_flashinfer_method_one_round", measure_flashinfer_method_one_round },
	{ "measure_sequential_stops_a_clear_race_early", measure_sequential_stops_a_clear_race_early },
	{ "measure_sequential_drops_an_indifferent_tie", measure_sequential_drops_an_indifferent_tie },
	{ "measure_sequential_runs_a_noisy_race_longer", measure_sequential_runs_a_noisy_race_longer },
	TTEST_END,
};
