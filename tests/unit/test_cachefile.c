/* test_cachefile.c: FlashInfer's JSON autotune cache as a document (flashinfer/cachefile.h)
 * and its _metadata rule (flashinfer/metadata.h): located parse errors, entry keys, the merge
 * and its conflicts, the managed store's files. */
#include <stdlib.h>

#include "flashinfer/cachefile.h"
#include "ttest.h"

static struct fi_cache *parse(const char *text)
{
	struct fi_cache_error e;
	struct fi_cache *c = fi_cache_parse(text, strlen(text), &e);
	if (!c)
		fprintf(stderr, "  %d:%d: %s\n", e.line, e.col, e.text);
	return c;
}

TEST(cachefile_parse_and_keys)
{
	struct fi_cache_error e;
	CHECK(!fi_cache_parse("{\n  \"k\": [\"R\",\n", 15, &e));
	CHECK(!e.not_object);
	CHECK_INT(e.line, 3);
	CHECK(e.text[0]);
	CHECK(!fi_cache_parse("[1, 2]", 6, &e));
	CHECK(e.not_object);
	CHECK_INT(e.line, 1);
	CHECK_INT(e.col, 1);
	CHECK_STR(e.text, "not a JSON object");

	struct fi_cache *c = parse("{\"_metadata\": {\"flashinfer_version\": \"0.7.4\", \"gpu\": 5}, "
				   "\"b\": [\"R\", 3], \"a\": [\"R\", [1, 2]]}");
	CHECK(c != NULL);
	size_t n;
	char **keys = fi_cache_keys(c, &n);
	CHECK_INT(n, 2);
	CHECK_STR(keys[0], "b"); /* document order */
	CHECK_STR(keys[1], "a");
	free_strings(keys, n);
	CHECK_STR(fi_meta_str(fi_cache_meta(c), "flashinfer_version"), "0.7.4");
	CHECK(fi_meta_str(fi_cache_meta(c), "gpu") == NULL); /* not a string */
	keys = fi_cache_keys(NULL, &n);
	CHECK_INT(n, 0);
	free_strings(keys, n);
	/* as FlashInfer saves it: _metadata first, entries sorted, _generation last */
	struct strbuf sb = STRBUF_INIT;
	fi_cache_canonical(c, &sb);
	const char *m = strstr(sb.buf, "\"_metadata\""), *a = strstr(sb.buf, "\"a\""),
		   *b = strstr(sb.buf, "\"b\""), *g = strstr(sb.buf, "\"_generation\"");
	CHECK(m && a && b && g && m < a && a < b && b < g);
	sb_release(&sb);
	char *compact = fi_cache_compact(c);
	CHECK(strstr(compact, "\"a\":[\"R\",[1,2]]") != NULL);
	free(compact);
	fi_cache_free(c);
}

/* A UTF-8 byte order mark is named (Python's json refuses it), from bytes and from a file;
 * an entry's tactic read, the entries counted and one removed. */
TEST(cachefile_bom_tactic_remove)
{
	struct fi_cache_error e;
	const char bom[] = "\xef\xbb\xbf{\"k\": [\"R\", -1]}";
	CHECK(!fi_cache_parse(bom, sizeof bom - 1, &e));
	CHECK_INT(e.line, 1);
	CHECK_INT(e.col, 1);
	CHECK(strstr(e.text, "byte order mark") != NULL);
	FILE *f = tmpfile();
	CHECK(f != NULL);
	fputs(bom, f);
	rewind(f);
	CHECK(!fi_cache_loadf(f, &e));
	CHECK(strstr(e.text, "byte order mark") != NULL);
	rewind(f);
	fputs("   ", f); /* the mark overwritten: the same bytes parse */
	rewind(f);
	struct fi_cache *c = fi_cache_loadf(f, &e);
	fclose(f);
	CHECK(c != NULL);
	fi_cache_free(c);

	c = parse("{\"_metadata\": {}, \"a\": [\"R\", -1], \"b\": [\"R\", [8, 34]], "
		  "\"c\": [\"R\", 5, [\"l2_cache_policy\", \"cold\"]], \"d\": \"x\"}");
	CHECK(c != NULL);
	long long t = 0;
	CHECK_INT(fi_cache_tactic(c, "a", &t), 0);
	CHECK_INT(t, -1);
	CHECK_INT(fi_cache_tactic(c, "b", &t), 1); /* a tuple: a runner's own */
	CHECK_INT(fi_cache_tactic(c, "c", &t), 0);
	CHECK_INT(t, 5);
	CHECK_INT(fi_cache_tactic(c, "d", &t), -1); /* no tactic */
	CHECK_INT(fi_cache_tactic(c, "zz", &t), -1);
	CHECK_INT(fi_cache_tactic(c, "_metadata", &t), -1);
	CHECK_INT(fi_cache_count(c), 4);
	CHECK(fi_cache_remove(c, "a"));
	CHECK(!fi_cache_remove(c, "a"));
	CHECK(!fi_cache_remove(c, "_metadata")); /* only entries */
	CHECK_INT(fi_cache_count(c), 3);
	CHECK(fi_cache_meta(c) != NULL);
	fi_cache_free(c);
}

