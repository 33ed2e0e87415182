/* logscan.c: autotuner events out of server logs, streamed in large blocks with a vector
 * prefilter for the rare tags; no per-line work (flashinfer-formats.md §1.5, §2, §4). */
#define _GNU_SOURCE /* memmem */
#include "inspect/logscan.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "base/arena.h"
#include "flashinfer/key.h"
#include "flashinfer/pylit.h"
#include "base/util.h"

#define LS_BLOCK  (1u << 20)   /* bytes read per step */
#define LS_MAXEV  (256u << 10) /* longest event text kept; also the lookahead per block */
#define LS_HIST   64u          /* bytes kept before a block: longer than any tag */

static const char *const kind_names[LS_KIND_COUNT] = {
	[LS_SESSION_START] = "session-start", [LS_SESSION_END] = "session-end",
	[LS_BUNDLED_HIT] = "bundled-hit", [LS_BUNDLED_MISS] = "bundled-miss",
	[LS_CACHE_HIT] = "cache-hit", [LS_CACHE_LOAD] = "cache-load", [LS_CACHE_SAVE] = "cache-save",
	[LS_CACHE_MISMATCH] = "cache-mismatch", [LS_NOT_SAVING] = "cache-not-saving",
	[LS_LEGACY_CUDNN] = "legacy-cudnn-skipped", [LS_NO_TUNED_CONFIG] = "no-tuned-config",
	[LS_OOM] = "oom-fallback", [LS_FALLBACK] = "fallback-tactic", [LS_SKIP_OP] = "skip-op",
	[LS_SKIPPED_UNSUPPORTED] = "unsupported-tactics", [LS_FAILED_TACTIC] = "failed-tactic",
	[LS_NO_VALID_TACTICS] = "no-valid-tactics", [LS_BLOCKLIST_LOADED] = "blocklist-loaded",
	[LS_BLOCKLIST_MISSING] = "blocklist-missing", [LS_BLOCKLIST_MISMATCH] = "blocklist-mismatch",
	[LS_PROGRESS] = "progress", [LS_PROFILE] = "generated-profile", [LS_PROFILED] = "profiled",
	[LS_CHOSEN] = "chosen", [LS_CACHE_SIZE] = "trtllm-cache-size", [LS_DEBUG] = "debug",
	[LS_SGLANG_START] = "sglang-autotune-start", [LS_VLLM_DEFAULT_MOE] = "vllm-default-moe-config",
	[LS_OTHER] = "unrecognised",
};

const char *ls_kind_name(enum ls_kind k)
{
	return (unsigned)k < LS_KIND_COUNT ? kind_names[k] : "?";
}

/* ---- input: plain or gzip (magic 1f 8b), from a file or a pipe ---- */

struct src {
	int fd;
	bool gz, eof, done, member_end, cut;
	z_stream z;
	unsigned char *in;
	size_t in_len; /* plain mode: bytes of in not handed out yet */
	size_t in_off;
};

#define LS_IN_CAP (256u << 10)

static int src_fill(struct src *s, unsigned char *dst, size_t cap, size_t *got)
{
	for (;;) {
		ssize_t n = read(s->fd, dst, cap);
		if (n >= 0) {
			*got = (size_t)n;
			return 0;
		}
		if (errno != EINTR)
			return errno;
	}
}

static int src_open(struct src *s, int fd)
{
	memset(s, 0, sizeof *s);
	s->fd = fd;
	s->in = xmalloc(LS_IN_CAP);
	/* enough bytes to see the magic, even from a slow pipe */
	while (s->in_len < 2 && !s->eof) {
		size_t got = 0;
		int err = src_fill(s, s->in + s->in_len, LS_IN_CAP - s->in_len, &got);
		if (err)
			return err;
		if (!got)
			s->eof = true;
		s->in_len += got;
	}
	if (s->in_len >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b) {
		s->gz = true;
		if (inflateInit2(&s->z, 15 + 32) != Z_OK)
			return ENOMEM;
		s->z.next_in = s->in;
		s->z.avail_in = (uInt)s->in_len;
	}
	return 0;
}

static void src_close(struct src *s)
{
	if (s->gz)
		inflateEnd(&s->z);
	free(s->in);
}

/* Reads up to cap bytes of (inflated) data; *got == 0 at the end. Returns 0, an errno
 * value, or -1 for corrupt gzip data. */
static int src_read(struct src *s, unsigned char *dst, size_t cap, size_t *got)
{
	*got = 0;
	if (!s->gz) {
		if (s->in_off < s->in_len) {
			size_t n = s->in_len - s->in_off;
			n = n < cap ? n : cap;
			memcpy(dst, s->in + s->in_off, n);
			s->in_off += n;
			*got = n;
			return 0;
		}
		return s->eof ? 0 : src_fill(s, dst, cap, got);
	}
	if (cap > UINT32_MAX)
		cap = UINT32_MAX;
	s->z.next_out = dst;
	s->z.avail_out = (uInt)cap;
	while (!s->done && s->z.avail_out == cap) {
		if (!s->z.avail_in && !s->eof) {
			size_t n = 0;
			int err = src_fill(s, s->in, LS_IN_CAP, &n);
			if (err)
				return err;
			if (!n)
				s->eof = true;
			s->z.next_in = s->in;
			s->z.avail_in = (uInt)n;
		}
		if (!s->z.avail_in) {
			/* input ended inside a member: keep what inflated, say it was cut */
			s->cut = !s->member_end;
			s->done = true;
			break;
		}
		if (s->member_end) {
			/* concatenated members (gzip -c a b, log rotation); other trailing bytes
			 * (zero padding) end the stream */
			if (s->z.next_in[0] != 0x1f) {
				s->done = true;
				break;
			}
			inflateReset(&s->z);
			s->member_end = false;
		}
		int ret = inflate(&s->z, Z_NO_FLUSH);
		if (ret == Z_STREAM_END)
			s->member_end = true;
		else if (ret != Z_OK && ret != Z_BUF_ERROR)
			return -1;
	}
	*got = cap - s->z.avail_out;
	return 0;
}

/* ---- the scanner ---- */

struct scan {
	const char *name;
	ls_event_fn fn;
	void *ctx;
	unsigned long long line;      /* '\n' seen before the scan position */
	unsigned long long last_line; /* of the previous event; 0 = none */
	struct strbuf text;           /* the cleaned event text */
	struct strbuf tmp;            /* canonical key */
	struct strbuf fields;         /* NUL-separated field copies */
	struct arena arena;           /* parsed keys */
};

