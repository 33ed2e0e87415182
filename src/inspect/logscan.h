/* logscan.h: FlashInfer / TensorRT-LLM autotuner events streamed out of server logs of any
 * size, plain or gzip (flashinfer-formats.md §1.5, §2.5, §2.6, §4). Prints nothing. */
#ifndef TUNETAB_LOGSCAN_H
#define TUNETAB_LOGSCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/util.h"

/* One kind per documented log line (formats §4 unless noted). */
enum ls_kind {
	LS_SESSION_START,     /* Autotuning process starts ... */
	LS_SESSION_END,       /* Autotuning process ends */
	LS_BUNDLED_HIT,       /* Loading configs for <key> from file. (§1.5) */
	LS_BUNDLED_MISS,      /* ... from file failed; Using default configs instead. (§1.5) */
	LS_CACHE_HIT,         /* Config cache hit for <op> (runner=<R>, source=<src>) */
	LS_CACHE_LOAD,        /* Loaded <N> configs from <path> (§2.6) */
	LS_CACHE_SAVE,        /* Saved <N> configs to <path> (<n> new, <m> from previous config) (§2.5) */
	LS_CACHE_MISMATCH,    /* Cache file <path> was created in a different environment (§2.3) */
	LS_NOT_SAVING,        /* Not saving configs to <path>: ... different environment */
	LS_LEGACY_CUDNN,      /* Skipped <n> legacy cuDNN config(s) ... (§2.4) */
	LS_NO_TUNED_CONFIG,   /* No tuned config covers <op> input_shapes=<s>; falling back ... */
	LS_OOM,               /* OOM detected, falling back to default tactic */
	LS_FALLBACK,          /* DEBUG Using fallback tactic for <op> with input shapes <s>;
			       * TensorRT-LLM's "[AutoTunner] Using the fallback tactic, due to
			       * cache miss on input shapes=<s>" */
	LS_SKIP_OP,           /* Skipping autotuning for '<op>' (in skip_ops) */
	LS_SKIPPED_UNSUPPORTED, /* Skipped <n> unsupported tactic(s) for <op> */
	LS_FAILED_TACTIC,     /* Skipping tactic <runner> <t>[, due to failure ...: <err>];
			       * Failed when profiling <runner> <t>, shapes=<s>. Error occurred: <err> */
	LS_NO_VALID_TACTICS,  /* Failed to get valid tactics for <key>. Error occurred: <err> */
	LS_BLOCKLIST_LOADED,  /* [TacticsBlocklist]: Loaded <n> invalid tactic(s) across <k> ... */
	LS_BLOCKLIST_MISSING, /* Tactics blocklist file not found at <path> */
	LS_BLOCKLIST_MISMATCH, /* [TacticsBlocklist]: File <path> was generated in a different ... */
	LS_PROGRESS,          /* tqdm: Tuning <op>: NN%|...| done/total [elapsed<left, rate] */
	LS_PROFILE,           /* DEBUG generated profile: <p> */
	LS_PROFILED,          /* DEBUG profiling <runner> <t>, shapes=..., avg_time <ms> */
	LS_CHOSEN,            /* DEBUG profiling chosen runner: <runner> <t> for <key> */
	LS_CACHE_SIZE,        /* TensorRT-LLM: [Autotuner] Cache size after warmup is <N> */
	LS_DEBUG,             /* other documented DEBUG lines (Generated key, cold L2, timer) */
	LS_SGLANG_START,      /* SGLang: Running FlashInfer autotune with cache: <path> */
	LS_VLLM_DEFAULT_MOE,  /* vLLM's Triton MoE: Using default MoE config ... (not FlashInfer) */
	LS_OTHER,             /* an autotuner-tagged line of no documented form */
	LS_KIND_COUNT
};

/* Short stable name of a kind ("session-start", "bundled-miss", ...). */
const char *ls_kind_name(enum ls_kind k);

/* One event. Strings point into the scanner's scratch space: valid during the callback only.
 * Fields a kind does not have are NULL / -1. */
