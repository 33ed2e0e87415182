/* fienv.c: FlashInfer's own view of a Python environment (fienv.h). */
#include "flashinfer/fienv.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "data/datadir.h"

extern char **environ;

json_t *fienv_flashinfer(const char *python, char *why, size_t n)
{
	json_t *out = fienv_probe(python, why, n);
	if (!out)
		return NULL;
	const char *msg = json_string_value(json_object_get(out, "error"));
	if (msg || !json_string_value(json_object_get(out, "version"))) {
		snprintf(why, n, "FlashInfer does not import (%s)", msg ? msg : "no version");
		json_decref(out);
		return NULL;
	}
	return out;
}

json_t *fienv_probe(const char *python, char *why, size_t n)
{
	char *script = data_script_path("tunetab-fi-env.py");
	if (!script) {
		snprintf(why, n, "scripts/tunetab-fi-env.py is missing from tunetab's data folder");
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
	char *argv[] = { (char *)python, script, NULL };
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
	if (!json_is_object(out) || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, n, "scripts/tunetab-fi-env.py failed");
		json_decref(out);
		return NULL;
	}
	return out;
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
