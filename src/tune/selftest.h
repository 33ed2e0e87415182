/* selftest.h: the flashinfer backend on this GPU, one small entry per dtype (issue #29):
 * whether each dtype's runner builds, is timed and computes the right answer here. */
#ifndef TUNETAB_SELFTEST_H
#define TUNETAB_SELFTEST_H

#include <stddef.h>

#include "base/diag.h"
#include "data/data.h"

enum selftest_status {
	ST_WORKS,        /* built, timed, and the gate found the chosen tactics right */
	ST_UNCHECKED,    /* built and timed; the gate could not judge (it says why) */
	ST_WRONG,        /* a tactic computed a wrong answer (the gate kept it out) */
	ST_NO_KERNELS,   /* this FlashInfer build aborted building the runner */
	ST_NOT_TIMED,    /* the runner ignores the tactic (the catalog's tactic_ignored) */
	ST_NO_CATALOG,   /* tunetab has no tactic list for it on this SM */
	ST_UNRUNNABLE,   /* FlashInfer lists tactics but can dispatch none on this SM */
	ST_FAILED,       /* anything else went wrong: detail says what */
	ST_NOT_IN_BUILD, /* this FlashInfer has no such op or runner (another op, issue #39) */
	ST_CANNOT_RUN,   /* the op's modules are not built for this GPU's SM */
};

struct selftest_line {
	char dtype[64];              /* the dtype, or for another op "op (runner)" */
	enum selftest_status status;
	char detail[480];
};

struct selftest_report {
	char gpu[256];
	char flashinfer[64], torch[64];
	struct selftest_line *v;
	size_t n;
};

/* Every dtype of configs/dtypes.yaml in turn, then every runner of the other ops of configs/ops
 * (OPTEST: builds, runs and checks one small call, or says why it cannot here): `model` (a catalog name) at bucket 1 (both GEMM
 * stages), profiled with the flashinfer backend through python (NULL: generate's default)
 * and the gate, in a worker of its own, into a scratch folder removed afterwards. d receives
 * what stopped the test itself (no GPU, no FlashInfer), not a dtype's failure. */
int selftest_run(struct tt_data *data, const char *model, const char *python,
		 struct selftest_report *r, struct diags *d);
void selftest_release(struct selftest_report *r);
const char *selftest_status_name(enum selftest_status s);

#endif
