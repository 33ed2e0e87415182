/* install.h: a JSON autotune cache put where a consumer (configs/consumers/) reads it, for
 * every rank: the files, their merged content and the conflicts, computed here; the command
 * writes them (as one set) and prints. */
#ifndef TUNETAB_INSTALL_H
#define TUNETAB_INSTALL_H

#include <stdbool.h>
#include <stddef.h>

#include "data/consumer.h"
#include "data/device.h"
#include "data/firules.h"
#include "base/diag.h"
#include "deployment/ranks.h"
#include "deployment/server.h"
#include "flashinfer/cachefile.h"
#include "flashinfer/fienv.h"

/* An existing rank file the server cannot load: not JSON, not a JSON object, or a folder where
 * the file should be (install_merge). */
struct install_bad {
	size_t index;        /* into install_result.paths */
	bool folder;         /* a folder, not a file */
	int line, col;       /* where it stops being a cache (1:1 for "not an object") */
	char what[200];      /* the parser's message, or why it cannot be read */
};

struct install_result {
	char *dir;           /* the folder of the rank files */
	char **paths;        /* one per rank: tp_rank fastest, then pp_rank, then dp_rank */
	size_t npaths, existing; /* rank files already there */
	bool *exists;        /* per path */
	bool differ;         /* the existing rank files' contents are not all equal */
	char *bytes;         /* the content every rank file gets */
	size_t len;
	struct fi_merge merge; /* our entries: new, equal, conflicts (fi_cache_merge) */
	size_t theirs_only;  /* entries of the existing files we do not have */
	char **theirs_keys;  /* every entry key of the existing files */
	size_t ntheirs;
	char other_fi[64];   /* the first existing file's _metadata.flashinfer_version where it is
			      * not ours' (nor "*"); "" otherwise */
	char meta_field[64];  /* the existing files' _metadata field that differs from env_meta
			       * ("" when none or not checked) */
	int meta_mismatch;    /* 0 none, 1 soft, 2 hard: then ours replaces their _metadata
			       * (their entries are kept) */
	struct install_bad *bad; /* existing files the server cannot load: no entries of theirs
				  * are kept (they have none it can read) */
	size_t nbad;
	size_t dropped;      /* entries of the existing files removed: keys of `drop` holding
			      * FlashInfer's fallback tactic (-1) */
};

/* Plans the install of `ours` (a JSON autotune cache, _metadata and entries) on the ranks
 * given (deployment/ranks.h: file order and each rank's file-name variables): renders v's
 * folder and per-rank file names with var (the rank variables are filled here), reads the
 * rank files already there (all of them, so every rank gets the same content: SGLang drops
 * files that differ), merges: an entry we do not have is kept, ours is added, a key whose
 * tactic differs keeps theirs unless replace. The existing files' _metadata is kept when
 * there is one. An existing file the server cannot load (not JSON, not a JSON object, a
 * folder) is recorded in r->bad and merged as empty: writing the set replaces it. An
 * existing entry whose key is in drop (sorted: the keys ours leaves to the server,
 * install_untuned) and whose tactic is FlashInfer's fallback (-1) is removed (r->dropped), so
 * that the server profiles it again instead of running the default there. */
int install_merge(const struct consumer_version *v, consumer_var_fn var, void *ctx,
		 const struct server_rank *ranks, size_t nranks, const struct fi_cache *ours,
		 const struct fi_meta *env_meta, bool replace, char *const *drop, size_t ndrop,
		 struct install_result *r, struct diags *d);
void install_result_release(struct install_result *r);

/* FlashInfer's managed store for one environment (consumer_store): its manifest, and one
 * entry file per key of the cache. */
struct install_store {
	char *dir;                 /* <root>/<store dir with env_hash> */
	char *env_hash;
	char *manifest_path, *manifest; /* the manifest file and its content */
	bool manifest_exists;
	char **paths, **contents;  /* one entry file per key */
	bool *exists;
	size_t n;
	struct fi_merge merge;     /* our entries: new, equal, conflicts */
	size_t theirs_only;        /* entry files there that are not keys of ours */
	size_t unencodable;        /* entries written without key_fields (served, not preloaded) */
};

/* Plans the store under root for manifest (the environment's metadata, exactly as FlashInfer
 * stamps it; cache_schema is added): env hash = sha256 of the canonical manifest JSON
 * (Python's json.dumps(sort_keys=True, separators=(",", ":"))), entries named by sha256 of
 * their key, each {"key", "key_fields", "profiling_policy", "runner", "tactic"}. An entry file
 * already there with another tactic is kept unless replace. */
