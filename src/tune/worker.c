/* worker.c: the profiling worker processes, their line protocol and the parent's watchdog.
 *
 * Protocol (text lines). The requests that carry a job or a round name their fields and
 * their protocol version, "VERB v=2 NAME=VALUE ... -- CANDIDATE ...": the name=value words
 * come in any order, a reader ignores the names it does not know and refuses a version it
 * does not speak (ERR naming it) or a line without a field it needs (ERR naming the field);
 * the candidates follow "--". <job> is the fields of job_fields below, then n=<candidates>
 * (worker_job_line writes them, worker_parse_job and scripts/tunetab-fi-worker.py's
 * parse_request read them):
 *   dtype= batch= tokens= features= k= rounds= reps= method= stage= bucket= hidden= inter=
 *   experts= top_k= tp= tp_rank= ep= ep_rank= act= biases= finalize= [key= fields= runner=] n=
 *   parent: WHO
 *   worker: WHO <backend> <version|-> <torch|-> <detail hex>    (WHO none ... : not usable)
 *   parent: INFO
 *   worker: DEV <name hex> <cc major> <minor> <sms> ... <GPUs visible>
 * tunetab's own worker (proxy and fake backends) runs whole jobs, rounds included:
 *   parent: JOB v=2 <job> -- id,tm,tn,cm,cn,st,swap,sm80 ...
 *   worker: START <id>            before a candidate's first launch
 *           RES <id> <status> <median> <lo> <hi> <n> <why>
 *           END
 *   parent: CAL <n> m,n ...
 *   worker: CAL <copy_gbs> <tf_bf16> <tf_fp8> <n> m,n,eb,ef ...
 * the flashinfer worker (scripts/tunetab-fi-worker.py) is driven a round at a time, so the
 * rounds, intervals and racing stay measure.c's:
 *   parent: LOAD <dtype>          worker: NOTE <hex text> ... then OK <seconds>
 *   parent: PREP v=2 <job> -- id ...  (<job> with key=: the entry's FlashInfer key, fields=:
 *                                 its extras' names, comma-separated, or where the key has
 *                                 none the runner's arguments' names, runner=: their values
 *                                 as a Python tuple; all hex, "-" for none)
 *                                 worker: START <id>, then READY <id> <reps> or RES ..., END
 *   parent: GATE v=2 bound=<tactic's> ref_bound=<reference's> <job> -- id ...  (as PREP)
 *                                 worker: START <id>, G <id> ok|bad|unchecked <max abs> <rel>
 *                                 <hex why> until one is not bad, END
 *   parent: ROUND v=2 method=<method> min_reps=<reps> n=<k> -- <id>[:<reps>] ...
 *                                 worker: START <id>, T <id> <us> (or F <id> <why>:
 *                                 FlashInfer raised), ..., END
 * Any worker:
 *           FAULT <text>           a CUDA error after START: that candidate broke the
 *                                  context; the worker exits and the parent restarts it
 * Errors: ERR <text>. */
#include "tune/worker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tune/backend.h"
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

static void hex_decode(const char *h, char *out, size_t n)
{
	size_t i = 0;
	for (; h[0] && h[1] && i + 1 < n; h += 2) {
		unsigned v;
		if (sscanf(h, "%2x", &v) != 1)
			break;
		out[i++] = (char)v;
	}
	out[i] = '\0';
}

enum { ASK_WHO = 1, ASK_INFO = 2, ASK_LOAD = 4 };

int worker_ask_ahead(struct worker *w, const char *dtype)
{
	char req[96];
	if (w->python)
		snprintf(req, sizeof req, "WHO\nINFO\nLOAD %s\n", dtype ? dtype : "bf16");
	else
		snprintf(req, sizeof req, "INFO\n");
	w->ahead = w->python ? ASK_WHO | ASK_INFO | ASK_LOAD : ASK_INFO;
	return send_line(w, req);
}

/* Sends req unless worker_ask_ahead sent it already: 0 sent, -1 the worker is gone. The
 * one-line answers to requests sent ahead of it and not read (a further GPU's WHO) are read
 * and dropped first. */