/* Tags that start an event (formats §4: the three spellings, plus TensorRT-LLM's and
 * FlashInfer's pre-v0.6.8 "[AutoTunner]", and the blocklist module's), and the SGLang / vLLM
 * lines the fixtures README lists. Each has an anchor: a byte pair at offset off that is rare
 * in ordinary log text, which the vector prefilter looks for ("[A", "sB", "hI", "oE"). */
static const struct {
	const char *s;
	size_t len, off;
	int what; /* 0 autotuner, 1 blocklist, 2 sglang, 3 vllm */
} tags[] = {
	{ "[Autotuner]", 11, 0, 0 }, { "[AutoTuner]", 11, 0, 0 }, { "[AutoTunner]", 12, 0, 0 },
	{ "[Autotunner]", 12, 0, 0 }, { "[TacticsBlocklist]", 18, 7, 1 },
	{ "Running FlashInfer autotune with cache", 38, 12, 2 },
	{ "Using default MoE config", 24, 15, 3 },
};

/* The tag whose anchor is at b[pos] (0 when none); sets *start to where the tag begins.
 * b[0, end) is readable. */
static size_t tag_at(const unsigned char *b, size_t pos, size_t end, int *what, size_t *start)
{
	for (size_t i = 0; i < ARRAY_SIZE(tags); i++) {
		size_t off = tags[i].off;
		if (pos < off || pos - off + tags[i].len > end || b[pos] != (unsigned char)tags[i].s[off] ||
		    b[pos + 1] != (unsigned char)tags[i].s[off + 1] ||
		    memcmp(b + pos - off, tags[i].s, tags[i].len))
			continue;
		*what = tags[i].what;
		*start = pos - off;
		return tags[i].len;
	}
	return 0;
}

/* Copies text, dropping ANSI escape sequences and turning control bytes and invalid UTF-8
 * into spaces / '?' (binary junk), so the parsers below see plain text. */
static void clean_text(struct strbuf *sb, const unsigned char *p, size_t n)
{
	sb_reset(sb);
	sb_grow(sb, n + 1);
	char *o = sb->buf;
	size_t i = 0, k = 0;
	while (i < n) {
		unsigned char c = p[i];
		if (c == 0x1b) {
			i++;
			if (i < n && p[i] == '[') { /* CSI: parameters, then a final byte 0x40-0x7e */
				i++;
				while (i < n && (p[i] < 0x40 || p[i] > 0x7e))
					i++;
				i++;
			} else if (i < n) {
				i++;
			}
			continue;
		}
		if (c < 0x80) {
			o[k++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
			i++;
			continue;
		}
		size_t need = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : 0;
		size_t j = 1;
		if (need && i + need < n + 0) {
			while (j <= need && (p[i + j] & 0xc0) == 0x80)
				j++;
		}
		if (!need || j != need + 1) {
			o[k++] = '?';
			i++;
			continue;
		}
		memcpy(o + k, p + i, need + 1);
		k += need + 1;
		i += need + 1;
	}
	while (k && o[k - 1] == ' ')
		k--;
	o[k] = '\0';
	sb->len = k;
}

/* ---- small parsing helpers on the NUL-terminated cleaned text ---- */

static const char *after(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(s, prefix, n) ? NULL : s + n;
}

static const char *last_strstr(const char *s, const char *needle)
{
	const char *r = NULL;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		r = p;
	return r;
}

/* A copy of [p, p+n) kept for the current event. */
static const char *field(struct scan *sc, const char *p, size_t n)
{
	/* offsets, not pointers: the buffer may move while fields are added */
	size_t off = sc->fields.len;
	sb_add(&sc->fields, p, n);
	sb_addc(&sc->fields, '\0');
	return (const char *)(uintptr_t)(off + 1);
}

static const char *fix(struct scan *sc, const char *f)
{
	return f ? sc->fields.buf + ((uintptr_t)f - 1) : NULL;
}

static long long num(const char **pp)
{
	const char *p = *pp;
	while (*p == ' ')
		p++;
	char *end;
	long long v = strtoll(p, &end, 10);
	if (end == p)
		return -1;
	*pp = end;
	return v;
}

/* "MM:SS" or "H:MM:SS" into seconds; -1 when not a time. */
static long long parse_clock(const char *p, const char *end)
{
	long long t = 0, part = -1;
	for (; p < end; p++) {
		if (*p >= '0' && *p <= '9') {
			if (part >= 1000000000000LL) /* no clock has 13 digits: stop before overflow */
				return -1;
			part = (part < 0 ? 0 : part) * 10 + (*p - '0');
		} else if (*p == ':' && part >= 0) {
			if (t >= 1000000000000LL)
				return -1;
			t = t * 60 + part;
			part = -1;
		} else {
			return -1;
		}
	}
	return part < 0 ? -1 : t * 60 + part;
}

/* tqdm line (formats §4): "Tuning <op>:  NN%|<bar>| done/total [elapsed<left, R profile/s]"
 * or "... R s/profile]" (tqdm inverts rates below 1/s) or "?profile/s". */
static bool parse_progress(struct scan *sc, const char *t, struct ls_event *ev)
{
	const char *p = after(t, "Tuning ");
	const char *pct = p ? strstr(p, "%|") : NULL;
	if (!pct)
		return false;
	const char *c = pct;
	while (c > p && ((c[-1] >= '0' && c[-1] <= '9') || c[-1] == ' ' || c[-1] == '.'))
		c--;
	if (c <= p || c[-1] != ':')
		return false;
	ev->op = field(sc, p, (size_t)(c - 1 - p));
	const char *bar_end = strchr(pct + 2, '|');
	if (!bar_end)
		return false;
	const char *q = bar_end + 1;
	ev->done = num(&q);
	if (ev->done < 0 || *q != '/')
		return false;
	q++;
	ev->total = num(&q);
	if (ev->total < 0)
		return false;
	while (*q == ' ')
		q++;
	if (*q != '[')
		return true;
	const char *lt = strchr(q, '<');
	const char *comma = lt ? strchr(lt, ',') : NULL;
	if (!comma)
		return true;
	ev->elapsed_s = parse_clock(q + 1, lt);
	q = comma + 1;
	while (*q == ' ')
		q++;
	char *end;
	double r = strtod(q, &end);
	if (end == q)
		return true;
	if (!strncmp(end, "s/profile", 9)) {
		ev->rate_inverse = true;
		ev->rate = r > 0 ? 1.0 / r : -1;
	} else if (!strncmp(end, "profile/s", 9)) {
		ev->rate = r;
	}
	return true;
}

/* "<a.b.<locals>.MoERunner object at 0x7f..> 14" or "MoERunner 14": runner and tactic. */
static const char *parse_runner_tactic(struct scan *sc, const char *p, struct ls_event *ev)
{
	const char *end;
	if (*p == '<') {
		const char *obj = strstr(p, " object at 0x");
		const char *gt = obj ? strchr(obj, '>') : strchr(p, '>');
		if (!gt)
			return NULL;
		ev->runner = field(sc, p + 1, (size_t)((obj ? obj : gt) - p - 1));
		end = gt + 1;
	} else {
		end = strchr(p, ' ');
		if (!end)
			return NULL;
		ev->runner = field(sc, p, (size_t)(end - p));
	}
	while (*end == ' ')
		end++;
	/* a tactic is an int or a tuple / list repr */
	const char *t = end;
	int depth = 0;
	while (*t && (depth || (*t != ',' && *t != ' '))) {
		if (*t == '(' || *t == '[')
			depth++;
		else if ((*t == ')' || *t == ']') && depth)
			depth--;
		t++;
	}
	if (t == end)
		return NULL;
	ev->tactic = field(sc, end, (size_t)(t - end));
	return t;
}

static bool is_moe_op(const char *op)
{
	return !strcmp(op, "trtllm::fused_moe::gemm1") || !strcmp(op, "trtllm::fused_moe::gemm2");
}

static bool no_bad_bytes(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '?')
			return false; /* clean_text's mark for a bad byte; keys never hold '?' */
	return true;
}

