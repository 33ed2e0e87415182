/* doctor.h: what FlashInfer will look up on this machine, found from files alone (no Python
 * import): the installed package and its version, the bundled module it imports (formats
 * §1.1, §1.4), the environment variable that gates it, a JSON cache's metadata judged as that
 * version judges it (§2.3), and per deployment key whether a lookup hits or falls back to
 * tactic -1. Fills structs and diagnostics; never prints. */
#ifndef TUNETAB_DOCTOR_H
#define TUNETAB_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/device.h"
#include "data/firules.h"
#include "flashinfer/lookup.h"
#include "flashinfer/table.h"

#define DOCTOR_MAX_FOUND 8

/* The installed FlashInfer package. */
struct doctor_fi {
	char pkg[4096];           /* .../site-packages/flashinfer */
	char site[4096];          /* its parent folder */
	char version[64];
	char version_from[4096];  /* the file the version was read from */
	char others[DOCTOR_MAX_FOUND][4096]; /* further installs found by the search */
	size_t n_others;
};

/* 1 when dir is an installed FlashInfer's tuning_configs folder (".../flashinfer/
 * tuning_configs" beside the package's __init__.py), where its bundled tables live. */
int doctor_is_tuning_configs(const char *dir);

/* Finds the package: dir (a site-packages folder or the flashinfer folder itself), or when
 * NULL the usual places (PYTHONPATH, $VIRTUAL_ENV, $CONDA_PREFIX, the Python environment
 * pip installed tunetab into with its .pth folders, ~/.local, /usr/local, /usr, /opt/conda).
 * TT_INVALID with a diagnostic when none is found. */
int doctor_find_flashinfer(const char *dir, struct doctor_fi *fi, struct diags *d);

/* What this environment would stamp for a _metadata field (§2.3), read from package files
 * under site (torch/version.py, nvidia-* dist-info); "" when tunetab cannot tell. */
void doctor_env_field(const char *site, const char *field, char *out, size_t n, const char **from);

/* The bundled module FlashInfer imports. */
struct doctor_module {
	char *name;               /* v…_trtllm_fused_moe_<DEVICE>.py */
	char *path;               /* <pkg>/tuning_configs/<name> */
	bool exists, readable;    /* readable: FlashInfer can import it (no syntax error) */
	size_t errors, warnings;  /* tunetab validate for this version and device */
	char first_error[320];    /* "[check-id] message" of the first error */
	char **wrong_prefix;      /* files for this device under another version's name */
	size_t n_wrong_prefix, wrong_prefix_alloc;
	const char *env_value;    /* the variable's value here, NULL when unset */
	bool env_ok;              /* exactly the schema's value ("1") */
	bool usable;              /* exists, readable, env_ok */
};

enum field_status { FIELD_MATCH, FIELD_WILDCARD, FIELD_SOFT, FIELD_HARD, FIELD_UNKNOWN };

struct doctor_field {
	const char *name;
	char saved[160];          /* the saved value as compact JSON; "" when missing */
	char current[160];        /* this environment's value; "" when tunetab cannot tell */
	const char *current_from;
	enum field_status status;
};

enum cache_verdict {
	CACHE_ACCEPTED,           /* every field matches or is "*" */
	CACHE_NO_METADATA,        /* no _metadata: accepted with no checks */
	CACHE_UNVERIFIED,         /* no mismatch found, but some fields tunetab cannot read here */
	CACHE_SOFT,               /* ignored on load; the next tuned save replaces it (0.6.16+) */
	CACHE_HARD,               /* ignored on load and never saved to */
	CACHE_STRICT,             /* 0.6.7-0.6.15: any difference, missing included, ignores it */
	CACHE_UNSUPPORTED,        /* this version has no JSON cache */
	CACHE_BROKEN,             /* not a readable JSON cache: autotune() raises */
};

struct doctor_cache {
	const char *path;
	enum cache_verdict verdict;
	struct doctor_field fields[16];
	size_t n_fields;
	size_t errors;            /* tunetab validate findings */
	char first_error[320];
	bool usable;              /* accepted, no metadata, or unverified */
};

