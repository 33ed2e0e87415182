/* datadir.c: locating the data folder (configs/, schemas/, scripts/) and the Python
 * environment a wheel installed the binary into. */
#include "data/datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

static char problem[PATH_MAX + 128];

/* Packaged data (wheel, release tarball) carries VERSION: the binary's own version, so a
 * binary never reads another release's configs (one version: `tunetab --version`). */
static int version_ok(const char *root)
{
	char *p = xasprintf("%s/VERSION", root);
	FILE *f = fopen_read(p);
	free(p);
	if (!f)
		return 1;
	char v[64] = "";
	if (!fgets(v, sizeof v, f))
		v[0] = '\0';
	fclose(f);
	v[strcspn(v, "\r\n")] = '\0';
	if (strcmp(v, TUNETAB_VERSION) == 0)
		return 1;
	if (!problem[0]) {
		char *r = realpath(root, NULL);
		snprintf(problem, sizeof problem, "%s holds tunetab %s's data (its VERSION file) and "
			 "this binary is tunetab %s: reinstall one release", r ? r : root, v,
			 TUNETAB_VERSION);
		free(r);
	}
	return 0;
}

static int has_data(const char *root)
{
	char *p = xasprintf("%s/configs/devices", root);
	int ok = path_is_dir(p);
	free(p);
	return ok && version_ok(root);
}

const char *data_dir_problem(void)
{
	return problem;
}

static char *canonical(const char *p)
{
	char *r = realpath(p, NULL);
	return r ? r : xstrdup(p);
}

char *data_dir(void)
{
	problem[0] = '\0';
	const char *env = getenv("TUNETAB_DATA_DIR");
	if (env && *env)
		return has_data(env) ? canonical(env) : NULL;
	char *exe = self_exe_path();
	if (exe) {
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		/* build/tunetab, build/<variant>/tunetab or a wheel's <site>/tunetab/bin/tunetab;
		 * then bin/tunetab beside share/tunetab (make install, the release tarball) */
		static const char *const rel[] = { "/..", "/../..", "/../share/tunetab" };
		for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
			char *cand = xasprintf("%s%s", exe, rel[i]);
			if (has_data(cand)) {
				char *c = canonical(cand);
				free(cand);
				free(exe);
				return c;
			}
			free(cand);
		}
		free(exe);
	}
	char *cand = xasprintf("%s/share/tunetab", TUNETAB_PREFIX);
	if (has_data(cand))
		return cand;
	free(cand);
	return NULL;
}

/* the last component of p, which has no trailing slash */
static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* cut p at its last slash: p becomes its parent; 0 when there is none */
static int up(char *p)
{
	char *s = strrchr(p, '/');
	if (!s || s == p)
		return 0;
	*s = '\0';
	return 1;
}

int data_python_env(char *site, size_t site_n, char *python, size_t python_n)
{
	*site = '\0';
	*python = '\0';
	char *exe = self_exe_path();
	if (!exe)
		return 0;
	/* <site>/tunetab/bin/tunetab */
	char *p = exe;
	int ok = up(p) && !strcmp(base_name(p), "bin") && up(p) && !strcmp(base_name(p), "tunetab") &&
		 up(p) && (!strcmp(base_name(p), "site-packages") ||
			   !strcmp(base_name(p), "dist-packages")) && path_is_dir(p);
	if (!ok) {
		free(exe);
		return 0;
	}
	snprintf(site, site_n, "%s", p);
	/* <prefix>/lib/python3.X/site-packages (lib64 too): the interpreter is <prefix>/bin/python3 */
	if (up(p) && !strncmp(base_name(p), "python3", 7) && up(p) &&
	    (!strcmp(base_name(p), "lib") || !strcmp(base_name(p), "lib64")) && up(p)) {
		static const char *const names[] = { "python3", "python" };
		for (size_t i = 0; i < ARRAY_SIZE(names) && !*python; i++) {
			char *py = xasprintf("%s/bin/%s", p, names[i]);
			if (access(py, X_OK) == 0)
				snprintf(python, python_n, "%s", py);
			free(py);
		}
	}
	free(exe);
	return 1;
}

char *data_script_path(const char *name)
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
