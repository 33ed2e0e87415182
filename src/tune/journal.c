/* journal.c: the profiling journal's format (journal.h): its name, header and identity, the
 * records generate appends (fsync'ed, resumable after SIGKILL) and the reader report uses. */
#include "tune/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flashinfer/provenance.h"

static const char magic[] = "# tunetab journal v1 ";
static const char command_tag[] = "# command ";
static const char backend_tag[] = "# backend ";

/* --- names ---------------------------------------------------------------- */

char *journal_path(const char *outdir, const char *module)
{
	size_t n = strlen(module) - (str_ends(module, ".py") ? 3 : 0);
	return xasprintf("%s/%.*s.journal", outdir, (int)n, module);
}

char *journal_module(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base) - (str_ends(base, ".journal") ? 8 : 0);
	return xasprintf("%.*s.py", (int)n, base);
}

/* --- identity ------------------------------------------------------------- */

void journal_identity_add(struct strbuf *id, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *v = xvasprintf(fmt, ap);
	va_end(ap);
	for (char *q = v; *q; q++)
		if (*q == '\n')
			*q = ' ';
	sb_addf(id, "%s%s=%s", id->len ? " " : "", key, v);
	free(v);
}

char *journal_identity(const struct journal_run *r)
{
	struct strbuf b = STRBUF_INIT;
	journal_identity_add(&b, "version", "%s", r->version);
	journal_identity_add(&b, "device", "%s", r->device);
	const struct deployment *s = r->shape;
	journal_identity_add(&b, "model", "%s", s->model_name);
	journal_identity_add(&b, "dtype", "%s", s->dt->name);
	journal_identity_add(&b, "tp", "%ld", s->tp);
	journal_identity_add(&b, "ep", "%ld", s->ep);
	journal_identity_add(&b, "tp_rank", "%ld", s->tp_rank);
	journal_identity_add(&b, "ep_rank", "%ld", s->ep_rank);
	if (!s->fused_finalize)
		journal_identity_add(&b, "fused_finalize", "0");
	journal_identity_add(&b, "top_k", "%ld", s->top_k);
	journal_identity_add(&b, "max", "%u", s->max_tokens);
	journal_identity_add(&b, "catalog", "%s", r->catalog);
	journal_identity_add(&b, "keys", "%s", r->keys ? r->keys : "-");
	journal_identity_add(&b, "top", "%ld", r->top ? r->top : 4);
	journal_identity_add(&b, "method", "%d", r->method);
	journal_identity_add(&b, "rounds", "%ld", r->rounds);
	journal_identity_add(&b, "heuristic", "%s", r->heuristic ? r->heuristic : "default");
	if (r->model_fit)
		journal_identity_add(&b, "model_fit", "%s", r->model_fit);
	journal_identity_add(&b, "profile", "%d", r->profile);
	journal_identity_add(&b, "backend", "%s", r->backend ? r->backend : "-");
	if (r->shard)
		journal_identity_add(&b, "shard", "%s", r->shard);
	return sb_detach(&b);
}

/* A field as a reader shows it: NULL when absent or "-". */
static char *shown(const char *identity, const char *key)
{
	char *v = journal_identity_value(identity, key);
	if (v && !strcmp(v, "-")) {
		free(v);
		v = NULL;
	}
	return v;
}

void journal_run_read(const char *identity, struct journal_run_text *t)
{
	t->version = shown(identity, "version");
	t->device = shown(identity, "device");
	t->model = shown(identity, "model");
	t->dtype = shown(identity, "dtype");
	t->tp = shown(identity, "tp");
	t->ep = shown(identity, "ep");
	t->max_tokens = shown(identity, "max");
	t->keys = shown(identity, "keys");
	t->backend = shown(identity, "backend");
	t->tp_rank = shown(identity, "tp_rank");
	t->ep_rank = shown(identity, "ep_rank");
	t->top_k = shown(identity, "top_k");
	t->catalog = shown(identity, "catalog");
	t->heuristic = shown(identity, "heuristic");
}

