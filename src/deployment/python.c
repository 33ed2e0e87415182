/* python.c: finding the flashinfer backend's Python and its worker script (python.h). */
#include "deployment/python.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

char *python_worker_script(void)
{
	return data_script_path("tunetab-fi-worker.py");
}
