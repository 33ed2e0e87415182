/* fuzz_key.c: libFuzzer target for the key-string parser: key_parse_canonical (the fast
 * path), key_parse (pylit_parse_expr), key_decode, key_decode_moe, key_extra, key_dtypes,
 * and repr/equality/clone of the tuple, the order validate.c uses them in. The input is the
 * key's content; like the readers, only valid UTF-8 reaches the parser. */
#include "fuzz_common.h"
#include "flashinfer/key.h"
#include "flashinfer/pylit.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

static void decode(const struct pyv *tuple)
{
	struct moe_key k;
	if (key_decode(tuple, &k))
		return;
	key_decode_moe(&k);
	for (unsigned i = 0; i < 8; i++)
		(void)key_extra(&k, i);
	enum dtype dts[2];
	(void)key_dtypes(NULL, &k, dts);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (!fuzz_utf8_ok(data, size))
		return 0;
	/* an exact-size copy, so reading one byte past the key is caught */
	char *key = xmalloc(size ? size : 1);
	memcpy(key, data, size);
	struct arena a = ARENA_INIT;
	struct diags d = DIAGS_INIT;
	const struct pyv *canon = key_parse_canonical(key, size, &a);
	const struct pyv *tuple = key_parse(key, size, &a, "fuzz.py", 3, 5, &d);
	struct strbuf sb = STRBUF_INIT;
	if (tuple) {
		pyv_repr(tuple, &sb);
		struct pyv *copy = pyv_clone(&a, tuple);
		if (!pyv_equal(copy, tuple))
			abort(); /* a clone must equal its original */
		decode(tuple);
	}
	if (canon) {
		/* the fast path may only accept what the full parser reads the same way, in
		 * Python's own spelling */
		if (!tuple || !pyv_equal(canon, tuple))
			abort();
		sb_reset(&sb);
		pyv_repr(canon, &sb);
		if (sb.len != size || memcmp(sb.buf, key, size))
			abort();
		decode(canon);
	}
	sb_release(&sb);
	diags_release(&d);
	arena_release(&a);
	free(key);
	return 0;
}