/* A bundled-lookup key (formats §1.3, §1.5): parsed with the Python-literal parser; the old
 * in-memory form (op, runner, hash, profile[, extras]) loses its runner hash, which is never
 * part of a file key. */
static void take_key(struct scan *sc, const char *k, size_t n, struct ls_event *ev)
{
	ev->key = field(sc, k, n);
	if (!no_bad_bytes(k, n))
		return;
	struct diags d = DIAGS_INIT;
	arena_reset(&sc->arena);
	const struct pyv *t = key_parse(k, n, &sc->arena, NULL, 0, 0, &d);
	diags_release(&d);
	if (!t || t->kind != PV_TUPLE)
		return;
	struct pyv *stripped = NULL;
	if ((t->n == 4 || t->n == 5) && t->items[0].kind == PV_STR && t->items[1].kind == PV_STR &&
	    t->items[2].kind == PV_INT && t->items[3].kind == PV_TUPLE) {
		stripped = arena_alloc(&sc->arena, sizeof *stripped);
		*stripped = *t;
		stripped->items = arena_alloc(&sc->arena, (t->n - 1) * sizeof *t->items);
		stripped->items[0] = t->items[0];
		stripped->items[1] = t->items[1];
		for (size_t i = 3; i < t->n; i++)
			stripped->items[i - 1] = t->items[i];
		stripped->n = t->n - 1;
		t = stripped;
		ev->key_had_hash = true;
	}
	struct moe_key mk;
	if (key_decode(t, &mk))
		return;
	sb_reset(&sc->tmp);
	pyv_repr(t, &sc->tmp);
	ev->key = field(sc, sc->tmp.buf, sc->tmp.len);
	ev->key_parsed = true;
	ev->key_tuple = mk.tuple_len;
	ev->op = field(sc, mk.op, strlen(mk.op));
	ev->key_fused_moe = is_moe_op(mk.op);
}

/* The op named first in an unparsed key "('op', ...": best effort for the summary. */
static void key_op_guess(struct scan *sc, const char *k, struct ls_event *ev)
{
	if (k[0] == '(' && (k[1] == '\'' || k[1] == '"')) {
		const char *e = strchr(k + 2, k[1]);
		if (e)
			ev->op = field(sc, k + 2, (size_t)(e - k - 2));
	}
}

/* The sessions, bundled-table lookups and JSON cache messages of formats §4 (and §1.5, §2).
 * Returns false when t is none of them; true when it is, with ev->kind left LS_OTHER when
 * its form is cut short. */
