/* wire.c: the worker protocol's one table of messages, its generic writer and reader (wire.h). */
#include "tune/wire.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tune/worker.h"

/* an enum's storage is read and written as an int */
_Static_assert(sizeof(enum prof_status) == sizeof(int), "prof_status is an int");
_Static_assert(sizeof(enum gate_verdict) == sizeof(int), "gate_verdict is an int");
_Static_assert(sizeof(((struct layer_result *)0)->status) == sizeof(int), "status is an int");

#define F(S, name, type, member) \
	{ name, type, offsetof(S, member), sizeof(((S *)0)->member), 0, 0, NULL }
/* a double written as printf's %.<prec><conv> */
#define D(S, name, member, conv, prec) \
	{ name, WT_DOUBLE, offsetof(S, member), sizeof(double), conv, prec, NULL }

/* --- the table -------------------------------------------------------------------------- */

/* A job of the CUTLASS fused MoE (JOB, PREP, GATE): one MoE stage's GEMM at one token bucket,
 * per rank (gpu.h struct prof_shape) */
#define J(name, type, member) F(struct wire_job, name, type, s.member)
#define JOB_FIELDS                                                                              \
	J("dtype", WT_PWORD, dtype), J("batch", WT_LONG, batch), J("tokens", WT_LONG, tokens),  \
	J("features", WT_LONG, features), J("k", WT_LONG, k), J("rounds", WT_INT, rounds),      \
	J("reps", WT_INT, reps), J("method", WT_INT, method), J("stage", WT_INT, stage),        \
	J("bucket", WT_LONG, bucket), J("hidden", WT_LONG, hidden), J("inter", WT_LONG, inter), \
	J("local_experts", WT_LONG, experts), J("top_k", WT_LONG, top_k),                       \
	J("tp", WT_LONG, tp), J("tp_rank", WT_LONG, tp_rank), J("ep", WT_LONG, ep),             \
	J("ep_rank", WT_LONG, ep_rank), J("act", WT_INT, activation),                           \
	J("biases", WT_INT, biases), J("fused_finalize", WT_INT, fused_finalize)
/* the entry's FlashInfer key, its extras' names and the runner's arguments (the flashinfer
 * worker's: tunetab's own does not take them) */
#define KEY_FIELDS                                                                \
	J("key", WT_PTEXT, key), J("key_fields", WT_PTEXT, key_fields),           \
	J("runner_args", WT_PTEXT, runner)

static const struct wire_field job_fields[] = { JOB_FIELDS };
static const struct wire_field prep_fields[] = { JOB_FIELDS, KEY_FIELDS };
static const struct wire_field gate_fields[] = {
	D(struct wire_job, "bound", bound, 'g', 6), D(struct wire_job, "ref_bound", ref_bound, 'g', 6),
	JOB_FIELDS, KEY_FIELDS,
};
static const struct wire_field layer_fields[] = {
	F(struct wire_job, "load", WT_PWORD, load), F(struct wire_job, "popularity", WT_PTEXT, popularity),
	F(struct wire_job, "draws", WT_INT, draws), F(struct wire_job, "layer_reps", WT_INT, layer_reps),
	F(struct wire_job, "layer_rounds", WT_INT, layer_rounds), F(struct wire_job, "seed", WT_INT, seed),
	JOB_FIELDS, KEY_FIELDS,
};
#undef J

#define C(name, member) F(struct prof_cand, name, WT_INT, member)
static const struct wire_field job_cols[] = {
	C("id", id), C("tile_m", tile_m), C("tile_n", tile_n), C("cluster_m", cluster_m),
	C("cluster_n", cluster_n), C("stages", stages), C("swap", swap), C("sm80", sm80),
};
static const struct wire_field cand_id_cols[] = { C("id", id) };
#undef C
static const struct wire_field id_cols[] = { F(struct wire_cand, "id", WT_INT, id) };
static const struct wire_field op_cand_cols[] = {
	F(struct wire_op_cand, "id", WT_INT, id), F(struct wire_op_cand, "tactic", WT_PTEXT, tactic),
};

