/* util.c: memory, string buffers, files and small string helpers. */
#include "base/util.h"
#include "base/diag.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void oom(void)
{
	fputs("tunetab: error: out of memory\n", stderr);
	abort();
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "tunetab: BUG: %s:%d: %s\n", file, line, msg);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

void *alloc_grow(void *p, size_t nr, size_t *alloc, size_t size)
{
	size_t want = *alloc < (SIZE_MAX - 16) / 3 * 2 ? (*alloc + 16) * 3 / 2 : nr;
	if (want < nr)
		want = nr;
	if (size && want > SIZE_MAX / size)
		oom();
	p = xrealloc(p, want * size);
	*alloc = want;
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		oom();
	char *p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void sb_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

void sb_grow(struct strbuf *sb, size_t extra)
{
	if (extra > SIZE_MAX - 1 - sb->len)
		oom();
	ALLOC_GROW(sb->buf, sb->len + extra + 1, sb->alloc);
}

void sb_add(struct strbuf *sb, const void *data, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap, cp;
	va_start(ap, fmt);
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		oom();
	sb_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	va_end(ap);
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_add_shell(struct strbuf *sb, const char *s)
{
	bool plain = *s;
	for (const char *p = s; *p && plain; p++)
		plain = isalnum((unsigned char)*p) || strchr("_./:=@%+,-", *p);
	if (plain) {
		sb_adds(sb, s);
		return;
	}
	sb_addc(sb, '\'');
	for (const char *p = s; *p; p++)
		if (*p == '\'')
			sb_adds(sb, "'\\''");
		else if (*p == '\n') /* one line: bash's $'\n' */
			sb_adds(sb, "'$'\\n''");
		else
			sb_addc(sb, *p);
	sb_addc(sb, '\'');
}

char *sb_detach(struct strbuf *sb)
{
	char *p = sb->buf ? sb->buf : xstrdup("");
	sb_init(sb);
	return p;
}

void sb_release(struct strbuf *sb)
{
	free(sb->buf);
	sb_init(sb);
}

static int not_regular(mode_t m)
{
	return S_ISDIR(m) ? EISDIR : S_ISREG(m) ? 0 : E_NOT_REGULAR;
}

FILE *fopen_read(const char *path)
{
	if (!strcmp(path, "-"))
		return stdin;
	struct stat st;
	if (stat(path, &st))
		return NULL;
	int e = not_regular(st.st_mode);
	if (e) {
		errno = e;
		return NULL;
	}
	/* O_NONBLOCK: a FIFO swapped in after the stat does not block the open; checked again */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || (e = not_regular(st.st_mode)) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		close(fd);
		errno = e ? e : EIO;
		return NULL;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f)
		close(fd);
	return f;
}

const char *path_strerror(const char *path, int err)
{
	static char buf[2][PATH_MAX + 128];
	static int turn;
	char *out = buf[turn ^= 1];
	if (err == EISDIR) {
		snprintf(out, sizeof buf[0], "a folder, not a file");
		return out;
	}
	if (err == E_NOT_REGULAR) {
		struct stat st;
		const char *what = stat(path, &st) ? "not a regular file" : S_ISFIFO(st.st_mode)
			? "a named pipe (FIFO)" : S_ISCHR(st.st_mode) ? "a character device"
			: S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket"
			: "not a regular file";
		snprintf(out, sizeof buf[0], "%s, not a regular file", what);
		return out;
	}
	if (err != ENOENT && err != ENOTDIR)
		return strerror(err);
	/* the first component that is wrong: a file where a folder should be, or missing */
	char *p = xstrdup(path);
	const char *msg = NULL;
	for (char *s = p + (*p == '/'); ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		struct stat st;
		if (*p && stat(p, &st)) { /* a missing folder on the way; the file itself: strerror */
			if (c) {
				snprintf(out, sizeof buf[0], "'%s' does not exist", p);
				msg = out;
			}
			*s = c;
			break;
		} else if (*p && c && !S_ISDIR(st.st_mode)) {
			snprintf(out, sizeof buf[0], "'%s' is not a folder", p);
			msg = out;
		}
		*s = c;
		if (msg || !c)
			break;
	}
	free(p);
	return msg ? msg : strerror(err);
}

int path_err_status(int err)
{
	return err == ENOENT || err == ENOTDIR || err == EISDIR || err == E_NOT_REGULAR ||
	       err == ENAMETOOLONG || err == ELOOP ? TT_INVALID : TT_INTERNAL;
}

int read_file(const char *path, size_t max, char **out, size_t *len)
{
	*out = NULL;
	if (len)
		*len = 0;
	FILE *f = fopen_read(path);
	if (!f)
		return errno;
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	/* a regular file is read into one buffer of its size (large tables) */
	if (f != stdin && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if (max && (size_t)st.st_size > max) {
			fclose(f);
			return ENOBUFS;
		}
		sb_grow(&sb, (size_t)st.st_size + 1);
	}
	char chunk[65536];
	size_t n;
	int err = 0;
	while (sb.alloc > sb.len + 1 && (n = fread(sb.buf + sb.len, 1, sb.alloc - sb.len - 1, f)) > 0) {
		if (max && sb.len + n > max) {
			err = ENOBUFS;
			break;
		}
		sb.len += n;
		sb.buf[sb.len] = '\0';
	}
	while (!err && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (max && sb.len + n > max) {
			err = ENOBUFS;
			break;
		}
		sb_add(&sb, chunk, n);
	}
	if (!err && ferror(f))
		err = EIO;
	if (f != stdin)
		fclose(f);
	if (err) {
		sb_release(&sb);
		return err;
	}
	if (len)
		*len = sb.len;
	*out = sb_detach(&sb);
	return 0;
}

int read_file_diag(const char *path, size_t max, char **out, size_t *len, struct diags *d)
{
	int err = read_file(path, max, out, len);
	if (err == ENOBUFS)
		return diag_error(d, TT_INVALID, "size", path, 0, 0, "file larger than %zu MiB",
				  max >> 20);
	if (err)
		return diag_error(d, path_err_status(err), "io", path, 0, 0, "cannot read file: %s",
				  path_strerror(path, err));
	return TT_OK;
}

int path_is_dir(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int path_is_file(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	int err = 0;
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0777) && errno != EEXIST) {
				err = errno;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return err;
}

/* The folder of path (".", or "/" for a file at the root). Caller frees. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
}

static void fsync_dir(const char *path)
{
	char *dir = dir_of(path);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
}

/* Writes data to a new temp file beside path (".NAME.tmpXXXXXX"), synced; *slot holds its
 * name from before the file exists (so a signal handler can always remove it). Returns 0 or
 * errno, and then no temp file remains and *slot is NULL. */
static int stage_file(const char *path, const void *data, size_t len, unsigned mode, char **slot)
{
	char *dir = dir_of(path);
	const char *slash = strrchr(path, '/');
	char *tmp = xasprintf("%s/.%s.tmpXXXXXX", dir, slash ? slash + 1 : path);
	free(dir);
	*slot = tmp;
	struct stat st;
	if (stat(path, &st) == 0)
		mode = st.st_mode & 07777;
	int err = 0;
	int fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		*slot = NULL;
		free(tmp);
		return err;
	}
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	if (!err && fchmod(fd, (mode_t)mode))
		err = errno;
	if (!err && fsync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	if (err) {
		unlink(tmp);
		*slot = NULL;
		free(tmp);
		return err;
	}
	return 0;
}

/* Whether tmp is a name stage_file gives path's temp file: ".NAME.tmpXXXXXX" in path's
 * folder, the X's mkstemp's letters and digits. */
static bool staged_name_of(const char *path, const char *tmp)
{
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0, bl = strlen(path + dl);
	if (strlen(tmp) != dl + 1 + bl + 10 || strncmp(tmp, path, dl) || tmp[dl] != '.' ||
	    strncmp(tmp + dl + 1, path + dl, bl) || strncmp(tmp + dl + 1 + bl, ".tmp", 4))
		return false;
	for (const char *x = tmp + dl + bl + 5; *x; x++)
		if (!((*x >= 'a' && *x <= 'z') || (*x >= 'A' && *x <= 'Z') || (*x >= '0' && *x <= '9')))
			return false;
	return true;
}

int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode)
{
	struct file_set set = { 0 };
	int err = file_set_stage(&set, path, data, len, mode);
	if (!err)
		err = file_set_commit(&set);
	file_set_abort(&set);
	return err;
}

