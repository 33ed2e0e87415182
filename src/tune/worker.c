/* worker.c: the profiling worker processes, the parent's side of their line protocol and its
 * watchdog, and tunetab's own worker (`tunetab __worker`).
 *
 * The protocol's messages, both directions, are one table (wire.c, the generic writer and
 * reader; scripts/tunetab-fi-worker.py's MESSAGES for the flashinfer worker), listed in
 * docs/development.md "The worker protocol". In short, every line is "VERB v=3 NAME=VALUE ...
 * [-- ITEM ...]":
 *   start-up   WHO -> WHO; INFO -> DEV; LOAD (flashinfer worker) -> NOTE ..., OK
 *   tunetab's own worker (proxy and fake backends) runs whole jobs, rounds included:
 *              JOB -> START, RES per candidate, END; CAL -> CAL
 *   the flashinfer worker is driven a round at a time, so the rounds, intervals and racing
 *   stay measure.c's: PREP -> START, READY or RES per candidate, END; ROUND -> START, T (or
 *   F: FlashInfer raised) per candidate, END; GATE -> START, G ... until one is not bad, END;
 *   the other ops' OPTEST -> OPTEST and OPPROF -> OPPROF
 *   any request -> ERR (refused; the text after "--") or FAULT (a CUDA error after START: that
 *   candidate broke the context; the worker exits and the parent restarts it) */
#include "tune/worker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tune/backend.h"
#include "tune/wire.h"
#include "gpu/measure.h"
#include "base/util.h"

/* --- parent side ----------------------------------------------------------------------- */

static int spawn(struct worker *w, struct diags *d)
{
	int in[2], out[2];
	if (pipe(in) || pipe(out))
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "pipe: %s", strerror(errno));
	char *exe = w->python ? NULL : self_exe_path();
	if (!w->python && !exe)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "cannot find tunetab's own binary");
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		free(exe);
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		char dev[16];
		snprintf(dev, sizeof dev, "%d", w->device);
		if (w->python)
			execl(w->python, w->python, w->script, dev, (char *)NULL);
		else
			execl(exe, "tunetab", "__worker", dev, (char *)NULL);
		_exit(127);
	}
	free(exe);
	close(in[0]);
	close(out[1]);
	w->pid = pid;
	w->to = in[1];
	w->from = out[0];
	signal(SIGPIPE, SIG_IGN);
	return TT_OK;
}

int worker_start(struct worker *w, int device, double timeout_s, struct diags *d)
{
	memset(w, 0, sizeof *w);
	w->device = device;
	w->timeout_s = timeout_s;
	w->pid = -1;
	return spawn(w, d);
}

int worker_start_python(struct worker *w, int device, double timeout_s, const char *python,
			const char *script, struct diags *d)
{
	memset(w, 0, sizeof *w);
	w->device = device;
	w->timeout_s = timeout_s;
	w->pid = -1;
	w->python = xstrdup(python);
	w->script = xstrdup(script);
	return spawn(w, d);
}

/* grace_ms > 0: the worker may exit by itself on end of input for that long (a Python worker
 * writes its TUNETAB_PROF_TIMING summary then) before it is killed. */
