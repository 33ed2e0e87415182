/* key.h: FlashInfer tuning keys: the string str((op, runner, profile[, extras])) parsed and
 * decoded for the cutlass fused MoE (flashinfer-formats.md §1.3, §3.1, §3.3). */
#ifndef TUNETAB_KEY_H
#define TUNETAB_KEY_H

#include <stdbool.h>

#include "data/dtypes.h"
#include "flashinfer/pylit.h"

struct moe_key {
	int tuple_len;             /* 3 or 4 */
	const char *op, *runner;   /* NUL-terminated (arena) */
	const struct pyv *profile; /* tuple of shapes */
	const struct pyv *extras;  /* NULL for 3-tuples */
	/* cutlass MoE decode (valid when moe_ok) */
	bool moe_ok;
	long long tokens, in_k;    /* input [tokens, hidden'] */
	long long e1, n1, k1;      /* fc1 weights [E, N1, K1'] */
	long long e2, n2, k2;      /* fc2 weights [E, hidden, K2'] */
	bool bias1, bias2;         /* present (not (0,)) */
	long long hidden;          /* = n2 */
	int act_pack;              /* hidden / in_k: 1 (bf16, fp8) or 2 (packed fp4) */
	int w_pack;                /* hidden / k1: elements per weight element */
	bool gated;                /* n1 == 2 * inter */
	long long inter;           /* per-rank intermediate size */
	char why[160];             /* what did not decode */
};

/* Parses a key string into a tuple (arena a). NULL plus a diagnostic when it is not a
 * Python literal. */
const struct pyv *key_parse(const char *key, size_t len, struct arena *a, const char *file,
			    int line, int col, struct diags *d);
/* The fast path for keys in Python's canonical str() spelling: returns the tuple, or NULL
 * when the key is not canonical-simple (then use key_parse and compare with pyv_repr). */
const struct pyv *key_parse_canonical(const char *key, size_t len, struct arena *a);
/* Either of the above, whichever reads it: the canonical fast path, else the full parser with
 * its diagnostics dropped (for callers that only want the tuple; validate reports them).
 * NULL when the key is not a Python literal. */
const struct pyv *key_parse_any(const char *key, size_t len, struct arena *a);
/* Structural decode: tuple arity, op and runner strings, profile tuple, extras.
 * Returns 0, or -1 with k->why set. */
int key_decode(const struct pyv *tuple, struct moe_key *k);
/* The cutlass MoE shapes: five inputs (§3.1). Sets moe_ok, or why. */
void key_decode_moe(struct moe_key *k);
/* A 4-tuple key's extras field by name position, or NULL. */
const struct pyv *key_extra(const struct moe_key *k, unsigned index);
struct fi_rules;
/* The use_fused_finalize a key was built for, by schema s's extras fields (0.6.18 on):
 * 0 False, 1 True, -1 when its extras hold no such field. GEMM2's tactic list depends on it
 * (cutlass-moe-tactics.md §3). */
int key_fused_finalize(const struct fi_rules *s, const struct moe_key *k);
/* The ep_size a key was built for, by schema s's extras fields (0.6.13 on); 1 when its
 * extras hold none (a 3-tuple key, or an older schema): the key's experts are then all. */
/* The named extras field of schema s as a number (an int's value, a bool 1 or 0), or -2
 * when the version's key has no such field or it holds neither. */
long key_field(const struct fi_rules *s, const struct moe_key *k, const char *name);
long key_ep_size(const struct fi_rules *s, const struct moe_key *k);
/* The runner dtype a key implies: from the quantisation flags among schema s's extras fields
 * (0.6.18 on; s may be NULL), then from the extras dtypes when present, else from packing.
 * Returns the number of candidates written to out (0: unknown; 2: bf16 or fp8). */
int key_dtypes(const struct fi_rules *s, const struct moe_key *k, enum dtype out[2]);

#endif
