/* fuzz_fileset.c: libFuzzer target for the reader of the undo log of a set of files written as
 * one (util.h file_set_undo: ".tunetab-WHO.journal", the record install, generate and merge
 * leave when killed mid-commit) and the recovery it drives. The input is written as
 * ".tunetab-install.journal" in a private folder (fuzz_scratch_dir()/fileset) that holds what a
 * commit killed midway leaves (targets, their hidden temp files and backups, a subfolder as the
 * managed store's entries/), then file_set_recover runs as install's recover_folder runs it.
 *
 * The oracle is containment: while the recovery runs, every rename(), unlink(), link() and
 * rmdir() of the process is checked before it is made, and one whose path is outside that
 * folder aborts (the folder's parent holds a file a hostile log could name, ../outside). Then:
 * a recovery that succeeded removed the log (a second finds none, tableset_interrupted names
 * none); one that failed left it where tableset_interrupted finds it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>

#include "fuzz_common.h"
#include "flashinfer/tableset.h"

static char *work;      /* the folder the log is in */
static char *work_real; /* its realpath */
static char *outside;   /* a file beside it, which no log may reach */
static char *undo;
static int guard_on;

/* The real calls, not through the names this file takes over. */
static int sys_unlink(const char *p)
{
	return unlinkat(AT_FDCWD, p, 0);
}

static int sys_rmdir(const char *p)
{
	return unlinkat(AT_FDCWD, p, AT_REMOVEDIR);
}

/* 1: path is in work's tree (or is work); 0: it is not (the call would escape); -1: its folder
 * cannot be resolved (then the call cannot succeed either; the caller checks that it did not). */
static int inside(const char *path)
{
	char *copy = xstrdup(path);
	char *slash = strrchr(copy, '/');
	const char *base = slash ? slash + 1 : copy;
	if (slash == copy)
		copy[1] = '\0';
	else if (slash)
		*slash = '\0';
	char *dir = realpath(slash ? copy : ".", NULL);
	int r = -1;
	if (dir) {
		size_t n = strlen(work_real);
		bool below = !strncmp(dir, work_real, n) && (dir[n] == '\0' || dir[n] == '/');
		/* "", "." or "..": no call on such a name succeeds; the caller checks */
		bool named = *base && strcmp(base, ".") && strcmp(base, "..");
		r = !below ? 0 : named ? 1 : -1;
		free(dir);
	}
	free(copy);
	return r;
}

static void escaped(const char *op, const char *a, const char *b)
{
	fprintf(stderr, "fuzz_fileset: recovery would %s '%s'%s%s%s outside its folder '%s'\n", op,
		a, b ? " to '" : "", b ? b : "", b ? "'" : "", work_real);
	abort();
}

/* Checks path before the call; *unknown: inside() could not tell. */
static void check(const char *op, const char *a, const char *b, int *unknown)
{
	*unknown = 0;
	if (!guard_on)
		return;
	int ia = inside(a), ib = b ? inside(b) : 1;
	if (ia == 0 || ib == 0)
		escaped(op, a, b);
	*unknown = ia < 0 || ib < 0;
}

int unlink(const char *path)
{
	int unknown;
	check("unlink", path, NULL, &unknown);
	int r = sys_unlink(path);
	if (unknown && !r)
		escaped("unlink", path, NULL);
	return r;
}

int rmdir(const char *path)
{
	int unknown;
	check("rmdir", path, NULL, &unknown);
	int r = sys_rmdir(path);
	if (unknown && !r)
		escaped("rmdir", path, NULL);
	return r;
}

int rename(const char *from, const char *to)
{
	int unknown;
	check("rename", from, to, &unknown);
	int r = renameat(AT_FDCWD, from, AT_FDCWD, to);
	if (unknown && !r)
		escaped("rename", from, to);
	return r;
}