static void close_worker(struct worker *w, bool wait, int grace_ms)
{
	if (w->pid <= 0)
		return;
	close(w->to);
	close(w->from);
	bool gone = false;
	for (int t = 0; t < grace_ms && !gone; t += 10) {
		gone = waitpid(w->pid, NULL, WNOHANG) == w->pid;
		if (!gone)
			nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	if (!gone) {
		kill(w->pid, SIGKILL);
		if (wait)
			waitpid(w->pid, NULL, 0);
	}
	w->pid = -1;
}

/* TUNETAB_PROF_TIMING: a Python worker writes where its time went as it exits */
static int timing_grace(const struct worker *w)
{
	return w->python && getenv("TUNETAB_PROF_TIMING") ? 2000 : 0;
}

void worker_stop(struct worker *w)
{
	close_worker(w, true, timing_grace(w));
	free(w->python);
	free(w->script);
	w->python = w->script = NULL;
}

void worker_detach(struct worker *w)
{
	close_worker(w, false, timing_grace(w));
	free(w->python);
	free(w->script);
	w->python = w->script = NULL;
}

static int restart(struct worker *w, struct diags *d)
{
	close_worker(w, true, 0);
	w->restarts++;
	w->len = 0;
	w->ahead = 0;
	return spawn(w, d);
}

/* One line from the worker: 1 = line, 0 = worker gone (EOF), -1 = watchdog timeout. */
static int read_line(struct worker *w, char *line, size_t n)
{
	for (;;) {
		char *nl = memchr(w->buf, '\n', w->len);
		if (nl) {
			size_t l = (size_t)(nl - w->buf);
			if (l >= n)
				l = n - 1;
			memcpy(line, w->buf, l);
			line[l] = '\0';
			memmove(w->buf, nl + 1, w->len - (size_t)(nl - w->buf) - 1);
			w->len -= (size_t)(nl - w->buf) + 1;
			return 1;
		}
		struct pollfd p = { .fd = w->from, .events = POLLIN };
		int r = poll(&p, 1, (int)(w->timeout_s * 1000));
		if (r == 0)
			return -1;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (w->len == sizeof w->buf)
			w->len = 0; /* a runaway line: drop it */
		ssize_t got = read(w->from, w->buf + w->len, sizeof w->buf - w->len);
		if (got <= 0)
			return 0;
		w->len += (size_t)got;
	}
}

static int send_line(struct worker *w, const char *s)
{
	size_t len = strlen(s);
	while (len) {
		ssize_t k = write(w->to, s, len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += k;
		len -= (size_t)k;
	}
	return 0;
}

/* Appends the request (or reply) m with obj's fields and items[0..n) (wire_write). */
static void add_msg(struct strbuf *sb, enum wire_id id, const void *obj, const void *items,
		    size_t n)
{
	wire_write(sb, wire_msg(id), obj, NULL, items, n);
}

/* Sends a request: 0 sent, -1 the worker is gone. */
static int send_msg(struct worker *w, enum wire_id id, const void *obj, const char *extra,
		    const void *items, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	wire_write(&sb, wire_msg(id), obj, extra, items, n);
	int rc = send_line(w, sb.buf);
	sb_release(&sb);
	return rc;
}

/* What a reply says, by message (get_reply). */
union reply {
	struct wire_cand start;
	struct prof_result res;     /* RES, F */
	struct wire_ready ready;
	struct wire_time t;
	struct gate_result g;
	struct layer_result l;
	struct wire_text text;      /* NOTE, ERR, FAULT */
	struct wire_ok ok;
	struct wire_optest optest;
	struct worker_opprof opprof;
	struct worker_backend who;
	struct worker_device dev;
	struct gpu_calibration cal;
};

enum { REPLY_UNREADABLE = 2 };

/* One reply read: 1 with its message in *id and its fields in *u (a list's items in *items,
 * allocated, where items is not NULL), 0 the worker is gone, -1 it hung, REPLY_UNREADABLE a
 * line this side cannot read: why says what (another protocol version, a line that is not the
 * protocol's, a field missing). A job's loops pass over unreadable lines, as a library's
 * stray output on the worker's stdout; the one-line replies do not. */
static int get_reply(struct worker *w, union reply *u, enum wire_id *id, void **items, size_t *n,
		     char *why, size_t whylen)
{
	char line[16384], err[512];
	memset(u, 0, sizeof *u);
	int r = read_line(w, line, sizeof line);
	if (r <= 0)
		return r;
	const struct wire_msg *m = wire_identify(line, WIRE_REPLY, why, whylen);
	if (!m)
		return REPLY_UNREADABLE;
	if (wire_read(line, m, u, items, n, err, sizeof err)) {
		snprintf(why, whylen, "bad worker reply '%.200s': %s", line, err);
		return REPLY_UNREADABLE;
	}
	*id = m->id;
	return 1;
}

enum { ASK_WHO = 1, ASK_INFO = 2, ASK_LOAD = 4 };

int worker_ask_ahead(struct worker *w, const char *dtype)
{
	struct strbuf req = STRBUF_INIT;
	struct wire_load load = { dtype ? dtype : "bf16" };
	if (w->python)
		add_msg(&req, WQ_WHO, NULL, NULL, 0);
	add_msg(&req, WQ_INFO, NULL, NULL, 0);
	if (w->python)
		add_msg(&req, WQ_LOAD, &load, NULL, 0);
	w->ahead = w->python ? ASK_WHO | ASK_INFO | ASK_LOAD : ASK_INFO;
	int rc = send_line(w, req.buf);
	sb_release(&req);
	return rc;
}

/* Sends the request id (obj its fields) unless worker_ask_ahead sent it already: 0 sent, -1
 * the worker is gone. The one-line answers to requests sent ahead of it and not read (a
 * further GPU's WHO) are read and dropped first. */
static int ask(struct worker *w, unsigned which, enum wire_id id, const void *obj)
{
	char line[4096];
	for (unsigned before = 1; before < which; before <<= 1)
		if ((w->ahead & before) && read_line(w, line, sizeof line) > 0)
			w->ahead &= ~before;
	if (w->ahead & which) {
		w->ahead &= ~which;
		return 0;
	}
	return send_msg(w, id, obj, NULL, NULL, 0);
}

int worker_who(struct worker *w, struct worker_backend *o, struct diags *d)
{
	memset(o, 0, sizeof *o);
	union reply u;
	enum wire_id id;
	char why[sizeof o->why];
	int r = ask(w, ASK_WHO, WQ_WHO, NULL) ? 0 : get_reply(w, &u, &id, NULL, NULL, why, sizeof why);
	if (r <= 0) {
		snprintf(o->why, sizeof o->why, "the worker %s before it said what it is (%s)",
			 r < 0 ? "hung" : "exited", w->python ? w->python : "tunetab");
		return TT_GPU;
	}
	/* a worker of another protocol version, or one that refused tunetab's: not usable */
	if (r == REPLY_UNREADABLE || id == WR_ERR) {
		snprintf(o->why, sizeof o->why, "%.*s", (int)sizeof o->why - 1,
			 r == REPLY_UNREADABLE ? why : u.text.text);
		return TT_GPU;
	}
	if (id != WR_WHO)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad worker reply to WHO: %s",
				  wire_msg(id)->verb);
	*o = u.who;
	if (!strcmp(o->name, "none"))
		return TT_GPU;
	return TT_OK;
}

/* One request answered by one reply (the other ops' OPTEST and OPPROF): the reply in *u;
 * TT_GPU when the worker is gone, hung or died `during` it, an ERR reply as err_rc/err_id, a
 * reply other than want's TT_INTERNAL. */
static int request_reply(struct worker *w, enum wire_id req, const void *obj, const char *extra,
			 const void *items, size_t n, enum wire_id want, union reply *u,
			 int err_rc, const char *err_id, const char *during, struct diags *d)
{
	if (send_msg(w, req, obj, extra, items, n))
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker is gone");
	enum wire_id id;
	char why[1024];
	int r = get_reply(w, u, &id, NULL, NULL, why, sizeof why);
	if (r <= 0)
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker %s %s",
				  r < 0 ? "hung" : "died", during);
	if (r == REPLY_UNREADABLE)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "%s", why);
	if (id == WR_ERR)
		return diag_error(d, err_rc, err_id, NULL, 0, 0, "%s", u->text.text);
	if (id != want)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad worker reply to %s: %s",
				  wire_msg(req)->verb, wire_msg(id)->verb);
	return TT_OK;
}

