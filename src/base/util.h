/* util.h: memory, string buffers, files and small string helpers shared by every module. */
#ifndef TUNETAB_UTIL_H
#define TUNETAB_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Out of memory: prints "tunetab: error: out of memory" and aborts. The one answer to a failed
 * allocation anywhere in tunetab (library code included: nothing can be returned then). */
_Noreturn void oom(void);

/* A broken internal invariant (never the user's input): prints "tunetab: BUG: FILE:LINE: msg"
 * and aborts (git's BUG()). */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Allocation that never returns NULL: out of memory calls oom(). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh string; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);
/* Frees the n strings of v, then v (an array of owned strings, such as ALLOC_GROW builds). */
void free_strings(char **v, size_t n);

/* Makes room for at least nr elements in the array x whose capacity (in elements) is the
 * size_t lvalue alloc: when nr > alloc, x is reallocated to max(nr, (alloc + 16) * 3 / 2)
 * elements and alloc updated (git's ALLOC_GROW); a size that overflows or memory that runs
 * out calls oom(). The usual append: ALLOC_GROW(v, n + 1, alloc); v[n++] = item; */
#define ALLOC_GROW(x, nr, alloc) \
	do { \
		if ((size_t)(nr) > (alloc)) \
			(x) = alloc_grow((x), (nr), &(alloc), sizeof *(x)); \
	} while (0)
/* ALLOC_GROW's work: the grown array (caller assigns it), *alloc updated. */
void *alloc_grow(void *p, size_t nr, size_t *alloc, size_t size);

/* Growable NUL-terminated byte buffer (git's strbuf, reduced). */
struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }
void sb_init(struct strbuf *sb);
void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *data, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_reset(struct strbuf *sb);
/* Decimal integer, without printf (hot paths). */
void sb_addll(struct strbuf *sb, long long v);
/* Returns the buffer (never NULL) and leaves sb empty; caller frees. */
char *sb_detach(struct strbuf *sb);
/* Appends s as one POSIX shell word: as it is when it holds only [A-Za-z0-9_./:=@%+,-] (and
 * is not empty), else in single quotes ('\'' for a quote, '$'\n'' for a newline, which
 * bash and zsh read), so a printed command runs as printed. */
void sb_add_shell(struct strbuf *sb, const char *s);
void sb_release(struct strbuf *sb);

/* The value of hex digit c (either case), or -1. */
int hex_digit(char c);

/* The first `digits` (1 to 64) lowercase hex digits of the SHA-256 of data, NUL-terminated in
 * out (digits + 1 bytes). 0, or -1 when the digest fails. */
int sha256_hex(const void *data, size_t len, unsigned digits, char *out);

/* Returned (as an errno value) for a path that is not a regular file: a FIFO, a device, a
 * socket (issue #48: never opened for reading, so a FIFO cannot block and a device is not
 * touched). A folder is EISDIR. */
#define E_NOT_REGULAR 4096
/* Opens a regular file for reading ("rb"), or "-" as stdin, without opening anything else:
 * NULL with errno set (ENOENT, ENOTDIR, EISDIR, E_NOT_REGULAR, ...). */
FILE *fopen_read(const char *path);
/* What is wrong with path, for an errno value a read or a mkdir of it returned: the component
 * that is wrong for ENOENT/ENOTDIR ("'/etc/hostname' is not a folder", "'/a/b' does not
 * exist" for a folder on the way), "a folder" for EISDIR, "not a regular file (a FIFO)" for E_NOT_REGULAR, else
 * strerror. A static buffer (two in turn: two calls may share one message). */
const char *path_strerror(const char *path, int err);
/* The status for such an errno value: TT_INVALID where the path is wrong (missing, a file
 * where a folder should be, a folder, not a regular file), else TT_INTERNAL. */
int path_err_status(int err);

/* Reads a whole file (at most max bytes; 0 = no limit) through fopen_read. Returns 0 or an
 * errno value; ENOBUFS when the file is larger than max. *out is NUL-terminated; caller
 * frees. */
int read_file(const char *path, size_t max, char **out, size_t *len);
/* read_file for a file the user named, what goes wrong said in d: larger than max (a whole
 * number of MiB), a "size" error "file larger than N MiB"; unreadable, an "io" error "cannot
 * read file: REASON" (path_strerror), TT_INVALID when it is missing, a folder or not a
 * regular file, else TT_INTERNAL. Returns TT_OK or that status. */
struct diags;
int read_file_diag(const char *path, size_t max, char **out, size_t *len, struct diags *d);

/* Writes data to path crash-safely: a temp file in the same folder, fsync, rename,
 * then fsync of the folder. Keeps the mode of an existing target, else uses mode.
 * Returns 0 or an errno value; on failure the target is untouched and no temp file remains. */
int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode);

/* Files written together (a module, its JSON cache and provenance): file_set_stage writes
 * each to a synced temp file beside it; file_set_commit renames them all in place with
 * SIGINT and SIGTERM held off, so an interruption leaves the old files or the new ones, never
 * some of each (without an undo log, SIGKILL or a power loss between two renames can; with
 * one, see file_set_undo: install, generate and merge write every set of several files
 * with one). While files are staged, SIGINT/SIGTERM remove the temp files,
 * print "tunetab: interrupted; nothing written" and exit 128 + the signal. file_set_abort
 * drops what is staged; commit ends the set either way. Functions return 0 or errno. */