void journal_run_text_release(struct journal_run_text *t)
{
	free(t->version), free(t->device), free(t->model), free(t->dtype), free(t->tp);
	free(t->ep), free(t->max_tokens), free(t->keys), free(t->backend);
	free(t->tp_rank), free(t->ep_rank), free(t->top_k);
	free(t->catalog), free(t->heuristic);
	memset(t, 0, sizeof *t);
}

char *journal_identity_value(const char *id, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = id; (p = strstr(p, key)); p++) {
		if ((p != id && p[-1] != ' ') || p[kl] != '=')
			continue;
		const char *v = p + kl + 1, *end = v;
		for (;;) {
			const char *sp = strchr(end, ' ');
			if (!sp) {
				end += strlen(end);
				break;
			}
			const char *w = sp + 1;
			while (*w >= 'a' && *w <= 'z')
				w++;
			while (*w == '_' || (*w >= 'a' && *w <= 'z'))
				w++;
			if (*w == '=' && w > sp + 1) {
				end = sp;
				break;
			}
			end = sp + 1;
		}
		return xstrndup(v, (size_t)(end - v));
	}
	return NULL;
}

/* Whether a journal's identity is the run's. One from before backends were named (no
 * "backend=") was the proxy's: it is the run's when the run's backend is the proxy and the
 * rest is the same, so that such a journal still resumes. */
static bool same_identity(const char *stored, const char *identity)
{
	if (!strcmp(stored, identity))
		return true;
	char *had = journal_identity_value(stored, "backend");
	char *now = journal_identity_value(identity, "backend");
	bool legacy = !had && now && !strcmp(now, PROV_BACKEND_DEFAULT);
	free(had);
	free(now);
	if (!legacy)
		return false;
	static const char pair[] = " backend=" PROV_BACKEND_DEFAULT;
	for (const char *p = identity; (p = strstr(p, pair)); p++) {
		const char *after = p + sizeof pair - 1;
		if (*after != ' ' && *after)
			continue;
		size_t head = (size_t)(p - identity);
		return !strncmp(stored, identity, head) && !strcmp(stored + head, after);
	}
	return false;
}

/* --- records -------------------------------------------------------------- */

/* The next whole line at *at (NUL-terminated in place), or NULL at the end of the text or at
 * a torn last line (no newline: killed mid-write). */
static char *next_line(char **at)
{
	char *line = *at;
	if (!line || !*line)
		return NULL;
	char *nl = strchr(line, '\n');
	if (!nl) {
		*at = NULL;
		return NULL;
	}
	*nl = '\0';
	*at = nl + 1;
	return line;
}

static bool parse_measurement(const char *line, struct journal_record *rec)
{
	struct prof_result *r = &rec->m;
	memset(r, 0, sizeof *r);
	int st;
	char why[128] = "";
	if (line[0] != 'M' || sscanf(line, "M %d %ld %d %d %lf %lf %lf %d %127s", &rec->stage,
				     &rec->tokens, &r->id, &st, &r->median_us, &r->lo_us, &r->hi_us,
				     &r->n, why) < 8)
		return false;
	/* tunetab writes finite times: "inf", "nan" or 1e999 is a line of no known form */
	if (!isfinite(r->median_us) || !isfinite(r->lo_us) || !isfinite(r->hi_us))
		return false;
	r->status = (enum prof_status)st;
	for (char *p = why; *p; p++)
		if (*p == '_')
			*p = ' ';
	snprintf(r->why, sizeof r->why, "%s", strcmp(why, "-") ? why : "");
	return true;
}