static bool parse_lookup(struct scan *sc, const char *t, struct ls_event *ev)
{
	const char *p, *q;
	if (after(t, "Autotuning process starts")) {
		ev->kind = LS_SESSION_START;
	} else if (after(t, "Autotuning process ends")) {
		ev->kind = LS_SESSION_END;
	} else if ((p = after(t, "Loading configs for "))) {
		/* §1.5: "... <KEY> from file." / "... from file failed; Using default configs instead." */
		q = last_strstr(p, " from file");
		if (!q)
			return true;
		ev->kind = after(q, " from file failed") ? LS_BUNDLED_MISS : LS_BUNDLED_HIT;
		take_key(sc, p, (size_t)(q - p), ev);
		if (!ev->key_parsed)
			key_op_guess(sc, p, ev);
	} else if ((p = after(t, "Config cache hit for "))) {
		q = strstr(p, " (runner=");
		if (!q)
			return true;
		ev->kind = LS_CACHE_HIT;
		ev->op = field(sc, p, (size_t)(q - p));
		p = q + 9;
		q = p + strcspn(p, ",)");
		ev->runner = field(sc, p, (size_t)(q - p));
		if ((p = strstr(q, "source=")))
			ev->detail = field(sc, p + 7, strcspn(p + 7, ")"));
	} else if ((p = after(t, "Loaded ")) && (ev->n = num(&p)) >= 0 &&
		   (q = after(p, " configs from "))) {
		ev->kind = LS_CACHE_LOAD; /* §2.6 */
		ev->path = field(sc, q, strlen(q));
	} else if ((p = after(t, "Saved ")) && (ev->n = num(&p)) >= 0 &&
		   (q = after(p, " configs to "))) {
		ev->kind = LS_CACHE_SAVE; /* §2.5 */
		const char *paren = last_strstr(q, " (");
		ev->path = field(sc, q, paren ? (size_t)(paren - q) : strlen(q));
		if (paren) {
			p = paren + 2;
			ev->n_new = num(&p);
			if ((p = strstr(p, " new, ")))
				p += 6, ev->n_prev = num(&p);
		}
	} else if ((p = after(t, "Skipped ")) && (ev->n = num(&p)) >= 0 &&
		   (q = after(p, " unsupported tactic(s) for "))) {
		ev->kind = LS_SKIPPED_UNSUPPORTED;
		p = strstr(q, " (");
		ev->op = field(sc, q, p ? (size_t)(p - q) : strlen(q));
	} else if ((p = after(t, "Skipped ")) && (ev->n = num(&p)) >= 0 &&
		   after(p, " legacy cuDNN config")) {
		ev->kind = LS_LEGACY_CUDNN;
	} else if ((p = after(t, "No tuned config covers "))) {
		/* "<op> input_shapes=<shapes>; falling back to runner=<R> tactic=<T>." */
		q = strstr(p, " input_shapes=");
		if (!q)
			return true;
		ev->kind = LS_NO_TUNED_CONFIG;
		ev->op = field(sc, p, (size_t)(q - p));
		p = q + 14;
		q = last_strstr(p, "; falling back to runner=");
		ev->shapes = field(sc, p, q ? (size_t)(q - p) : strlen(p));
		if (q) {
			p = q + 25;
			q = p + strcspn(p, " ");
			ev->runner = field(sc, p, (size_t)(q - p));
			if ((p = strstr(q, "tactic="))) {
				size_t n = strcspn(p + 7, " ");
				while (n && p[6 + n] == '.')
					n--;
				ev->tactic = field(sc, p + 7, n);
			}
		}
	} else if ((p = after(t, "Cache file "))) {
		q = strstr(p, " was created in a different environment");
		if (!q)
			return true;
		ev->kind = LS_CACHE_MISMATCH; /* §2.3 */
		ev->path = field(sc, p, (size_t)(q - p));
		const char *o = strchr(q, '('), *c = strstr(q, "). Ignoring");
		if (o && c && c > o)
			ev->detail = field(sc, o + 1, (size_t)(c - o - 1));
		ev->severity = strstr(q, "Results will not be saved") ? "hard" :
			       strstr(q, "indeterminate") ? "soft" :
			       strstr(q, "to save configs for the current environment") ? "legacy" : "unknown";
	} else if ((p = after(t, "Not saving configs to "))) {
		q = strstr(p, ": the file was created");
		ev->kind = LS_NOT_SAVING;
		ev->path = field(sc, p, q ? (size_t)(q - p) : strlen(p));
	} else {
		return false;
	}
	return true;
}

/* The other messages of formats §4: fallbacks, skipped and failed tactics, profiling,
 * DEBUG lines and tqdm bars; ev->kind stays LS_OTHER for none of them. */
static void parse_tuning(struct scan *sc, const char *t, struct ls_event *ev)
{
	const char *p, *q;
	if (after(t, "OOM detected")) {
		ev->kind = LS_OOM;
	} else if ((p = after(t, "Tactics blocklist file not found at "))) {
		ev->kind = LS_BLOCKLIST_MISSING;
		ev->path = field(sc, p, strlen(p));
	} else if ((p = after(t, "Using fallback tactic for "))) {
		/* DEBUG: "<op> with input shapes <shapes>" */
		ev->kind = LS_FALLBACK;
		q = strstr(p, " with input shapes ");
		ev->op = field(sc, p, q ? (size_t)(q - p) : strlen(p));
		if (q)
			ev->shapes = field(sc, q + 19, strlen(q + 19));
	} else if ((q = strstr(t, "sing the fallback tactic")) && q > t && (q == t + 1 || q[-2] == ' ') &&
		   (q[-1] == 'U' || q[-1] == 'u')) {
		/* TensorRT-LLM: "[AutoTunner] Using the fallback tactic, due to cache miss on
		 * input shapes=<s>" or "[AutoTuner] <op> using the fallback tactic, ..." */
		ev->kind = LS_FALLBACK;
		if (q > t + 1)
			ev->op = field(sc, t, (size_t)(q - 2 - t));
		if ((p = strstr(q, "input shapes=")))
			ev->shapes = field(sc, p + 13, strlen(p + 13));
	} else if ((p = after(t, "Skipping autotuning for '"))) {
		ev->kind = LS_SKIP_OP;
		ev->op = field(sc, p, strcspn(p, "'"));
	} else if ((p = after(t, "Skipping tactic "))) {
		/* "<runner> <tactic>, due to failure while profiling: <err>"; v0.5.0-v0.6.7: no error */
		q = parse_runner_tactic(sc, p, ev);
		ev->kind = LS_FAILED_TACTIC;
		if (q && (p = strstr(q, "profiling: ")))
			ev->detail = field(sc, p + 11, strlen(p + 11));
	} else if ((p = after(t, "Failed when profiling "))) {
		q = parse_runner_tactic(sc, p, ev);
		ev->kind = LS_FAILED_TACTIC;
		if (q && (p = strstr(q, "shapes="))) {
			const char *e = strstr(p, ". Error occurred: ");
			ev->shapes = field(sc, p + 7, e ? (size_t)(e - p - 7) : strlen(p + 7));
			if (e)
				ev->detail = field(sc, e + 18, strlen(e + 18));
		}
	} else if ((p = after(t, "Failed to get valid tactics for "))) {
		q = last_strstr(p, ". Error occurred: ");
		ev->kind = LS_NO_VALID_TACTICS;
		ev->key = field(sc, p, q ? (size_t)(q - p) : strlen(p));
		if (q)
			ev->detail = field(sc, q + 18, strlen(q + 18));
	} else if ((p = after(t, "profiling chosen runner: "))) {
		ev->kind = LS_CHOSEN;
		q = parse_runner_tactic(sc, p, ev);
		if (q && (p = strstr(q, " for ")))
			take_key(sc, p + 5, strlen(p + 5), ev);
	} else if ((p = after(t, "profiling ")) && strstr(p, "avg_time")) {
		ev->kind = LS_PROFILED;
		q = parse_runner_tactic(sc, p, ev);
		if (q && (p = strstr(q, "avg_time ")))
			ev->detail = field(sc, p + 9, strlen(p + 9));
	} else if ((p = after(t, "generated profile: "))) {
		ev->kind = LS_PROFILE;
		ev->detail = field(sc, p, strlen(p));
		if ((p = strstr(p, "DynamicDim(min="))) {
			p += 15;
			ev->dim[0] = num(&p);
			if ((p = after(p, ", opt=")))
				ev->dim[1] = num(&p);
			if (p && (p = after(p, ", max=")))
				ev->dim[2] = after(p, "inf") ? -1 : num(&p);
		}
	} else if ((p = after(t, "Cache size after warmup is "))) {
		ev->kind = LS_CACHE_SIZE; /* TensorRT-LLM */
		ev->n = num(&p);
	} else if (after(t, "Generated key") || after(t, "use_cold_l2_cache") ||
		   after(t, "use_global_timer") || after(t, "globaltimer kernel unavailable")) {
		ev->kind = LS_DEBUG;
	} else if (parse_progress(sc, t, ev)) {
		ev->kind = LS_PROGRESS;
	}
}