static int ask(struct worker *w, unsigned which, const char *req)
{
	char line[4096];
	for (unsigned before = 1; before < which; before <<= 1)
		if ((w->ahead & before) && read_line(w, line, sizeof line) > 0)
			w->ahead &= ~before;
	if (w->ahead & which) {
		w->ahead &= ~which;
		return 0;
	}
	return send_line(w, req);
}

int worker_who(struct worker *w, struct worker_backend *o, struct diags *d)
{
	memset(o, 0, sizeof *o);
	char line[4096], hex[2048];
	int r = ask(w, ASK_WHO, "WHO\n") ? 0 : read_line(w, line, sizeof line);
	if (r <= 0) {
		snprintf(o->why, sizeof o->why, "the worker %s before it said what it is (%s)",
			 r < 0 ? "hung" : "exited", w->python ? w->python : "tunetab");
		return TT_GPU;
	}
	if (sscanf(line, "WHO %31s %63s %63s %2047s", o->name, o->version, o->torch, hex) != 4)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad worker reply '%s'", line);
	hex_decode(hex, o->why, sizeof o->why);
	if (!strcmp(o->name, "none"))
		return TT_GPU;
	return TT_OK;
}

/* One request answered by one line (the other ops' OPTEST and OPPROF): the reply in line;
 * TT_GPU when the worker is gone, hung or died `during` it, an ERR reply as err_rc/err_id. */
static int request_line(struct worker *w, const char *req, char *line, size_t n, int err_rc,
			const char *err_id, const char *during, struct diags *d)
{
	if (send_line(w, req))
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker is gone");
	int r = read_line(w, line, n);
	if (r <= 0)
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker %s %s",
				  r < 0 ? "hung" : "died", during);
	if (str_starts(line, "ERR "))
		return diag_error(d, err_rc, err_id, NULL, 0, 0, "%s", line + 4);
	return TT_OK;
}

int worker_optest(struct worker *w, const char *op, const char *runner, char *status,
		  size_t nstatus, char *detail, size_t ndetail, struct diags *d)
{
	char req[512], line[4096], st[32], hex[2048], during[160];
	snprintf(req, sizeof req, "OPTEST v=%d op=%s runner=%s --\n", WORKER_PROTO, op, runner);
	snprintf(during, sizeof during, "during the self-test of %s", op);
	int rc = request_line(w, req, line, sizeof line, TT_INTERNAL, "worker", during, d);
	if (rc)
		return rc;
	if (sscanf(line, "OPTEST status=%31s detail=%2047s", st, hex) != 2)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad worker reply '%s'", line);
	snprintf(status, nstatus, "%s", st);
	hex_decode(hex, detail, ndetail);
	return TT_OK;
}

int worker_opprof(struct worker *w, const char *job_words, long bucket, int reps, bool gate,
		  const int *cands, size_t n, struct worker_opprof *o, struct diags *d)
{
	memset(o, 0, sizeof *o);
	struct strbuf req = STRBUF_INIT;
	sb_addf(&req, "OPPROF v=%d %s bucket=%ld reps=%d gate=%d cands=%zu --", WORKER_PROTO,
		job_words, bucket, reps, gate ? 1 : 0, n);
	for (size_t i = 0; i < n; i++)
		sb_addf(&req, " %d", cands[i]);
	sb_addc(&req, '\n');
	char line[8192], win[1100], wus[64], fus[64], g[16], det[1000], during[96];
	snprintf(during, sizeof during, "while measuring %ld tokens of an op", bucket);
	int rc = request_line(w, req.buf, line, sizeof line, TT_GPU, "op", during, d);
	sb_release(&req);
	if (rc)
		return rc;
	if (sscanf(line, "OPPROF timed=%d win=%1099s win_us=%63s fallback_us=%63s gate=%15s "
		   "detail=%999s", &o->timed, win, wus, fus, g, det) != 6)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad worker reply '%s'", line);
	hex_decode(win, o->win, sizeof o->win);
	hex_decode(det, o->detail, sizeof o->detail);
	o->win_us = strtod(wus, NULL);
	o->fallback_us = strtod(fus, NULL);
	snprintf(o->gate, sizeof o->gate, "%s", g);
	return TT_OK;
}