static const struct wire_field pair_cols[] = {
	F(struct layer_pair, "g1", WT_INT, g1), F(struct layer_pair, "g2", WT_INT, g2),
};

static const struct wire_field load_fields[] = { F(struct wire_load, "dtype", WT_PWORD, dtype) };
static const struct wire_field round_fields[] = {
	F(struct wire_round, "method", WT_INT, method),
	F(struct wire_round, "min_reps", WT_INT, min_reps),
};
static const struct wire_field round_cols[] = {
	F(struct wire_round_item, "id", WT_INT, id), F(struct wire_round_item, "reps", WT_INT, reps),
};
static const struct wire_field tile_req_cols[] = {
	F(struct wire_tile, "tile_m", WT_INT, tile_m), F(struct wire_tile, "tile_n", WT_INT, tile_n),
};
static const struct wire_field tile_cols[] = {
	F(struct wire_tile, "tile_m", WT_INT, tile_m), F(struct wire_tile, "tile_n", WT_INT, tile_n),
	D(struct wire_tile, "eff_bf16", eff_bf16, 'f', 4), D(struct wire_tile, "eff_fp8", eff_fp8, 'f', 4),
};
static const struct wire_field optest_req_fields[] = {
	F(struct wire_optest_req, "op", WT_PWORD, op),
	F(struct wire_optest_req, "runner", WT_PWORD, runner),
};
static const struct wire_field opprof_req_fields[] = {
	F(struct wire_opprof_req, "bucket", WT_LONG, bucket),
	F(struct wire_opprof_req, "reps", WT_INT, reps),
	F(struct wire_opprof_req, "gate", WT_INT, gate),
};

static const struct wire_field who_fields[] = {
	F(struct worker_backend, "backend", WT_WORD, name),
	F(struct worker_backend, "version", WT_WORD, version),
	F(struct worker_backend, "torch", WT_WORD, torch),
	F(struct worker_backend, "detail", WT_TEXT, why),
};
#define G(name, type, member) F(struct worker_device, name, type, member)
static const struct wire_field dev_fields[] = {
	G("name", WT_TEXT, gpu.name), G("cc_major", WT_INT, gpu.cc_major),
	G("cc_minor", WT_INT, gpu.cc_minor), G("sms", WT_INT, gpu.sm_count),
	G("smem_optin", WT_SIZE, gpu.smem_per_block_optin), G("smem_sm", WT_SIZE, gpu.smem_per_sm),
	G("l2", WT_SIZE, gpu.l2_bytes), G("mem", WT_SIZE, gpu.total_mem),
	G("clock_khz", WT_INT, gpu.clock_khz), D(struct worker_device, "mem_bw_gbs", mem_bw_gbs, 'f', 1),
	G("visible", WT_INT, visible), G("driver", WT_INT, env.driver_version),
	G("runtime", WT_INT, env.runtime_version), G("blaslt", WT_LONG, env.blaslt_version),
};
#undef G
static const struct wire_field note_fields[] = { F(struct wire_text, "text", WT_TEXT, text) };
static const struct wire_field ok_fields[] = { D(struct wire_ok, "seconds", seconds, 'f', 3) };
static const struct wire_field res_fields[] = {
	F(struct prof_result, "id", WT_INT, id), F(struct prof_result, "status", WT_INT, status),
	D(struct prof_result, "median_us", median_us, 'f', 4),
	D(struct prof_result, "lo_us", lo_us, 'f', 4), D(struct prof_result, "hi_us", hi_us, 'f', 4),
	F(struct prof_result, "samples", WT_INT, n), F(struct prof_result, "why", WT_TEXT, why),
};
static const struct wire_field ready_fields[] = {
	F(struct wire_ready, "id", WT_INT, id), F(struct wire_ready, "reps", WT_INT, reps),
};
static const struct wire_field t_fields[] = {
	F(struct wire_time, "id", WT_INT, id), D(struct wire_time, "us", us, 'f', 4),
};
static const struct wire_field f_fields[] = {
	F(struct prof_result, "id", WT_INT, id), F(struct prof_result, "why", WT_TEXT, why),
};
static const char *const verdicts[] = { "ok", "bad", "unchecked", NULL }; /* enum gate_verdict */
static const struct wire_field g_fields[] = {
	F(struct gate_result, "id", WT_INT, id),
	{ "verdict", WT_ENUM, offsetof(struct gate_result, verdict), sizeof(int), 0, 0, verdicts },
	D(struct gate_result, "max_abs", max_abs, 'g', 6), D(struct gate_result, "rel", rel, 'g', 6),
	F(struct gate_result, "why", WT_TEXT, why),
};
static const struct wire_field l_fields[] = {
	F(struct layer_result, "g1", WT_INT, g1), F(struct layer_result, "g2", WT_INT, g2),
	F(struct layer_result, "status", WT_INT, status), D(struct layer_result, "us", us, 'f', 4),
	F(struct layer_result, "why", WT_TEXT, why),
};
static const struct wire_field cal_fields[] = {
	D(struct gpu_calibration, "copy_gbs", copy_gbs, 'f', 2),
	D(struct gpu_calibration, "tflops_bf16", tflops_bf16, 'f', 2),
	D(struct gpu_calibration, "tflops_fp8", tflops_fp8, 'f', 2),
};
static const struct wire_field optest_fields[] = {
	F(struct wire_optest, "status", WT_WORD, status),
	F(struct wire_optest, "detail", WT_TEXT, detail),
};
static const struct wire_field opprof_fields[] = {
	F(struct worker_opprof, "timed", WT_INT, timed), F(struct worker_opprof, "win", WT_TEXT, win),
	D(struct worker_opprof, "win_us", win_us, 'f', 4),
	D(struct worker_opprof, "fallback_us", fallback_us, 'f', 4),
	F(struct worker_opprof, "verdict", WT_WORD, gate),
	F(struct worker_opprof, "detail", WT_TEXT, detail),
};

