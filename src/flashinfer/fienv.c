/* fienv.c: FlashInfer's own view of a Python environment (fienv.h). */
#include "flashinfer/fienv.h"

#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "data/datadir.h"

extern char **environ;

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
	char *argv[] = { (char *)python, script, (char *)arg, NULL };
	pid_t pid;
	int e = posix_spawn(&pid, python, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	free(script);
	if (e) {
		close(fds[0]);
		snprintf(why, n, "cannot run it: %s", strerror(e));
		return NULL;
	}
	FILE *f = fdopen(fds[0], "r");
	json_error_t err;
	json_t *out = f ? json_loadf(f, 0, &err) : NULL;
	if (f)
		fclose(f);
	int st = 0;
	waitpid(pid, &st, 0);
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
