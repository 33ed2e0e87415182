/* script_int.h: what script.c shares with costs.c, the sandbox's library functions that charge
 * their C work to the instruction budget. Inside src/script/ only. */
#ifndef TUNETAB_SCRIPT_INT_H
#define TUNETAB_SCRIPT_INT_H

#include <lua.h>

/* What C work costs, in instructions of the budget (scripts/README.md, "What C work costs").
 * Each rate is set so that one charged instruction is at most about 2 ns of work on the
 * development machine (docs/benchmarks.md, "Hostile heuristics"), as a VM instruction is:
 * charged work then ends at the instruction count, well before the CPU-time backstop
 * (script.c, count_hook). */
#define COST_ALLOC_BYTES 16 /* bytes allocated per instruction (capped_alloc) */
#define COST_CMP_BYTES 8    /* bytes compared or copied by memcmp/memcpy per instruction */
#define COST_BYTE 1         /* per byte of a byte-at-a-time C loop (upper, utf8.len, tonumber) */
#define COST_QUOTE 2        /* per byte of string.format's %q */
#define COST_FIND 4         /* per byte of the text string.find searches (memmem's worst case) */
#define COST_ELEM 8         /* per table element or stack value a C loop reads or pushes */
#define COST_MOVE 16        /* per element a C loop moves (a read and a write) */
#define COST_SORT 16        /* per element and level of table.sort (n * ceil(log2 n) units) */
#define COST_FMT_ITEM 16    /* per string.format conversion */
#define COST_FMT_DIGIT 16   /* per digit of a float conversion (%.99f of 1e308: 409 digits) */
#define COST_UTF8_CHAR 32   /* per utf8.char argument */
#define COST_UTF8_CODE 16   /* per code point utf8.codepoint decodes and pushes */
#define COST_PACK 8         /* per byte of a string.pack/unpack/packsize format */
#define COST_LOAD 32        /* per byte of a chunk load() compiles */
#define COST_PRINT 1000     /* per print() call (a write to stderr), plus a byte each */
#define COST_LIB_MISS 4096  /* per tunetab.lib of a library that is not there (a failed open) */

/* Charges units instructions of C work done for the script to the budget (saturating): past
 * the budget it raises, and so does every instruction after (count_hook). */
void script_charge(lua_State *L, double units);

/* Replaces the library functions whose work grows with their input by charged ones, and the
 * ones the sandbox refuses (string patterns) by errors (costs.c). Runs in open_sandbox, after
 * the libraries are opened. */
void costs_install(lua_State *L);

#endif