struct ls_event {
	enum ls_kind kind;
	unsigned long long line; /* physical line ('\n'-separated), 1-based */
	bool same_line;          /* on the same physical line as the previous event */
	const char *op;          /* op name, when the line names one */
	const char *runner;      /* runner class (or its repr for "Skipping tactic") */
	const char *tactic;      /* tactic as printed */
	const char *key;         /* bundled lookup key, canonical file key when it parses */
	bool key_parsed;         /* key is Python's str() of a valid tuple (runner hash stripped) */
	bool key_had_hash;       /* the old miss form with the runner hash (§1.5) */
	bool key_fused_moe;      /* op is trtllm::fused_moe::gemm1/gemm2 (§3) */
	int key_tuple;           /* 3 or 4 (after stripping the hash); 0 when not parsed */
	const char *path;        /* cache / blocklist path */
	const char *shapes;      /* input shapes as printed */
	const char *detail;      /* error text, mismatch list, profile, or the raw message */
	const char *severity;    /* LS_CACHE_MISMATCH: "hard", "soft" or "legacy" */
	long long n, n_new, n_prev; /* counts: configs, new, previous; tactics; ops */
	long long done, total;   /* LS_PROGRESS */
	double rate;             /* LS_PROGRESS: profiles per second; < 0 unknown */
	bool rate_inverse;       /* tqdm printed s/profile (rate < 1/s) */
	long long elapsed_s;     /* LS_PROGRESS: elapsed seconds of the bar; -1 unknown */
	long long dim[3];        /* LS_PROFILE: first DynamicDim min, opt, max (-1 = inf/none) */
};

typedef void (*ls_event_fn)(const struct ls_event *ev, void *ctx);

/* Counters of one scanned input. */
struct ls_stats {
	unsigned long long bytes, lines;
	bool gzip;
	bool truncated;          /* last line had no newline, or the gzip stream was cut */
};

/* Scans fd to its end, calling fn for each event in order. name is for diagnostics only.
 * gzip input (magic 1f 8b, concatenated members allowed) is inflated on the fly. Lines of
 * any length are handled in bounded memory: an event's text is capped at 256 KiB.
 * Returns TT_OK, or TT_INTERNAL with a diagnostic on a read error or corrupt gzip data. */
int logscan_fd(int fd, const char *name, ls_event_fn fn, void *ctx, struct ls_stats *st,
	       struct diags *d);

/* ---- per-op summary, built from events ---- */

struct ls_pass {
	unsigned long long first_line, last_line;
	long long done, total;
	unsigned updates;
	double rate;             /* of the last update; < 0 unknown */
	bool rate_inverse;
	long long elapsed_s;     /* of the last update; -1 unknown */
};

struct ls_op {
	char *name;
	unsigned hits, misses, fallbacks, failed, skipped_unsupported;
	char **affected;         /* distinct keys / shapes that missed or fell back */
	size_t n_affected, affected_alloc;
	struct ls_pass *passes;
	size_t n_passes, passes_alloc;
	unsigned updates;
	long long tuning_s;      /* sum of the passes' last elapsed times */
};

struct ls_summary {
	struct ls_op *ops;       /* in order of first appearance; "-" for events naming none */
	size_t n_ops, ops_alloc;
	unsigned count[LS_KIND_COUNT];
	unsigned hits, misses, fallbacks, failed;
	long long configs_loaded, configs_saved;
	long long *loads;        /* configs of each cache load, in order */
	size_t n_loads, loads_alloc;
	struct ls_save { long long n, n_new, n_prev; } *saves; /* each cache save, in order */
	size_t n_saves, saves_alloc;
	char **keys;             /* distinct missed bundled keys (canonical when parsed) */
	bool *keys_moe;          /* fused-MoE key that `generate --keys` accepts */
	size_t n_keys, keys_alloc, keys_moe_alloc;
	/* private: pass tracking */
	size_t cur_op;           /* op of the open pass + 1; 0 = none */
};

#define LS_SUMMARY_INIT { 0 }

/* Adds one event (copies what it keeps). */
void ls_summary_add(struct ls_summary *s, const struct ls_event *ev);
void ls_summary_release(struct ls_summary *s);
/* Whether the log shows lookups that missed, fell back or failed (scan-log exits 1). */
bool ls_summary_found(const struct ls_summary *s);

/* ---- missed keys across inputs, for `generate --keys` ---- */

struct ls_keyset {
	char **keys;             /* distinct missed cutlass fused-MoE keys, in order of appearance */
	size_t n, alloc;
	size_t other;            /* missed keys that are not fused-MoE keys `generate` accepts */
};

/* Adds the missed keys of one input's summary. */
void ls_keyset_add(struct ls_keyset *k, const struct ls_summary *s);
/* The keys as a file `generate --keys` reads: '#' comments, one key per line. */
void ls_keyset_write(const struct ls_keyset *k, struct strbuf *out);
void ls_keyset_release(struct ls_keyset *k);

#endif