int install_store_plan(const struct consumer_store *st, const char *root,
		       const struct fi_meta *manifest, const struct fi_cache *ours, bool replace,
		       struct install_store *r, struct diags *d);
void install_store_release(struct install_store *r);

/* The folder under root named by `hex` hex digits: the one a server's first start made (a
 * key tunetab cannot compute, consumer_version.key_found). Its name (caller frees), or NULL
 * when there are none or several: *n counts them, list names them (comma-separated). */
char *install_find_key(const char *root, unsigned hex, size_t *n, char *list, size_t listn);

/* --- tunetab install as calls: install_prepare, then install_write ---------------------- */

/* What install is asked (its options). */
struct install_request {
	/* the server (deployment/server.h; its words are not read here): server.consumer its
	 * id; consumer_version NULL: the newest rule; flashinfer NULL: the environment's
	 * version, else the cache's; python NULL: found; sm 0: the cache's _metadata.gpu */
	struct serve_request server;
	struct serve_flags flags;     /* the deployment, as the server is started (the
				       * templates' variables) */
	/* what install alone needs */
	const char *from;             /* the JSON autotune cache */
	const struct fi_cache *cache; /* the cache itself when there is no file (from NULL): a
				       * table just generated, or the keys a check looks for */
	const char *cache_dir;        /* the root, instead of the consumer's */
	const char *cache_file;       /* a file path with its folder (the server's own, or any) */
	const char *metadata;         /* NULL (environment's when read), "env", "wildcard", "from" */
	bool replace, check;
	bool dry_run;                 /* nothing written (check neither): an undo log an interrupted
				       * install left is reported, not rolled back */
	const char *table_file;       /* the file of `cache` (its provenance is beside it), or
				       * NULL; with `from` the file is from */
	bool write_fallbacks;         /* keep the entries nobody measured (install_untuned) */
};

#define INSTALL_UNTUNED_OPS 8

/* The entries of the table its provenance (beside it) says nobody measured: an op's
 * fallback tactic (-1) stored so that the server does not profile the key ("default",
 * provenance.h PROV_DEFAULT). Installed, they switch the server's own tuning of those shapes
 * off and it runs FlashInfer's default tactic there; install leaves them out unless asked. */
struct install_untuned {
	char **keys;                  /* sorted */
	size_t n;
	struct {
		char op[96], runner[64];
		size_t n;
	} ops[INSTALL_UNTUNED_OPS];   /* per op and runner, in the table's order */
	size_t nops;
	bool kept;                    /* write_fallbacks: in the table all the same */
	size_t unknown;               /* no provenance beside the table: its entries holding -1,
				       * measured or not (written as they are) */
};

/* The install worked out: the rule, this environment, the target and one store's files. */
struct install_job {
	const struct serve_request *server; /* the request's server (its launch words' variables
				       * are the server's environment: the root); borrowed */
	struct consumer *cons;
	const struct consumer_version *v; /* the consumer's rule, or own_rule */
	bool own_file;                /* --cache-file names a file of the user's own: own_rule */
	struct consumer_version own_rule;
	const char *flashinfer;       /* the version targeted */
	long sm;
	const struct fi_rules *rules; /* the key rules of that version, NULL: none */
	bool tunes;                   /* the server tunes at start (so reads the cache) here */
	const char *backend;          /* its MoE runner backend (the request's) */
	struct fi_cache *ours;        /* the cache, its _metadata as it will be written */
	const struct fi_meta *env_meta; /* this environment's _metadata (FlashInfer's own,
				       * fienv's), or NULL */
	char *python;                 /* the python that was asked, or NULL */
	char env_from[600];           /* where env_meta came from; "" when not read */
	char why[512];                /* why this environment was not read */
	bool meta_as_is;              /* the cache's _metadata is kept, the environment unread: say so */
	const struct consumer_managed *managed; /* FlashInfer's managed store: store; else res */
	char *root;                   /* the cache root */
	const char *root_env;         /* the variable that sets it (static), or NULL */
	struct install_untuned untuned; /* left out of ours (or kept: write_fallbacks) */
	struct install_result res;
	struct install_store store;
	char folders[1024];           /* the key folders seen when there is not exactly one */
	size_t nfolders;
	char usage[512];              /* a usage error: the message (the command adds its usage) */
	bool interrupted;             /* an interrupted install's undo log is in the folder, left
				       * there (check, dry run): its files may be mixed */
	/* owned storage behind the template variables */
	struct consumer *fi_cons;
	struct fi_meta *meta;         /* the cache's own _metadata, as given */
	struct fienv_fi fienv;        /* this environment's FlashInfer, where it was read */
	char *key, *torch_dtype, *skip_sorted, *own_dir, arch[32], num[5][24];
	const char *var_names[32], *var_values[32];
	size_t nvars;
};