int worker_info(struct worker *w, struct worker_device *o, struct diags *d)
{
	memset(o, 0, sizeof *o);
	if (ask(w, ASK_INFO, "INFO\n"))
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker is gone");
	char line[4096], hex[600];
	int r = read_line(w, line, sizeof line);
	if (r <= 0)
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker %s before it "
				  "reported its device", r < 0 ? "hung" : "died");
	if (str_starts(line, "ERR "))
		return diag_error(d, TT_GPU, "gpu", NULL, 0, 0, "%s", line + 4);
	struct gpu_info *g = &o->gpu;
	double smem_optin, smem_sm, l2, mem, clock_mhz;
	if (sscanf(line, "DEV %599s %d %d %d %lf %lf %lf %lf %lf %lf %d %d %d %ld", hex, &g->cc_major,
		   &g->cc_minor, &g->sm_count, &smem_optin, &smem_sm, &l2, &mem, &clock_mhz,
		   &o->mem_bw_gbs, &o->visible, &o->env.driver_version, &o->env.runtime_version,
		   &o->env.blaslt_version) != 14)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad worker reply '%s'", line);
	hex_decode(hex, g->name, sizeof g->name);
	g->smem_per_block_optin = (size_t)smem_optin;
	g->smem_per_sm = (size_t)smem_sm;
	g->l2_bytes = (size_t)l2;
	g->total_mem = (size_t)mem;
	g->clock_khz = (int)(clock_mhz * 1000);
	return TT_OK;
}

int worker_load(struct worker *w, const char *dtype, void (*note)(void *ctx, const char *text),
		void *ctx, double *seconds, struct diags *d)
{
	char line[4096], text[2048];
	snprintf(line, sizeof line, "LOAD %s\n", dtype);
	int r = ask(w, ASK_LOAD, line) ? 0 : 1;
	while (r > 0 && (r = read_line(w, line, sizeof line)) > 0) {
		if (str_starts(line, "NOTE ")) {
			hex_decode(line + 5, text, sizeof text);
			if (note)
				note(ctx, text);
			continue;
		}
		if (str_starts(line, "ERR "))
			return diag_error(d, TT_GPU, "flashinfer", NULL, 0, 0, "%s", line + 4);
		if (sscanf(line, "OK %lf", seconds) == 1)
			return TT_OK;
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad worker reply '%s'", line);
	}
	return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the worker %s while it loaded "
			  "FlashInfer's fused-MoE module (no word for %.0f s)", r < 0 ? "hung" : "died",
			  w->timeout_s);
}

static void set_why(struct prof_result *r, const char *why)
{
	char tmp[128];
	snprintf(tmp, sizeof tmp, "%s", why);
	for (char *p = tmp; *p; p++)
		if (*p == '_')
			*p = ' ';
	snprintf(r->why, sizeof r->why, "%s", strcmp(tmp, "-") ? tmp : "");
}