TEST(cachefile_merge)
{
	struct fi_cache *theirs = parse("{\"_metadata\": {\"gpu\": \"theirs\"}, \"k1\": [\"R\", 3], "
					"\"k3\": [\"R\", 5], \"k4\": [\"R\", [8, 1], {}]}");
	struct fi_cache *ours = parse("{\"_metadata\": {\"gpu\": \"ours\"}, \"k1\": [\"R\", 4], "
				      "\"k2\": [\"R\", 1], \"k4\": [\"R\", [8, 1]]}");
	CHECK(theirs && ours);
	for (int replace = 0; replace < 2; replace++) {
		struct fi_cache *into = fi_cache_new();
		fi_cache_absorb(into, theirs);
		CHECK(fi_cache_equal(into, theirs));
		struct fi_merge m;
		fi_cache_merge(into, ours, replace, &m);
		CHECK_INT(m.added, 1);
		CHECK_INT(m.same, 1); /* the tactic decides, not the rest of the entry */
		CHECK_INT(m.nconflicts, 1);
		CHECK_STR(m.conflicts[0].key, "k1");
		CHECK_STR(m.conflicts[0].ours, "4");
		CHECK_STR(m.conflicts[0].theirs, "3");
		CHECK_INT(m.replaced, replace);
		CHECK_INT(m.kept_theirs, !replace);
		/* their _metadata stays */
		CHECK_STR(fi_meta_str(fi_cache_meta(into), "gpu"), "theirs");
		char *t = fi_cache_compact(into);
		CHECK(strstr(t, replace ? "\"k1\":[\"R\",4]" : "\"k1\":[\"R\",3]") != NULL);
		free(t);
		fi_conflicts_free(m.conflicts, m.nconflicts);
		fi_cache_free(into);
	}
	fi_cache_free(theirs);
	fi_cache_free(ours);
}

TEST(cachefile_metadata_rule)
{
	struct fi_cache *c = parse("{\"_metadata\": {\"flashinfer_version\": \"0.7.4\", \"gpu\": "
				   "\"unknown\", \"cuda\": \"*\"}}");
	struct fi_meta *env = fi_meta_new();
	fi_meta_set(env, "flashinfer_version", "0.7.4");
	fi_meta_set(env, "cuda", "12.9");
	const char *field;
	CHECK_INT(fi_meta_mismatch(fi_cache_meta(c), env, &field), 0);
	CHECK(field == NULL);
	fi_meta_set(env, "gpu", "NVIDIA H200");
	CHECK_INT(fi_meta_mismatch(fi_cache_meta(c), env, &field), 1); /* "unknown": soft */
	CHECK_STR(field, "gpu");
	fi_meta_set(env, "flashinfer_version", "0.7.2");
	CHECK_INT(fi_meta_mismatch(fi_cache_meta(c), env, &field), 2);
	CHECK_STR(field, "flashinfer_version");
	CHECK_INT(fi_meta_judge(NULL, "gpu", "x"), FI_META_SOFT);
	/* --stamp wildcard: every field "*" */
	struct fi_meta *w = fi_meta_wildcard(fi_cache_meta(c));
	fi_cache_set_meta(c, w);
	CHECK_STR(fi_meta_str(fi_cache_meta(c), "gpu"), "*");
	CHECK_INT(fi_meta_mismatch(fi_cache_meta(c), env, &field), 0);
	fi_meta_free(env);
	fi_cache_free(c);
}

TEST(cachefile_store)
{
	const char *key = "('op', 'R', ((1, 2),), (True, torch.bfloat16))";
	char *text = xasprintf("{\"_metadata\": {\"gpu\": \"g\"}, \"%s\": [\"R\", [8, 1]], "
			       "\"odd\": [\"R\", 2]}", key);
	struct fi_cache *c = parse(text);
	free(text);
	CHECK(c != NULL);
	bool kf;
	char *entry = fi_store_entry(c, key, "{\"p\": 1}", &kf);
	CHECK(kf);
	CHECK(strstr(entry, "\"__tuple__\"") && strstr(entry, "\"__dtype__\": \"bfloat16\""));
	CHECK(strstr(entry, "\"profiling_policy\": {\n    \"p\": 1\n  }") != NULL);
	struct fi_conflict x;
	CHECK(fi_store_entry_same(c, key, entry, &x));
	char *other = xasprintf("{\"key\": \"%s\", \"tactic\": 7}", key);
	CHECK(!fi_store_entry_same(c, key, other, &x));
	CHECK_STR(x.ours, "[8,1]");
	CHECK_STR(x.theirs, "7");
	free(x.key);
	free(x.ours);
	free(x.theirs);
	free(other);
	CHECK(!fi_store_entry_same(c, key, NULL, &x)); /* unreadable: a conflict with "?" */
	CHECK_STR(x.theirs, "?");
	free(x.key);
	free(x.ours);
	free(x.theirs);
	free(entry);
	entry = fi_store_entry(c, "odd", "{}", &kf); /* not a key: no key_fields */
	CHECK(!kf);
	CHECK(strstr(entry, "key_fields") == NULL);
	free(entry);
	char hash[65], *manifest;
	CHECK_INT(fi_store_manifest(fi_cache_meta(c), "v1", 16, hash, &manifest), 0);
	CHECK_INT(strlen(hash), 16);
	CHECK(strstr(manifest, "\"cache_schema\": \"v1\"") != NULL);
	free(manifest);
	struct fi_cache *bad = parse("{\"_metadata\": {\"gpu\": 1}}");
	CHECK_INT(fi_store_manifest(fi_cache_meta(bad), "v1", 16, hash, NULL), -1);
	fi_cache_free(bad);
	fi_cache_free(c);
}

const struct ttest_case cachefile_tests[] = {
	{ "cachefile_parse_and_keys", cachefile_parse_and_keys },
	{ "cachefile_bom_tactic_remove", cachefile_bom_tactic_remove },
	{ "cachefile_merge", cachefile_merge },
	{ "cachefile_metadata_rule", cachefile_metadata_rule },
	{ "cachefile_store", cachefile_store },
	{ NULL, NULL },
};