/* --- a set of files written together -------------------------------------------------- */

/* The set being staged, for the signal handler: it only reads these (async-signal-safe). */
static struct file_set *volatile staged;
static struct sigaction old_int, old_term;

static void on_signal(int sig)
{
	struct file_set *s = staged;
	for (size_t i = 0; s && i < s->n; i++)
		if (s->tmp[i])
			unlink(s->tmp[i]);
	static const char msg[] = "tunetab: interrupted; nothing written\n";
	ssize_t ignored = write(2, msg, sizeof msg - 1);
	(void)ignored;
	_exit(128 + sig);
}

static void catch_signals(struct file_set *s, bool on)
{
	if (on) {
		struct sigaction sa = { .sa_handler = on_signal };
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGINT);
		sigaddset(&sa.sa_mask, SIGTERM);
		staged = s;
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
	} else {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		staged = NULL;
	}
}

/* Holds SIGINT and SIGTERM off until sigprocmask(SIG_SETMASK, old, NULL). */
static void hold_signals(sigset_t *old)
{
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, old);
}

int file_set_stage(struct file_set *s, const char *path, const void *data, size_t len,
		   unsigned mode)
{
	if (!s->n)
		catch_signals(s, true);
	if (s->n == s->cap) { /* the handler must not see the arrays move */
		sigset_t old;
		hold_signals(&old);
		size_t tmp_cap = s->cap; /* both grow from one capacity by one rule: stay equal */
		ALLOC_GROW(s->path, s->n + 1, s->cap);
		ALLOC_GROW(s->tmp, s->n + 1, tmp_cap);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	s->path[s->n] = xstrdup(path);
	s->tmp[s->n] = NULL;
	s->n++;
	int err = stage_file(path, data, len, mode, &s->tmp[s->n - 1]);
	const char *delay = getenv("TUNETAB_TEST_STAGE_DELAY_MS"); /* tests: a wide window */
	if (!err && delay)
		nanosleep(&(struct timespec){ .tv_nsec = atol(delay) % 1000 * 1000000L }, NULL);
	return err;
}

/* --- the undo log (file_set_undo) ------------------------------------------ */

#define UNDO_HEAD "tunetab file-set journal 1\n"

/* One file of an undo-logged commit: absolute or cwd-relative paths; backup NULL when the target
 * did not exist. */
struct jfile {
	char *target, *backup, *temp;
};

static void jfiles_free(struct jfile *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].target);
		free(f[i].backup);
		free(f[i].temp);
	}
	free(f);
}