/* A RES line into the result of the candidate it names, if still pending. */
static void take_res(const char *line, const struct prof_cand *c, size_t n, char *done,
		     struct prof_result *out)
{
	int id, st, cnt;
	double med, lo, hi;
	char why[128] = "";
	if (sscanf(line, "RES %d %d %lf %lf %lf %d %127s", &id, &st, &med, &lo, &hi, &cnt, why) < 6)
		return;
	for (size_t i = 0; i < n; i++)
		if (c[i].id == id && !done[i]) {
			done[i] = 1;
			out[i].status = (enum prof_status)st;
			out[i].median_us = med;
			out[i].lo_us = lo;
			out[i].hi_us = hi;
			out[i].n = cnt;
			set_why(&out[i], why);
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

static void on_fault(struct attempt *a, const char *line)
{
	/* the started candidate broke the context; keep the CUDA error's name */
	const char *e = strstr(line, "cudaError");
	if (!e)
		e = strstr(line, "CUDA");
	snprintf(a->fault, sizeof a->fault, ": %.*s", e ? (int)strcspn(e, " (_") : 0, e ? e : "");
	a->r = 0;
}

/* s as hex digits ("-" for none): a field of a job line that may hold spaces */
static void add_hex(struct strbuf *sb, const char *s)
{
	if (!s || !*s) {
		sb_addc(sb, '-');
		return;
	}
	for (; *s; s++)
		sb_addf(sb, "%02x", (unsigned char)*s);
}

/* The fields of a job line, in the order written: the one list of names worker_job_line
 * writes and worker_parse_job reads (scripts/tunetab-fi-worker.py's JOB_FIELDS reads the
 * same names). JOB_HEX fields go to the flashinfer worker only (every verb but JOB) and
 * tunetab's own worker does not keep them. */
enum job_type { JOB_STR, JOB_INT, JOB_LONG, JOB_HEX };

static const struct job_field {
	const char *name;
	enum job_type type;
	size_t off; /* in struct prof_shape */
} job_fields[] = {
#define F(name, type, member) { name, type, offsetof(struct prof_shape, member) }
	F("dtype", JOB_STR, dtype),      F("batch", JOB_LONG, batch),
	F("tokens", JOB_LONG, tokens),   F("features", JOB_LONG, features),
	F("k", JOB_LONG, k),             F("rounds", JOB_INT, rounds),
	F("reps", JOB_INT, reps),        F("method", JOB_INT, method),
	F("stage", JOB_INT, stage),      F("bucket", JOB_LONG, bucket),
	F("hidden", JOB_LONG, hidden),   F("inter", JOB_LONG, inter),
	F("experts", JOB_LONG, experts), F("top_k", JOB_LONG, top_k),
	F("tp", JOB_LONG, tp),           F("tp_rank", JOB_LONG, tp_rank),
	F("ep", JOB_LONG, ep),           F("ep_rank", JOB_LONG, ep_rank),
	F("act", JOB_INT, activation),   F("biases", JOB_INT, biases),
	F("finalize", JOB_INT, finalize),
	F("key", JOB_HEX, key),          F("fields", JOB_HEX, key_fields),
	F("runner", JOB_HEX, runner),
#undef F
};

void worker_job_line(struct strbuf *sb, const char *verb, const char *extra,
		     const struct prof_shape *s, const struct prof_cand *c, size_t ncand,
		     const char *done)
{
	bool whole = !strcmp(verb, "JOB");
	bool keyed = s->key && s->key_fields; /* else none of the three goes */
	size_t n = 0; /* the candidates still to time */
	for (size_t i = 0; i < ncand; i++)
		n += !done || !done[i];
	sb_addf(sb, "%s v=%d", verb, WORKER_PROTO);
	if (extra)
		sb_addf(sb, " %s", extra);
	for (size_t i = 0; i < ARRAY_SIZE(job_fields); i++) {
		const struct job_field *f = &job_fields[i];
		const char *at = (const char *)s + f->off;
		if (f->type == JOB_HEX && whole)
			continue;
		sb_addf(sb, " %s=", f->name);
		if (f->type == JOB_STR)
			sb_adds(sb, *(const char *const *)at ? *(const char *const *)at : "-");
		else if (f->type == JOB_INT)
			sb_addf(sb, "%d", *(const int *)at);
		else if (f->type == JOB_LONG)
			sb_addf(sb, "%ld", *(const long *)at);
		else
			add_hex(sb, keyed ? *(const char *const *)at : NULL);
	}
	sb_addf(sb, " n=%zu --", n);
	for (size_t i = 0; i < ncand; i++) {
		if (done && done[i])
			continue;
		if (whole)
			sb_addf(sb, " %d,%d,%d,%d,%d,%d,%d,%d", c[i].id, c[i].tile_m, c[i].tile_n,
				c[i].cluster_m, c[i].cluster_n, c[i].stages, c[i].swap, c[i].sm80);
		else
			sb_addf(sb, " %d", c[i].id);
	}
	sb_addc(sb, '\n');
}

/* Sends worker_job_line's line. a->r: 0 when the worker is gone. */
static void send_job(struct worker *w, const char *verb, const char *extra,
		     const struct prof_shape *s, const struct prof_cand *c, size_t ncand,
		     const char *done, struct attempt *a)
{
	struct strbuf job = STRBUF_INIT;
	worker_job_line(&job, verb, extra, s, c, ncand, done);
	a->r = send_line(w, job.buf) ? 0 : 1;
	sb_release(&job);
}

/* tunetab's own worker: one JOB, rounds included. */
static void attempt_job(struct worker *w, const struct prof_shape *s, const struct prof_cand *c,
			size_t n, char *done, struct prof_result *out, struct attempt *a,
			struct diags *d)
{
	send_job(w, "JOB", NULL, s, c, n, done, a);
	char line[4096];
	while (a->r > 0 && (a->r = read_line(w, line, sizeof line)) > 0) {
		int id;
		if (sscanf(line, "START %d", &id) == 1) {
			a->last = id;
			continue;
		}
		if (!strcmp(line, "END"))
			break;
		if (str_starts(line, "ERR ")) {
			a->rc = diag_error(d, TT_GPU, "gpu", NULL, 0, 0, "%s", line + 4);
			break;
		}
		if (str_starts(line, "FAULT ")) {
			on_fault(a, line);
			break;
		}
		take_res(line, c, n, done, out);
	}
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
	struct strbuf b = STRBUF_INIT;
	sb_addf(&b, "ROUND v=%d method=%d min_reps=1 n=%zu --", WORKER_PROTO, x->method, k);
	for (size_t j = 0; j < k; j++) {
		sb_addf(&b, " %d", x->c[x->at[idx[j]]].id);
		/* a finalist's samples: about 100 us of calls, sized by its own screening time */
		double t = x->res[idx[j]].median_us;
		if (x->keep > 0 && r > 0 && t > 0)
			sb_addf(&b, ":%d", (int)fmin(16, fmax(1, ceil(100.0 / t))));
	}
	sb_addc(&b, '\n');
	struct attempt *a = x->a;
	a->r = send_line(x->w, b.buf) ? 0 : 1;
	a->batch = k;
	sb_release(&b);
	size_t got = 0;
	char line[4096], why[128];
	while (a->r > 0 && (a->r = read_line(x->w, line, sizeof line)) > 0) {
		int id;
		double t;
		if (sscanf(line, "START %d", &id) == 1) {
			a->last = id;
		} else if (sscanf(line, "T %d %lf", &id, &t) == 2) {
			for (size_t j = 0; j < k; j++)
				if (x->c[x->at[idx[j]]].id == id)
					us[j] = t, got++;
		} else if (sscanf(line, "F %d %127s", &id, why) == 2) {
			/* FlashInfer raised for this candidate while it was timed */
			for (size_t j = 0; j < k; j++)
				if (x->c[x->at[idx[j]]].id == id) {
					us[j] = -1;
					got++;
					set_why(&x->res[idx[j]], why);
				}
		} else if (!strcmp(line, "END")) {
			if (got == k)
				return 0;
			a->rc = diag_error(x->d, TT_INTERNAL, "worker", NULL, 0, 0, "the worker timed "
					   "%zu of %zu candidates in a round", got, k);
			return 1;
		} else if (str_starts(line, "ERR ")) {
			a->rc = diag_error(x->d, TT_GPU, "flashinfer", NULL, 0, 0, "%s", line + 4);
			return 1;
		} else if (str_starts(line, "FAULT ")) {
			on_fault(a, line);
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
	char line[4096];
	while (a->r > 0 && (a->r = read_line(w, line, sizeof line)) > 0) {
		int id, reps;
		if (sscanf(line, "START %d", &id) == 1) {
			a->last = id;
		} else if (sscanf(line, "READY %d %d", &id, &reps) == 2) {
			for (size_t i = 0; i < n; i++)
				if (c[i].id == id && !done[i]) {
					at[nready] = i;
					res[nready] = (struct prof_result){ .id = id, .status = PROF_OK };
					nready++;
				}
		} else if (!strcmp(line, "END")) {
			break;
		} else if (str_starts(line, "ERR ")) {
			a->rc = diag_error(d, TT_GPU, "flashinfer", NULL, 0, 0, "%s", line + 4);
			break;
		} else if (str_starts(line, "FAULT ")) {
			on_fault(a, line);
			break;
		} else {
			take_res(line, c, n, done, out);
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
	char extra[96];
	snprintf(extra, sizeof extra, "bound=%g ref_bound=%g", bounds[0], bounds[1]);
	send_job(w, "GATE", extra, s, c, n, NULL, &a);
	char line[4096];
	while (a.r > 0 && (a.r = read_line(w, line, sizeof line)) > 0) {
		int id, used = 0;
		char verdict[16], why[700];
		struct gate_result g = { 0 };
		if (sscanf(line, "START %d", &id) == 1) {
			a.last = id;
		} else if (sscanf(line, "G %d %15s %lf %lf %699s%n", &g.id, verdict, &g.max_abs, &g.rel,
				  why, &used) == 5 && *k < n) {
			g.verdict = !strcmp(verdict, "ok") ? GATE_OK : !strcmp(verdict, "bad") ? GATE_BAD
										  : GATE_UNCHECKED;
			hex_decode(why, g.why, sizeof g.why);
			out[(*k)++] = g;
		} else if (!strcmp(line, "END")) {
			return TT_OK;
		} else if (str_starts(line, "ERR ")) {
			return diag_error(d, TT_GPU, "flashinfer", NULL, 0, 0, "the correctness gate: %s",
					  line + 4);
		} else if (str_starts(line, "FAULT ")) {
			on_fault(&a, line);
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

int worker_calibrate(struct worker *w, const int (*tiles)[2], int ntiles,
		     struct gpu_calibration *cal, struct diags *d)
{
	memset(cal, 0, sizeof *cal);
	if (w->python)
		return diag_error(d, TT_USAGE, "worker", NULL, 0, 0, "calibration runs on tunetab's "
				  "own worker, not the flashinfer backend");
	struct strbuf job = STRBUF_INIT;
	sb_addf(&job, "CAL %d", ntiles);
	for (int i = 0; i < ntiles; i++)
		sb_addf(&job, " %d,%d", tiles[i][0], tiles[i][1]);
	sb_addc(&job, '\n');
	int bad = send_line(w, job.buf);
	sb_release(&job);
	char line[16384];
	double keep = w->timeout_s;
	w->timeout_s = keep < 300 ? 300 : keep; /* calibration takes seconds, not milliseconds */
	int r = bad ? 0 : read_line(w, line, sizeof line);
	w->timeout_s = keep;
	if (r <= 0)
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker %s during calibration",
				  r < 0 ? "hung" : "died");
	if (str_starts(line, "ERR "))
		return diag_error(d, TT_GPU, "gpu", NULL, 0, 0, "%s", line + 4);
	int n, off = 0;
	if (sscanf(line, "CAL %lf %lf %lf %d%n", &cal->copy_gbs, &cal->tflops_bf16, &cal->tflops_fp8,
		   &n, &off) != 4 || n > 32)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad calibration reply");
	cal->ntiles = n;
	const char *p = line + off;
	for (int i = 0; i < n; i++) {
		int used = 0;
		if (sscanf(p, " %d,%d,%lf,%lf%n", &cal->tiles[i].m, &cal->tiles[i].n, &cal->tiles[i].eff_bf16,
			   &cal->tiles[i].eff_fp8, &used) != 4)
			return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad calibration reply");
		p += used;
	}
	return TT_OK;
}

/* --- worker side ----------------------------------------------------------------------- */

static void on_start(int id, void *ctx)
{
	int *started = ctx;
	*started = 1;
	printf("START %d\n", id);
	fflush(stdout);
}

static int job_error(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int job_error(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A whole word as a number: 0, or -1 when it is not one. */
static int word_long(const char *w, size_t len, long *out)
{
	char tmp[32], *end;
	if (!len || len >= sizeof tmp)
		return -1;
	memcpy(tmp, w, len);
	tmp[len] = '\0';
	errno = 0;
	*out = strtol(tmp, &end, 10);
	return *end || errno ? -1 : 0;
}

#define WORD_END " \t\r\n"

/* The value of one name=value word of a job line into s (f: its field; NULL and not is_n: a
 * name this worker does not know, ignored), dtype (the caller's 16 bytes) or *n (is_n): -1
 * when it does not parse. */
static int job_value(const struct job_field *f, bool is_n, const char *value, size_t len,
		     struct prof_shape *s, char *dtype, size_t *n)
{
	long num;
	if (f && f->type == JOB_STR) {
		if (!len || len > 15)
			return -1;
		memcpy(dtype, value, len);
		dtype[len] = '\0';
		return 0;
	}
	if ((!f && !is_n) || (f && f->type == JOB_HEX)) /* the key's: the flashinfer worker's */
		return 0;
	if (word_long(value, len, &num) || (is_n && (num < 0 || num > 4096)) ||
	    (f && f->type == JOB_INT && (num < INT_MIN || num > INT_MAX)))
		return -1;
	if (is_n)
		*n = (size_t)num;
	else if (f->type == JOB_INT)
		*(int *)((char *)s + f->off) = (int)num;
	else
		*(long *)((char *)s + f->off) = num;
	return 0;
}

int worker_parse_job(const char *line, struct prof_shape *s, char *dtype, size_t *n, int *off,
		     char *why, size_t whylen)
{
	memset(s, 0, sizeof *s);
	*n = 0;
	*off = 0;
	const char *verb = line + strspn(line, WORD_END);
	int verb_len = (int)strcspn(verb, WORD_END);
	const char *first = verb + verb_len;
	/* the version first: a line of another version may mean other things by its fields */
	const char *version = NULL, *cands = NULL;
	size_t version_len = 0;
	for (const char *w = first + strspn(first, WORD_END); *w; w += strspn(w, WORD_END)) {
		size_t len = strcspn(w, WORD_END);
		if (len == 2 && !strncmp(w, "--", 2)) {
			cands = w + 2;
			break;
		}
		if (len >= 2 && !strncmp(w, "v=", 2))
			version = w + 2, version_len = len - 2;
		w += len;
	}
	char spoken[16];
	snprintf(spoken, sizeof spoken, "%d", WORKER_PROTO);
	if (!version)
		return job_error(why, whylen, "%.*s without a protocol version (v=): this worker "
				 "speaks v=%d", verb_len, verb, WORKER_PROTO);
	if (version_len != strlen(spoken) || strncmp(version, spoken, version_len))
		return job_error(why, whylen, "%.*s of protocol version v=%.*s, which this worker "
				 "does not speak (it speaks v=%d)", verb_len, verb, (int)version_len,
				 version, WORKER_PROTO);
	if (!cands)
		return job_error(why, whylen, "%.*s without '--' before its candidates", verb_len,
				 verb);
	bool seen[ARRAY_SIZE(job_fields)] = { false }, seen_n = false;
	for (const char *w = first + strspn(first, WORD_END); w < cands - 2;
	     w += strspn(w, WORD_END)) {
		size_t len = strcspn(w, WORD_END);
		const char *eq = memchr(w, '=', len);
		if (!eq)
			return job_error(why, whylen, "%.*s: '%.*s' is not name=value", verb_len, verb,
					 (int)len, w);
		size_t name_len = (size_t)(eq - w);
		const struct job_field *f = NULL;
		for (size_t i = 0; i < ARRAY_SIZE(job_fields) && !f; i++)
			if (strlen(job_fields[i].name) == name_len &&
			    !strncmp(job_fields[i].name, w, name_len))
				f = &job_fields[i], seen[i] = true;
		bool is_n = name_len == 1 && *w == 'n';
		seen_n |= is_n;
		if (job_value(f, is_n, eq + 1, len - name_len - 1, s, dtype, n))
			return job_error(why, whylen, "%.*s: bad value '%.*s'", verb_len, verb,
					 (int)len, w);
		w += len;
	}
	for (size_t i = 0; i < ARRAY_SIZE(job_fields); i++)
		if (!seen[i] && job_fields[i].type != JOB_HEX)
			return job_error(why, whylen, "%.*s without '%s'", verb_len, verb,
					 job_fields[i].name);
	if (!seen_n)
		return job_error(why, whylen, "%.*s without 'n'", verb_len, verb);
	s->dtype = dtype;
	*off = (int)(cands - line);
	return 0;
}

static void print_dev(const struct worker_device *o)
{
	struct strbuf hex = STRBUF_INIT;
	const struct gpu_info *g = &o->gpu;
	add_hex(&hex, g->name);
	printf("DEV %s %d %d %d %.0f %.0f %.0f %.0f %.0f %.1f %d %d %d %ld\n", hex.buf, g->cc_major,
	       g->cc_minor, g->sm_count, (double)g->smem_per_block_optin, (double)g->smem_per_sm,
	       (double)g->l2_bytes, (double)g->total_mem, g->clock_khz / 1000.0, o->mem_bw_gbs,
	       o->visible, o->env.driver_version, o->env.runtime_version, o->env.blaslt_version);
	sb_release(&hex);
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

int worker_main(int argc, char **argv)
{
	int device = argc > 1 ? atoi(argv[1]) : 0;
	const struct backend *b = worker_is_fake() ? &backend_fake : &backend_proxy;
	gpu_set_trace(trace_stderr);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	char err[512];
	while ((len = getline(&line, &cap, stdin)) > 0) {
		if (str_starts(line, "WHO")) {
			struct strbuf hex = STRBUF_INIT;
			add_hex(&hex, b == &backend_fake ? "synthetic timings (TUNETAB_FAKE_GPU=1)"
				: "cuBLASLt stand-in GEMM");
			printf("WHO %s - - %s\n", b->name, hex.buf);
			sb_release(&hex);
		} else if (str_starts(line, "INFO")) {
			struct worker_device o;
			if (b->query(device, &o, err, sizeof err))
				printf("ERR %s\n", err);
			else
				print_dev(&o);
		} else if (str_starts(line, "JOB ")) {
			struct prof_shape s;
			char dtype[16];
			size_t n;
			int off = 0;
			if (worker_parse_job(line, &s, dtype, &n, &off, err, sizeof err)) {
				printf("ERR %s\n", err);
				fflush(stdout);
				continue;
			}
			struct prof_cand *c = xcalloc(n ? n : 1, sizeof *c);
			struct prof_result *r = xcalloc(n ? n : 1, sizeof *r);
			const char *p = line + off;
			size_t got = 0;
			for (int used = 0; got < n; got++, p += used)
				if (sscanf(p, " %d,%d,%d,%d,%d,%d,%d,%d%n", &c[got].id, &c[got].tile_m,
					   &c[got].tile_n, &c[got].cluster_m, &c[got].cluster_n,
					   &c[got].stages, &c[got].swap, &c[got].sm80, &used) != 8)
					break;
			if (got != n || p[strspn(p, WORD_END)]) {
				printf("ERR JOB: the candidates after '--' are not n=%zu words "
				       "id,tm,tn,cm,cn,st,swap,sm80\n", n);
				fflush(stdout);
				free(c);
				free(r);
				continue;
			}
			int started = 0;
			int rc = b->run(device, &s, c, n, r, on_start, &started, err, sizeof err);
			if (rc && started) {
				/* a CUDA error after a candidate started is that candidate's fault (an
				 * illegal address is sticky): report it and exit, the parent restarts */
				printf("FAULT %s\n", err);
			} else if (rc) {
				printf("ERR %s\n", err);
			} else {
				for (size_t i = 0; i < n; i++) {
					char why[128];
					snprintf(why, sizeof why, "%s", r[i].why[0] ? r[i].why : "-");
					for (char *q = why; *q; q++)
						if (*q == ' ')
							*q = '_';
					printf("RES %d %d %.4f %.4f %.4f %d %s\n", r[i].id, (int)r[i].status,
					       r[i].median_us, r[i].lo_us, r[i].hi_us, r[i].n, why);
				}
				printf("END\n");
			}
			fflush(stdout);
			free(c);
			free(r);
			if (rc && b != &backend_fake)
				break; /* a sticky CUDA error: let the parent restart us */
			continue;
		} else if (str_starts(line, "CAL ")) {
			int n, off = 0, tiles[32][2];
			if (sscanf(line, "CAL %d%n", &n, &off) != 1 || n > 32 || n < 0) {
				printf("ERR bad calibration job\n");
				fflush(stdout);
				continue;
			}
			const char *p = line + off;
			for (int i = 0; i < n; i++) {
				int used = 0;
				sscanf(p, " %d,%d%n", &tiles[i][0], &tiles[i][1], &used);
				p += used;
			}
			struct gpu_calibration cal;
			if (b->calibrate(device, (const int (*)[2])tiles, n, &cal, err, sizeof err)) {
				printf("ERR %s\n", err);
			} else {
				printf("CAL %.2f %.2f %.2f %d", cal.copy_gbs, cal.tflops_bf16, cal.tflops_fp8,
				       cal.ntiles);
				for (int i = 0; i < cal.ntiles; i++)
					printf(" %d,%d,%.4f,%.4f", cal.tiles[i].m, cal.tiles[i].n,
					       cal.tiles[i].eff_bf16, cal.tiles[i].eff_fp8);
				printf("\n");
			}
		} else {
			printf("ERR unknown request\n");
		}
		fflush(stdout);
	}
	free(line);
	return 0;
}