int worker_optest(struct worker *w, const char *op, const char *runner, char *status,
		  size_t nstatus, char *detail, size_t ndetail, struct diags *d)
{
	char during[160];
	snprintf(during, sizeof during, "during the self-test of %s", op);
	struct wire_optest_req req = { op, runner };
	union reply u;
	int rc = request_reply(w, WQ_OPTEST, &req, NULL, NULL, 0, WR_OPTEST, &u, TT_INTERNAL,
			       "worker", during, d);
	if (rc)
		return rc;
	snprintf(status, nstatus, "%s", u.optest.status);
	snprintf(detail, ndetail, "%s", u.optest.detail);
	return TT_OK;
}

int worker_opprof(struct worker *w, const char *job_words, long bucket, int reps, bool gate,
		  const int *cands, size_t n, struct worker_opprof *o, struct diags *d)
{
	memset(o, 0, sizeof *o);
	struct wire_opprof_req req = { bucket, reps, gate ? 1 : 0 };
	struct wire_op_cand *ids = xcalloc(n ? n : 1, sizeof *ids);
	for (size_t i = 0; i < n; i++)
		ids[i].id = cands[i];
	char during[96];
	snprintf(during, sizeof during, "while measuring %ld tokens of an op", bucket);
	union reply u;
	int rc = request_reply(w, WQ_OPPROF, &req, job_words, ids, n, WR_OPPROF, &u, TT_GPU, "op",
			       during, d);
	free(ids);
	if (!rc)
		*o = u.opprof;
	return rc;
}

int worker_info(struct worker *w, struct worker_device *o, struct diags *d)
{
	memset(o, 0, sizeof *o);
	if (ask(w, ASK_INFO, WQ_INFO, NULL))
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker is gone");
	union reply u;
	enum wire_id id;
	char why[1024];
	int r = get_reply(w, &u, &id, NULL, NULL, why, sizeof why);
	if (r <= 0)
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker %s before it "
				  "reported its device", r < 0 ? "hung" : "died");
	if (r == REPLY_UNREADABLE)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "%s", why);
	if (id == WR_ERR)
		return diag_error(d, TT_GPU, "gpu", NULL, 0, 0, "%s", u.text.text);
	if (id != WR_DEV)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad worker reply to INFO: %s",
				  wire_msg(id)->verb);
	*o = u.dev;
	return TT_OK;
}

int worker_load(struct worker *w, const char *dtype, void (*note)(void *ctx, const char *text),
		void *ctx, double *seconds, struct diags *d)
{
	struct wire_load load = { dtype };
	union reply u;
	enum wire_id id;
	char why[1024];
	int r = ask(w, ASK_LOAD, WQ_LOAD, &load) ? 0 : 1;
	while (r > 0 && (r = get_reply(w, &u, &id, NULL, NULL, why, sizeof why)) > 0) {
		if (r == REPLY_UNREADABLE)
			return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "%s", why);
		if (id == WR_NOTE) {
			if (note)
				note(ctx, u.text.text);
			continue;
		}
		if (id == WR_ERR)
			return diag_error(d, TT_GPU, "flashinfer", NULL, 0, 0, "%s", u.text.text);
		if (id == WR_OK) {
			*seconds = u.ok.seconds;
			return TT_OK;
		}
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad worker reply to LOAD: %s",
				  wire_msg(id)->verb);
	}
	return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the worker %s while it loaded "
			  "FlashInfer's fused-MoE module (no word for %.0f s)", r < 0 ? "hung" : "died",
			  w->timeout_s);
}