/* Whether p[0, len) may name a file in an undo log: a path relative to the undo log's folder,
 * the last part a name, no part "..". So a recovery renames and removes only files of that
 * folder and below, whatever the undo log says (a log naming /etc/x or ../x is not one). */
static bool undo_rel_ok(const char *p, size_t len)
{
	if (!len || p[0] == '/' || p[len - 1] == '/')
		return false;
	for (size_t i = 0; i < len;) {
		size_t n = 0;
		while (i + n < len && p[i + n] != '/')
			n++;
		if (n == 2 && p[i] == '.' && p[i + 1] == '.')
			return false;
		i += n + 1;
	}
	return true;
}

/* path as the undo log in folder jdir names it: the part after jdir (path must be written
 * under jdir, as every set's files are: DIR/NAME beside DIR/.tunetab-WHO.journal), or NULL
 * when it is not there or undo_rel_ok refuses it. */
static const char *undo_rel(const char *jdir, const char *path)
{
	size_t dl = strlen(jdir);
	while (dl > 1 && jdir[dl - 1] == '/')
		dl--;
	const char *p = NULL;
	if (dl == 1 && jdir[0] == '/')
		p = path[0] == '/' ? path : NULL;
	else if (!strncmp(path, jdir, dl) && path[dl] == '/')
		p = path + dl;
	else if (!strcmp(jdir, ".") && path[0] != '/')
		p = path; /* an undo log named without a folder: relative to "." as it is */
	while (p && *p == '/')
		p++;
	return p && undo_rel_ok(p, strlen(p)) ? p : NULL;
}

/* An undo log field: "none", or LEN:PATH with PATH relative to the undo log's folder
 * (undo_rel). */
static void undo_field(struct strbuf *sb, const char *rel)
{
	if (rel)
		sb_addf(sb, "%zu:%s", strlen(rel), rel);
	else
		sb_adds(sb, "none");
}