enum lookup_source { SRC_JSON, SRC_BUNDLED, SRC_FALLBACK };

struct doctor_lookup {
	int stage;
	long tokens;
	const char *key;
	enum lookup_source source;
	char why[200];            /* for a fallback: the first reason no source had it */
};

/* The module's state for this version and device; t receives the parsed module (release
 * with table_release) when it exists. vd is validate's data. */
int doctor_module(const struct doctor_fi *fi, const struct fi_rules *s, const char *version,
		  const char *device, const void *vd, struct doctor_module *m, struct table *t,
		  struct diags *d);
void doctor_module_release(struct doctor_module *m);

/* The cache's verdict against this environment (gpu = device, flashinfer_version = version,
 * the rest from doctor_env_field). t receives the parsed cache. */
int doctor_cache(const struct doctor_fi *fi, const struct fi_rules *s, const char *version,
		 const char *device, const void *vd, const char *path, struct doctor_cache *c,
		 struct table *t, struct diags *d);

/* One lookup per plan entry, in FlashInfer's order: JSON cache, then the bundled module
 * (§1.4), else the fallback. out has p->n elements. */
void doctor_lookups(const struct lookup_list *p, const struct fi_rules *s,
		    const struct doctor_module *m, const struct table *mt,
		    const struct doctor_cache *c, const struct table *ct, struct doctor_lookup *out);

const char *cache_verdict_name(enum cache_verdict v);
const char *field_status_name(enum field_status s);
/* "json-cache", "bundled-module" or "fallback". */
const char *lookup_source_name(enum lookup_source s);

/* --- tunetab doctor as calls: doctor_find, doctor_device, then doctor_examine ----------- */

/* What doctor is asked (its options). */
struct doctor_request {
	const char *fidir;       /* the package to look at, or NULL to search */
	const char *flashinfer;  /* the version to target whatever is installed, or NULL */
	const char *device;      /* "auto" (GPU 0: FlashInfer names the module after it) or a name */
	const char *cache;       /* a JSON cache to judge, or NULL */
	/* the deployment (model NULL: none), for the lookups and the generate line that fixes */
	const char *model, *dtype, *weight_view;
	long tp, ep, tp_rank, ep_rank, top_k, max_tokens;
};

/* What doctor found. */
struct doctor_report {
	struct doctor_fi fi;
	bool have_fi;               /* an installed package was found */
	const char *version;        /* the FlashInfer version targeted */
	char device[256];           /* the GPU's name, as FlashInfer names the module after it */
	const char *device_from;    /* "GPU 0", "from --device", ... */
	const struct device_profile *profile; /* tunetab's profile of it, or NULL */
	struct doctor_module mod;
	struct table mt;            /* the module as parsed */
	struct doctor_cache cache;  /* when a cache was given */
	struct table ct;            /* the cache as parsed */
	struct doctor_lookup *lookups; /* one per plan entry, with a deployment */
	size_t n_lookups, hits, via_json, via_module;
	bool all_hit;               /* every lookup hits; without a deployment: a usable table */
	char *next;                 /* the commands that fix what was found, one a line ("" none) */
};

/* The package and the version targeted: q->flashinfer when given (an installed package
 * is then looked for quietly), else the installed package's (its errors in d). */
int doctor_find(const struct doctor_request *q, struct doctor_report *r, struct diags *d);

/* The GPU: q->device, or with "auto" GPU 0's name (TT_GPU with a diagnostic without one). */
int doctor_device(const struct doctor_request *q, const struct device_set *devices,
		  struct doctor_report *r, struct diags *d);

/* The module, the cache (q->cache), the lookups of plan (NULL without a deployment), the
 * verdict and the commands that fix. vd is validate's data. */
void doctor_examine(const struct doctor_request *q, const struct fi_rules *s, const void *vd,
		    const struct lookup_list *plan, struct doctor_report *r);

/* The --json document of doctor (docs/commands/doctor.md), indented by two; caller frees. */
char *doctor_report_json(const struct doctor_request *q, const struct fi_rules *s,
			 const struct doctor_report *r);

void doctor_report_release(struct doctor_report *r);

#endif
