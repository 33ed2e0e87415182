/* fuzz_wire.c: libFuzzer target for the worker protocol's reader (tune/wire.c): each line of
 * the input, as tunetab reads a worker's reply and as a worker reads tunetab's request, through
 * wire_identify and wire_read (fields, a list's items, the text of ERR and FAULT), then back
 * through wire_write. Oracles: what wire_read accepts, wire_write writes as one line that
 * wire_read accepts again and reads as the same message (written again, the same line: a
 * reader and a writer of one table agree); a reason is always a terminated string. */
#include <stdalign.h>
#include <stddef.h>

#include "fuzz_common.h"
#include "tune/wire.h"

#define MAX_LINES 4096

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	struct strbuf sb = STRBUF_INIT; /* the table itself, once (what tests/cli/190 compares) */
	wire_describe(&sb);
	sb_release(&sb);
	return 0;
}

/* The bytes m's struct must have: its fields' and its text's extent. */
static size_t extent(const struct wire_msg *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nfields; i++)
		if (m->fields[i].off + m->fields[i].size > n)
			n = m->fields[i].off + m->fields[i].size;
	if (m->tail == WIRE_TEXT && m->text_off + m->text_size > n)
		n = m->text_off + m->text_size;
	return n;
}

static void check_why(const char *why, size_t n)
{
	if (!memchr(why, '\0', n))
		abort();
}

/* The line w writes of what line reads as, or NULL when wire_read refuses it. Caller frees. */
static char *reread(const char *line, const struct wire_msg *m, const char *what)
{
	static alignas(max_align_t) unsigned char obj[16384];
	if (extent(m) > sizeof obj)
		abort(); /* a struct this harness did not make room for */
	memset(obj, 0, sizeof obj);
	void *items = NULL;
	size_t n = 0;
	char why[256];
	int rc = wire_read(line, m, obj, &items, &n, why, sizeof why);
	char *out = NULL;
	if (rc) {
		check_why(why, sizeof why);
	} else {
		if (m->tail != WIRE_LIST && (items || n))
			abort();
		if (n > WIRE_MAX_ITEMS)
			abort();
		struct strbuf sb = STRBUF_INIT;
		wire_write(&sb, m, obj, NULL, items, n);
		if (!sb.len || sb.buf[sb.len - 1] != '\n' || memchr(sb.buf, '\n', sb.len - 1)) {
			fprintf(stderr, "fuzz_wire: %s: wire_write wrote not one line: '%s'\n", what,
				sb.buf);
			abort();
		}
		out = sb_detach(&sb);
	}
	wire_release(m, obj);
	wire_release_items(m, items, n);
	return out;
}

static void one_line(const char *line, enum wire_dir dir)
{
	char why[256];
	const struct wire_msg *m = wire_identify(line, dir, why, sizeof why);
	if (!m) {
		check_why(why, sizeof why);
		return;
	}
	if (m->dir != dir)
		abort();
	char *first = reread(line, m, "read");
	if (!first)
		return;
	char *second = reread(first, m, "written");
	if (!second || strcmp(first, second)) {
		fprintf(stderr, "fuzz_wire: '%s' read and written: '%s', that read and written: '%s'\n",
			line, first, second ? second : "(refused)");
		abort();
	}
	free(first);
	free(second);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	/* lines as the readers get them: one at a time, cut at '\n' (a NUL ends the line early,
	 * as it would in a C string) */
	char *p = text;
	for (size_t k = 0; k < MAX_LINES && p < text + size; k++) {
		char *nl = memchr(p, '\n', (size_t)(text + size - p));
		if (nl)
			*nl = '\0';
		one_line(p, WIRE_REPLY);
		one_line(p, WIRE_REQUEST);
		if (!nl)
			break;
		p = nl + 1;
	}
	free(text);
	return 0;
}
