/* worker.c: the profiling worker process, its line protocol and the parent's watchdog.
 *
 * Protocol (text lines):
 *   parent: INFO
 *   worker: DEV <name hex> <cc major> <minor> <sms> ... <GPUs visible>
 *   parent: JOB <dtype> <batch> <tokens> <features> <k> <rounds> <reps> <method> <n> id,tm,tn,cm,cn,st,swap,sm80 ...
 *   worker: START <id>            before a candidate's first launch
 *           RES <id> <status> <median> <lo> <hi> <n> <why>
 *           END
 *   parent: CAL <n> m,n ...
 *   worker: CAL <copy_gbs> <tf_bf16> <tf_fp8> <n> m,n,eb,ef ...
 *           FAULT <text>           a CUDA error after START: that candidate broke the
 *                                  context; the worker exits and the parent restarts it
 * Errors: ERR <text>. */
#include "worker.h"

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

#include "util.h"

/* --- parent side ----------------------------------------------------------------------- */

int worker_start(struct worker *w, int device, double timeout_s, struct diags *d)
{
	memset(w, 0, sizeof *w);
	w->device = device;
	w->timeout_s = timeout_s;
	w->pid = -1;
	int in[2], out[2];
	if (pipe(in) || pipe(out))
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "pipe: %s", strerror(errno));
	char *exe = self_exe_path();
	if (!exe)
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
		snprintf(dev, sizeof dev, "%d", device);
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

void worker_stop(struct worker *w)
{
	if (w->pid <= 0)
		return;
	close(w->to);
	close(w->from);
	kill(w->pid, SIGKILL);
	waitpid(w->pid, NULL, 0);
	w->pid = -1;
}

void worker_detach(struct worker *w)
{
	if (w->pid <= 0)
		return;
	close(w->to);
	close(w->from);
	kill(w->pid, SIGKILL);
	w->pid = -1;
}

static int restart(struct worker *w, struct diags *d)
{
	int dev = w->device, restarts = w->restarts + 1;
	double t = w->timeout_s;
	worker_stop(w);
	int rc = worker_start(w, dev, t, d);
	w->restarts = restarts;
	return rc;
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
		sscanf(h, "%2x", &v);
		out[i++] = (char)v;
	}
	out[i] = '\0';
}

int worker_info(struct worker *w, struct worker_device *o, struct diags *d)
{
	memset(o, 0, sizeof *o);
	if (send_line(w, "INFO\n"))
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker is gone");
	char line[4096], hex[600];
	int r = read_line(w, line, sizeof line);
	if (r <= 0)
		return diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker %s before it "
				  "reported its device", r < 0 ? "hung" : "died");
	if (str_starts(line, "ERR "))
		return diag_error(d, TT_GPU, "gpu", NULL, 0, 0, "%s", line + 4);
	if (sscanf(line, "DEV %599s %d %d %d %lf %lf %lf %lf %lf %lf %d %d %d %ld", hex, &o->cc_major,
		   &o->cc_minor, &o->sm_count, &o->smem_optin, &o->smem_sm, &o->l2, &o->mem, &o->clock_mhz,
		   &o->mem_bw_gbs, &o->visible, &o->driver_version, &o->runtime_version,
		   &o->blaslt_version) != 14)
		return diag_error(d, TT_INTERNAL, "worker", NULL, 0, 0, "bad worker reply '%s'", line);
	hex_decode(hex, o->name, sizeof o->name);
	return TT_OK;
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
		struct strbuf job = STRBUF_INIT;
		size_t pending = 0;
		for (size_t i = 0; i < n; i++)
			pending += !done[i];
		if (!pending)
			break;
		sb_addf(&job, "JOB %s %ld %ld %ld %ld %d %d %d %zu", s->dtype, s->batch, s->tokens,
			s->features, s->k, s->rounds, s->reps, s->method, pending);
		for (size_t i = 0; i < n; i++)
			if (!done[i])
				sb_addf(&job, " %d,%d,%d,%d,%d,%d,%d,%d", c[i].id, c[i].tile_m, c[i].tile_n,
					c[i].cluster_m, c[i].cluster_n, c[i].stages, c[i].swap, c[i].sm80);
		sb_addc(&job, '\n');
		int sent = send_line(w, job.buf);
		sb_release(&job);
		int last = -1000000, r = sent ? 0 : 1;
		char fault[96] = "";
		char line[4096];
		while (r > 0 && (r = read_line(w, line, sizeof line)) > 0) {
			int id;
			if (sscanf(line, "START %d", &id) == 1) {
				last = id;
				continue;
			}
			if (!strcmp(line, "END"))
				break;
			if (str_starts(line, "ERR ")) {
				rc = diag_error(d, TT_GPU, "gpu", NULL, 0, 0, "%s", line + 4);
				break;
			}
			if (str_starts(line, "FAULT ")) {
				/* the started candidate broke the context; keep the CUDA error's name */
				const char *e = strstr(line, "cudaError");
				snprintf(fault, sizeof fault, ": %.*s", e ? (int)strcspn(e, " (") : 0, e ? e : "");
				r = 0;
				break;
			}
			int st, cnt;
			double med, lo, hi;
			char why[128] = "";
			if (sscanf(line, "RES %d %d %lf %lf %lf %d %127s", &id, &st, &med, &lo, &hi, &cnt, why) >= 6)
				for (size_t i = 0; i < n; i++)
					if (c[i].id == id && !done[i]) {
						done[i] = 1;
						out[i].status = (enum prof_status)st;
						out[i].median_us = med;
						out[i].lo_us = lo;
						out[i].hi_us = hi;
						out[i].n = cnt;
						for (char *p = why; *p; p++)
							if (*p == '_')
								*p = ' ';
						snprintf(out[i].why, sizeof out[i].why, "%s", strcmp(why, "-") ? why : "");
					}
		}
		if (rc || r > 0)
			break;
		/* the worker died (r == 0) or hung (r < 0): blame the candidate it had started */
		size_t culprit = n;
		for (size_t i = 0; i < n; i++)
			if (c[i].id == last && !done[i])
				culprit = i;
		if (culprit == n) {
			rc = diag_error(d, TT_GPU, "worker", NULL, 0, 0, "the GPU worker %s outside any "
					"candidate", r < 0 ? "hung" : "died");
			break;
		}
		done[culprit] = 1;
		out[culprit].status = PROF_FAILED;
		snprintf(out[culprit].why, sizeof out[culprit].why, "%s%s",
			 r < 0 ? "hung: killed by the watchdog" : "crashed the GPU worker", fault);
		if (restart(w, d)) {
			rc = TT_GPU;
			break;
		}
	}
	free(done);
	return rc;
}