/* Parses one field at *p (end: e) into *out (NULL for none, else the path resolved against
 * jdir; caller frees). 0, or -1 when malformed or not a path undo_rel_ok allows. */
static int undo_read_field(const char **p, const char *e, const char *jdir, char **out)
{
	*out = NULL;
	if ((size_t)(e - *p) >= 4 && !memcmp(*p, "none", 4)) {
		*p += 4;
		return 0;
	}
	size_t len = 0;
	const char *q = *p;
	while (q < e && *q >= '0' && *q <= '9' && len < PATH_MAX)
		len = len * 10 + (size_t)(*q++ - '0');
	if (q == *p || q >= e || *q != ':' || len == 0 || (size_t)(e - q - 1) < len)
		return -1;
	q++;
	if (memchr(q, '\0', len) || !undo_rel_ok(q, len))
		return -1;
	*out = !strcmp(jdir, ".") ? xstrndup(q, len) : xasprintf("%s/%.*s", jdir, (int)len, q);
	*p = q + len;
	return 0;
}

/* The files an undo log lists. 0, or EBADMSG (another version, or not an undo log). */
static int undo_parse(const char *text, size_t len, const char *jdir, struct jfile **out,
			 size_t *n)
{
	const char *p = text, *e = text + len;
	struct jfile *f = NULL;
	size_t alloc = 0;
	*n = 0;
	if (len < strlen(UNDO_HEAD) || memcmp(p, UNDO_HEAD, strlen(UNDO_HEAD)))
		return EBADMSG;
	p += strlen(UNDO_HEAD);
	while ((size_t)(e - p) > 5 && !memcmp(p, "file ", 5)) {
		p += 5;
		ALLOC_GROW(f, *n + 1, alloc);
		struct jfile *x = &f[(*n)++];
		*x = (struct jfile){ 0 };
		if (undo_read_field(&p, e, jdir, &x->target) || !x->target || p == e || *p++ != ' ' ||
		    undo_read_field(&p, e, jdir, &x->backup) || p == e || *p++ != ' ' ||
		    undo_read_field(&p, e, jdir, &x->temp) || !x->temp || p == e || *p++ != '\n')
			goto bad;
		/* the temp file and backup a commit makes beside its target, nothing else */
		size_t tl = strlen(x->temp);
		if (!staged_name_of(x->target, x->temp) ||
		    (x->backup && (strncmp(x->backup, x->temp, tl) || strcmp(x->backup + tl, ".bak"))))
			goto bad;
	}
	char tail[32];
	snprintf(tail, sizeof tail, "end %zu\n", *n);
	if ((size_t)(e - p) == strlen(tail) && !memcmp(p, tail, strlen(tail))) {
		*out = f;
		return 0;
	}
bad:
	jfiles_free(f, *n);
	*n = 0;
	return EBADMSG;
}

/* Publishes the undo log whole: staged beside path (written, synced), then linked in, so it
 * appears complete or not at all and never over another commit's. */
static int undo_publish(const char *path, const struct strbuf *text)
{
	char *tmp = NULL;
	int err = stage_file(path, text->buf, text->len, 0644, &tmp);
	if (err)
		return err;
	if (link(tmp, path)) {
		err = errno;
		if (err != EEXIST) /* a filesystem without hard links: look, then rename */
			err = !access(path, F_OK) ? EEXIST : rename(tmp, path) ? errno : 0;
	}
	unlink(tmp);
	free(tmp);
	if (!err)
		fsync_dir(path);
	return err;
}

/* Keeps target's content at backup: a hard link (same file, nothing copied), or a synced
 * copy where the filesystem has none. An immutable or append-only target fails (EPERM). */
static int make_backup(const char *target, const char *backup)
{
	if (!link(target, backup))
		return 0;
	int err = errno;
	if (err != EXDEV && err != ENOTSUP && err != EOPNOTSUPP && err != EMLINK && err != ENOSYS)
		return err;
	char *data;
	size_t len;
	if ((err = read_file(target, 0, &data, &len)))
		return err;
	struct stat st;
	int fd = stat(target, &st) ? -1 : open(backup, O_WRONLY | O_CREAT | O_EXCL, st.st_mode & 07777);
	err = fd < 0 ? errno : 0;
	for (size_t off = 0; !err && off < len;) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno != EINTR)
			err = errno;
		else if (w > 0)
			off += (size_t)w;
	}
	if (fd >= 0 && !err && fsync(fd))
		err = errno;
	if (fd >= 0 && close(fd) && !err)
		err = errno;
	if (err && fd >= 0)
		unlink(backup);
	free(data);
	return err;
}

