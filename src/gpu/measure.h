/* measure.h: how tunetab turns launches into a result, for every backend: interleaved rounds
 * (A B C A B C ..., so clock and thermal drift hit all candidates alike), the median and its
 * 95% confidence interval, and racing. The proxy runs these rounds inside its worker, the
 * flashinfer backend from the parent one round per request; both through measure_rounds. */
#ifndef TUNETAB_MEASURE_H
#define TUNETAB_MEASURE_H

#include <stddef.h>

#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MEASURE_ROUNDS 15  /* rounds when the job does not say */
#define MEASURE_SCREEN_ROUNDS 10 /* with a screen: the screen and 9 rounds of its finalists */
#define MEASURE_RACE_MIN 5 /* racing starts after this many rounds */
#define MEASURE_SCREEN_MARGIN 0.03 /* a screen keeps near-ties of its last finalist */
#define MEASURE_SEMIFINAL 3 /* a screen's first cut keeps this many times keep */
#define MEASURE_FINAL_MARGIN 0.05 /* the second cut drops who is this far behind the fastest
				   * full sample: it races on for nothing (issue #30) */
#define MEASURE_INDIFFERENCE 0.005 /* a screened race stops timing who can beat the leader by
				    * no more than this */
#define MEASURE_SCREENED_OUT "screened out" /* the why of a candidate a screen dropped */
#define MEASURE_SEQ_MIN 3 /* method 3 ("sequential") tests from this many paired samples on */

/* Round r: times each of idx[0..k) once (in that order) and writes its time per call, in us,
 * to us[0..k). Returns 0, or nonzero to stop (the callback keeps its own error). */
typedef int (*measure_round_fn)(void *ctx, int r, const size_t *idx, size_t k, double *us);

/* Times the candidates i with out[i].status == PROF_OK over `rounds` rounds (0: the default)
 * and fills their median, interval and sample count. A time below 0 from the callback marks
 * that candidate failed (the callback has written out[i].why). keep > 0 screens in two cuts:
 * after the first round (a screening sample, which may be taken with fewer calls) the
 * keep x MEASURE_SEMIFINAL fastest candidates, and any within MEASURE_SCREEN_MARGIN of the
 * slowest of those, go on; after the second round (their first full sample) the keep fastest
 * of those and their near-ties the same way, but none more than MEASURE_FINAL_MARGIN behind the
 * fastest of them. The rounds after the screening one make the
 * results: a semifinalist's screening time is left in out[i].median_us for the callback to size
 * its samples by. The candidates dropped keep their one sample (their full one after the
 * second cut), status PROF_OK and why MEASURE_SCREENED_OUT: timed, but not well enough to be
 * chosen (measure_screened_out). Method 0 races: from round
 * MEASURE_RACE_MIN on, a candidate whose interval lies wholly above the leader's is dropped
 * (it can neither win nor tie), after a screen also one whose interval starts less than
 * MEASURE_INDIFFERENCE below the leader's end (it could win by no more than that), and the
 * rounds end when one is left; its samples so far stay its result. Method 3 ("sequential",
 * issue #40) races by a paired test instead: from MEASURE_SEQ_MIN samples on, each round's
 * time of a candidate over the leader's in the same round (the rounds interleave, so drift
 * cancels) gives a mean log ratio and its one-sided 95% Student-t bound; a candidate is dropped
 * when it is slower than the leader with that confidence, or when its two-sided 90% interval
 * lies within +-MEASURE_INDIFFERENCE (it can win by no more than that); the rounds end when one
 * is left, so a clear race ends after MEASURE_SEQ_MIN rounds and a close one runs on to
 * `rounds`. Method 2 ("full") runs every round for every candidate; method 1 (FlashInfer's
 * own measurement, one sample) runs one round. Returns the callback's nonzero status. */
/* rounds 0 is MEASURE_ROUNDS, or MEASURE_SCREEN_ROUNDS with a screen. */
int measure_rounds(struct prof_result *out, size_t n, int rounds, int method, int keep,
		   measure_round_fn round, void *ctx);

/* 1 when r is a candidate a screen dropped. */
int measure_screened_out(const struct prof_result *r);

/* Sorts v and gives its median and the order-statistic 95% interval of the median
 * (n/2 -+ 0.98 sqrt(n)). */
void measure_median_ci(double *v, size_t n, double *med, double *lo, double *hi);

#ifdef __cplusplus
}
#endif

#endif
