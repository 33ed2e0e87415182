/* fuzz_common.h: shared setup of the libFuzzer targets (tests/fuzz/fuzz_*.c): the checkout's
 * data (devices, catalogs, schemas, models, dtypes, ops) loaded once, and a private scratch folder
 * for loaders that only take paths. Header-only so every target builds from one .c file. */
#ifndef TUNETAB_FUZZ_COMMON_H
#define TUNETAB_FUZZ_COMMON_H

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/catalog.h"
#include "data/datadir.h"
#include "data/device.h"
#include "base/diag.h"
#include "data/dtypes.h"
#include "data/firules.h"
#include "data/model.h"
#include "data/opdefs.h"
#include "base/util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

struct fuzz_data {
	char *root;
	struct device_set devices;
	struct model_set models;
	struct catalog_set catalogs;
	struct firules_set rules;
	struct dtype_set *dtypes;
	struct op_set ops;
};

static struct fuzz_data fz;

/* Loads the data the CLI loads; a harness without it would be testing nothing. */
static inline void fuzz_load_data(void)
{
	struct diags d = DIAGS_INIT;
	fz.root = data_dir();
	if (!fz.root) {
		fprintf(stderr, "fuzz: cannot find the data folder; set TUNETAB_DATA_DIR\n");
		abort();
	}
	char *p = xasprintf("%s/configs/devices", fz.root);
	int rc = device_load_dir(p, &fz.devices, &d);
	free(p);
	p = xasprintf("%s/configs/models", fz.root);
	rc |= model_load_dir(p, &fz.models, &d);
	free(p);
	p = xasprintf("%s/configs/catalogs/flashinfer", fz.root);
	rc |= catalog_load_dir(p, &fz.catalogs, &d);
	free(p);
	p = xasprintf("%s/schemas/flashinfer", fz.root);
	rc |= firules_load_dir(p, &fz.rules, &d);
	free(p);
	p = xasprintf("%s/configs/dtypes.yaml", fz.root);
	rc |= dtypes_load(p, &fz.dtypes, &d);
	free(p);
	rc |= opdefs_load(fz.root, &fz.ops, &d);
	if (rc || fz.rules.n == 0) {
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "fuzz: data: %s\n", d.v[i].msg);
		abort();
	}
	diags_release(&d);
}

static char *fuzz_scratch;

/* Removes the scratch folder and what the targets put there (at exit). */
static inline void fuzz_scratch_cleanup(void)
{
	static const char *const names[] = { "heuristic.lua", "devices", "models", "catalogs",
					     "schemas", "dtypes", "calibration", "journal",
					     "fileset", "outside" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *p = xasprintf("%s/%s", fuzz_scratch, names[i]);
		if (unlink(p))
			rmdir(p);
		free(p);
	}
	rmdir(fuzz_scratch);
}

/* (Re)creates the scratch folder at the start of a run; fuzz_scratch_cleanup ends one, since
 * libFuzzer leaves with _Exit and atexit handlers do not run. */
static inline void fuzz_scratch_begin(void)
{
	if (mkdir(fuzz_scratch, 0700) && errno != EEXIST) {
		perror(fuzz_scratch);
		abort();
	}
}

/* A fresh private folder under /dev/shm (else TMPDIR or /tmp), removed at exit (its files
 * must be among fuzz_scratch_cleanup's names). */
static inline char *fuzz_scratch_dir(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	char *t = xasprintf("%s/tunetab-fuzz-XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(t)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	fuzz_scratch = t;
	atexit(fuzz_scratch_cleanup);
	return t;
}

static inline void fuzz_write(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		perror(path);
		abort();
	}
}

/* Strict UTF-8 (no overlongs, no surrogates, at most U+10FFFF), as jansson and the module
 * reader require before handing text on. */
static inline int fuzz_utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		size_t k;
		unsigned cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xC2 && c <= 0xDF) {
			k = 1, cp = c & 0x1F;
		} else if (c >= 0xE0 && c <= 0xEF) {
			k = 2, cp = c & 0x0F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			k = 3, cp = c & 0x07;
		} else {
			return 0;
		}
		for (size_t j = 1; j <= k; j++) {
			if (i + j >= n || (s[i + j] & 0xC0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + j] & 0x3F);
		}
		if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return 0;
		i += k + 1;
	}
	return 1;
}

#endif