/* Puts f's target back as it was before the commit and removes its temp file and backup;
 * *restored counts a target changed back. Each step can be done again (idempotent): a
 * missing backup was put back already (or never made: then no rename happened either). */
static int restore_file(const struct jfile *f, size_t *restored)
{
	struct stat b, t;
	if (f->backup && !lstat(f->backup, &b)) {
		if (!lstat(f->target, &t) && t.st_ino == b.st_ino && t.st_dev == b.st_dev) {
			if (unlink(f->backup) && errno != ENOENT) /* never replaced: the link goes */
				return errno;
		} else if (rename(f->backup, f->target)) {
			return errno;
		} else {
			(*restored)++;
		}
	} else if (f->backup && errno != ENOENT) {
		return errno;
	} else if (!f->backup) {
		if (!unlink(f->target))
			(*restored)++;
		else if (errno != ENOENT)
			return errno;
	}
	if (unlink(f->temp) && errno != ENOENT)
		return errno;
	return 0;
}

/* Syncs the folder of each file's target (a folder once per run of equal ones). */
static void sync_folders(const struct jfile *f, size_t n, bool backups)
{
	char *last = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *p = backups ? f[i].backup : f[i].target;
		if (!p)
			continue;
		char *dir = dir_of(p);
		if (!last || strcmp(last, dir))
			fsync_dir(p);
		free(last);
		last = dir;
	}
	free(last);
}

/* Undoes f[0..n) and removes the undo log: 0, or the first errno (the undo log then stays). */
static int undo_apply(const char *undo, const struct jfile *f, size_t n, size_t *restored)
{
	int err = 0;
	for (size_t i = 0; i < n; i++) {
		int e = restore_file(&f[i], restored);
		if (e && !err)
			err = e;
	}
	if (err)
		return err;
	sync_folders(f, n, false);
	if (unlink(undo) && errno != ENOENT)
		return errno;
	fsync_dir(undo);
	return 0;
}

/* Takes the lock of the undo log's folder (flock on the folder itself, so no lock file is
 * left behind), which an undo-logged commit holds from its undo log to its end and a recovery
 * while it reads and undoes an undo log: a recovery then never undoes a commit still under way,
 * and two commits into one folder take turns. Returns the descriptor to close, or -1 where
 * the folder cannot be locked (no such folder yet; a file system without flock on folders,
 * as NFS: then unlocked, as before). */
static int lock_folder(const char *undo)
{
	char *dir = dir_of(undo);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	int r;
	while ((r = flock(fd, LOCK_EX)) && errno == EINTR)
		;
	if (r) {
		close(fd);
		return -1;
	}
	return fd;
}

static void unlock_folder(int fd)
{
	if (fd >= 0)
		close(fd); /* the lock goes with the last descriptor */
}

/* Renames every staged temp file onto its target, in order; the first failure's errno (the
 * files before it are in place, the rest still staged). */
static int rename_staged(struct file_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		if (rename(s->tmp[i], s->path[i]))
			return errno;
		free(s->tmp[i]);
		s->tmp[i] = NULL;
	}
	return 0;
}

