/* test_util.c: string buffers, array growth, edit distance, atomic writes, file sets and their
 * rollback journal. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

/* --- file sets under a rollback journal ------------------------------------------------ */

/* dir/name's content, or "(none)" when it cannot be read. Caller frees. */
static char *slurp(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name), *text;
	size_t len;
	if (read_file(p, 0, &text, &len))
		text = xstrdup("(none)");
	free(p);
	return text;
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	CHECK_INT(write_file_atomic(p, text, strlen(text), 0644), 0);
	free(p);
}

/* The folder's entries, sorted, "|"-separated (hidden ones included). Caller frees. */
static char *listing(const char *dir)
{
	const char *names[64];
	size_t n = 0;
	DIR *dh = opendir(dir);
	for (struct dirent *de; dh && (de = readdir(dh)) && n < 64;)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			names[n++] = xstrdup(de->d_name);
	if (dh)
		closedir(dh);
	qsort(names, n, sizeof *names, str_ptr_cmp);
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "");
	for (size_t i = 0; i < n; i++) {
		sb_addf(&sb, "%s%s", i ? "|" : "", names[i]);
		free((char *)names[i]);
	}
	return sb_detach(&sb);
}

static void check_file(const char *dir, const char *name, const char *want)
{
	char *text = slurp(dir, name);
	CHECK_STR(text, want);
	free(text);
}

static void check_listing(const char *dir, const char *want)
{
	char *l = listing(dir);
	CHECK_STR(l, want);
	free(l);
}

/* Removes the folder's files and the folder (the tests' folders are flat, but for one). */
static void remove_tree(const char *dir)
{
	DIR *dh = opendir(dir);
	for (struct dirent *de; dh && (de = readdir(dh));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		if (unlink(p))
			rmdir(p);
		free(p);
	}
	if (dh)
		closedir(dh);
	rmdir(dir);
}

/* Stages name -> text for each pair of v (NULL-terminated) into s, under dir/.j. */
static void stage_all(struct file_set *s, const char *dir, const char *const *v)
{
	char *j = xasprintf("%s/.j", dir);
	file_set_undo(s, j);
	free(j);
	for (size_t i = 0; v[i]; i += 2) {
		char *p = xasprintf("%s/%s", dir, v[i]);
		CHECK_INT(file_set_stage(s, p, v[i + 1], strlen(v[i + 1]), 0644), 0);
		free(p);
	}
}

TEST(file_set_journal_commits)
{
	char dir[] = "/tmp/tunetab-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	put(dir, "a", "old a");
	put(dir, "b c", "old b");
	struct file_set s = { 0 };
	stage_all(&s, dir, (const char *const[]){ "a", "new a", "b c", "new b", "new", "new c", NULL });
	CHECK_INT(file_set_commit(&s), 0);
	check_file(dir, "a", "new a");
	check_file(dir, "b c", "new b");
	check_file(dir, "new", "new c");
	check_listing(dir, "a|b c|new"); /* no journal, backup or temp file left */
	remove_tree(dir);
}

TEST(file_set_journal_rolls_back_a_failed_rename)
{
	char dir[] = "/tmp/tunetab-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	put(dir, "a", "old a");
	put(dir, "c", "old c");
	put(dir, "d", "old d");
	struct file_set s = { 0 };
	stage_all(&s, dir, (const char *const[]){ "a", "new a", "b", "new b", "c", "new c", "d",
						  "new d", NULL });
	/* the third rename fails (its temp file is gone): a and b are in place by then */
	unlink(s.tmp[2]);
	CHECK_INT(file_set_commit(&s), ENOENT);
	check_file(dir, "a", "old a");
	check_file(dir, "c", "old c");
	check_file(dir, "d", "old d");
	check_listing(dir, "a|c|d"); /* b, which did not exist, is gone again; nothing else left */
	remove_tree(dir);
}

TEST(file_set_journal_stops_before_any_rename)
{
	char dir[] = "/tmp/tunetab-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	put(dir, "a", "old a");
	char *sub = xasprintf("%s/b", dir);
	CHECK_INT(mkdir(sub, 0755), 0); /* a folder: no hard link to it (EPERM), like chattr +i */
	struct stat before, after;
	char *a = xasprintf("%s/a", dir);
	CHECK_INT(stat(a, &before), 0);
	struct file_set s = { 0 };
	stage_all(&s, dir, (const char *const[]){ "a", "new a", "b", "new b", NULL });
	CHECK_INT(file_set_commit(&s), EPERM);
	CHECK_INT(stat(a, &after), 0);
	CHECK(before.st_ino == after.st_ino); /* a was never renamed over, not even put back */
	check_file(dir, "a", "old a");
	CHECK(path_is_dir(sub));
	check_listing(dir, "a|b");
	/* a journal already there (another commit's): refused, nothing touched */
	rmdir(sub);
	put(dir, ".j", "theirs");
	stage_all(&s, dir, (const char *const[]){ "a", "new a", NULL });
	CHECK_INT(file_set_commit(&s), EEXIST);
	check_file(dir, "a", "old a");
	check_file(dir, ".j", "theirs");
	check_listing(dir, ".j|a");
	remove_tree(dir);
	free(a);
	free(sub);
}