/* One line as a record; false for a line of no known form. */
static bool parse_record(const char *line, struct journal_record *rec)
{
	int oob;
	rec->text = NULL;
	if (!strncmp(line, command_tag, sizeof command_tag - 1)) {
		rec->kind = JOURNAL_COMMAND;
		rec->text = line + sizeof command_tag - 1;
		return true;
	}
	if (!strncmp(line, backend_tag, sizeof backend_tag - 1)) {
		rec->kind = JOURNAL_BACKEND;
		rec->text = line + sizeof backend_tag - 1;
		return true;
	}
	if (parse_measurement(line, rec)) {
		rec->kind = JOURNAL_MEASUREMENT;
		return true;
	}
	if (line[0] == 'P' && sscanf(line, "P %d %ld %d %lf", &rec->stage, &rec->tokens, &rec->id,
				     &rec->pred_us) == 4 && isfinite(rec->pred_us)) {
		rec->kind = JOURNAL_PREDICTION;
		return true;
	}
	if (line[0] == 'D' && sscanf(line, "D %d %ld %d %d %d %d", &rec->stage, &rec->tokens,
				     &rec->chosen, &rec->choice, &rec->fallback, &oob) == 6) {
		rec->kind = JOURNAL_DECISION;
		rec->out_of_budget = oob;
		return true;
	}
	return false;
}

/* A "# command"/"# backend" line: one line, whatever the text holds. */
static void add_text_line(struct strbuf *sb, const char *tag, const char *text)
{
	size_t at = sb->len;
	sb_addf(sb, "%s%s", tag, text);
	for (char *q = sb->buf + at; *q; q++)
		if (*q == '\n')
			*q = ' ';
	sb_addc(sb, '\n');
}

/* --- writing -------------------------------------------------------------- */

static void push(struct journal *j, const struct journal_meas *m)
{
	ALLOC_GROW(j->v, j->n + 1, j->cap);
	j->v[j->n++] = *m;
}

static int io_error(const struct journal *j, struct diags *d, const char *what)
{
	return diag_error(d, TT_INTERNAL, "io", j->path, 0, 0, "%s: %s", what, strerror(errno));
}

int journal_open(struct journal *j, const char *path, const char *identity, const char *command,
		 const char *backend, size_t *resumed, struct diags *d)
{
	memset(j, 0, sizeof *j);
	j->fd = -1;
	j->path = xstrdup(path);
	*resumed = 0;
	char *header = xasprintf("%s%s", magic, identity);
	char *text;
	size_t len, keep = 0; /* keep: the bytes up to the last newline (a torn line cut off) */
	int err = read_file(path, JOURNAL_MAX_BYTES, &text, &len);
	if (err && err != ENOENT) {
		free(header);
		return diag_error(d, path_err_status(err), "io", path, 0, 0, "cannot read the journal: %s",
				  err == ENOBUFS ? "larger than 256 MiB" : path_strerror(path, err));
	}
	if (!err) {
		size_t whole = len; /* up to the last newline: what a torn last line leaves whole */
		while (whole > 0 && text[whole - 1] != '\n')
			whole--;
		char *at = text, *first = next_line(&at);
		if (!first || strncmp(first, magic, sizeof magic - 1) ||
		    !same_identity(first + sizeof magic - 1, identity)) {
			/* another run's (or no journal at all): kept for the user, not resumed */
			char *old = xasprintf("%s.old", path);
			int bad = rename(path, old);
			free(old);
			if (bad) {
				free(text);
				free(header);
				return io_error(j, d, "cannot move the journal of another run aside");
			}
		} else {
			struct journal_record rec;
			for (char *line; (line = next_line(&at));)
				if (parse_measurement(line, &rec)) {
					push(j, &(struct journal_meas){ rec.stage, rec.tokens, rec.m });
					(*resumed)++;
				}
			keep = whole;
		}
		free(text);
	}
	struct strbuf sb = STRBUF_INIT;
	j->fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	struct stat st;
	int rc = TT_OK;
	if (j->fd < 0)
		rc = io_error(j, d, "cannot open the journal");
	else if (fstat(j->fd, &st))
		rc = io_error(j, d, "cannot open the journal");
	else if ((size_t)st.st_size > keep && keep && ftruncate(j->fd, (off_t)keep))
		rc = io_error(j, d, "cannot cut the torn last line off the journal");
	if (!rc) {
		if (!keep)
			sb_addf(&sb, "%s\n", header);
		if (command)
			add_text_line(&sb, command_tag, command);
		if (backend)
			add_text_line(&sb, backend_tag, backend);
		if (sb.len && (write(j->fd, sb.buf, sb.len) != (ssize_t)sb.len || fsync(j->fd)))
			rc = io_error(j, d, "cannot write the journal");
	}
	sb_release(&sb);
	free(header);
	return rc;
}