/* A RES reply into the result of the candidate it names, if still pending. */
static void take_res(const struct prof_result *res, const struct prof_cand *c, size_t n,
		     char *done, struct prof_result *out)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].id == res->id && !done[i]) {
			done[i] = 1;
			out[i] = *res;
		}
}

/* What one attempt at a job ended with. */
#define NOT_STARTED (-1000000) /* attempt.last before any candidate's START */

struct attempt {
	int rc;          /* an ERR: the whole job fails */
	int r;           /* 1 finished, 0 the worker died, -1 it hung */
	int last;        /* the candidate started last (NOT_STARTED: none yet) */
	size_t batch;    /* candidates in the request that was running (a ROUND's batch) */
	char fault[96];
};

static void on_fault(struct attempt *a, const char *text)
{
	/* the started candidate broke the context; keep the CUDA error's name */
	const char *e = strstr(text, "cudaError");
	if (!e)
		e = strstr(text, "CUDA");
	snprintf(a->fault, sizeof a->fault, ": %.*s", e ? (int)strcspn(e, " (_") : 0, e ? e : "");
	a->r = 0;
}

void worker_job_line(struct strbuf *sb, const char *verb, const struct prof_shape *s,
		     const double bounds[2], const struct prof_cand *c, size_t ncand,
		     const char *done)
{
	enum wire_id id = !strcmp(verb, "JOB") ? WQ_JOB : !strcmp(verb, "GATE") ? WQ_GATE : WQ_PREP;
	struct wire_job job = { .s = *s };
	if (!s->key || !s->key_fields) /* the three go together, or none */
		job.s.key = job.s.key_fields = job.s.runner = NULL;
	if (bounds)
		job.bound = bounds[0], job.ref_bound = bounds[1];
	struct prof_cand *todo = xcalloc(ncand ? ncand : 1, sizeof *todo);
	size_t n = 0; /* the candidates still to time */
	for (size_t i = 0; i < ncand; i++)
		if (!done || !done[i])
			todo[n++] = c[i];
	add_msg(sb, id, &job, todo, n);
	free(todo);
}

/* Sends worker_job_line's line. a->r: 0 when the worker is gone. */
static void send_job(struct worker *w, const char *verb, const double bounds[2],
		     const struct prof_shape *s, const struct prof_cand *c, size_t ncand,
		     const char *done, struct attempt *a)
{
	struct strbuf job = STRBUF_INIT;
	worker_job_line(&job, verb, s, bounds, c, ncand, done);
	a->r = send_line(w, job.buf) ? 0 : 1;
	sb_release(&job);
}

/* A job's replies, one at a time: the reply's message and fields (a->r: 0 the worker died,
 * -1 it hung); lines this side cannot read are passed over. */
static bool job_reply(struct worker *w, struct attempt *a, union reply *u, enum wire_id *id)
{
	char why[1024];
	while (a->r > 0 && (a->r = get_reply(w, u, id, NULL, NULL, why, sizeof why)) > 0)
		if (a->r != REPLY_UNREADABLE)
			return true;
	return false;
}

/* A reply every job's answer may hold: START, RES, and the END, ERR (an error from `who`) or
 * FAULT that ends it. False when the job is over. */
static bool job_common(struct attempt *a, const union reply *u, enum wire_id id, const char *who,
		       const struct prof_cand *c, size_t n, char *done, struct prof_result *out,
		       struct diags *d)
{
	switch (id) {
	case WR_START:
		a->last = u->start.id;
		return true;
	case WR_RES:
		take_res(&u->res, c, n, done, out);
		return true;
	case WR_ERR:
		a->rc = diag_error(d, TT_GPU, who, NULL, 0, 0, "%s", u->text.text);
		return false;
	case WR_FAULT:
		on_fault(a, u->text.text);
		return false;
	case WR_END:
		return false;
	default:
		return true;
	}
}

/* tunetab's own worker: one JOB, rounds included. */
static void attempt_job(struct worker *w, const struct prof_shape *s, const struct prof_cand *c,
			size_t n, char *done, struct prof_result *out, struct attempt *a,
			struct diags *d)
{
	send_job(w, "JOB", NULL, s, c, n, done, a);
	union reply u;
	enum wire_id id;
	while (job_reply(w, a, &u, &id) && job_common(a, &u, id, "gpu", c, n, done, out, d))
		;
}

/* The flashinfer worker: PREP, then measure.c's rounds, one ROUND request each. */
struct py_round {
	struct worker *w;
	const struct prof_cand *c;
	const size_t *at;        /* measure index -> candidate index */
	struct prof_result *res; /* measure.c's results, for a failure's reason */
	int method, keep;
	struct attempt *a;
	struct diags *d;
};

