/* datadir.c: locating the data folder (configs/, schemas/, scripts/). */
#include "data/datadir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"

static int has_data(const char *root)
{
	char *p = xasprintf("%s/configs/devices", root);
	struct stat st;
	int ok = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
	free(p);
	return ok;
}

static char *canonical(const char *p)
{
	char *r = realpath(p, NULL);
	return r ? r : xstrdup(p);
}

char *data_dir(void)
{
	const char *env = getenv("TUNETAB_DATA_DIR");
	if (env && *env)
		return has_data(env) ? canonical(env) : NULL;
	char *exe = self_exe_path();
	if (exe) {
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
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
