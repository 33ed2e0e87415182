/* shim.c: faults for tests/cli/187-install-faults, preloaded (LD_PRELOAD) into tunetab. Each
 * is off unless its variable is set:
 *   FAULT_RENAME_FAIL_AT=K   the K-th rename() of the process fails with EPERM (what an
 *                            immutable target, chattr +i, answers), doing nothing
 *   FAULT_RENAME_KILL_AT=K   the process kills itself (SIGKILL) just before its K-th rename()
 *   FAULT_LINK_FAIL_ON=TEXT  link() of a file whose path holds TEXT fails with EPERM (the
 *                            hard link of an immutable file)
 *   FAULT_ENOSPC_AFTER=N     write() to regular files other than stdout and stderr stores N
 *                            bytes in all, then fails with ENOSPC (a full disk)
 * Renames are counted from 1 over the whole process, whatever they rename. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
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

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	static long count;
	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
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
