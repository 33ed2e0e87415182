/* wire.h: the worker protocol's messages (tunetab and its GPU workers, worker.h), both
 * directions, written and read by one generic writer and reader from one table (wire.c; the
 * flashinfer worker, scripts/tunetab-fi-worker.py, holds the same table in Python as
 * MESSAGES). docs/development.md "The worker protocol" lists every message. A message is one line:
 *
 *   VERB v=3 NAME=VALUE ... [COUNT=N cols=COLUMN,... -- ITEM ...]   (a message with a list)
 *   VERB v=3 -- TEXT                                                (ERR and FAULT)
 *
 * the name=value words in any order; a reader ignores names (and list columns) it does not
 * know, refuses a line of another protocol version with an error that names both versions,
 * and a line without a field it needs with one that names the field. A list's items are its
 * columns' values joined by ',', in the order `cols=` names them. Free text (names, reasons,
 * keys) is hex-encoded, "-" for none; the text of ERR and FAULT, which a reader of any version
 * may have to show, is the rest of the line. Fills buffers; never prints. */
#ifndef TUNETAB_WIRE_H
#define TUNETAB_WIRE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu/gpu.h"

struct strbuf;

/* The protocol's version, the "v=" of every line (scripts/tunetab-fi-worker.py's PROTO). */
#define WIRE_VERSION 3

/* At most this many items in a message's list. */
#define WIRE_MAX_ITEMS 4096

enum wire_dir { WIRE_REQUEST, WIRE_REPLY }; /* parent -> worker, worker -> parent */

/* Every message; the struct each is read into and written from is named in wire.c's table. */
enum wire_id {
	/* requests */
	WQ_WHO, WQ_INFO, WQ_LOAD, WQ_JOB, WQ_PREP, WQ_GATE, WQ_ROUND, WQ_CAL, WQ_OPTEST, WQ_OPPROF,
	WQ_LAYER,
	/* replies */
	WR_WHO, WR_DEV, WR_NOTE, WR_OK, WR_START, WR_RES, WR_READY, WR_T, WR_F, WR_G, WR_L, WR_END,
	WR_CAL, WR_OPTEST, WR_OPPROF, WR_ERR, WR_FAULT,
	WIRE_MESSAGES
};

enum wire_type {
	WT_INT,     /* int */
	WT_LONG,    /* long */
	WT_SIZE,    /* size_t */
	WT_DOUBLE,  /* double, written with the field's format */
	WT_ENUM,    /* an int written as one of the field's words (its value is the index) */
	WT_WORD,    /* char[size]: one word */
	WT_TEXT,    /* char[size]: free text, hex ("-" for none) */
	WT_PWORD,   /* const char *: one word; read: allocated (wire_release frees it) */
	WT_PTEXT,   /* const char *: free text, hex ("-" for NULL or ""); read: allocated */
};

struct wire_field {
	const char *name;
	enum wire_type type;
	size_t off;                /* in the message's struct (a list column: in its item's) */
	size_t size;               /* the member's size */
	char conv;                 /* WT_DOUBLE: written as %.<prec><conv>, conv 'f' or 'g' */
	int prec;
	const char *const *words;  /* WT_ENUM: the words, NULL-terminated */
};

enum wire_tail { WIRE_NONE, WIRE_LIST, WIRE_TEXT };

struct wire_msg {
	enum wire_id id;
	enum wire_dir dir;
	const char *verb;
	const struct wire_field *fields;
	size_t nfields;
	enum wire_tail tail;
	/* WIRE_LIST: the field that counts the items, their columns and an item's size */
	const char *count;
	const struct wire_field *cols;
	size_t ncols, item_size;
	/* WIRE_TEXT: the char array the text goes to */
	size_t text_off, text_size;
};

/* The structs of the messages that fill no struct of their own module (wire.c's table names
 * each message's). */
struct wire_job {              /* JOB, PREP, GATE, LAYER: the job (prof_shape), GATE's bounds */
	struct prof_shape s;
	double bound, ref_bound;
	/* LAYER: the routing load's name, its popularity ("w,w,...": a weight per expert of
	 * every rank; NULL: uniform), the router draws of a graph, its replays per round, the
	 * rounds and the draws' seed */
	const char *load, *popularity;
	int draws, layer_reps, layer_rounds, seed;
};
struct wire_load { const char *dtype; };                 /* LOAD */
struct wire_round { int method, min_reps; };             /* ROUND */
struct wire_round_item { int id, reps; };                /* ROUND's items (reps 0: unsized) */
struct wire_tile { int tile_m, tile_n; double eff_bf16, eff_fp8; }; /* CAL's items */
struct wire_optest_req { const char *op, *runner; };     /* OPTEST */
struct wire_opprof_req { long bucket; int reps, gate; }; /* OPPROF (and the op's fields) */
struct wire_cand { int id; };                            /* START */
struct wire_op_cand { int id; const char *tactic; };     /* OPPROF's items (tactic: JSON, or
							    NULL: the id is the tactic) */
struct wire_ready { int id, reps; };                     /* READY */
struct wire_time { int id; double us; };                 /* T */
struct wire_ok { double seconds; };                      /* OK */
struct wire_text { char text[2048]; };                   /* NOTE, ERR, FAULT */
struct wire_optest { char status[32]; char detail[2048]; }; /* OPTEST's reply */

/* The message of that id. */
const struct wire_msg *wire_msg(enum wire_id id);

/* A line's message: its version checked first (a line of another version may mean other
 * things by its words), then its verb looked up among dir's messages. NULL with why: another
 * version (naming both: "the worker speaks protocol 2, tunetab 3 ..." reading a reply,
 * "tunetab speaks protocol 2, this worker 3 ..." reading a request), or a verb it lacks. */
const struct wire_msg *wire_identify(const char *line, enum wire_dir dir, char *why,
				     size_t whylen);

/* Appends m's line, newline included: obj's fields, then `extra` (NULL: none; name=value
 * words the message carries beside its own, an op's call fields in OPPROF), then the list:
 * its count, its columns' names and items[0..n) (n * m->item_size bytes), or the text
 * (obj's, its line breaks made spaces). */
void wire_write(struct strbuf *sb, const struct wire_msg *m, const void *obj, const char *extra,
		const void *items, size_t n);

/* Reads line (wire_identify's m) into obj, zeroed first: every field m lists must be there,
 * names it does not list are ignored; the list's items into *items (allocated, caller frees
 * with wire_release_items: a column may be text, OPPROF's tactic; NULL when none) and their
 * count into *n (items and n may be NULL for a message without a list). -1 with why: another
 * version, a bare word, a missing field or column (named), a value that does not parse, items
 * that are not the count's (then nothing of the list is left to free). Caller releases obj's
 * pointer fields with wire_release, whatever the result. */
int wire_read(const char *line, const struct wire_msg *m, void *obj, void **items, size_t *n,
	      char *why, size_t whylen);

/* Frees what wire_read allocated in obj (its WT_PWORD and WT_PTEXT fields). */
void wire_release(const struct wire_msg *m, void *obj);

/* Frees a list wire_read made of m's n items: their WT_PWORD and WT_PTEXT columns, then the
 * array (NULL: nothing). */
void wire_release_items(const struct wire_msg *m, void *items, size_t n);

/* The table, one line a message ("request JOB dtype:word batch:int ... cands=[id:int,...]",
 * "reply ERR --text"), as scripts/tunetab-fi-worker.py --table prints its own: the two sides'
 * tables compared (tests/cli/190). */
void wire_describe(struct strbuf *sb);

#endif