/* A commit killed after renaming "a 1" and "c" of {"a 1", b, c (new)}, as it leaves the
 * folder: backups, b's temp file, the journal; with restored_a, a recovery killed after
 * putting "a 1" back. */
static void killed_commit(const char *dir, bool restored_a)
{
	put(dir, "a 1", "old a");
	put(dir, "b", "old b");
	char *a = xasprintf("%s/a 1", dir), *b = xasprintf("%s/b", dir);
	char *abak = xasprintf("%s/.a 1.tmpAAAAAA.bak", dir), *bbak = xasprintf("%s/.b.tmpBBBBBB.bak", dir);
	CHECK_INT(link(a, abak), 0);
	CHECK_INT(link(b, bbak), 0);
	put(dir, ".b.tmpBBBBBB", "new b");
	put(dir, "a 1", "new a");
	put(dir, "c", "new c");
	if (restored_a)
		CHECK_INT(rename(abak, a), 0);
	/* the format util.h documents: paths relative to the journal's folder */
	put(dir, ".j", "tunetab file-set journal 1\n"
		       "file 3:a 1 18:.a 1.tmpAAAAAA.bak 14:.a 1.tmpAAAAAA\n"
		       "file 1:b 16:.b.tmpBBBBBB.bak 12:.b.tmpBBBBBB\n"
		       "file 1:c none 12:.c.tmpCCCCCC\n"
		       "end 3\n");
	free(a);
	free(b);
	free(abak);
	free(bbak);
}

TEST(file_set_recover_undoes_a_killed_commit)
{
	char dir[] = "/tmp/tunetab-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *j = xasprintf("%s/.j", dir);
	int found = -1;
	size_t restored = 99;
	CHECK_INT(file_set_recover(j, &found, &restored), 0); /* nothing there: nothing to do */
	CHECK_INT(found, 0);
	CHECK_INT(restored, 0);
	killed_commit(dir, false);
	CHECK_INT(file_set_recover(j, &found, &restored), 0);
	CHECK_INT(found, 1);
	CHECK_INT(restored, 2); /* "a 1" put back, c removed; b was never replaced */
	check_file(dir, "a 1", "old a");
	check_file(dir, "b", "old b");
	check_listing(dir, "a 1|b");
	CHECK_INT(file_set_recover(j, &found, &restored), 0); /* done: the journal is gone */
	CHECK_INT(found, 0);
	remove_tree(dir);
	free(j);
}

TEST(file_set_recover_again_after_a_killed_recovery)
{
	char dir[] = "/tmp/tunetab-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *j = xasprintf("%s/.j", dir);
	killed_commit(dir, true);
	int found;
	size_t restored;
	CHECK_INT(file_set_recover(j, &found, &restored), 0);
	CHECK_INT(found, 1);
	CHECK_INT(restored, 1); /* c; "a 1" was back already */
	check_file(dir, "a 1", "old a");
	check_file(dir, "b", "old b");
	check_listing(dir, "a 1|b");
	remove_tree(dir);
	free(j);
}

TEST(file_set_recover_refuses_another_version)
{
	char dir[] = "/tmp/tunetab-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *j = xasprintf("%s/.j", dir);
	put(dir, "a", "mine");
	const char *bad[] = {
		"tunetab file-set journal 2\nfile 1:a none 12:.a.tmpAAAAAA\nend 1\n",
		"tunetab file-set journal 1\nfile 1:a none 12:.a.tmpAAAAAA\n",   /* no end line */
		"tunetab file-set journal 1\nfile 9:a none 12:.a.tmpAAAAAA\nend 1\n", /* a length past it */
		"tunetab file-set journal 1\nfile 1:a none 12:.a.tmpAAAAAA\nend 2\n", /* a count that is not */
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		put(dir, ".j", bad[i]);
		int found = 0;
		CHECK_INT(file_set_recover(j, &found, NULL), EBADMSG);
		CHECK_INT(found, 1);
		check_file(dir, "a", "mine"); /* nothing done: not even the file it names removed */
		check_file(dir, ".j", bad[i]);
	}
	remove_tree(dir);
	free(j);
}

/* An undo log names only files of its own folder (issue #48: found by fuzzing, an undo log
 * whose temp file was "/rank.tmp..." had the recovery remove that file at the root): one that
 * names a path outside it, or a temp file or backup that is not its target's, is refused whole,
 * and nothing is touched; a commit of a file outside the undo log's folder fails before it
 * changes anything. */
