/* profile.c: short profiling runs through the worker, a journal that survives SIGKILL,
 * and a choice that is never worse than the fallback and agrees from run to run. */
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define PROF_MAX 512 /* candidates of one stage, exhaustive mode included */

struct jrec {
	int stage;
	long tokens;
	struct prof_result r;
};

struct journal {
	int fd;
	struct jrec *v;
	size_t n, cap;
};

static void jpush(struct journal *j, const struct jrec *r)
{
	if (j->n == j->cap) {
		j->cap = j->cap ? 2 * j->cap : 256;
		j->v = xrealloc(j->v, j->cap * sizeof *j->v);
	}
	j->v[j->n++] = *r;
}

static const struct prof_result *jfind(const struct journal *j, int stage, long tokens, int id)
{
	for (size_t i = j->n; i-- > 0;)
		if (j->v[i].stage == stage && j->v[i].tokens == tokens && j->v[i].r.id == id)
			return &j->v[i].r;
	return NULL;
}

/* Opens (and replays) the journal; a journal for another run is moved aside. */
static int journal_open(struct journal *j, const char *path, const char *identity, size_t *resumed,
			struct diags *d)
{
	memset(j, 0, sizeof *j);
	*resumed = 0;
	char *text;
	size_t len;
	char *header = xasprintf("# tunetab journal v1 %s", identity);
	if (read_file(path, 256u << 20, &text, &len) == 0) {
		char *nl = strchr(text, '\n');
		if (nl)
			*nl = '\0';
		if (strcmp(text, header) != 0) {
			char *old = xasprintf("%s.old", path);
			rename(path, old);
			free(old);
		} else {
			for (char *line = nl ? nl + 1 : NULL, *next; line && *line; line = next) {
				next = strchr(line, '\n');
				if (!next)
					break; /* a torn last line (killed mid-write) is ignored */
				*next++ = '\0';
				struct jrec r;
				memset(&r, 0, sizeof r);
				int st;
				char why[128] = "";
				if (sscanf(line, "M %d %ld %d %d %lf %lf %lf %d %127s", &r.stage, &r.tokens, &r.r.id,
					   &st, &r.r.median_us, &r.r.lo_us, &r.r.hi_us, &r.r.n, why) >= 8) {
					r.r.status = (enum prof_status)st;
					for (char *p = why; *p; p++)
						if (*p == '_')
							*p = ' ';
					snprintf(r.r.why, sizeof r.r.why, "%s", strcmp(why, "-") ? why : "");
					jpush(j, &r);
					(*resumed)++;
				}
			}
		}
		free(text);
	}
	j->fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (j->fd < 0) {
		free(header);
		return diag_error(d, TT_INTERNAL, "io", path, 0, 0, "cannot open the journal: %s",
				  strerror(errno));
	}
	struct stat sb;
	if (fstat(j->fd, &sb) == 0 && sb.st_size == 0) {
		char *h = xasprintf("%s\n", header);
		if (write(j->fd, h, strlen(h)) < 0 || fsync(j->fd)) {
			free(h);
			free(header);
			return diag_error(d, TT_INTERNAL, "io", path, 0, 0, "cannot write the journal: %s",
					  strerror(errno));
		}
		free(h);
	}
	free(header);
	return TT_OK;
}

static int journal_append(struct journal *j, int stage, long tokens, const struct prof_result *r,
			  size_t n, struct diags *d)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		char why[128];
		snprintf(why, sizeof why, "%s", r[i].why[0] ? r[i].why : "-");
		for (char *p = why; *p; p++)
			if (*p == ' ' || *p == '\n')
				*p = '_';
		sb_addf(&sb, "M %d %ld %d %d %.4f %.4f %.4f %d %s\n", stage, tokens, r[i].id,
			(int)r[i].status, r[i].median_us, r[i].lo_us, r[i].hi_us, r[i].n, why);
		struct jrec rec = { stage, tokens, r[i] };
		jpush(j, &rec);
	}
	/* one write per entry, then fsync: after SIGKILL the journal holds whole entries, and a
	 * torn last line at worst */
	int bad = write(j->fd, sb.buf, sb.len) != (ssize_t)sb.len || fsync(j->fd);
	sb_release(&sb);
	if (bad)
		return diag_error(d, TT_INTERNAL, "io", NULL, 0, 0, "cannot append to the journal: %s",
				  strerror(errno));
	return TT_OK;
}

