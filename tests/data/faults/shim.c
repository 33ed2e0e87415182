/* shim.c: faults for tests/cli/187-install-faults and 064-set-faults, preloaded (LD_PRELOAD)
 * into tunetab. Each is off unless its variable is set:
 *   FAULT_RENAME_FAIL_AT=K   the K-th rename() of the process fails with EPERM (what an
 *                            immutable target, chattr +i, answers), doing nothing
 *   FAULT_RENAME_KILL_AT=K   the process kills itself (SIGKILL) just before its K-th rename()
 *   FAULT_LINK_FAIL_ON=TEXT  link() of a file whose path holds TEXT fails with EPERM (the
 *                            hard link of an immutable file)
 *   FAULT_ENOSPC_AFTER=N     write() to regular files other than stdout and stderr stores N
 *                            bytes in all, then fails with ENOSPC (a full disk)
 *   FAULT_OP_KILL_AT=K       the process kills itself (SIGKILL) just before its K-th rename(),
 *                            link() or unlink(), the calls that change what a folder holds
 *                            (tests/cli/199: a kill at every point of a commit)
 *   FAULT_OP_TRACE=FILE      each such call appended to FILE before it runs, as "K OP NAME..."
 *                            with the base names of its paths (the K FAULT_OP_KILL_AT counts)
 * Renames are counted from 1 over the whole process, whatever they rename; so are the
 * operations of FAULT_OP_*. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long env_long(const char *name)
{
	const char *s = getenv(name);
	return s && *s ? atol(s) : -1;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* FAULT_OP_*: one more folder-changing call; traced, and the process killed when it is the one */
static void op(const char *name, const char *a, const char *b)
{
	static long count;
	count++;
	const char *trace = getenv("FAULT_OP_TRACE");
	if (trace && *trace) {
		char line[1024];
		int n = snprintf(line, sizeof line, "%ld %s %s%s%s\n", count, name, base(a), b ? " " : "",
				 b ? base(b) : "");
		int fd = open(trace, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0 && n > 0) {
			ssize_t (*real_write)(int, const void *, size_t) =
				(ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
			real_write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
		}
		if (fd >= 0)
			close(fd);
	}
	if (count == env_long("FAULT_OP_KILL_AT"))
		raise(SIGKILL);
}

int unlink(const char *path)
{
	static int (*real)(const char *);
	if (!real)
		real = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
	op("unlink", path, NULL);
	return real(path);
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	static long count;
	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	op("rename", from, to);
	count++;
	if (count == env_long("FAULT_RENAME_KILL_AT"))
		raise(SIGKILL);
	if (count == env_long("FAULT_RENAME_FAIL_AT")) {
		errno = EPERM;
		return -1;
	}
	return real(from, to);
}

int link(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");
	op("link", from, to);
	const char *on = getenv("FAULT_LINK_FAIL_ON");
	if (on && *on && strstr(from, on)) {
		errno = EPERM;
		return -1;
	}
	return real(from, to);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	static long left = -2; /* -2: not read yet; -1: no limit */
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (left == -2)
		left = env_long("FAULT_ENOSPC_AFTER");
	struct stat st;
	if (left < 0 || fd <= 2 || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return real(fd, buf, n);
	if (left == 0) {
		errno = ENOSPC;
		return -1;
	}
	if (n > (size_t)left)
		n = (size_t)left;
	ssize_t w = real(fd, buf, n);
	if (w > 0)
		left -= w;
	return w;
}