/* One autotuner message (the text after the tag), by the forms of formats §4. */
static void parse_autotuner(struct scan *sc, const char *t, struct ls_event *ev)
{
	ev->kind = LS_OTHER;
	if (!parse_lookup(sc, t, ev))
		parse_tuning(sc, t, ev);
}

static void parse_blocklist(struct scan *sc, const char *t, struct ls_event *ev)
{
	const char *p, *q;
	ev->kind = LS_OTHER;
	if ((p = after(t, "Loaded ")) && (ev->n = num(&p)) >= 0 &&
	    (p = after(p, " invalid tactic(s) across "))) {
		ev->kind = LS_BLOCKLIST_LOADED;
		ev->n_new = num(&p); /* operations */
		if ((q = strstr(p, " from ")))
			ev->path = field(sc, q + 6, strlen(q + 6));
	} else if ((p = after(t, "File ")) && (q = strstr(p, " was generated in a different environment"))) {
		ev->kind = LS_BLOCKLIST_MISMATCH;
		ev->path = field(sc, p, (size_t)(q - p));
	}
}

/* Handles the tag anchored at b[pos]; returns false when there is none. b[0, end) is readable. */
static bool handle(struct scan *sc, const unsigned char *b, size_t pos, size_t end)
{
	int what;
	size_t tl = tag_at(b, pos, end, &what, &pos);
	if (!tl || pos + tl > end)
		return false;
	/* the message runs to the end of the line (either '\n' or a tqdm '\r'), the next tag
	 * glued onto the same line, or LS_MAXEV bytes */
	size_t s = pos + tl, lim = end - s < LS_MAXEV ? end : s + LS_MAXEV, e = s;
	while (e < lim && b[e] != '\n' && b[e] != '\r')
		e++;
	if (what <= 1) {
		const unsigned char *m = s < e ? memmem(b + s, e - s, "[Aut", 4) : NULL;
		size_t ignored;
		if (m && tag_at(b, (size_t)(m - b), end, &(int){ 0 }, &ignored))
			e = (size_t)(m - b);
	}
	clean_text(&sc->text, b + s, e - s);
	const char *t = sc->text.buf;
	while (*t == ':' || *t == ' ')
		t++;

	struct ls_event ev = { 0 };
	ev.line = sc->line + 1;
	ev.same_line = ev.line == sc->last_line;
	ev.n = ev.n_new = ev.n_prev = ev.done = ev.total = ev.elapsed_s = -1;
	ev.rate = -1;
	ev.dim[0] = ev.dim[1] = ev.dim[2] = -1;
	sb_reset(&sc->fields);
	sb_addc(&sc->fields, '\0');
	const char *p;
	switch (what) {
	case 0:
		parse_autotuner(sc, t, &ev);
		break;
	case 1:
		parse_blocklist(sc, t, &ev);
		break;
	case 2: /* SGLang: "Running FlashInfer autotune with cache: <path>" */
		ev.kind = LS_SGLANG_START;
		ev.path = field(sc, t, strlen(t));
		break;
	default: /* vLLM: "Using default MoE config. ... Config file not found at <path>" */
		ev.kind = LS_VLLM_DEFAULT_MOE;
		if ((p = strstr(t, "not found at ")))
			ev.path = field(sc, p + 13, strlen(p + 13));
		break;
	}
	if (ev.kind == LS_OTHER)
		ev.detail = field(sc, t, strlen(t));
	ev.op = fix(sc, ev.op);
	ev.runner = fix(sc, ev.runner);
	ev.tactic = fix(sc, ev.tactic);
	ev.key = fix(sc, ev.key);
	ev.path = fix(sc, ev.path);
	ev.shapes = fix(sc, ev.shapes);
	ev.detail = fix(sc, ev.detail);
	sc->last_line = ev.line;
	sc->fn(&ev, sc->ctx);
	return true;
}

static inline bool anchor(unsigned char a, unsigned char c)
{
	return (a == '[' && c == 'A') || (a == 's' && c == 'B') || (a == 'h' && c == 'I') ||
	       (a == 'o' && c == 'E');
}

/* Hands the anchors of one vector step to handle(): bit j of m is an anchor at b[i + j],
 * bit j of nl a '\n' there. */
static void step_hits(struct scan *sc, const unsigned char *b, size_t i, uint32_t m, uint32_t nl,
		      size_t end)
{
	unsigned long long base = sc->line;
	for (; m; m &= m - 1) {
		int j = __builtin_ctz(m);
		sc->line = base + (unsigned)__builtin_popcount(nl & ((1u << j) - 1));
		handle(sc, b, i + (size_t)j, end);
	}
	sc->line = base + (unsigned)__builtin_popcount(nl);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The prefilter, 32 bytes a step (AVX2, chosen at run time) or 16 (SSE2, every x86-64):
 * anchors and newlines become bit masks; a step without anchors only counts newlines. */
#define LS_CMP(v, ch, W) _mm##W##_cmpeq_epi8(v, _mm##W##_set1_epi8(ch))

__attribute__((target("avx2,popcnt")))
static size_t scan_avx2(struct scan *sc, const unsigned char *b, size_t i, size_t to, size_t end)
{
	for (; i + 33 <= to; i += 32) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(b + i));
		__m256i c = _mm256_loadu_si256((const __m256i *)(b + i + 1));
		__m256i x = _mm256_or_si256(
			_mm256_or_si256(_mm256_and_si256(LS_CMP(a, '[', 256), LS_CMP(c, 'A', 256)),
					_mm256_and_si256(LS_CMP(a, 's', 256), LS_CMP(c, 'B', 256))),
			_mm256_or_si256(_mm256_and_si256(LS_CMP(a, 'h', 256), LS_CMP(c, 'I', 256)),
					_mm256_and_si256(LS_CMP(a, 'o', 256), LS_CMP(c, 'E', 256))));
		uint32_t nl = (uint32_t)_mm256_movemask_epi8(LS_CMP(a, '\n', 256));
		if (__builtin_expect(!_mm256_testz_si256(x, x), 0))
			step_hits(sc, b, i, (uint32_t)_mm256_movemask_epi8(x), nl, end);
		else
			sc->line += (unsigned)__builtin_popcount(nl);
	}
	return i;
}