const struct prof_result *journal_find(const struct journal *j, int stage, long tokens, int id)
{
	for (size_t i = j->n; i-- > 0;)
		if (j->v[i].stage == stage && j->v[i].tokens == tokens && j->v[i].r.id == id)
			return &j->v[i].r;
	return NULL;
}

int journal_add_measurements(struct journal *j, int stage, long tokens, const struct prof_result *r,
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
		push(j, &(struct journal_meas){ stage, tokens, r[i] });
	}
	/* one write per entry, then fsync: after SIGKILL the journal holds whole entries, and a
	 * torn last line at worst */
	int bad = write(j->fd, sb.buf, sb.len) != (ssize_t)sb.len || fsync(j->fd);
	sb_release(&sb);
	return bad ? io_error(j, d, "cannot append to the journal") : TT_OK;
}

int journal_add_decision(struct journal *j, const struct lookup_entry *e, bool out_of_budget,
			 struct diags *d)
{
	struct strbuf sb = STRBUF_INIT;
	for (int k = 0; k < e->ntop; k++)
		if (e->top_time[k] >= 0)
			sb_addf(&sb, "P %d %ld %d %.4f\n", e->stage, e->tokens, e->top[k], e->top_time[k]);
	sb_addf(&sb, "D %d %ld %d %d %d %d\n", e->stage, e->tokens, e->tactic, (int)e->kind,
		e->fallback, out_of_budget);
	/* no fsync of its own: the report's data, not the resume's; the next entry's fsync
	 * (or the kernel) writes it out */
	int bad = write(j->fd, sb.buf, sb.len) != (ssize_t)sb.len;
	sb_release(&sb);
	return bad ? io_error(j, d, "cannot append to the journal") : TT_OK;
}

void journal_close(struct journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	free(j->v);
	free(j->path);
	memset(j, 0, sizeof *j);
	j->fd = -1;
}

/* --- reading -------------------------------------------------------------- */

int journal_reader_open(struct journal_reader *r, const char *path, struct diags *d)
{
	memset(r, 0, sizeof *r);
	size_t len;
	int err = read_file(path, JOURNAL_MAX_BYTES, &r->text, &len);
	if (err)
		return diag_error(d, err == ENOBUFS ? TT_INVALID : path_err_status(err),
				  "io", path, 0, 0, "cannot read the journal: %s",
				  err == ENOBUFS ? "larger than 256 MiB" : path_strerror(path, err));
	if (strncmp(r->text, magic, sizeof magic - 1)) {
		free(r->text);
		r->text = NULL;
		return diag_error(d, TT_INVALID, "journal", path, 1, 1, "not a tunetab journal (its first "
				  "line should start '%s')", magic);
	}
	/* the header, even torn (then there is nothing after it) */
	r->at = r->text;
	char *first = next_line(&r->at);
	r->identity = (first ? first : r->text) + sizeof magic - 1;
	r->line = 1;
	return TT_OK;
}

bool journal_reader_next(struct journal_reader *r, struct journal_record *rec)
{
	for (char *line; (line = next_line(&r->at));) {
		r->line++;
		memset(rec, 0, sizeof *rec);
		rec->line = r->line;
		if (parse_record(line, rec))
			return true;
	}
	return false;
}

void journal_reader_close(struct journal_reader *r)
{
	free(r->text);
	memset(r, 0, sizeof *r);
}
