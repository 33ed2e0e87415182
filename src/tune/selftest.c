/* selftest.c: the flashinfer backend's self-test (selftest.h), one generate per dtype. */
#define _XOPEN_SOURCE 700
#include "tune/selftest.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "data/catalog.h"
#include "data/dtypes.h"
#include "tune/generate.h"
#include "deployment/python.h"
#include "tune/worker.h"

const char *selftest_status_name(enum selftest_status s)
{
	static const char *const names[] = {
		[ST_WORKS] = "works", [ST_UNCHECKED] = "works, output not checked",
		[ST_WRONG] = "wrong output", [ST_NO_KERNELS] = "not in this FlashInfer build",
		[ST_NOT_TIMED] = "not timed", [ST_NO_CATALOG] = "no tunetab catalog",
		[ST_UNRUNNABLE] = "FlashInfer cannot run it here",
		[ST_FAILED] = "failed", [ST_NOT_IN_BUILD] = "not in this FlashInfer build",
		[ST_CANNOT_RUN] = "cannot run on this GPU",
	};
	return names[s];
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

struct got {
	bool have, not_timed;
	struct timing_stats st;
	struct gate_wrong wrong; /* the first wrong tactic */
};

static void on_table(void *ctx, const struct generate_result *r)
{
	struct got *g = ctx;
	g->have = true;
	g->not_timed = r->not_timed;
	g->st = r->stats;
	if (r->stats.nwrong)
		g->wrong = r->stats.wrong[0];
	g->st.wrong = NULL; /* the run's, freed with it */
}

/* The first error's message (a dtype's failure, said on its line). */
static const char *first_error(const struct diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].sev == SEV_ERROR)
			return d->v[i].msg;
	return "no reason given";
}

static bool has_error(const struct diags *d, const char *id)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].sev == SEV_ERROR && !strcmp(d->v[i].id, id))
			return true;
	return false;
}

/* One dtype: a session of its own (a runner that aborts takes its worker with it). */
static int one_dtype(struct tt_data *data, const char *model, const char *python,
		     const struct dtype_info *t, const char *dir, struct selftest_report *r,
		     struct selftest_line *line, struct diags *d)
{
	struct got g = { 0 };
	struct generate_hooks hooks = { .ctx = &g, .table = on_table };
	struct generate_session S;
	memset(&S, 0, sizeof S);
	S.gpu_ids[S.ngpu_ids++] = 0;
	S.gpu_why = "";
	struct diags dd = DIAGS_INIT;
	int rc = generate_session_init(&S, data, &hooks, &dd);
	struct generate_request rq = {
		.device = "auto", .model = model, .dtype = t->name, .runner = { .max_tokens = 1 },
		.profile = true,
		.backend = "flashinfer", .python = python, .quiet = true,
	};
	generate_request_defaults(&rq);
	rq.format = "json";
	rq.timeout = 120; /* the first call of a runner may compile or load it */
	struct shard whole = { .index = 0, .count = 1 };
	char *out = xasprintf("%s/%s", dir, t->name);
	if (!rc)
		rc = generate_table(&rq, &S, &whole, out, &dd);
	free(out);
	if (!r->gpu[0] && S.started) {
		snprintf(r->gpu, sizeof r->gpu, "%s", S.wd.gpu.name);
		snprintf(r->flashinfer, sizeof r->flashinfer, "%s", S.wb.version);
		snprintf(r->torch, sizeof r->torch, "%s", S.wb.torch);
	}
	int fatal = TT_OK;
	snprintf(line->dtype, sizeof line->dtype, "%s", t->name);
	if (!rc && g.have && g.not_timed) {
		line->status = ST_NOT_TIMED;
		snprintf(line->detail, sizeof line->detail, "FlashInfer's runner ignores the tactic "
			 "(it skips profiling and sets one config): the table holds the fallback");
	} else if (!rc && g.have && g.st.nwrong) {
		line->status = ST_WRONG;
		snprintf(line->detail, sizeof line->detail, "tactic %d at GEMM%d %ld tokens: max abs "
			 "%.3g, %.3g of the reference's largest (%zu wrong; not chosen)", g.wrong.id,
			 g.wrong.stage, g.wrong.tokens, g.wrong.max_abs, g.wrong.rel, g.st.nwrong);
	} else if (!rc && g.have && g.st.gate_unchecked) {
		line->status = ST_UNCHECKED;
		snprintf(line->detail, sizeof line->detail, "%zu entries profiled; the gate: %s",
			 g.st.measured_entries + g.st.fallback_kept, g.st.unchecked_why);
	} else if (!rc && g.have) {
		line->status = ST_WORKS;
		snprintf(line->detail, sizeof line->detail, "%zu entries profiled, %zu tactics through "
			 "the gate, none wrong", g.st.measured_entries + g.st.fallback_kept,
			 g.st.gate_checked);
	} else if (has_error(&dd, "no-kernels")) {
		line->status = ST_NO_KERNELS;
		snprintf(line->detail, sizeof line->detail, "%s", first_error(&dd));
	} else if (has_error(&dd, "unrunnable")) {
		line->status = ST_UNRUNNABLE;
		snprintf(line->detail, sizeof line->detail, "%s", first_error(&dd));
	} else if (has_error(&dd, "catalog")) {
		line->status = ST_NO_CATALOG;
		snprintf(line->detail, sizeof line->detail, "%s", first_error(&dd));
	} else if (!S.started || S.backend != BACKEND_FLASHINFER) {
		/* no GPU, no FlashInfer: nothing of the test can run */
		fatal = rc ? rc : TT_GPU;
		diags_append(d, &dd);
	} else {
		line->status = ST_FAILED;
		snprintf(line->detail, sizeof line->detail, "%s", first_error(&dd));
	}
	generate_session_release(&S);
	diags_release(&dd);
	return fatal;
}