static size_t scan_sse2(struct scan *sc, const unsigned char *b, size_t i, size_t to, size_t end)
{
	for (; i + 17 <= to; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(b + i));
		__m128i c = _mm_loadu_si128((const __m128i *)(b + i + 1));
		__m128i x = _mm_or_si128(
			_mm_or_si128(_mm_and_si128(LS_CMP(a, '[', ), LS_CMP(c, 'A', )),
				     _mm_and_si128(LS_CMP(a, 's', ), LS_CMP(c, 'B', ))),
			_mm_or_si128(_mm_and_si128(LS_CMP(a, 'h', ), LS_CMP(c, 'I', )),
				     _mm_and_si128(LS_CMP(a, 'o', ), LS_CMP(c, 'E', ))));
		uint32_t nl = (uint32_t)_mm_movemask_epi8(LS_CMP(a, '\n', ));
		uint32_t m = (uint32_t)_mm_movemask_epi8(x);
		if (__builtin_expect(m != 0, 0))
			step_hits(sc, b, i, m, nl, end);
		else
			sc->line += (unsigned)__builtin_popcount(nl);
	}
	return i;
}
#endif

/* Scans b[from, to): counts '\n' and hands every anchor position to handle(): one pass, no
 * per-line work. end (>= to) is the end of the readable data. */
static void scan_range(struct scan *sc, const unsigned char *b, size_t from, size_t to, size_t end)
{
	size_t i = from;
#if defined(__x86_64__) && defined(__GNUC__)
	static int avx2 = -1;
	if (avx2 < 0) {
		__builtin_cpu_init();
		avx2 = __builtin_cpu_supports("avx2") != 0;
	}
	i = avx2 ? scan_avx2(sc, b, i, to, end) : scan_sse2(sc, b, i, to, end);
#endif
	for (; i < to; i++) {
		if (anchor(b[i], i + 1 < end ? b[i + 1] : 0))
			handle(sc, b, i, end);
		if (b[i] == '\n')
			sc->line++;
	}
}

static int scan_stream(struct scan *sc, int fd, const char *name, struct ls_stats *st,
		       struct diags *d);

/* A regular uncompressed file is mapped and scanned in place: no copy, no carried lines. It
 * is mapped in windows of LS_WINDOW bytes (populated in one call: fewer page faults, bounded
 * address space), each with one page before it and LS_MAXEV bytes after it readable, so a
 * tag or an event text that crosses a window edge is seen whole. Returns false when the
 * input is not such a file (pipe, gzip, empty, or mmap refused before anything was read). */
#define LS_WINDOW ((size_t)64 << 20)

static bool scan_mapped(struct scan *sc, int fd, struct ls_stats *st)
{
	struct stat sb;
	unsigned char magic[2];
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size < 2 ||
	    (uint64_t)sb.st_size > SIZE_MAX || pread(fd, magic, 2, 0) != 2 ||
	    (magic[0] == 0x1f && magic[1] == 0x8b))
		return false;
	size_t len = (size_t)sb.st_size, page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char last = 0;
	for (size_t off = 0; off < len; off += LS_WINDOW) {
		size_t base = off ? off - page : 0; /* LS_WINDOW is a multiple of the page size */
		size_t to = off + LS_WINDOW < len ? off + LS_WINDOW : len;
		size_t end = to + LS_MAXEV < len ? to + LS_MAXEV : len;
		unsigned char *map = mmap(NULL, end - base, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd,
					  (off_t)base);
		if (map == MAP_FAILED) {
			if (off == 0)
				return false;
			/* the file shrank or memory ran out mid-way: stop here, say so */
			st->truncated = true;
			break;
		}
		scan_range(sc, map, off - base, to - base, end - base);
		last = map[to - base - 1];
		st->bytes = to;
		munmap(map, end - base);
	}
	st->lines = sc->line + (last != '\n');
	st->truncated |= last != '\n';
	return true;
}

int logscan_fd(int fd, const char *name, ls_event_fn fn, void *ctx, struct ls_stats *st,
	       struct diags *d)
{
	struct scan sc = { .name = name, .fn = fn, .ctx = ctx };
	sb_init(&sc.text);
	sb_init(&sc.tmp);
	sb_init(&sc.fields);
	memset(st, 0, sizeof *st);
	int rc = TT_OK;
	if (!scan_mapped(&sc, fd, st))
		rc = scan_stream(&sc, fd, name, st, d);
	sb_release(&sc.text);
	sb_release(&sc.tmp);
	sb_release(&sc.fields);
	arena_release(&sc.arena);
	return rc;
}

/* Pipes and gzip: read in LS_BLOCK steps; an unfinished line is carried to the next step. */
static int scan_stream(struct scan *sc, int fd, const char *name, struct ls_stats *st,
		       struct diags *d)
{
	struct src src;
	int rc = TT_OK, err = src_open(&src, fd);
	size_t cap = LS_BLOCK + LS_MAXEV;
	unsigned char *buf = xmalloc(cap);
	size_t len = 0, from = 0;
	bool eof = false;
	unsigned char last = '\n';
	st->gzip = src.gz;
	while (!err && !eof) {
		size_t got;
		err = src_read(&src, buf + len, cap - len, &got);
		if (err)
			break;
		if (!got)
			eof = true;
		if (got)
			last = buf[len + got - 1];
		len += got;
		st->bytes += got;
		size_t cut = len;
		if (!eof) {
			/* keep the unfinished line for the next step, but never more than LS_MAXEV:
			 * a tag in a longer line still has LS_MAXEV bytes of text after it */
			size_t keep_from = len > LS_MAXEV ? len - LS_MAXEV : 0;
			while (cut > keep_from && buf[cut - 1] != '\n' && buf[cut - 1] != '\r')
				cut--;
			if (cut <= from && len < cap)
				continue; /* a short unfinished line: read more first */
		}
		if (cut <= from)
			continue;
		scan_range(sc, buf, from, cut, len);
		/* keep LS_HIST scanned bytes before the carried ones: a tag whose anchor lies past
		 * the cut may begin before it (only when a long line was cut mid-way) */
		size_t hist = cut < LS_HIST ? cut : LS_HIST;
		memmove(buf, buf + cut - hist, len - cut + hist);
		len = len - cut + hist;
		from = hist;
	}
	if (err == -1) {
		rc = diag_error(d, TT_INTERNAL, "gzip", name, 0, 0, "corrupt gzip data after %llu "
				"bytes of text", st->bytes);
	} else if (err) {
		rc = diag_error(d, TT_INTERNAL, "io", name, 0, 0, "%s", strerror(err));
	}
	st->lines = sc->line + (st->bytes && last != '\n');
	st->truncated = (st->bytes && last != '\n') || src.cut;
	src_close(&src);
	free(buf);
	return rc;
}