/* file_set_commit under s->undo: undo log, backups, renames; undone on failure. */
static int commit_undoable(struct file_set *s)
{
	struct jfile *f = xcalloc(s->n, sizeof *f);
	char *jdir = dir_of(s->undo);
	struct strbuf text = STRBUF_INIT;
	sb_adds(&text, UNDO_HEAD);
	int err = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct stat st;
		f[i].target = xstrdup(s->path[i]);
		f[i].temp = xstrdup(s->tmp[i]);
		f[i].backup = lstat(s->path[i], &st) ? NULL : xasprintf("%s.bak", s->tmp[i]);
		const char *target = undo_rel(jdir, f[i].target), *temp = undo_rel(jdir, f[i].temp);
		const char *backup = f[i].backup ? undo_rel(jdir, f[i].backup) : NULL;
		if (!target || !temp || (f[i].backup && !backup))
			err = EINVAL; /* not in the undo log's folder: no recovery could undo it */
		sb_adds(&text, "file ");
		undo_field(&text, target);
		sb_addc(&text, ' ');
		undo_field(&text, backup);
		sb_addc(&text, ' ');
		undo_field(&text, temp);
		sb_addc(&text, '\n');
	}
	sb_addf(&text, "end %zu\n", s->n);
	free(jdir);
	if (!err)
		err = undo_publish(s->undo, &text);
	sb_release(&text);
	if (err) { /* nothing made yet but the temp files, which the caller's abort removes */
		jfiles_free(f, s->n);
		return err;
	}
	/* every backup, durable, before the first rename: recovery relies on it */
	for (size_t i = 0; i < s->n && !err; i++)
		if (f[i].backup)
			err = make_backup(f[i].target, f[i].backup);
	if (!err)
		sync_folders(f, s->n, true);
	if (!err)
		err = rename_staged(s);
	if (err) {
		size_t restored = 0;
		undo_apply(s->undo, f, s->n, &restored); /* failing, the undo log stays */
	} else {
		sync_folders(f, s->n, false);
		/* the commit point; the backups go after it, as a kill between the two leaves
		 * only stray links, where backups gone before it would look restored */
		if (!unlink(s->undo))
			fsync_dir(s->undo);
		for (size_t i = 0; i < s->n; i++)
			if (f[i].backup)
				unlink(f[i].backup);
	}
	jfiles_free(f, s->n);
	return err;
}

int file_set_commit(struct file_set *s)
{
	/* the lock before the signals are held: a wait for another commit stays interruptible */
	int lock = s->undo && s->n ? lock_folder(s->undo) : -1;
	sigset_t old;
	hold_signals(&old);
	int err = 0;
	for (size_t i = 0; i < s->n && !err; i++)
		if (!s->tmp[i])
			err = EINVAL;
	if (!err && s->undo && s->n) {
		err = commit_undoable(s);
	} else if (!err) {
		err = rename_staged(s);
		for (size_t i = 0; i < s->n && !err; i++)
			fsync_dir(s->path[i]);
	}
	file_set_abort(s);
	unlock_folder(lock);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

char *file_set_undo_path(const char *dir, const char *who)
{
	return xasprintf("%s/.tunetab-%s.journal", dir, who);
}

void file_set_undo(struct file_set *s, const char *undo_path)
{
	free(s->undo);
	s->undo = undo_path ? xstrdup(undo_path) : NULL;
}

int file_set_recover(const char *undo_path, int *found, size_t *restored)
{
	size_t count = 0;
	if (found)
		*found = 0;
	if (restored)
		*restored = 0;
	if (access(undo_path, F_OK) && (errno == ENOENT || errno == ENOTDIR))
		return 0; /* the common case, without the lock (ENOTDIR: no folder, no undo log) */
	int lock = lock_folder(undo_path);
	char *text;
	size_t len;
	int err = read_file(undo_path, 0, &text, &len);
	if (err == ENOENT) { /* a commit that ended while this waited for its lock */
		unlock_folder(lock);
		return 0;
	}
	if (found)
		*found = 1;
	if (err) {
		unlock_folder(lock);
		return err;
	}
	char *jdir = dir_of(undo_path);
	struct jfile *f = NULL;
	size_t n = 0;
	err = undo_parse(text, len, jdir, &f, &n);
	free(text);
	free(jdir);
	if (!err) {
		sigset_t old;
		hold_signals(&old);
		err = undo_apply(undo_path, f, n, &count);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	jfiles_free(f, n);
	unlock_folder(lock);
	if (restored)
		*restored = count;
	return err;
}

void file_set_abort(struct file_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->tmp[i])
			unlink(s->tmp[i]);
		free(s->tmp[i]);
		free(s->path[i]);
	}
	if (s->n)
		catch_signals(s, false);
	free(s->path);
	free(s->tmp);
	free(s->undo);
	*s = (struct file_set){ 0 };
}

size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xmalloc((lb + 1) * sizeof *row);
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
			size_t best = diag + !same;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

int str_ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
	return *a == *b;
}