int link(const char *from, const char *to)
{
	int unknown;
	check("link", from, to, &unknown);
	int r = linkat(AT_FDCWD, from, AT_FDCWD, to, 0);
	if (unknown && !r)
		escaped("link", from, to);
	return r;
}

/* Empties a folder (no symbolic link followed), then removes it. */
static void remove_tree(const char *dir)
{
	DIR *dh = opendir(dir);
	for (struct dirent *de; dh && (de = readdir(dh));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			remove_tree(p);
		else
			sys_unlink(p);
		free(p);
	}
	if (dh)
		closedir(dh);
	sys_rmdir(dir);
}

static void put(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", work, name);
	fuzz_write(p, text, strlen(text));
	free(p);
}

static void put_link(const char *from, const char *to)
{
	char *a = xasprintf("%s/%s", work, from), *b = xasprintf("%s/%s", work, to);
	if (linkat(AT_FDCWD, a, AT_FDCWD, b, 0)) {
		perror(b);
		abort();
	}
	free(a);
	free(b);
}

/* What a commit of rank files 0-3, a new file c and the store entry e.json leaves when
 * killed after its second rename: ranks 0 and 1 and c renamed in (their backups the old
 * files), 2, 3 and e.json still staged (backups linked); the names the seeds use. */
static void killed_commit(void)
{
	char *sub = xasprintf("%s/entries", work);
	if (mkdir(work, 0700) || mkdir(sub, 0700)) {
		perror(work);
		abort();
	}
	free(sub);
	static const char *const ranks[] = { "rank_tp0_pp0_dp0.json", "rank_tp1_pp0_dp0.json",
					     "rank_tp2_pp0_dp0.json", "rank_tp3_pp0_dp0.json" };
	for (int r = 0; r < 4; r++) {
		char *tmp = xasprintf(".%s.tmpAAAAA%d", ranks[r], r);
		char *bak = xasprintf("%s.bak", tmp);
		put(ranks[r], "{\"old\": 1}\n");
		put_link(ranks[r], bak);
		put(tmp, "{\"new\": 1}\n");
		if (r < 2) {
			char *a = xasprintf("%s/%s", work, tmp), *b = xasprintf("%s/%s", work, ranks[r]);
			renameat(AT_FDCWD, a, AT_FDCWD, b);
			free(a);
			free(b);
		}
		free(tmp);
		free(bak);
	}
	put("c", "new c\n");
	put("entries/e.json", "{\"old\": 1}\n");
	put_link("entries/e.json", "entries/.e.json.tmpEEEEEE.bak");
	put("entries/.e.json.tmpEEEEEE", "{\"new\": 1}\n");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *scratch = fuzz_scratch_dir();
	work = xasprintf("%s/fileset", scratch);
	outside = xasprintf("%s/outside", scratch);
	undo = file_set_undo_path(work, "install");
	work_real = realpath(scratch, NULL);
	if (!work_real) {
		perror(scratch);
		abort();
	}
	char *w = xasprintf("%s/fileset", work_real);
	free(work_real);
	work_real = w;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	fuzz_scratch_begin();
	remove_tree(work);
	fuzz_write(outside, "outside\n", 8);
	killed_commit();
	fuzz_write(undo, data, size);
	int found = 0;
	size_t restored = 0;
	guard_on = 1;
	int e = file_set_recover(undo, &found, &restored);
	guard_on = 0;
	if (!found)
		abort(); /* the log was there */
	const char *who = NULL;
	char *left = tableset_interrupted(work, &who);
	if (e) {
		if (!left || strcmp(left, undo) || strcmp(who, "install"))
			abort(); /* a failed recovery leaves the log */
	} else {
		if (left)
			abort(); /* a recovery that succeeded removed it */
		guard_on = 1;
		int again = file_set_recover(undo, &found, &restored);
		guard_on = 0;
		if (again || found || restored)
			abort();
	}
	free(left);
	remove_tree(work);
	sys_unlink(outside);
	fuzz_scratch_cleanup();
	return 0;
}
