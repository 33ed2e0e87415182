/* python.c: finding the flashinfer backend's Python and its worker script (python.h). */
#include "python.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datadir.h"
#include "util.h"

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

char *python_find(const char *given, const char **from, char *why, size_t n)
{
	char *p;
	if (given) {
		*from = "--python";
		if (!(p = strchr(given, '/') ? executable(given) : on_path(given)))
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
	*from = "PATH";
	if ((p = on_path("python3")))
		return p;
	snprintf(why, n, "no python3 on PATH and no $VIRTUAL_ENV or $CONDA_PREFIX (give --python)");
	return NULL;
}

char *python_worker_script(void)
{
	char *dir = data_dir();
	if (!dir)
		return NULL;
	char *p = xasprintf("%s/scripts/tunetab-fi-worker.py", dir);
	free(dir);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}