#define FIELDS(a) a, ARRAY_SIZE(a)
#define NOFIELDS NULL, 0
#define LIST(count, cols, item) WIRE_LIST, count, cols, ARRAY_SIZE(cols), sizeof(item), 0, 0
#define NOTAIL WIRE_NONE, NULL, NULL, 0, 0, 0, 0
#define TEXT WIRE_TEXT, NULL, NULL, 0, 0, offsetof(struct wire_text, text), \
	sizeof(((struct wire_text *)0)->text)

static const struct wire_msg messages[WIRE_MESSAGES] = {
	{ WQ_WHO, WIRE_REQUEST, "WHO", NOFIELDS, NOTAIL },
	{ WQ_INFO, WIRE_REQUEST, "INFO", NOFIELDS, NOTAIL },
	{ WQ_LOAD, WIRE_REQUEST, "LOAD", FIELDS(load_fields), NOTAIL },
	{ WQ_JOB, WIRE_REQUEST, "JOB", FIELDS(job_fields), LIST("cands", job_cols, struct prof_cand) },
	{ WQ_PREP, WIRE_REQUEST, "PREP", FIELDS(prep_fields),
	  LIST("cands", cand_id_cols, struct prof_cand) },
	{ WQ_GATE, WIRE_REQUEST, "GATE", FIELDS(gate_fields),
	  LIST("cands", cand_id_cols, struct prof_cand) },
	{ WQ_ROUND, WIRE_REQUEST, "ROUND", FIELDS(round_fields),
	  LIST("cands", round_cols, struct wire_round_item) },
	{ WQ_CAL, WIRE_REQUEST, "CAL", NOFIELDS, LIST("tiles", tile_req_cols, struct wire_tile) },
	{ WQ_OPTEST, WIRE_REQUEST, "OPTEST", FIELDS(optest_req_fields), NOTAIL },
	{ WQ_OPPROF, WIRE_REQUEST, "OPPROF", FIELDS(opprof_req_fields),
	  LIST("cands", op_cand_cols, struct wire_op_cand) },
	{ WQ_LAYER, WIRE_REQUEST, "LAYER", FIELDS(layer_fields),
	  LIST("pairs", pair_cols, struct layer_pair) },
	{ WR_WHO, WIRE_REPLY, "WHO", FIELDS(who_fields), NOTAIL },
	{ WR_DEV, WIRE_REPLY, "DEV", FIELDS(dev_fields), NOTAIL },
	{ WR_NOTE, WIRE_REPLY, "NOTE", FIELDS(note_fields), NOTAIL },
	{ WR_OK, WIRE_REPLY, "OK", FIELDS(ok_fields), NOTAIL },
	{ WR_START, WIRE_REPLY, "START", FIELDS(id_cols), NOTAIL },
	{ WR_RES, WIRE_REPLY, "RES", FIELDS(res_fields), NOTAIL },
	{ WR_READY, WIRE_REPLY, "READY", FIELDS(ready_fields), NOTAIL },
	{ WR_T, WIRE_REPLY, "T", FIELDS(t_fields), NOTAIL },
	{ WR_F, WIRE_REPLY, "F", FIELDS(f_fields), NOTAIL },
	{ WR_G, WIRE_REPLY, "G", FIELDS(g_fields), NOTAIL },
	{ WR_L, WIRE_REPLY, "L", FIELDS(l_fields), NOTAIL },
	{ WR_END, WIRE_REPLY, "END", NOFIELDS, NOTAIL },
	{ WR_CAL, WIRE_REPLY, "CAL", FIELDS(cal_fields), LIST("tiles", tile_cols, struct wire_tile) },
	{ WR_OPTEST, WIRE_REPLY, "OPTEST", FIELDS(optest_fields), NOTAIL },
	{ WR_OPPROF, WIRE_REPLY, "OPPROF", FIELDS(opprof_fields), NOTAIL },
	{ WR_ERR, WIRE_REPLY, "ERR", NOFIELDS, TEXT },
	{ WR_FAULT, WIRE_REPLY, "FAULT", NOFIELDS, TEXT },
};

