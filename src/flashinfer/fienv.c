/* fienv.c: FlashInfer's own view of a Python environment (fienv.h). */
#include "flashinfer/fienv.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "data/datadir.h"

extern char **environ;

/* How long the server's Python may take to answer (#47/#48: a Python that hangs, or blocks
 * importing FlashInfer, must not hang doctor): TUNETAB_PYTHON_TIMEOUT seconds, default 300
 * (FlashInfer's import and the judge's lookups take 3-5 s here; a cold import of torch on
 * a network file system can take a minute). */
static int python_timeout_s(void)
{
	const char *v = getenv("TUNETAB_PYTHON_TIMEOUT");
	long t;
	return v && *v && !parse_long(v, &t) && t > 0 && t <= 86400 ? (int)t : 300;
}

/* The child's stdout until EOF or the deadline: 0, or ETIMEDOUT. */
static int read_until(int fd, struct strbuf *sb, int timeout_s)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left = timeout_s * 1000L - ((now.tv_sec - t0.tv_sec) * 1000L +
						 (now.tv_nsec - t0.tv_nsec) / 1000000L);
		if (left <= 0)
			return ETIMEDOUT;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		char buf[65536];
		ssize_t got = read(fd, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0;
		sb_add(sb, buf, (size_t)got);
	}
}

json_t *fienv_run(const char *python, const char *name, const char *arg, char *why, size_t n)
{
	char *script = data_script_path(name);
	if (!script) {
		snprintf(why, n, "scripts/%s is missing from tunetab's data folder", name);
		return NULL;
	}
	int fds[2];
	if (pipe(fds)) {
		snprintf(why, n, "pipe failed");
		free(script);
		return NULL;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_t at; /* its own process group: a timeout stops what it started too */
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&at, 0);
	char *argv[] = { (char *)python, script, (char *)arg, NULL };
	pid_t pid;
	int e = posix_spawn(&pid, python, &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(fds[1]);
	free(script);
	if (e) {
		close(fds[0]);
		snprintf(why, n, "cannot run it: %s", strerror(e));
		return NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	int timeout = python_timeout_s();
	int late = read_until(fds[0], &sb, timeout);
	close(fds[0]);
	if (late)
		kill(-pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	json_error_t err;
	json_t *out = late ? NULL : json_loadb(sb.buf ? sb.buf : "", sb.len, 0, &err);
	sb_release(&sb);
	if (late) {
		snprintf(why, n, "scripts/%s did not answer within %d s (TUNETAB_PYTHON_TIMEOUT): "
			 "stopped", name, timeout);
		return NULL;
	}
	if (!out || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, n, "scripts/%s failed", name);
		json_decref(out);
		return NULL;
	}
	return out;
}

/* The environment script's whole answer, also when FlashInfer does not import (then "error"
 * says why): {"version", "metadata": {...}, "workspace_dir", "managed_root", "consumers":
 * {...}, "modules": {...}}. NULL with the reason in why when it cannot run. Caller
 * json_decref()s. */
static json_t *fienv_probe(const char *python, char *why, size_t n)
{
	json_t *out = fienv_run(python, "tunetab-fi-env.py", NULL, why, n);
	if (out && !json_is_object(out)) {
		snprintf(why, n, "scripts/tunetab-fi-env.py failed");
		json_decref(out);
		return NULL;
	}
	return out;
}

bool fienv_flashinfer(const char *python, struct fienv_fi *out, char *why, size_t n)
{
	memset(out, 0, sizeof *out);
	json_t *env = fienv_probe(python, why, n);
	if (!env)
		return false;
	const char *msg = json_string_value(json_object_get(env, "error"));
	const char *version = json_string_value(json_object_get(env, "version"));
	if (msg || !version) {
		snprintf(why, n, "FlashInfer does not import (%s)", msg ? msg : "no version");
		json_decref(env);
		return false;
	}
	const char *ws = json_string_value(json_object_get(env, "workspace_dir"));
	out->version = xstrdup(version);
	out->workspace_dir = ws ? xstrdup(ws) : NULL;
	/* a struct fi_meta is the JSON value itself (metadata.c) */
	out->metadata = (struct fi_meta *)json_incref(json_object_get(env, "metadata"));
	json_decref(env);
	return true;
}

void fienv_fi_release(struct fienv_fi *f)
{
	free(f->version);
	free(f->workspace_dir);
	fi_meta_free(f->metadata);
	memset(f, 0, sizeof *f);
}

bool fienv_summary(const char *python, const char *consumer, struct fienv_summary *out,
		   char *why, size_t n)
{
	memset(out, 0, sizeof *out);
	json_t *env = fienv_probe(python, why, n);
	if (!env)
		return false;
	const char *fi = json_string_value(json_object_get(env, "version"));
	if (fi && !json_object_get(env, "error"))
		out->flashinfer = xstrdup(fi);
	const char *cv = json_string_value(json_object_get(json_object_get(env, "consumers"), consumer));
	if (cv)
		out->consumer_version = xstrdup(cv);
	json_t *mods = json_object_get(env, "modules"), *val;
	const char *name;
	json_object_foreach(mods, name, val)
		if (json_is_boolean(val)) {
			out->modules = xrealloc(out->modules, (out->nmodules + 1) * sizeof *out->modules);
			out->modules[out->nmodules++] = (struct fienv_module){ xstrdup(name),
									       json_is_true(val) };
		}
	json_decref(env);
	return true;
}

void fienv_summary_release(struct fienv_summary *s)
{
	free(s->flashinfer);
	free(s->consumer_version);
	for (size_t i = 0; i < s->nmodules; i++)
		free(s->modules[i].name);
	free(s->modules);
	memset(s, 0, sizeof *s);
}