/* ---- summary ---- */

static size_t op_index(struct ls_summary *s, const char *name)
{
	if (!name)
		name = "-";
	for (size_t i = 0; i < s->n_ops; i++)
		if (!strcmp(s->ops[i].name, name))
			return i;
	ALLOC_GROW(s->ops, s->n_ops + 1, s->ops_alloc);
	memset(&s->ops[s->n_ops], 0, sizeof *s->ops);
	s->ops[s->n_ops].name = xstrdup(name);
	return s->n_ops++;
}

/* Adds str to a list of distinct strings; returns false when it was there. Linear in the
 * list, which stays small (distinct keys per op); the hash check keeps it cheap. */
static bool add_distinct(char ***v, size_t *n, size_t *alloc, const char *str)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], str))
			return false;
	ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = xstrdup(str);
	return true;
}

/* a + b for counts (a >= 0; b < 0 adds nothing), saturating: a log may print any number. */
static long long sat_add(long long a, long long b)
{
	if (b <= 0)
		return a;
	return b > LLONG_MAX - a ? LLONG_MAX : a + b;
}

void ls_summary_add(struct ls_summary *s, const struct ls_event *ev)
{
	s->count[ev->kind]++;
	struct ls_op *op;
	size_t oi;
	switch (ev->kind) {
	case LS_SESSION_START:
	case LS_SESSION_END:
		s->cur_op = 0;
		break;
	case LS_BUNDLED_HIT:
	case LS_CACHE_HIT:
		oi = op_index(s, ev->op);
		op = &s->ops[oi];
		op->hits++;
		s->hits++;
		break;
	case LS_BUNDLED_MISS:
		oi = op_index(s, ev->op);
		op = &s->ops[oi];
		op->misses++;
		s->misses++;
		add_distinct(&op->affected, &op->n_affected, &op->affected_alloc, ev->key);
		size_t before = s->n_keys;
		if (add_distinct(&s->keys, &s->n_keys, &s->keys_alloc, ev->key)) {
			ALLOC_GROW(s->keys_moe, s->n_keys, s->keys_moe_alloc);
			s->keys_moe[before] = ev->key_parsed && ev->key_fused_moe;
		}
		break;
	case LS_NO_TUNED_CONFIG:
	case LS_OOM:
	case LS_FALLBACK:
		oi = op_index(s, ev->op);
		op = &s->ops[oi];
		op->fallbacks++;
		s->fallbacks++;
		if (ev->shapes)
			add_distinct(&op->affected, &op->n_affected, &op->affected_alloc, ev->shapes);
		break;
	case LS_FAILED_TACTIC:
	case LS_NO_VALID_TACTICS:
		oi = op_index(s, ev->op);
		op = &s->ops[oi];
		op->failed++;
		s->failed++;
		break;
	case LS_SKIPPED_UNSUPPORTED:
		oi = op_index(s, ev->op);
		op = &s->ops[oi];
		op->skipped_unsupported += ev->n > 0 ? (unsigned)ev->n : 0;
		break;
	case LS_CACHE_LOAD:
		s->configs_loaded = sat_add(s->configs_loaded, ev->n);
		ALLOC_GROW(s->loads, s->n_loads + 1, s->loads_alloc);
		s->loads[s->n_loads++] = ev->n;
		break;
	case LS_CACHE_SAVE:
		s->configs_saved = sat_add(s->configs_saved, ev->n);
		ALLOC_GROW(s->saves, s->n_saves + 1, s->saves_alloc);
		s->saves[s->n_saves++] = (struct ls_save){ ev->n, ev->n_new, ev->n_prev };
		break;
	case LS_PROGRESS: {
		oi = op_index(s, ev->op);
		op = &s->ops[oi];
		struct ls_pass *ps = op->n_passes ? &op->passes[op->n_passes - 1] : NULL;
		/* a new pass (one bar from 0 to its last count): another op's bar came between,
		 * the count went back, the total changed, or a finished bar is followed by one on a
		 * new line (tqdm's closing refresh shares the '\r' line of its last update) */
		if (!ps || s->cur_op != oi + 1 || ev->done < ps->done || ev->total != ps->total ||
		    (ps->done == ps->total && !ev->same_line)) {
			ALLOC_GROW(op->passes, op->n_passes + 1, op->passes_alloc);
			ps = &op->passes[op->n_passes++];
			memset(ps, 0, sizeof *ps);
			ps->first_line = ev->line;
		}
		ps->last_line = ev->line;
		ps->done = ev->done;
		ps->total = ev->total;
		ps->updates++;
		ps->rate = ev->rate;
		ps->rate_inverse = ev->rate_inverse;
		ps->elapsed_s = ev->elapsed_s;
		op->updates++;
		op->tuning_s = 0;
		for (size_t i = 0; i < op->n_passes; i++)
			op->tuning_s = sat_add(op->tuning_s, op->passes[i].elapsed_s);
		s->cur_op = oi + 1;
		break;
	}
	default:
		break;
	}
}

void ls_summary_release(struct ls_summary *s)
{
	for (size_t i = 0; i < s->n_ops; i++) {
		struct ls_op *op = &s->ops[i];
		free(op->name);
		free_strings(op->affected, op->n_affected);
		free(op->passes);
	}
	free(s->ops);
	free_strings(s->keys, s->n_keys);
	free(s->keys_moe);
	free(s->loads);
	free(s->saves);
	memset(s, 0, sizeof *s);
}