const struct wire_msg *wire_msg(enum wire_id id)
{
	return &messages[id];
}

/* --- reading ---------------------------------------------------------------------------- */

#define SPACE " \t\r\n"

static int fail(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The words of a line before its "--": calls fn on each (name=value or not), stops where fn
 * returns nonzero; the tail after "--" (NULL: no "--"). */
static const char *words(const char *line, int (*fn)(const char *w, size_t len, void *ctx),
			 void *ctx)
{
	const char *w = line + strspn(line, SPACE);
	w += strcspn(w, SPACE); /* the verb */
	for (w += strspn(w, SPACE); *w; w += strspn(w, SPACE)) {
		size_t len = strcspn(w, SPACE);
		if (len == 2 && !strncmp(w, "--", 2))
			return w + 2;
		if (fn && fn(w, len, ctx))
			return NULL;
		w += len;
	}
	return NULL;
}

struct version { const char *v; size_t len; };

static int find_version(const char *w, size_t len, void *ctx)
{
	struct version *x = ctx;
	/* the first v= with a number (not a word of an older version's free text) */
	if (!x->v && len > 2 && len < 12 && !strncmp(w, "v=", 2) &&
	    strspn(w + 2, "0123456789") == len - 2)
		x->v = w + 2, x->len = len - 2;
	return 0;
}

/* How much of a line a message shows. */
static size_t shown(const char *line)
{
	size_t len = strcspn(line, "\r\n");
	return len > 100 ? 100 : len;
}

/* The message of dir whose verb starts the line, or NULL. */
static const struct wire_msg *find_verb(const char *line, enum wire_dir dir)
{
	const char *verb = line + strspn(line, SPACE);
	size_t verb_len = strcspn(verb, SPACE);
	for (size_t i = 0; i < WIRE_MESSAGES; i++)
		if (messages[i].dir == dir && strlen(messages[i].verb) == verb_len &&
		    !strncmp(messages[i].verb, verb, verb_len))
			return &messages[i];
	return NULL;
}

/* "the worker speaks protocol 2, tunetab 3 (...)" or the request's side of it */
static int version_error(const char *line, enum wire_dir dir, const struct version *x,
			 char *why, size_t whylen)
{
	const char *verb = line + strspn(line, SPACE);
	int verb_len = (int)strcspn(verb, SPACE);
	char theirs[32];
	if (x->v)
		snprintf(theirs, sizeof theirs, "%.*s", (int)(x->len < 16 ? x->len : 16), x->v);
	else
		snprintf(theirs, sizeof theirs, "2 or older");
	if (dir == WIRE_REPLY)
		return fail(why, whylen, "the worker speaks protocol %s, tunetab %d (it answered "
			    "'%.*s%s'%s)", theirs, WIRE_VERSION, (int)shown(verb), verb,
			    strcspn(verb, "\r\n") > shown(verb) ? "..." : "", x->v ? "" : ", without v=");
	return fail(why, whylen, "tunetab speaks protocol %s, this worker %d (its %.*s line%s)",
		    theirs, WIRE_VERSION, verb_len, verb, x->v ? "" : ", without v=");
}

const struct wire_msg *wire_identify(const char *line, enum wire_dir dir, char *why,
				     size_t whylen)
{
	struct version x = { NULL, 0 };
	words(line, find_version, &x);
	char mine[16];
	snprintf(mine, sizeof mine, "%d", WIRE_VERSION);
	/* a line without v= is of an older version where its verb is one of the protocol's (a
	 * version 2 reply), else not the protocol's at all (a library's stray output) */
	if ((x.v || find_verb(line, WIRE_REQUEST) || find_verb(line, WIRE_REPLY)) &&
	    (!x.v || x.len != strlen(mine) || strncmp(x.v, mine, x.len))) {
		version_error(line, dir, &x, why, whylen);
		return NULL;
	}
	const struct wire_msg *m = find_verb(line, dir);
	if (!m)
		fail(why, whylen, "not a %s of the worker protocol: '%.*s%s'",
		     dir == WIRE_REQUEST ? "request" : "reply", (int)shown(line), line,
		     strcspn(line, "\r\n") > shown(line) ? "..." : "");
	return m;
}

/* Hex text (len digits; "-": none) into out[0..n), cut to fit; -1 when it is not hex. */
static int hex_decode(const char *h, size_t len, char *out, size_t n)
{
	size_t i = 0;
	if (len == 1 && *h == '-') {
		out[0] = '\0';
		return 0;
	}
	if (len % 2)
		return -1;
	for (size_t j = 0; j < len; j += 2) {
		int hi = hex_digit(h[j]), lo = hex_digit(h[j + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		if (i + 1 < n)
			out[i++] = (char)(hi << 4 | lo);
	}
	out[i] = '\0';
	return 0;
}

/* One value of field f (len bytes at v) into the struct at obj: -1 when it does not parse. */
static int read_value(const struct wire_field *f, const char *v, size_t len, void *obj)
{
	char *at = (char *)obj + f->off;
	char tmp[64], *end;
	switch (f->type) {
	case WT_WORD:
		if (!len || len >= f->size)
			return -1;
		memcpy(at, v, len);
		at[len] = '\0';
		return 0;
	case WT_TEXT:
		return hex_decode(v, len, at, f->size);
	case WT_PWORD:
	case WT_PTEXT: {
		char *s = xmalloc(len + 1), **slot = (char **)at;
		if (f->type == WT_PWORD) {
			memcpy(s, v, len);
			s[len] = '\0';
		} else if (hex_decode(v, len, s, len + 1)) {
			free(s);
			return -1;
		}
		free(*slot);
		*slot = f->type == WT_PTEXT && !*s ? (free(s), NULL) : s;
		return 0;
	}
	case WT_ENUM:
		for (int i = 0; f->words[i]; i++)
			if (strlen(f->words[i]) == len && !strncmp(f->words[i], v, len)) {
				*(int *)at = i;
				return 0;
			}
		return -1;
	default:
		break;
	}
	if (!len || len >= sizeof tmp)
		return -1;
	memcpy(tmp, v, len);
	tmp[len] = '\0';
	errno = 0;
	if (f->type == WT_DOUBLE) {
		*(double *)at = strtod(tmp, &end);
		return *end || errno == EINVAL ? -1 : 0;
	}
	long long x = strtoll(tmp, &end, 10);
	if (*end || errno)
		return -1;
	if (f->type == WT_INT) {
		if (x < INT_MIN || x > INT_MAX)
			return -1;
		*(int *)at = (int)x;
	} else if (f->type == WT_LONG) {
		if (x < LONG_MIN || x > LONG_MAX)
			return -1;
		*(long *)at = (long)x;
	} else {
		if (x < 0 || (unsigned long long)x > SIZE_MAX)
			return -1;
		*(size_t *)at = (size_t)x;
	}
	return 0;
}

struct reading {
	const struct wire_msg *m;
	void *obj;
	bool *seen;              /* per field */
	const char *count, *cols; /* the list's count and columns (their values) */
	size_t count_len, cols_len;
	char *why;
	size_t whylen;
	int rc;
};

static int read_word(const char *w, size_t len, void *ctx)
{
	struct reading *r = ctx;
	const struct wire_msg *m = r->m;
	const char *eq = memchr(w, '=', len);
	if (!eq) {
		r->rc = fail(r->why, r->whylen, "%s: '%.*s' is not name=value", m->verb, (int)len, w);
		return 1;
	}
	size_t name_len = (size_t)(eq - w), vlen = len - name_len - 1;
	for (size_t i = 0; i < m->nfields; i++) {
		const struct wire_field *f = &m->fields[i];
		if (strlen(f->name) != name_len || strncmp(f->name, w, name_len))
			continue;
		r->seen[i] = true;
		if (read_value(f, eq + 1, vlen, r->obj)) {
			r->rc = fail(r->why, r->whylen, "%s: bad value '%.*s'", m->verb, (int)len, w);
			return 1;
		}
		return 0;
	}
	if (m->tail == WIRE_LIST && strlen(m->count) == name_len && !strncmp(m->count, w, name_len))
		r->count = eq + 1, r->count_len = vlen;
	else if (m->tail == WIRE_LIST && name_len == 4 && !strncmp(w, "cols", 4))
		r->cols = eq + 1, r->cols_len = vlen;
	return 0; /* a name this version does not have: ignored */
}

/* The list after "--" (count items) into *items: r->cols names each item's columns. */
static int read_list(struct reading *r, const char *tail, size_t count, void **items)
{
	const struct wire_msg *m = r->m;
	size_t words_after = 0;
	for (const char *w = tail + strspn(tail, SPACE); *w; w += strspn(w, SPACE), words_after++)
		w += strcspn(w, SPACE);
	if (words_after != count)
		return fail(r->why, r->whylen, "%s: %s=%zu but %zu items after '--'", m->verb,
			    m->count, count, words_after);
	/* which of the message's columns each of the line's is (-1: one it does not know) */
	int at[32];
	size_t ncols = 0;
	bool have[32] = { false };
	for (const char *c = r->cols, *end = r->cols + r->cols_len; c < end; ncols++) {
		size_t len = strcspn(c, "," SPACE);
		if (ncols == ARRAY_SIZE(at))
			return fail(r->why, r->whylen, "%s: too many columns", m->verb);
		at[ncols] = -1;
		for (size_t i = 0; i < m->ncols; i++)
			if (strlen(m->cols[i].name) == len && !strncmp(m->cols[i].name, c, len))
				at[ncols] = (int)i, have[i] = true;
		c += len + 1;
	}
	for (size_t i = 0; i < m->ncols; i++)
		if (!have[i])
			return fail(r->why, r->whylen, "%s: its items lack the column '%s'", m->verb,
				    m->cols[i].name);
	char *v = xcalloc(count ? count : 1, m->item_size);
	const char *w = tail + strspn(tail, SPACE);
	for (size_t got = 0; got < count; got++, w += strspn(w, SPACE)) {
		size_t len = strcspn(w, SPACE);
		const char *c = w;
		for (size_t k = 0; k < ncols; k++) {
			size_t clen = strcspn(c, "," SPACE);
			if ((k + 1 < ncols) != (c[clen] == ',') ||
			    (at[k] >= 0 && read_value(&m->cols[at[k]], c, clen, v + got * m->item_size))) {
				wire_release_items(m, v, count); /* the texts of the items before it */
				return fail(r->why, r->whylen, "%s: bad item '%.*s' (its columns: %.*s)",
					    m->verb, (int)len, w, (int)r->cols_len, r->cols);
			}
			c += clen + 1;
		}
		w += len;
	}
	*items = v;
	return 0;
}

int wire_read(const char *line, const struct wire_msg *m, void *obj, void **items, size_t *n,
	      char *why, size_t whylen)
{
	if (items)
		*items = NULL;
	if (n)
		*n = 0;
	/* the fields zeroed, but for the pointers a caller's wire_release frees */
	for (size_t i = 0; i < m->nfields; i++)
		if (m->fields[i].type != WT_PWORD && m->fields[i].type != WT_PTEXT)
			memset((char *)obj + m->fields[i].off, 0, m->fields[i].size);
	if (m->tail == WIRE_TEXT)
		memset((char *)obj + m->text_off, 0, m->text_size);
	if (wire_identify(line, m->dir, why, whylen) != m)
		return -1;
	bool seen[64] = { false };
	struct reading r = { m, obj, seen, NULL, NULL, 0, 0, why, whylen, 0 };
	const char *tail = words(line, read_word, &r);
	if (r.rc)
		return r.rc;
	if (m->tail == WIRE_TEXT) {
		const char *s = tail ? tail + strspn(tail, " \t") : "";
		size_t len = strcspn(s, "\r\n");
		if (len > m->text_size - 1) /* cut first, then trimmed: a cut text reads the same again */
			len = m->text_size - 1;
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		snprintf((char *)obj + m->text_off, m->text_size, "%.*s", (int)len, s);
		return 0;
	}
	for (size_t i = 0; i < m->nfields; i++)
		if (!seen[i])
			return fail(why, whylen, "%s without '%s'", m->verb, m->fields[i].name);
	if (m->tail != WIRE_LIST)
		return 0;
	if (!r.count)
		return fail(why, whylen, "%s without '%s'", m->verb, m->count);
	if (!r.cols)
		return fail(why, whylen, "%s without 'cols'", m->verb);
	struct wire_field count = { m->count, WT_SIZE, 0, sizeof(size_t), 0, 0, NULL };
	size_t k;
	if (read_value(&count, r.count, r.count_len, &k) || k > WIRE_MAX_ITEMS)
		return fail(why, whylen, "%s: bad value '%s=%.*s'", m->verb, m->count,
			    (int)r.count_len, r.count);
	if (!tail)
		return fail(why, whylen, "%s without '--' before its items", m->verb);
	void *v = NULL;
	if (read_list(&r, tail, k, &v))
		return -1;
	if (items)
		*items = v;
	else
		wire_release_items(m, v, k);
	if (n)
		*n = k;
	return 0;
}

/* Frees the WT_PWORD and WT_PTEXT members of the struct at obj that fields[0, n) describe. */
static void release_fields(const struct wire_field *fields, size_t n, void *obj)
{
	for (size_t i = 0; i < n; i++) {
		const struct wire_field *f = &fields[i];
		if (f->type == WT_PWORD || f->type == WT_PTEXT) {
			char **slot = (char **)((char *)obj + f->off);
			free(*slot);
			*slot = NULL;
		}
	}
}

void wire_release(const struct wire_msg *m, void *obj)
{
	release_fields(m->fields, m->nfields, obj);
}

void wire_release_items(const struct wire_msg *m, void *items, size_t n)
{
	for (size_t i = 0; items && m->tail == WIRE_LIST && i < n; i++)
		release_fields(m->cols, m->ncols, (char *)items + i * m->item_size);
	free(items);
}

/* --- writing ---------------------------------------------------------------------------- */

static void add_hex(struct strbuf *sb, const char *s)
{
	if (!s || !*s) {
		sb_addc(sb, '-');
		return;
	}
	for (; *s; s++)
		sb_addf(sb, "%02x", (unsigned char)*s);
}

static void write_value(struct strbuf *sb, const struct wire_field *f, const void *obj)
{
	const char *at = (const char *)obj + f->off;
	switch (f->type) {
	case WT_INT:
		sb_addf(sb, "%d", *(const int *)at);
		break;
	case WT_LONG:
		sb_addf(sb, "%ld", *(const long *)at);
		break;
	case WT_SIZE:
		sb_addf(sb, "%zu", *(const size_t *)at);
		break;
	case WT_DOUBLE:
		if (f->conv == 'g')
			sb_addf(sb, "%.*g", f->prec, *(const double *)at);
		else
			sb_addf(sb, "%.*f", f->prec, *(const double *)at);
		break;
	case WT_ENUM: {
		int v = *(const int *)at, k = 0;
		while (f->words[k] && k < v)
			k++;
		sb_adds(sb, f->words[k] ? f->words[k] : "-");
		break;
	}
	case WT_WORD:
		sb_adds(sb, *at ? at : "-");
		break;
	case WT_TEXT:
		add_hex(sb, at);
		break;
	case WT_PWORD:
		sb_adds(sb, *(const char *const *)at ? *(const char *const *)at : "-");
		break;
	case WT_PTEXT:
		add_hex(sb, *(const char *const *)at);
		break;
	}
}

void wire_write(struct strbuf *sb, const struct wire_msg *m, const void *obj, const char *extra,
		const void *items, size_t n)
{
	sb_addf(sb, "%s v=%d", m->verb, WIRE_VERSION);
	for (size_t i = 0; i < m->nfields; i++) {
		sb_addf(sb, " %s=", m->fields[i].name);
		write_value(sb, &m->fields[i], obj);
	}
	if (extra && *extra)
		sb_addf(sb, " %s", extra);
	if (m->tail == WIRE_LIST) {
		sb_addf(sb, " %s=%zu cols=", m->count, n);
		for (size_t k = 0; k < m->ncols; k++)
			sb_addf(sb, "%s%s", k ? "," : "", m->cols[k].name);
		sb_adds(sb, " --");
		for (size_t i = 0; i < n; i++) {
			const char *item = (const char *)items + i * m->item_size;
			for (size_t k = 0; k < m->ncols; k++) {
				sb_addc(sb, k ? ',' : ' ');
				write_value(sb, &m->cols[k], item);
			}
		}
	} else if (m->tail == WIRE_TEXT) {
		const char *t = (const char *)obj + m->text_off;
		sb_adds(sb, " --");
		if (*t)
			sb_addc(sb, ' ');
		for (; *t; t++)
			sb_addc(sb, *t == '\n' || *t == '\r' ? ' ' : *t);
	}
	sb_addc(sb, '\n');
}

static const char *kind(enum wire_type t)
{
	switch (t) {
	case WT_INT:
	case WT_LONG:
	case WT_SIZE:
		return "int";
	case WT_DOUBLE:
		return "real";
	case WT_TEXT:
	case WT_PTEXT:
		return "text";
	default:
		return "word";
	}
}

/* "name:kind", a real's with the format it is written in: "median_us:real(%.4f)" */
static void describe(struct strbuf *sb, const struct wire_field *f)
{
	sb_addf(sb, "%s:%s", f->name, kind(f->type));
	if (f->type == WT_DOUBLE)
		sb_addf(sb, "(%%.%d%c)", f->prec, f->conv);
}

void wire_describe(struct strbuf *sb)
{
	for (size_t i = 0; i < WIRE_MESSAGES; i++) {
		const struct wire_msg *m = &messages[i];
		sb_addf(sb, "%s %s", m->dir == WIRE_REQUEST ? "request" : "reply", m->verb);
		for (size_t k = 0; k < m->nfields; k++) {
			sb_addc(sb, ' ');
			describe(sb, &m->fields[k]);
		}
		if (m->tail == WIRE_LIST) {
			sb_addf(sb, " %s=[", m->count);
			for (size_t k = 0; k < m->ncols; k++) {
				if (k)
					sb_addc(sb, ',');
				describe(sb, &m->cols[k]);
			}
			sb_addc(sb, ']');
		}
		if (m->tail == WIRE_TEXT)
			sb_adds(sb, " --text");
		sb_addc(sb, '\n');
	}
}
