/* arena.h: a bump allocator for parse trees: many small nodes, freed all at once. */
#ifndef TUNETAB_ARENA_H
#define TUNETAB_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;
	size_t used, cap;
	size_t total; /* bytes handed out, for limits */
};

#define ARENA_INIT { NULL, 0, 0, 0 }

/* Zeroed memory, aligned for any object; never NULL (aborts on out of memory). */
void *arena_alloc(struct arena *a, size_t n);
char *arena_strndup(struct arena *a, const char *s, size_t n);
void arena_release(struct arena *a);
/* Forgets every allocation but keeps one block for reuse. */
void arena_reset(struct arena *a);

#endif