/* One ROUND request for idx[0..k): the worker runs it as one batch on the GPU. */
static int py_round_batch(struct py_round *x, int r, const size_t *idx, size_t k, double *us)
{
	/* screening: one ~100 us sample each, and about 100 us a sample after (for a 10 us
	 * kernel the host's enqueueing, ~40 us a call, is what a round costs). The worker makes one
	 * untimed call before every sample, so each is timed back to back with its own tactic as
	 * FlashInfer's autotuner and the oracle time them (a lone call after another tactic's
	 * timed up to 30% slower on the H200 with PDL on: docs/benchmarks.md) */
	struct wire_round req = { x->method, 1 };
	struct wire_round_item *items = xcalloc(k ? k : 1, sizeof *items);
	for (size_t j = 0; j < k; j++) {
		items[j].id = x->c[x->at[idx[j]]].id;
		/* a finalist's samples: about 100 us of calls, sized by its own screening time */
		double t = x->res[idx[j]].median_us;
		if (x->keep > 0 && r > 0 && t > 0)
			items[j].reps = (int)fmin(16, fmax(1, ceil(100.0 / t)));
	}
	struct attempt *a = x->a;
	a->r = send_msg(x->w, WQ_ROUND, &req, NULL, items, k) ? 0 : 1;
	a->batch = k;
	free(items);
	size_t got = 0;
	union reply u;
	enum wire_id id;
	while (job_reply(x->w, a, &u, &id)) {
		if (id == WR_START) {
			a->last = u.start.id;
		} else if (id == WR_T) {
			for (size_t j = 0; j < k; j++)
				if (x->c[x->at[idx[j]]].id == u.t.id)
					us[j] = u.t.us, got++;
		} else if (id == WR_F) {
			/* FlashInfer raised for this candidate while it was timed */
			for (size_t j = 0; j < k; j++)
				if (x->c[x->at[idx[j]]].id == u.res.id) {
					us[j] = -1;
					got++;
					snprintf(x->res[idx[j]].why, sizeof x->res[idx[j]].why, "%s",
						 u.res.why);
				}
		} else if (id == WR_END) {
			if (got == k)
				return 0;
			a->rc = diag_error(x->d, TT_INTERNAL, "worker", NULL, 0, 0, "the worker timed "
					   "%zu of %zu candidates in a round", got, k);
			return 1;
		} else if (id == WR_ERR) {
			a->rc = diag_error(x->d, TT_GPU, "flashinfer", NULL, 0, 0, "%s", u.text.text);
			return 1;
		} else if (id == WR_FAULT) {
			on_fault(a, u.text.text);
			return 1;
		}
	}
	return 1; /* died or hung: a->r says which, a->last whom to blame */
}

static int py_round(void *vp, int r, const size_t *idx, size_t k, double *us)
{
	struct py_round *x = vp;
	if (!x->w->careful)
		return py_round_batch(x, r, idx, k, us);
	/* after a crash inside a batch: a candidate a request, so the next one names its culprit */
	for (size_t j = 0; j < k; j++)
		if (py_round_batch(x, r, idx + j, 1, us + j))
			return 1;
	return 0;
}

static void attempt_rounds(struct worker *w, const struct prof_shape *s, const struct prof_cand *c,
			   size_t n, char *done, struct prof_result *out, struct attempt *a,
			   struct diags *d)
{
	send_job(w, "PREP", NULL, s, c, n, done, a);
	/* ready[] are the prepared candidates, measured together below */
	size_t *at = xcalloc(n + 1, sizeof *at), nready = 0;
	struct prof_result *res = xcalloc(n + 1, sizeof *res);
	union reply u;
	enum wire_id id;
	while (job_reply(w, a, &u, &id)) {
		if (id != WR_READY) {
			if (!job_common(a, &u, id, "flashinfer", c, n, done, out, d))
				break;
			continue;
		}
		for (size_t i = 0; i < n; i++)
			if (c[i].id == u.ready.id && !done[i]) {
				at[nready] = i;
				res[nready] = (struct prof_result){ .id = u.ready.id, .status = PROF_OK };
				nready++;
			}
	}
	if (a->r > 0 && !a->rc && nready) {
		struct py_round x = { w, c, at, res, s->method, s->keep, a, d };
		if (measure_rounds(res, nready, s->rounds, s->method, s->keep, py_round, &x) == 0)
			for (size_t j = 0; j < nready; j++) {
				done[at[j]] = 1;
				out[at[j]] = res[j];
			}
	}
	free(at);
	free(res);
}

