/* python.c: finding the flashinfer backend's Python and its worker script (python.h). */
#include "tune/python.h"

#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#include "data/datadir.h"
#include "base/util.h"

static char *executable(const char *path)
{
	return access(path, X_OK) == 0 ? xstrdup(path) : NULL;
}

static char *in_env(const char *dir)
{
	char *p = xasprintf("%s/bin/python3", dir);
	if (access(p, X_OK) != 0) {
		free(p);
		p = xasprintf("%s/bin/python", dir);
	}
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return NULL;
}

static char *on_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = xstrdup(path), *save = NULL, *hit = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir && !hit; dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *dir ? dir : ".", name);
		if (access(p, X_OK) == 0)
			hit = p;
		else
			free(p);
	}
	free(copy);
	return hit;
}

char *python_resolve(const char *word)
{
	return strchr(word, '/') ? executable(word) : on_path(word);
}

char *python_find(const char *given, const char **from, char *why, size_t n)
{
	char *p;
	if (given) {
		*from = "--python";
		if (!(p = python_resolve(given)))
			snprintf(why, n, "--python %s: not an executable", given);
		return p;
	}
	static const char *envs[] = { "VIRTUAL_ENV", "CONDA_PREFIX" };
	for (size_t i = 0; i < 2; i++) {
		const char *dir = getenv(envs[i]);
		if (dir && *dir && (p = in_env(dir))) {
			*from = i ? "$CONDA_PREFIX" : "$VIRTUAL_ENV";
			return p;
		}
	}
	/* installed by pip (the wheel): the environment's own interpreter, which imports the
	 * FlashInfer the server imports, also when that environment is not activated */
	char site[4096], py[4096];
	if (data_python_env(site, sizeof site, py, sizeof py) && *py) {
		*from = "tunetab's Python environment";
		return xstrdup(py);
	}
	*from = "PATH";
	if ((p = on_path("python3")))
		return p;
	snprintf(why, n, "no python3 on PATH and no $VIRTUAL_ENV or $CONDA_PREFIX (give --python)");
	return NULL;
}

/* scripts/<name> of the data folder (caller frees); NULL when it is missing. */
static char *data_script(const char *name)
{
	char *dir = data_dir();
	if (!dir)
		return NULL;
	char *p = xasprintf("%s/scripts/%s", dir, name);
	free(dir);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

char *python_worker_script(void)
{
	return data_script("tunetab-fi-worker.py");
}

json_t *python_fi_env(const char *python, char *why, size_t n)
{
	json_t *out = python_env_probe(python, why, n);
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

json_t *python_env_probe(const char *python, char *why, size_t n)
{
	char *script = data_script("tunetab-fi-env.py");
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