bool ls_summary_found(const struct ls_summary *s)
{
	return s->misses || s->fallbacks || s->failed;
}

/* ---- JSON ---- */

static void json_set_str(json_t *o, const char *k, const char *v)
{
	if (v)
		json_object_set_new(o, k, json_string(v));
}

json_t *ls_event_json(const struct ls_event *ev)
{
	json_t *o = json_object();
	json_object_set_new(o, "line", json_integer((json_int_t)ev->line));
	json_object_set_new(o, "kind", json_string(ls_kind_name(ev->kind)));
	json_set_str(o, "op", ev->op);
	json_set_str(o, "runner", ev->runner);
	json_set_str(o, "tactic", ev->tactic);
	json_set_str(o, "key", ev->key);
	if (ev->key) {
		json_object_set_new(o, "key_parsed", json_boolean(ev->key_parsed));
		json_object_set_new(o, "key_had_runner_hash", json_boolean(ev->key_had_hash));
		json_object_set_new(o, "fused_moe", json_boolean(ev->key_fused_moe));
	}
	json_set_str(o, "path", ev->path);
	json_set_str(o, "shapes", ev->shapes);
	json_set_str(o, "severity", ev->severity);
	json_set_str(o, "detail", ev->detail);
	if (ev->n >= 0)
		json_object_set_new(o, "n", json_integer(ev->n));
	if (ev->n_new >= 0)
		json_object_set_new(o, ev->kind == LS_BLOCKLIST_LOADED ? "ops" : "new", json_integer(ev->n_new));
	if (ev->n_prev >= 0)
		json_object_set_new(o, "previous", json_integer(ev->n_prev));
	if (ev->kind == LS_PROGRESS) {
		json_object_set_new(o, "done", json_integer(ev->done));
		json_object_set_new(o, "total", json_integer(ev->total));
		json_object_set_new(o, "profiles_per_s", ev->rate > 0 ? json_real(ev->rate) : json_null());
		json_object_set_new(o, "elapsed_s", ev->elapsed_s >= 0 ? json_integer(ev->elapsed_s) : json_null());
	}
	if (ev->kind == LS_PROFILE && ev->dim[0] >= 0)
		json_object_set_new(o, "first_dynamic_dim", json_pack("[I,I,o]", (json_int_t)ev->dim[0],
				    (json_int_t)ev->dim[1], ev->dim[2] < 0 ? json_string("inf") :
				    json_integer(ev->dim[2])));
	return o;
}

static json_t *op_json(const struct ls_op *op)
{
	json_t *passes = json_array(), *aff = json_array();
	for (size_t j = 0; j < op->n_passes; j++) {
		const struct ls_pass *p = &op->passes[j];
		json_array_append_new(passes, json_pack("{s:I, s:I, s:I, s:I, s:i, s:o, s:o}",
			"first_line", (json_int_t)p->first_line, "last_line", (json_int_t)p->last_line,
			"done", (json_int_t)p->done, "total", (json_int_t)p->total, "updates", (int)p->updates,
			"profiles_per_s", p->rate > 0 ? json_real(p->rate) : json_null(),
			"elapsed_s", p->elapsed_s >= 0 ? json_integer(p->elapsed_s) : json_null()));
	}
	for (size_t j = 0; j < op->n_affected; j++)
		json_array_append_new(aff, json_string(op->affected[j]));
	return json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:o, s:I, s:o}",
		"op", op->name, "hits", (int)op->hits, "misses", (int)op->misses,
		"fallbacks", (int)op->fallbacks, "failed_tactics", (int)op->failed,
		"unsupported_tactics_skipped", (int)op->skipped_unsupported, "affected", aff,
		"tuning_s", (json_int_t)op->tuning_s, "passes", passes);
}

json_t *ls_summary_json(const char *name, const struct ls_stats *st, const struct ls_summary *s)
{
	json_t *counts = json_object(), *ops = json_array();
	for (int k = 0; k < LS_KIND_COUNT; k++)
		if (s->count[k])
			json_object_set_new(counts, ls_kind_name((enum ls_kind)k), json_integer(s->count[k]));
	for (size_t i = 0; i < s->n_ops; i++)
		json_array_append_new(ops, op_json(&s->ops[i]));
	return json_pack("{s:s, s:I, s:I, s:b, s:b, s:{s:i, s:i, s:i, s:i, s:I, s:I}, s:o, s:o}",
		"file", name, "bytes", (json_int_t)st->bytes, "lines", (json_int_t)st->lines,
		"gzip", st->gzip, "truncated", st->truncated,
		"totals", "hits", (int)s->hits, "misses", (int)s->misses, "fallbacks", (int)s->fallbacks,
		"failed_tactics", (int)s->failed, "configs_loaded", (json_int_t)s->configs_loaded,
		"configs_saved", (json_int_t)s->configs_saved,
		"counts", counts, "ops", ops);
}

/* ---- missed keys ---- */

void ls_keyset_add(struct ls_keyset *k, const struct ls_summary *s)
{
	for (size_t i = 0; i < s->n_keys; i++) {
		if (!s->keys_moe[i]) {
			k->other++;
			continue;
		}
		bool seen = false;
		for (size_t j = 0; j < k->n && !seen; j++)
			seen = !strcmp(k->keys[j], s->keys[i]);
		if (seen)
			continue;
		ALLOC_GROW(k->keys, k->n + 1, k->alloc);
		k->keys[k->n++] = xstrdup(s->keys[i]);
	}
}

/* The form `generate --keys` reads (flashinfer/lookup.c lookup_keys_file). */
void ls_keyset_write(const struct ls_keyset *k, struct strbuf *out)
{
	sb_addf(out, "# tunetab scan-log: %zu missed cutlass fused-MoE key(s), for "
		"'tunetab generate --keys'\n", k->n);
	if (k->other)
		sb_addf(out, "# %zu other missed key(s) left out: not trtllm::fused_moe::gemm1/gemm2 "
			"or not a valid key\n", k->other);
	for (size_t i = 0; i < k->n; i++) {
		sb_adds(out, k->keys[i]);
		sb_addc(out, '\n');
	}
}

void ls_keyset_release(struct ls_keyset *k)
{
	free_strings(k->keys, k->n);
	memset(k, 0, sizeof *k);
}