int worker_profile(struct worker *w, const struct prof_shape *s, const struct prof_cand *c,
		   size_t n, struct prof_result *out, struct diags *d)
{
	/* candidates still to time: a crash or hang removes the culprit and retries the rest */
	char *done = xcalloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++) {
		out[i].id = c[i].id;
		out[i].status = PROF_FAILED;
		snprintf(out[i].why, sizeof out[i].why, "not measured");
	}
	int rc = TT_OK;
	for (int attempt = 0; attempt <= (int)n && !rc; attempt++) {
		size_t pending = 0;
		for (size_t i = 0; i < n; i++)
			pending += !done[i];
		if (!pending)
			break;
		struct attempt a = { .last = NOT_STARTED };
		if (w->python)
			attempt_rounds(w, s, c, n, done, out, &a, d);
		else
			attempt_job(w, s, c, n, done, out, &a, d);
		if ((rc = a.rc) || a.r > 0)
			break;
		if (a.batch > 1 && !w->careful) {
			/* it broke inside a batch of candidates: time them one by one from now on,
			 * and the next crash names its culprit */
			w->careful = true;
			if (restart(w, d)) {
				rc = TT_GPU;
				break;
			}
			continue;
		}
		/* the worker died (r == 0) or hung (r < 0): blame the candidate it had started */
		size_t culprit = n;
		for (size_t i = 0; i < n; i++)
			if (c[i].id == a.last && !done[i])
				culprit = i;
		if (culprit == n && w->python && a.last == NOT_STARTED) {
			/* before any candidate's START: while FlashInfer built the key's runner (a
			 * FlashInfer build without this dtype's kernels aborts there, as the H200
			 * bundle's does for MXFP4 and W4A8: docs/benchmarks.md) */
			rc = diag_error(d, TT_GPU, "no-kernels", NULL, 0, 0, "the GPU worker %s while "
					"FlashInfer built the %s runner (GEMM%d, %ld tokens), before any "
					"candidate: this FlashInfer build may lack its kernels (its output "
					"above says); nothing of this dtype can be timed with it",
					a.r < 0 ? "hung" : "died", s->dtype, s->stage, s->bucket);
			break;
		}
		if (culprit == n) {
			rc = diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker %s outside any "
					"candidate", a.r < 0 ? "hung" : "died");
			break;
		}
		done[culprit] = 1;
		out[culprit].status = PROF_FAILED;
		snprintf(out[culprit].why, sizeof out[culprit].why, "%s%s",
			 a.r < 0 ? "hung: killed by the watchdog" : "crashed the GPU worker", a.fault);
		if (restart(w, d)) {
			rc = TT_GPU;
			break;
		}
	}
	free(done);
	return rc;
}

int worker_gate(struct worker *w, const struct prof_shape *s, const struct prof_cand *c, size_t n,
		const double bounds[2], struct gate_result *out, size_t *k, struct diags *d)
{
	*k = 0;
	if (!w->python)
		return diag_error(d, TT_USAGE, "worker", NULL, 0, 0, "the correctness gate runs on "
				  "the flashinfer backend's worker");
	struct attempt a = { .last = NOT_STARTED };
	send_job(w, "GATE", bounds, s, c, n, NULL, &a);
	union reply u;
	enum wire_id id;
	while (job_reply(w, &a, &u, &id)) {
		if (id == WR_START) {
			a.last = u.start.id;
		} else if (id == WR_G && *k < n) {
			out[(*k)++] = u.g;
		} else if (id == WR_END) {
			return TT_OK;
		} else if (id == WR_ERR) {
			return diag_error(d, TT_GPU, "flashinfer", NULL, 0, 0, "the correctness gate: %s",
					  u.text.text);
		} else if (id == WR_FAULT) {
			on_fault(&a, u.text.text);
			break;
		}
	}
	/* died, hung or broke the context inside a candidate's check: that one is wrong */
	if (*k < n && a.last != NOT_STARTED) {
		out[*k] = (struct gate_result){ .id = a.last, .verdict = GATE_BAD };
		snprintf(out[*k].why, sizeof out[*k].why, "%s the GPU worker in the gate%s",
			 a.r < 0 ? "hung" : "crashed", a.fault);
		(*k)++;
	}
	if (restart(w, d))
		return TT_GPU;
	return TT_OK;
}