/* The other ops' runners (configs/ops; issue #39), each asked of one flashinfer worker:
 * OPTEST builds the runner, runs one small call with its fallback tactic and checks it against
 * the dequantized reference, or says why it cannot on this GPU. Lines are appended to r. */
static int other_ops(struct tt_data *data, const char *python, struct selftest_report *r,
		     struct diags *d)
{
	const char *from;
	char why[512];
	char *py = python_find(python, &from, why, sizeof why);
	char *script = py ? python_worker_script() : NULL;
	if (!py || !script) {
		free(py);
		free(script);
		return diag_error(d, TT_GPU, "python", NULL, 0, 0, "the flashinfer worker cannot start: "
				  "%s", py ? "scripts/tunetab-fi-worker.py is missing" : why);
	}
	struct worker w;
	memset(&w, 0, sizeof w);
	int rc = worker_start_python(&w, 0, 120, py, script, d);
	struct worker_backend wb;
	if (!rc && (rc = worker_who(&w, &wb, d)))
		rc = diag_error(d, TT_GPU, "python", NULL, 0, 0, "the flashinfer worker: %s", wb.why);
	for (size_t i = 0; !rc && i < data->ops.n; i++) {
		const struct op_def *op = data->ops.v[i];
		if (!strcmp(op->builder, "cutlass_moe"))
			continue; /* the dtypes above are the CUTLASS MoE's test */
		for (unsigned k = 0; !rc && k < op->runners_count; k++) {
			struct selftest_line *l = &r->v[r->n];
			memset(l, 0, sizeof *l);
			snprintf(l->dtype, sizeof l->dtype, "%s (%s)", op->id, op->runners[k].name);
			char status[32];
			rc = worker_optest(&w, op->name, op->runners[k].name, status, sizeof status,
					   l->detail, sizeof l->detail, d);
			if (rc)
				break;
			l->status = !strcmp(status, "works") ? ST_WORKS
				    : !strcmp(status, "not_in_build") ? ST_NOT_IN_BUILD
				    : !strcmp(status, "cannot_run") ? ST_CANNOT_RUN
				    : !strcmp(status, "wrong") ? ST_WRONG : ST_FAILED;
			r->n++;
		}
	}
	worker_stop(&w);
	free(py);
	free(script);
	return rc;
}

int selftest_run(struct tt_data *data, const char *model, const char *python,
		 struct selftest_report *r, struct diags *d)
{
	memset(r, 0, sizeof *r);
	int rc = TT_OK;
	if (!data->dtypes) { /* data loaded without its dtypes: loaded into it now */
		char *path = xasprintf("%s/configs/dtypes.yaml", data->root);
		rc = dtypes_load(path, &data->dtypes, d);
		free(path);
		if (rc)
			return rc;
	}
	const struct dtype_set *dtypes = data->dtypes;
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/tunetab-selftest-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		rc = diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot make a scratch folder %s",
				dir);
		free(dir);
		return rc;
	}
	size_t runners = 0;
	for (size_t i = 0; i < data->ops.n; i++)
		runners += data->ops.v[i]->runners_count;
	r->v = xcalloc(dtypes->v_count + runners + 1, sizeof *r->v);
	for (unsigned i = 0; i < dtypes->v_count && !rc; i++) {
		rc = one_dtype(data, model, python, &dtypes->v[i], dir, r, &r->v[r->n], d);
		if (!rc)
			r->n++;
	}
	if (!rc)
		rc = other_ops(data, python, r, d);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
	return rc;
}

void selftest_release(struct selftest_report *r)
{
	free(r->v);
	memset(r, 0, sizeof *r);
}