static void journal_close(struct journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	free(j->v);
}

static const struct tactic *find_tactic(const struct tactic_list *l, int stage, int id)
{
	const struct tactic *c = stage == 1 ? l->g1 : l->g2;
	size_t n = stage == 1 ? l->n1 : l->n2;
	for (size_t i = 0; i < n; i++)
		if (c[i].id == id)
			return &c[i];
	return NULL;
}

static struct prof_cand to_cand(const struct tactic *t)
{
	struct prof_cand c;
	memset(&c, 0, sizeof c);
	c.id = t->id;
	c.tile_m = t->m;
	c.tile_n = t->n;
	c.cluster_m = t->cluster[0];
	c.cluster_n = t->cluster[1];
	c.stages = t->sm80_style ? t->stages : 0;
	c.swap = t->tokens_on_n;
	c.sm80 = t->sm80_style;
	return c;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The rule: a candidate replaces the fallback only if its whole interval lies below the
 * fallback's; among those, the lowest median, and among candidates whose intervals overlap
 * that one, the lower id. Ties go to the fallback, so two runs agree and none is slower. */
static void decide(struct gen_entry *e, const int *ids, const struct prof_result *r, size_t n)
{
	const struct prof_result *fb = NULL;
	for (size_t i = 0; i < n; i++)
		if (ids[i] == e->fallback && r[i].status == PROF_OK)
			fb = &r[i];
	size_t measured = 0;
	for (size_t i = 0; i < n; i++)
		measured += r[i].status == PROF_OK;
	e->fallback_us = fb ? fb->median_us : -1;
	if (!measured) {
		e->kind = CHOICE_PREDICTED; /* keep the heuristic's choice */
		return;
	}
	const struct prof_result *best = NULL;
	for (size_t i = 0; i < n; i++) {
		if (r[i].status != PROF_OK || ids[i] == e->fallback)
			continue;
		if (fb && !(r[i].hi_us < fb->lo_us))
			continue;
		if (!best || r[i].median_us < best->median_us)
			best = &r[i];
	}
	if (!best) {
		if (fb) {
			e->tactic = e->fallback;
			e->kind = CHOICE_FALLBACK;
			e->chosen_us = fb->median_us;
		} else {
			e->kind = CHOICE_PREDICTED;
		}
		return;
	}
	const struct prof_result *pick = best;
	for (size_t i = 0; i < n; i++) {
		if (r[i].status != PROF_OK || ids[i] == e->fallback || (fb && !(r[i].hi_us < fb->lo_us)))
			continue;
		if (r[i].lo_us <= best->hi_us && r[i].id < pick->id)
			pick = &r[i];
	}
	e->tactic = pick->id;
	e->chosen_us = pick->median_us;
	e->time_us = pick->median_us;
	e->kind = CHOICE_MEASURED;
}

int profile_plan(struct worker *w, struct gen_plan *p, const struct gen_deploy *dep,
		 const struct profile_opts *o, struct profile_stats *st, struct diags *d)
{
	memset(st, 0, sizeof *st);
	struct journal j;
	int rc = journal_open(&j, o->journal, o->identity, &st->resumed, d);
	if (rc)
		return rc;
	double t0 = now_s();
	int top_k = o->top_k > 0 ? o->top_k : 4;
	for (size_t i = 0; i < p->n && !rc; i++) {
		struct gen_entry *e = &p->v[i];
		int ids[PROF_MAX];
		size_t n = 0, next_top = 0;
		if (o->top_k < 0) {
			const struct tactic *cl = e->stage == 1 ? p->list.g1 : p->list.g2;
			size_t cn = e->stage == 1 ? p->list.n1 : p->list.n2;
			for (size_t k = 0; k < cn && n < PROF_MAX - 1; k++)
				if (cl[k].dispatchable)
					ids[n++] = cl[k].id;
		} else {
			while ((int)next_top < e->ntop && (int)n < top_k)
				ids[n++] = e->top[next_top++];
		}
		bool have_fb = false;
		for (size_t k = 0; k < n; k++)
			have_fb |= ids[k] == e->fallback;
		const struct tactic *fbt = find_tactic(&p->list, e->stage, e->fallback);
		if (!have_fb && fbt && fbt->dispatchable)
			ids[n++] = e->fallback;
		struct prof_result res[PROF_MAX];
		size_t have = 0; /* res[0..have) are known */
		bool out_of_budget = false;
		for (;;) {
			struct prof_cand todo[PROF_MAX];
			int todo_at[PROF_MAX];
			size_t ntodo = 0, start = have;
			for (size_t k = have; k < n; k++) {
				const struct prof_result *old = jfind(&j, e->stage, e->tokens, ids[k]);
				if (old) {
					res[k] = *old;
					continue;
				}
				todo[ntodo] = to_cand(find_tactic(&p->list, e->stage, ids[k]));
				todo_at[ntodo++] = (int)k;
			}
			have = n;
			if (ntodo && o->budget_s > 0 && now_s() - t0 > o->budget_s) {
				if (start == 0)
					out_of_budget = true; /* nothing timed: the heuristic's choice */
				else
					n = start; /* decide on the first round alone */
				break;
			}
			if (ntodo) {
				/* the proxy GEMM: one batched GEMM over the local experts with the tokens each
				 * gets from uniform top-k routing (as FlashInfer's profiler routes, tactics §1.2) */
				double lambda = (double)e->tokens * dep->top_k / (double)e->experts;
				struct prof_shape s = {
					.dtype = dep->dt->name,
					.batch = lambda >= 1 ? e->experts : (long)fmax(1, round(e->tokens * dep->top_k)),
					.tokens = lambda >= 1 ? (long)round(lambda) : 1,
					.features = e->features,
					.k = e->k,
					.rounds = o->rounds,
					.reps = o->reps,
					.method = o->method,
				};
				struct prof_result got[PROF_MAX];
				rc = worker_profile(w, &s, todo, ntodo, got, d);
				if (rc)
					break;
				for (size_t k = 0; k < ntodo; k++)
					res[todo_at[k]] = got[k];
				rc = journal_append(&j, e->stage, e->tokens, got, ntodo, d);
				st->timed += ntodo;
				if (rc)
					break;
			}
			/* --top N means N candidates the proxy could time: the heuristic's next ones
			 * replace those it cannot express, so a stage is never left to the fallback
			 * alone because its favourites have no cuBLASLt form */
			if (o->top_k < 0)
				break;
			int ok = 0;
			for (size_t k = 0; k < n; k++)
				ok += res[k].status == PROF_OK && ids[k] != e->fallback;
			size_t added = 0;
			while (ok + (int)added < top_k && (int)next_top < e->ntop && n < PROF_MAX) {
				int id = e->top[next_top++];
				if (id != e->fallback)
					ids[n++] = id, added++;
			}
			if (!added)
				break;
		}
		if (rc)
			break;
		if (out_of_budget) {
			e->kind = CHOICE_PREDICTED;
			st->predicted_entries++;
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			st->failed_candidates += res[k].status == PROF_FAILED;
			st->unsupported += res[k].status == PROF_UNSUPPORTED;
			e->failed += res[k].status == PROF_FAILED;
		}
		decide(e, ids, res, n);
		if (e->kind == CHOICE_MEASURED)
			st->measured_entries++;
		else if (e->kind == CHOICE_FALLBACK)
			st->fallback_kept++;
		else
			st->predicted_entries++;
		if (o->progress) {
			double el = now_s() - t0;
			double eta = el / (double)(i + 1) * (double)(p->n - i - 1);
			fprintf(stderr, "\rtunetab: profiling GEMM%d %6ld tokens  %zu/%zu  ETA %4.0fs ", e->stage,
				e->tokens, i + 1, p->n, eta);
		}
		if (o->verbose) {
			fprintf(stderr, "tunetab: GEMM%d %ld tokens:", e->stage, e->tokens);
			for (size_t k = 0; k < n; k++)
				if (res[k].status == PROF_OK)
					fprintf(stderr, " %d=%.2fus[%.2f,%.2f]", ids[k], res[k].median_us, res[k].lo_us,
						res[k].hi_us);
				else
					fprintf(stderr, " %d=%s(%s)", ids[k],
						res[k].status == PROF_FAILED ? "failed" : "unsupported", res[k].why);
			fprintf(stderr, " -> %d (%s)\n", e->tactic,
				e->kind == CHOICE_MEASURED ? "measured" : e->kind == CHOICE_FALLBACK
										? "fallback kept" : "predicted");
		}
	}
	if (o->progress)
		fputc('\n', stderr);
	st->seconds = now_s() - t0;
	journal_close(&j);
	return rc;
}
