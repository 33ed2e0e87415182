/* test_util.c: string buffers, array growth, edit distance, atomic writes. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ttest.h"
#include "base/util.h"

TEST(strbuf_grows)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 1000; i++)
		sb_addf(&sb, "%d,", i);
	CHECK(sb.len == strlen(sb.buf));
	CHECK(str_starts(sb.buf, "0,1,2,"));
	CHECK(str_ends(sb.buf, "998,999,"));
	char *s = sb_detach(&sb);
	CHECK(sb.buf == NULL && sb.len == 0);
	free(s);
}

TEST(alloc_grow_appends)
{
	int *v = NULL;
	size_t n = 0, alloc = 0;
	for (int i = 0; i < 1000; i++) {
		ALLOC_GROW(v, n + 1, alloc);
		CHECK(alloc >= n + 1);
		v[n++] = i;
	}
	CHECK(v[0] == 0 && v[999] == 999);
	size_t before = alloc;
	ALLOC_GROW(v, n, alloc); /* room already there: nothing moves */
	CHECK(alloc == before);
	ALLOC_GROW(v, 100000, alloc); /* a jump past the geometric step takes the size asked */
	CHECK(alloc == 100000 && v[999] == 999);
	free(v);
}

TEST(suggest_names_tokens_first)
{
	const char *names[] = { "NVIDIA H100 PCIe", "NVIDIA H20", "NVIDIA RTX PRO 6000 Blackwell Server Edition",
				"rtx-pro-6000-server", "glm-4-5", "GLM-5", "deepseek-v3" };
	const char *disp[] = { "H100", "H20", "RTX PRO 6000", "RTX PRO 6000", "glm-4-5", "glm-5", "deepseek-v3" };
	const char *out[3];
	/* shared words beat a short edit distance; an alias and a name of one thing count once */
	CHECK_INT(suggest_names("rtx 6000 pro", names, disp, 7, out, 3), 1);
	CHECK_STR(out[0], "RTX PRO 6000");
	/* letters and digits alike: glm5 is GLM-5 before glm-4-5 */
	CHECK_INT(suggest_names("glm5", names, disp, 7, out, 3), 2);
	CHECK_STR(out[0], "glm-5");
	CHECK_STR(out[1], "glm-4-5");
	/* a shared number alone suggests nothing, nor does a far name */
	CHECK_INT(suggest_names("llama3", names, disp, 7, out, 3), 0);
	CHECK_INT(suggest_names("/dev/zero", names, disp, 7, out, 3), 0);
	/* no shared word, but a near spelling */
	CHECK_INT(suggest_names("deepsek-v3", names, disp, 7, out, 3), 1);
	CHECK_STR(out[0], "deepseek-v3");
}

TEST(edit_distance_counts)
{
	CHECK_INT(edit_distance("NVIDIA H200", "NVIDIA H200"), 0);
	CHECK_INT(edit_distance("NVIDIA H200", "nvidia h200"), 0);
	CHECK_INT(edit_distance("NVIDIA H100", "NVIDIA H200"), 1);
	CHECK_INT(edit_distance("", "abc"), 3);
	CHECK_INT(edit_distance("kitten", "sitting"), 3);
}

TEST(parse_long_strict)
{
	long v;
	CHECK(parse_long("42", &v) == 0 && v == 42);
	CHECK(parse_long("-7", &v) == 0 && v == -7);
	CHECK(parse_long("4x", &v) != 0);
	CHECK(parse_long("", &v) != 0);
	CHECK(parse_long(" 4", &v) != 0);
	CHECK(parse_long("99999999999999999999999", &v) != 0);
}

TEST(atomic_write_replaces_and_keeps_mode)
{
	char dir[] = "/tmp/tunetab-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/out.txt", dir);
	CHECK_INT(write_file_atomic(path, "one", 3, 0640), 0);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
	chmod(path, 0600);
	CHECK_INT(write_file_atomic(path, "second", 6, 0644), 0);
	char *text;
	size_t len;
	CHECK_INT(read_file(path, 0, &text, &len), 0);
	CHECK_STR(text, "second");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	free(text);
	/* a folder that does not exist: error, nothing created */
	char *bad = xasprintf("%s/missing/out.txt", dir);
	CHECK(write_file_atomic(bad, "x", 1, 0644) != 0);
	CHECK(access(bad, F_OK) != 0);
	unlink(path);
	rmdir(dir);
	free(bad);
	free(path);
}

TEST(read_file_limit)
{
	char *text;
	size_t len;
	CHECK_INT(read_file("/etc/hostname", 1, &text, &len) == ENOBUFS || access("/etc/hostname", R_OK), 1);
	CHECK(read_file("/nonexistent/file", 0, &text, &len) != 0);
}

TTEST_SUITE(util_tests) = {
	{ "strbuf_grows", strbuf_grows },
	{ "alloc_grow_appends", alloc_grow_appends },
	{ "edit_distance_counts", edit_distance_counts },
	{ "suggest_names_tokens_first", suggest_names_tokens_first },
	{ "parse_long_strict", parse_long_strict },
	{ "atomic_write_replaces_and_keeps_mode", atomic_write_replaces_and_keeps_mode },
	{ "read_file_limit", read_file_limit },
	TTEST_END
};