TEST(file_set_recover_stays_in_its_folder)
{
	char dir[] = "/tmp/tunetab-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *in = xasprintf("%s/in", dir), *j = xasprintf("%s/in/.j", dir);
	CHECK_INT(mkdir(in, 0700), 0);
	put(dir, "outside", "theirs");
	put(dir, ".outside.tmpAAAAAA", "theirs too");
	put(in, "a", "mine");
	put(in, "b", "mine too");
	char *abs = xasprintf("tunetab file-set journal 1\nfile %zu:%s/outside none %zu:%s/.outside.tmpAAAAAA\n"
			      "end 1\n", strlen(dir) + 8, dir, strlen(dir) + 20, dir);
	const char *bad[] = {
		abs,
		"tunetab file-set journal 1\nfile 10:../outside none 21:../.outside.tmpAAAAAA\nend 1\n",
		"tunetab file-set journal 1\nfile 1:a 10:../outside 12:.a.tmpAAAAAA\nend 1\n",
		"tunetab file-set journal 1\nfile 1:a none 24:../in/../.a.tmpAAAAAA\nend 1\n",
		"tunetab file-set journal 1\nfile 1:a none 12:.b.tmpAAAAAA\nend 1\n", /* not a's */
		"tunetab file-set journal 1\nfile 1:a 1:b 12:.a.tmpAAAAAA\nend 1\n",
		"tunetab file-set journal 1\nfile 1:a none 11:.a.tmpAAAAA\nend 1\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		put(in, ".j", bad[i]);
		int found = 0;
		CHECK_INT(file_set_recover(j, &found, NULL), EBADMSG);
		CHECK_INT(found, 1);
		check_listing(dir, ".outside.tmpAAAAAA|in|outside");
		check_listing(in, ".j|a|b");
		check_file(dir, "outside", "theirs");
		check_file(in, "a", "mine");
		check_file(in, "b", "mine too");
	}
	free(abs);
	CHECK_INT(unlink(j), 0);
	/* the writer's side: a set with a file beside the undo log's folder is not committed */
	struct file_set s = { 0 };
	file_set_undo(&s, j);
	char *pa = xasprintf("%s/a", in), *po = xasprintf("%s/new", dir);
	CHECK_INT(file_set_stage(&s, pa, "new a", 5, 0644), 0);
	CHECK_INT(file_set_stage(&s, po, "new", 3, 0644), 0);
	CHECK_INT(file_set_commit(&s), EINVAL);
	check_listing(dir, ".outside.tmpAAAAAA|in|outside");
	check_listing(in, "a|b");
	check_file(in, "a", "mine");
	free(pa);
	free(po);
	remove_tree(in);
	remove_tree(dir);
	free(in);
	free(j);
}

TEST(file_set_undo_path_names)
{
	char *p = file_set_undo_path("out/x", "merge");
	CHECK_STR(p, "out/x/.tunetab-merge.journal");
	free(p);
}

/* A recovery waits for the folder's lock, which a commit holds from its journal to its end:
 * it never undoes a commit still under way. Here this test is that commit: it holds the lock
 * with a journal in place while a child process recovers, then ends (journal gone) and lets
 * go; the child finds nothing to undo and the new file stays. */
TEST(file_set_recover_waits_for_a_live_commit)
{
	char dir[] = "/tmp/tunetab-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *j = xasprintf("%s/.j", dir);
	put(dir, "c", "new c"); /* renamed in by the live commit */
	put(dir, ".j", "tunetab file-set journal 1\nfile 1:c none 12:.c.tmpCCCCCC\nend 1\n");
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0 && flock(fd, LOCK_EX) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd); /* the lock is the open file's: a copy would hold it for the child too */
		alarm(20);  /* a test that fails, not one that hangs */
		int found = -1;
		int e = file_set_recover(j, &found, NULL);
		_exit(e ? 10 : found == 0 ? 0 : 11);
	}
	CHECK(pid > 0);
	nanosleep(&(struct timespec){ .tv_nsec = 200000000L }, NULL);
	int status = 0;
	CHECK_INT(waitpid(pid, &status, WNOHANG), 0); /* still waiting for the lock */
	check_file(dir, "c", "new c");
	CHECK_INT(unlink(j), 0); /* the commit point */
	close(fd);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check_listing(dir, "c");
	remove_tree(dir);
	free(j);
}

TTEST_SUITE(util_tests) = {
	{ "strbuf_grows", strbuf_grows },
	{ "alloc_grow_appends", alloc_grow_appends },
	{ "edit_distance_counts", edit_distance_counts },
	{ "suggest_names_tokens_first", suggest_names_tokens_first },
	{ "parse_long_strict", parse_long_strict },
	{ "atomic_write_replaces_and_keeps_mode", atomic_write_replaces_and_keeps_mode },
	{ "read_file_limit", read_file_limit },
	{ "file_set_journal_commits", file_set_journal_commits },
	{ "file_set_journal_rolls_back_a_failed_rename", file_set_journal_rolls_back_a_failed_rename },
	{ "file_set_journal_stops_before_any_rename", file_set_journal_stops_before_any_rename },
	{ "file_set_recover_undoes_a_killed_commit", file_set_recover_undoes_a_killed_commit },
	{ "file_set_recover_again_after_a_killed_recovery", file_set_recover_again_after_a_killed_recovery },
	{ "file_set_recover_refuses_another_version", file_set_recover_refuses_another_version },
	{ "file_set_recover_stays_in_its_folder", file_set_recover_stays_in_its_folder },
	{ "file_set_undo_path_names", file_set_undo_path_names },
	{ "file_set_recover_waits_for_a_live_commit", file_set_recover_waits_for_a_live_commit },
	TTEST_END
};