int worker_layer(struct worker *w, const struct prof_shape *s, const struct layer_load *load,
		 const struct layer_pair *p, size_t n, struct layer_result *out, struct diags *d)
{
	if (!w->python)
		return diag_error(d, TT_USAGE, "worker", NULL, 0, 0, "the layer is timed by the "
				  "flashinfer backend's worker");
	struct wire_job job = { .s = *s, .load = load->name, .popularity = load->popularity,
				.draws = load->draws, .layer_reps = load->reps,
				.layer_rounds = load->rounds, .seed = load->seed };
	for (size_t i = 0; i < n; i++)
		out[i] = (struct layer_result){ .g1 = p[i].g1, .g2 = p[i].g2, .status = PROF_FAILED,
						.us = -1 };
	bool *got = xcalloc(n ? n : 1, sizeof *got);
	double keep = w->timeout_s;
	w->timeout_s = keep < 300 ? 300 : keep; /* a request's graphs and rounds take seconds */
	struct attempt a = { .last = NOT_STARTED };
	struct strbuf line = STRBUF_INIT;
	wire_write(&line, wire_msg(WQ_LAYER), &job, NULL, p, n);
	a.r = send_line(w, line.buf) ? 0 : 1;
	const char *trace = getenv("TUNETAB_LAYER_TRACE"); /* benchmarks re-send these requests */
	FILE *f = trace && *trace ? fopen(trace, "a") : NULL;
	if (f) {
		fputs(line.buf, f);
		fclose(f);
	}
	sb_release(&line);
	union reply u;
	enum wire_id id;
	int rc = TT_OK;
	bool ended = false;
	while (!ended && job_reply(w, &a, &u, &id)) {
		if (id == WR_L) {
			for (size_t i = 0; i < n; i++)
				if (!got[i] && out[i].g1 == u.l.g1 && out[i].g2 == u.l.g2) {
					out[i] = u.l;
					got[i] = true;
					break;
				}
		} else if (id == WR_END) {
			ended = true;
		} else if (id == WR_ERR) {
			rc = diag_error(d, TT_GPU, "flashinfer", NULL, 0, 0, "the layer's timing (%s "
					"routing, %ld tokens): %s", load->name, s->bucket, u.text.text);
			ended = true;
		} else if (id == WR_FAULT) {
			on_fault(&a, u.text.text);
			break;
		}
	}
	w->timeout_s = keep;
	if (!ended) { /* died, hung or broke the context: the pairs not answered failed */
		for (size_t i = 0; i < n; i++)
			if (!got[i])
				snprintf(out[i].why, sizeof out[i].why, "%s the GPU worker while the layer "
					 "was timed%s", a.r < 0 ? "hung" : "crashed", a.fault);
		if (restart(w, d))
			rc = TT_GPU;
	}
	free(got);
	return rc;
}

int worker_calibrate(struct worker *w, const int (*tiles)[2], int ntiles,
		     struct gpu_calibration *cal, struct diags *d)
{
	memset(cal, 0, sizeof *cal);
	if (w->python)
		return diag_error(d, TT_USAGE, "worker", NULL, 0, 0, "calibration runs on tunetab's "
				  "own worker, not the flashinfer backend");
	struct wire_tile *req = xcalloc(ntiles > 0 ? (size_t)ntiles : 1, sizeof *req);
	for (int i = 0; i < ntiles; i++)
		req[i].tile_m = tiles[i][0], req[i].tile_n = tiles[i][1];
	int bad = send_msg(w, WQ_CAL, NULL, NULL, req, ntiles > 0 ? (size_t)ntiles : 0);
	free(req);
	double keep = w->timeout_s;
	w->timeout_s = keep < 300 ? 300 : keep; /* calibration takes seconds, not milliseconds */
	union reply u;
	enum wire_id id;
	char why[1024];
	struct wire_tile *got = NULL;
	size_t n = 0;
	int r = bad ? 0 : get_reply(w, &u, &id, (void **)&got, &n, why, sizeof why);
	w->timeout_s = keep;
	if (r <= 0)
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker %s during calibration",
				  r < 0 ? "hung" : "died");
	if (r == REPLY_UNREADABLE)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad calibration reply: %s", why);
	if (id == WR_ERR)
		return diag_error(d, TT_GPU, "gpu", NULL, 0, 0, "%s", u.text.text);
	if (id != WR_CAL || n > ARRAY_SIZE(cal->tiles)) {
		free(got);
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad calibration reply");
	}
	cal->copy_gbs = u.cal.copy_gbs;
	cal->tflops_bf16 = u.cal.tflops_bf16;
	cal->tflops_fp8 = u.cal.tflops_fp8;
	cal->ntiles = (int)n;
	for (size_t i = 0; i < n; i++) {
		cal->tiles[i].m = got[i].tile_m;
		cal->tiles[i].n = got[i].tile_n;
		cal->tiles[i].eff_bf16 = got[i].eff_bf16;
		cal->tiles[i].eff_fp8 = got[i].eff_fp8;
	}
	free(got);
	return TT_OK;
}

/* --- worker side ----------------------------------------------------------------------- */

/* A reply on stdout, the worker's end of the pipe. */
static void reply(enum wire_id id, const void *obj, const void *items, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	add_msg(&sb, id, obj, items, n);
	fputs(sb.buf, stdout);
	fflush(stdout);
	sb_release(&sb);
}

/* ERR or FAULT with text */
static void reply_text(enum wire_id id, const char *text)
{
	struct wire_text t;
	snprintf(t.text, sizeof t.text, "%s", text);
	reply(id, &t, NULL, 0);
}

static void on_start(int id, void *ctx)
{
	int *started = ctx;
	*started = 1;
	reply(WR_START, &(struct wire_cand){ id }, NULL, 0);
}

/* The GPU layer's debugging lines (gpu_trace): the worker's stderr, which the parent passes
 * on to the user, is the only place they are written. */
static void trace_stderr(const char *line)
{
	fprintf(stderr, "%s\n", line);
}

bool worker_is_fake(void)
{
	const char *v = getenv("TUNETAB_FAKE_GPU");
	return v && !strcmp(v, "1");
}