int str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_ends(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int parse_long(const char *s, long *out)
{
	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

char *self_exe_path(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

void sb_addll(struct strbuf *sb, long long v)
{
	char buf[24];
	int n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do {
		buf[sizeof buf - 1 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[sizeof buf - 1 - n++] = '-';
	sb_add(sb, buf + sizeof buf - n, (size_t)n);
}

double monotonic_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

uint64_t hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;
	size_t j = 0;
	for (; j + 8 <= len; j += 8) {
		uint64_t w;
		memcpy(&w, p + j, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
		h ^= h >> 32;
	}
	for (; j < len; j++)
		h = (h ^ p[j]) * 1099511628211ULL;
	h ^= h >> 29;
	return h;
}

/* The next token at or after *p (a run of letters or of digits), as [*start, returned end);
 * NULL at the end of the string. *digit says which kind. */
static const char *next_token(const char *p, const char **start, bool *digit)
{
	while (*p && !isalnum((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	*start = p;
	*digit = isdigit((unsigned char)*p) != 0;
	while (*p && isalnum((unsigned char)*p) && (isdigit((unsigned char)*p) != 0) == *digit)
		p++;
	return p;
}

/* The query's tokens found in cand's (both split by next_token): 2 for a word, 1 for a
 * number (a shared "3" says less than a shared "llama"); *words counts the words. */
static size_t shared_tokens(const char *query, const char *cand, size_t *words)
{
	size_t shared = 0;
	const char *q, *qe, *c, *ce;
	bool digit, cd;
	for (qe = query; (qe = next_token(qe, &q, &digit));) {
		bool found = false;
		for (ce = cand; !found && (ce = next_token(ce, &c, &cd));)
			found = ce - c == qe - q && !strncasecmp(c, q, (size_t)(qe - q));
		shared += found ? (digit ? 1 : 2) : 0;
		*words += found && !digit;
	}
	return shared;
}

static char *alnum_only(const char *s)
{
	char *o = xmalloc(strlen(s) + 1), *w = o;
	for (; *s; s++)
		if (isalnum((unsigned char)*s))
			*w++ = (char)tolower((unsigned char)*s);
	*w = '\0';
	return o;
}

size_t suggest_names(const char *query, const char *const *names, const char *const *display,
		     size_t n, const char **out, size_t max)
{
	char *qa = alnum_only(query);
	size_t limit = strlen(qa) / 3, got = 0;
	size_t *tok = xcalloc(max + 1, sizeof *tok), *dist = xcalloc(max + 1, sizeof *dist);
	for (size_t i = 0; i < n; i++) {
		char *ca = alnum_only(names[i]);
		size_t words = 0, t = shared_tokens(query, names[i], &words), dd = edit_distance(qa, ca);
		free(ca);
		if (!words && dd > limit)
			continue;
		size_t have = got;
		for (size_t k = 0; k < got; k++)
			if (!strcmp(out[k], display[i]))
				have = k;
		if (have < got) { /* the same thing under another name: keep its best score */
			if (t < tok[have] || (t == tok[have] && dd >= dist[have]))
				continue;
			for (size_t k = have; k + 1 < got; k++) {
				out[k] = out[k + 1];
				tok[k] = tok[k + 1];
				dist[k] = dist[k + 1];
			}
			got--;
		}
		size_t pos = got;
		while (pos > 0 && (tok[pos - 1] < t || (tok[pos - 1] == t && dist[pos - 1] > dd)))
			pos--;
		if (pos >= max)
			continue;
		for (size_t k = got < max ? got : max - 1; k > pos; k--) {
			out[k] = out[k - 1];
			tok[k] = tok[k - 1];
			dist[k] = dist[k - 1];
		}
		out[pos] = display[i];
		tok[pos] = t;
		dist[pos] = dd;
		if (got < max)
			got++;
	}
	free(qa);
	free(tok);
	free(dist);
	return got;
}

char *nearest_text(const char *const *near, size_t k)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s", "");
	for (size_t i = 0; i < k; i++)
		sb_addf(&sb, "%s'%s'", i ? ", " : "; nearest known: ", near[i]);
	return sb_detach(&sb);
}

int sha256_hex(const void *data, size_t len, unsigned digits, char *out)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	if (digits > 64 || !EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return -1;
	char full[65];
	for (unsigned i = 0; i < 32; i++)
		snprintf(full + 2 * i, 3, "%02x", md[i]);
	memcpy(out, full, digits);
	out[digits] = '\0';
	return 0;
}

int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