int worker_calibrate(struct worker *w, const int (*tiles)[2], int ntiles,
		     struct gpu_calibration *cal, struct diags *d)
{
	memset(cal, 0, sizeof *cal);
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

static int job_started; /* a candidate of the current job has started on the GPU */

static void on_start(int id, void *ctx)
{
	(void)ctx;
	job_started = 1;
	printf("START %d\n", id);
	fflush(stdout);
}

/* Synthetic timings (TUNETAB_FAKE_GPU=1): a deterministic function of the shape and tile,
 * with noise, so everything above the GPU can be tested on a CPU. */
static int fake_run(const struct prof_shape *s, const struct prof_cand *c, size_t n,
		    struct prof_result *out)
{
	const char *fault = getenv("TUNETAB_TEST_FAULT"), *hang = getenv("TUNETAB_TEST_HANG");
	const char *delay = getenv("TUNETAB_FAKE_DELAY_MS"); /* slow fake runs, for kill tests */
	if (delay)
		usleep((useconds_t)atoi(delay) * 1000u);
	unsigned seed = (unsigned)(s->tokens * 2654435761u + (unsigned long)s->features * 40503u);
	for (size_t i = 0; i < n; i++) {
		on_start(c[i].id, NULL);
		if (fault && atoi(fault) == c[i].id)
			raise(SIGSEGV);
		if (hang && atoi(hang) == c[i].id)
			for (;;)
				pause();
		long tok_tile = c[i].swap ? c[i].tile_n : c[i].tile_m;
		long feat_tile = c[i].swap ? c[i].tile_m : c[i].tile_n;
		double tiles = s->batch * ceil((double)s->tokens / tok_tile) * ceil((double)s->features / feat_tile);
		double t = 5.0 + tiles * (0.02 * tok_tile * feat_tile / 16384.0 + 0.5) / 132.0 +
			   0.001 * (c[i].id % 7);
		out[i].id = c[i].id;
		out[i].status = PROF_OK;
		out[i].n = s->rounds > 0 ? s->rounds : 15;
		seed = seed * 1103515245u + 12345u;
		double noise = ((seed >> 8) % 1000) / 1000.0 * 0.002 * t;
		out[i].median_us = t + noise;
		out[i].lo_us = t * 0.995;
		out[i].hi_us = t * 1.005 + noise;
		out[i].why[0] = '\0';
	}
	return 0;
}

static void hex_encode(const char *s, char *out, size_t n)
{
	size_t i = 0;
	for (; *s && i + 3 < n; s++, i += 2)
		snprintf(out + i, 3, "%02x", (unsigned char)*s);
	out[i] = '\0';
}

bool worker_is_fake(void)
{
	const char *v = getenv("TUNETAB_FAKE_GPU");
	return v && !strcmp(v, "1");
}

int worker_main(int argc, char **argv)
{
	int device = argc > 1 ? atoi(argv[1]) : 0;
	int fake = worker_is_fake();
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	char err[512];
	while ((len = getline(&line, &cap, stdin)) > 0) {
		if (str_starts(line, "INFO")) {
			char hex[600];
			if (fake) {
				/* TUNETAB_FAKE_GPUS=N: N fake H200s; TUNETAB_FAKE_MIXED=1: the last is an H100 */
				const char *fn = getenv("TUNETAB_FAKE_GPUS"), *mixed = getenv("TUNETAB_FAKE_MIXED");
				int count = fn && atoi(fn) > 0 ? atoi(fn) : 1;
				if (device >= count) {
					printf("ERR no GPU %d (%d visible)\n", device, count);
				} else {
					bool other = mixed && !strcmp(mixed, "1") && count > 1 && device == count - 1;
					hex_encode(other ? "NVIDIA H100 80GB HBM3" : "NVIDIA H200", hex, sizeof hex);
					printf("DEV %s 9 0 132 232448 233472 62914560 150109880320 1980 4814 %d "
					       "0 0 0\n", hex, count);
				}
			} else {
				struct gpu_info *g;
				int n;
				struct gpu_env env;
				struct timespec q0, q1;
				clock_gettime(CLOCK_MONOTONIC, &q0);
				int qrc = gpu_query(&g, &n, &env, err, sizeof err);
				if (!qrc)
					env.blaslt_version = gpu_blaslt_version();
				clock_gettime(CLOCK_MONOTONIC, &q1);
				if (getenv("TUNETAB_PROF_TIMING"))
					fprintf(stderr, "tunetab-worker: device query (CUDA init) %.1f ms\n",
						(double)(q1.tv_sec - q0.tv_sec) * 1e3 + (q1.tv_nsec - q0.tv_nsec) * 1e-6);
				if (qrc) {
					printf("ERR %s\n", err);
				} else if (device >= n) {
					printf("ERR no GPU %d (%d visible)\n", device, n);
					free(g);
				} else {
					const struct gpu_info *x = &g[device];
					hex_encode(x->name, hex, sizeof hex);
					printf("DEV %s %d %d %d %zu %zu %zu %zu %.0f %.1f %d %d %d %ld\n", hex,
					       x->cc_major, x->cc_minor, x->sm_count, x->smem_per_block_optin,
					       x->smem_per_sm, x->l2_bytes, x->total_mem, x->clock_khz / 1000.0,
					       2.0 * x->mem_clock_khz * 1e3 * (x->mem_bus_width / 8.0) / 1e9, n,
					       env.driver_version, env.runtime_version, env.blaslt_version);
					free(g);
				}
			}
			fflush(stdout);
			continue;
		}
		if (str_starts(line, "JOB ")) {
			struct prof_shape s;
			char dtype[16];
			size_t n;
			int off = 0;
			memset(&s, 0, sizeof s);
			if (sscanf(line, "JOB %15s %ld %ld %ld %ld %d %d %d %zu%n", dtype, &s.batch, &s.tokens,
				   &s.features, &s.k, &s.rounds, &s.reps, &s.method, &n, &off) != 9 || n > 4096) {
				printf("ERR bad job\n");
				fflush(stdout);
				continue;
			}
			s.dtype = dtype;
			struct prof_cand *c = xcalloc(n ? n : 1, sizeof *c);
			struct prof_result *r = xcalloc(n ? n : 1, sizeof *r);
			const char *p = line + off;
			for (size_t i = 0; i < n; i++) {
				int used = 0;
				sscanf(p, " %d,%d,%d,%d,%d,%d,%d,%d%n", &c[i].id, &c[i].tile_m, &c[i].tile_n,
				       &c[i].cluster_m, &c[i].cluster_n, &c[i].stages, &c[i].swap, &c[i].sm80,
				       &used);
				p += used;
			}
			job_started = 0;
			int rc = fake ? fake_run(&s, c, n, r)
				      : gpu_prof_run(device, &s, c, n, r, on_start, NULL, err, sizeof err);
			if (rc && job_started) {
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
			if (rc && !fake)
				break; /* a sticky CUDA error: let the parent restart us */
			continue;
		}
		if (str_starts(line, "CAL ")) {
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
			int rc;
			if (fake) {
				memset(&cal, 0, sizeof cal);
				cal.copy_gbs = 4000;
				cal.tflops_bf16 = 700;
				cal.tflops_fp8 = 1300;
				cal.ntiles = n;
				for (int i = 0; i < n; i++) {
					cal.tiles[i].m = tiles[i][0];
					cal.tiles[i].n = tiles[i][1];
					cal.tiles[i].eff_bf16 = cal.tiles[i].eff_fp8 =
						fmin(1.0, 0.5 + 0.5 * fmin(tiles[i][0], tiles[i][1]) / 128.0);
				}
				rc = 0;
			} else {
				rc = gpu_calibrate(device, (const int (*)[2])tiles, n, &cal, err, sizeof err);
			}
			if (rc) {
				printf("ERR %s\n", err);
			} else {
				printf("CAL %.2f %.2f %.2f %d", cal.copy_gbs, cal.tflops_bf16, cal.tflops_fp8,
				       cal.ntiles);
				for (int i = 0; i < cal.ntiles; i++)
					printf(" %d,%d,%.4f,%.4f", cal.tiles[i].m, cal.tiles[i].n,
					       cal.tiles[i].eff_bf16, cal.tiles[i].eff_fp8);
				printf("\n");
			}
			fflush(stdout);
			continue;
		}
		printf("ERR unknown request\n");
		fflush(stdout);
	}
	free(line);
	return 0;
}
