/* pyenc.h: the source encoding of a Python module as CPython finds it when it compiles the
 * module's bytes (PEP 263; importlib compiles the bytes of a module it imports): a UTF-8 BOM,
 * and a coding declaration on line 1, or on line 2 where line 1 is blank or only a comment. */
#ifndef TUNETAB_PYENC_H
#define TUNETAB_PYENC_H

#include <stdbool.h>
#include <stddef.h>

enum pyenc_kind {
	PYENC_UTF8,         /* no declaration, or one CPython decodes as UTF-8 */
	PYENC_ASCII,        /* a declaration of the ascii codec: Python refuses any byte >= 0x80 */
	PYENC_OTHER,        /* any other name: another codec, or one Python does not know */
	PYENC_BOM_CONFLICT, /* a BOM and a declaration of anything but utf-8: Python refuses it */
};

struct pyenc {
	enum pyenc_kind kind;
	bool bom;
	/* the declaration, when there is one: its line (1 or 2), the column of the name (in
	 * characters, a BOM is none) and the name as written (points into the text) */
	int line, col;
	const char *name;
	size_t name_len;
};

/* Finds the BOM and coding declaration of text as CPython 3's tokenizer does for source bytes
 * (Parser/tokenizer.c: check_bom, get_coding_spec, get_normal_name, and line 2 only after a
 * line 1 that is blank or a comment), and the codec the declared name gives (the names of
 * configs/python/source-encodings.yaml, normalized as _Py_normalize_encoding does). */
void pyenc_detect(const char *text, size_t len, struct pyenc *e);

#endif
