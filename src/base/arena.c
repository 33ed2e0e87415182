/* arena.c: bump allocator. */
#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct arena_block {
	struct arena_block *next;
	max_align_t data[];
};

static void *alloc_raw(struct arena *a, size_t n)
{
	size_t align = sizeof(max_align_t);
	n = (n + align - 1) / align * align;
	if (!a->head || a->used + n > a->cap) {
		size_t cap = n > (1u << 20) ? n : (1u << 20);
		struct arena_block *b = xmalloc(sizeof *b + cap);
		b->next = a->head;
		a->head = b;
		a->used = 0;
		a->cap = cap;
	}
	void *p = (char *)a->head->data + a->used;
	a->used += n;
	a->total += n;
	return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
	void *p = alloc_raw(a, n);
	memset(p, 0, n);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = alloc_raw(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void arena_release(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
	a->used = a->cap = a->total = 0;
}

void arena_reset(struct arena *a)
{
	/* keep the newest block, free the rest */
	if (!a->head)
		return;
	struct arena_block *b = a->head->next;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head->next = NULL;
	a->used = 0;
	a->total = 0;
}