/* Works out the install of q->from for q->consumer: the rule, this environment's FlashInfer
 * (its version, its _metadata), the target version and SM, the cache root and the merged
 * files of the store that applies (reading what is there). The table's entries nobody
 * measured are left out unless q->write_fallbacks (j->untuned says which). An existing rank
 * file the server cannot load is an error naming it unless q->replace (then it is written
 * anew; a note says so), q->check or q->dry_run (j->res.bad has it either way). Nothing is written, but for one
 * thing first: an undo log left in that folder by an install killed mid-write
 * (install_write) is rolled back before the files are read, with a warning in d that says
 * so; with check or dry_run it is only reported (a warning, j->interrupted). On failure the
 * errors are in d, and j->usage holds a usage error's message when it is one. j is filled as
 * far as it got (j->meta_as_is included) either way; release it with install_job_release. */
int install_prepare(const struct install_request *q, const char *data_root,
		    const struct device_set *devices, const struct firules_set *rules,
		    struct install_job *j, struct diags *d);
void install_job_release(struct install_job *j);

/* Writes the planned files as one set, the store's manifest first when it is new: all or
 * nothing, under an undo log in the set's folder (util.h file_set_undo;
 * ".tunetab-install.journal"), so a failure leaves the files as they were and a kill
 * leaves the undo log the next install_prepare rolls back. A folder where a rank file goes
 * (res.bad) is removed first when empty, else moved aside ("<path>.moved-by-tunetab", a note
 * in d says where), and put back if the set fails. TT_INTERNAL with a diagnostic when it
 * cannot. */
int install_write(const struct install_job *j, struct diags *d);

/* --- a server's lookups against what it reads (install --check / doctor --for with a launch
 * command) ----------------------------------------------------------------------------- */

/* A field in which missed keys differ from the nearest key the files have (keydiff.h). */
struct install_cause {
	const char *field;        /* keydiff's name: "use_fused_finalize", "tp_size", "fc1", ... */
	size_t count;             /* missed keys that differ in it */
	char want[64], have[64];  /* the server's value and the files', from the first such key */
};

#define INSTALL_CAUSES_MAX 12

struct install_folder {
	char *dir;                /* a folder beside the one the server reads */
	char *why;                /* "another FlashInfer version (0.7.2)", "another key" */
	size_t hits;              /* of the server's keys, how many its rank-0 file holds */
	struct install_cause causes[INSTALL_CAUSES_MAX];
	size_t ncauses;
};

struct install_diagnosis {
	size_t wanted, hits;      /* the server's lookups; present in its files */
	struct install_cause causes[INSTALL_CAUSES_MAX];
	size_t ncauses;
	size_t unmatched;         /* missed keys with no key of their op in the files */
	char meta_fi[64];         /* the files' _metadata.flashinfer_version when it is not the
				   * version the server imports ("" otherwise) */
	struct install_folder *folders; /* when no file is there: files for other deployments */
	size_t nfolders;
};

/* The server's keys (want) against the job's rank files (res, planned with an `ours` holding
 * exactly those keys): hits, and for the misses the fields they differ in from the files'
 * nearest keys; with no file there, the folders beside it that hold files of this name, and
 * how their keys differ. rules: the version the server imports. */
void install_diagnose(const struct install_job *j, const char *const *want, size_t nwant,
		      const struct fi_rules *rules, struct install_diagnosis *out);
void install_diagnosis_release(struct install_diagnosis *g);

/* The causes of the keys of want that `have` lacks: the fields in which each differs from its
 * nearest key there (added to causes, *n of them); returns how many want keys have lacks. */
size_t install_missing(const struct fi_rules *rules, const char *const *want, size_t nwant,
		       const char *const *have, size_t nhave, struct install_cause *causes,
		       size_t *n, size_t *unmatched);

/* What the server's environment must say for the use_fused_finalize the cache's keys were
 * built with (fi_cache_fused_finalize), in words, or NULL when nothing (or it cannot be
 * told). Caller frees. */
char *install_finalize_env(const struct install_job *j);

#endif