int worker_visible_guess(void)
{
	if (worker_is_fake())
		return fake_gpu_count();
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	int n = 0;
	if (cvd) { /* CUDA ignores the entries after an empty one */
		for (const char *p = cvd; *p && *p != ','; n++) {
			p += strcspn(p, ",");
			p += *p == ',';
		}
		return n;
	}
	DIR *dir = opendir("/proc/driver/nvidia/gpus"); /* one folder per GPU (its PCI address) */
	if (!dir)
		return 1;
	for (struct dirent *e; (e = readdir(dir));)
		n += e->d_name[0] != '.';
	closedir(dir);
	return n ? n : 1;
}

/* JOB: the candidates timed, rounds included; 1 when the worker must exit (a sticky CUDA
 * error: the parent restarts it). */
static int serve_job(const struct backend *b, int device, const char *line)
{
	const struct wire_msg *m = wire_msg(WQ_JOB);
	struct wire_job job;
	struct prof_cand *c = NULL;
	size_t n = 0;
	char err[512];
	memset(&job, 0, sizeof job);
	if (wire_read(line, m, &job, (void **)&c, &n, err, sizeof err)) {
		reply_text(WR_ERR, err);
		wire_release(m, &job);
		return 0;
	}
	struct prof_result *r = xcalloc(n ? n : 1, sizeof *r);
	int started = 0;
	int rc = b->run(device, &job.s, c, n, r, on_start, &started, err, sizeof err);
	if (rc && started) {
		/* a CUDA error after a candidate started is that candidate's fault (an illegal
		 * address is sticky): report it and exit, the parent restarts */
		reply_text(WR_FAULT, err);
	} else if (rc) {
		reply_text(WR_ERR, err);
	} else {
		for (size_t i = 0; i < n; i++)
			reply(WR_RES, &r[i], NULL, 0);
		reply(WR_END, NULL, NULL, 0);
	}
	wire_release(m, &job);
	free(c);
	free(r);
	return rc && b != &backend_fake;
}

/* CAL: the calibration of the tiles asked for. */
static void serve_cal(const struct backend *b, int device, const char *line)
{
	struct wire_tile *t = NULL;
	size_t n = 0;
	char err[512];
	if (wire_read(line, wire_msg(WQ_CAL), NULL, (void **)&t, &n, err, sizeof err)) {
		reply_text(WR_ERR, err);
		return;
	}
	int tiles[32][2];
	struct gpu_calibration cal;
	if (n > ARRAY_SIZE(tiles)) {
		reply_text(WR_ERR, "bad calibration job: more than 32 tiles");
	} else {
		for (size_t i = 0; i < n; i++)
			tiles[i][0] = t[i].tile_m, tiles[i][1] = t[i].tile_n;
		if (b->calibrate(device, (const int (*)[2])tiles, (int)n, &cal, err, sizeof err)) {
			reply_text(WR_ERR, err);
		} else {
			struct wire_tile out[32];
			for (int i = 0; i < cal.ntiles; i++)
				out[i] = (struct wire_tile){ cal.tiles[i].m, cal.tiles[i].n,
							     cal.tiles[i].eff_bf16, cal.tiles[i].eff_fp8 };
			reply(WR_CAL, &cal, out, (size_t)cal.ntiles);
		}
	}
	free(t);
}

int worker_main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--table")) { /* the protocol's table (tests/cli/190) */
		struct strbuf sb = STRBUF_INIT;
		wire_describe(&sb);
		fputs(sb.buf, stdout);
		sb_release(&sb);
		return 0;
	}
	int device = argc > 1 ? atoi(argv[1]) : 0;
	const struct backend *b = worker_is_fake() ? &backend_fake : &backend_proxy;
	gpu_set_trace(trace_stderr);
	char *line = NULL;
	size_t cap = 0;
	char err[512];
	while (getline(&line, &cap, stdin) > 0) {
		if (!line[strspn(line, " \t\r\n")])
			continue;
		const struct wire_msg *m = wire_identify(line, WIRE_REQUEST, err, sizeof err);
		if (!m) {
			reply_text(WR_ERR, err);
			continue;
		}
		if (m->id == WQ_WHO) {
			struct worker_backend who = { .version = "-", .torch = "-" };
			snprintf(who.name, sizeof who.name, "%s", b->name);
			snprintf(who.why, sizeof who.why, "%s", b == &backend_fake ?
				 "synthetic timings (TUNETAB_FAKE_GPU=1)" : "cuBLASLt stand-in GEMM");
			reply(WR_WHO, &who, NULL, 0);
		} else if (m->id == WQ_INFO) {
			struct worker_device o;
			if (b->query(device, &o, err, sizeof err))
				reply_text(WR_ERR, err);
			else
				reply(WR_DEV, &o, NULL, 0);
		} else if (m->id == WQ_JOB) {
			if (serve_job(b, device, line))
				break; /* a sticky CUDA error: let the parent restart us */
		} else if (m->id == WQ_CAL) {
			serve_cal(b, device, line);
		} else {
			snprintf(err, sizeof err, "%s is the flashinfer worker's request, not tunetab's "
				 "own worker's", m->verb);
			reply_text(WR_ERR, err);
		}
	}
	free(line);
	return 0;
}