struct file_set {
	size_t n, cap;
	char **path, **tmp;
	char *undo;  /* file_set_undo's path, or NULL */
};
int file_set_stage(struct file_set *s, const char *path, const void *data, size_t len,
		   unsigned mode);
int file_set_commit(struct file_set *s);
void file_set_abort(struct file_set *s);

/* (Named "undo log" in the code so that "journal" means generate's profiling journal only;
 * its file keeps the name and first line it always had, and messages to the user call it
 * the journal of an interrupted install, generate or merge.)
 *
 * Makes file_set_commit all or nothing across the set, through an undo log at
 * undo_path (copied; its folder must exist; SQLite's rollback journal): commit first
 * publishes the undo log whole (written and synced beside it, then linked in: an undo log
 * already there, another commit's, fails the commit with EEXIST), then keeps each existing
 * target as a hard link beside it (".NAME.tmpXXXXXX.bak"; a copy where the filesystem has no
 * hard links), synced, and only then renames the temp files in. A failure at any step
 * (an immutable target already fails at its backup, before any rename) puts back every
 * target renamed so far, removes the temp files, backups and undo log, and returns that
 * step's errno; were that undo to fail too, the undo log stays for file_set_recover. On
 * success the undo log is removed (the commit point), then the backups. After SIGKILL or a
 * power loss mid-commit the undo log is what file_set_recover undoes. The commit holds an
 * flock on the undo log's folder from before the undo log to its end, and file_set_recover
 * takes it too, so a recovery never undoes a commit still under way and two commits into one
 * folder take turns (where the file system has no flock on folders, as NFS, neither locks).
 * A kill before the undo log is published leaves the set's hidden temp files (no undo log
 * names them; nothing removes them, as a live commit's could be among them).
 *
 * The undo log is text: the line "tunetab file-set journal 1", then per file
 * "file TARGET BACKUP TEMP" where each is the word none (BACKUP: the target did not exist)
 * or LEN:PATH (LEN bytes of path, spaces and newlines included; relative to the undo log's
 * folder), then "end N" (the number of files). Every file of the set must be in the undo
 * log's folder or below it (else the commit fails with EINVAL before it changes anything), and
 * file_set_recover refuses an undo log that names any other path (absolute, or with a ".."
 * part) or a temp file or backup not named as a commit names them beside their target: a
 * recovery renames and removes only the files of a commit into that folder. */
void file_set_undo(struct file_set *s, const char *undo_path);

/* The undo log of the sets command `who` ("install", "generate", "merge") commits in folder
 * dir: "DIR/.tunetab-WHO.journal", the one rule for its name. Caller frees. */
char *file_set_undo_path(const char *dir, const char *who);

/* Undoes the commit an undo log at undo_path records, if one is there (a commit killed
 * midway): every target back as it was before that commit (its backup renamed onto it; a
 * target that did not exist removed), the temp files and backups removed, then the undo log.
 * Idempotent: killed during it, run again, it ends the same. *found (may be NULL) is 1 when
 * an undo log was there, 0 when not; *restored (may be NULL) counts the targets it changed
 * back. Returns 0 (also when there was no undo log) or errno, then the undo log stays:
 * EBADMSG for an undo log it cannot read (another version's included). */
int file_set_recover(const char *undo_path, int *found, size_t *restored);

/* Creates a folder and its parents (mode 0777 & ~umask). Returns 0 or errno. */
int mkdir_p(const char *path);

/* 1 when path (may be NULL) names a folder, or a regular file, after symlinks; else 0. */
int path_is_dir(const char *path);
int path_is_file(const char *path);

/* Seconds on the monotonic clock (for durations). */
double monotonic_s(void);

/* A fast non-cryptographic hash (hash tables only). */
uint64_t hash_bytes(const void *data, size_t len);

/* Case-insensitive Levenshtein distance (ASCII). */
size_t edit_distance(const char *a, const char *b);

/* Suggestions for a name nobody knows. names[i] is a name or alias of what display[i]
 * names (several names may share a display). A candidate scores by the query's tokens it
 * holds (case-insensitive runs of letters, 2 each, or of digits, 1 each: "rtx 6000 pro" and
 * "RTX PRO 6000 Blackwell" share three, "glm5" and "GLM-5" two), then by the edit distance of
 * both with only their letters and digits; one sharing no word is suggested only when that
 * distance is at most a third of the query's length. Writes up to max distinct displays, best first, to out;
 * returns how many. */
size_t suggest_names(const char *query, const char *const *names, const char *const *display,
		     size_t n, const char **out, size_t max);
/* "; nearest known: 'A', 'B'" for near[0..k), or "" when k is 0. Caller frees. */
char *nearest_text(const char *const *near, size_t k);
int str_ieq(const char *a, const char *b);
int str_starts(const char *s, const char *prefix);
int str_ends(const char *s, const char *suffix);
/* qsort/bsearch comparator for an array of strings (const char *). */
int str_ptr_cmp(const void *a, const void *b);
/* Parses a full decimal integer (optional sign); returns 0 on success. */
int parse_long(const char *s, long *out);

/* Path of the running executable, or NULL; caller frees. */
char *self_exe_path(void);

#endif
