/* fijudge.c: FlashInfer's own loader as the judge of a lookup plan (fijudge.h). */
#include "flashinfer/fijudge.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "flashinfer/fienv.h"

#define PROTOCOL "tunetab-fi-judge"
#define PROTOCOL_VERSION 1

static json_t *request_json(const struct fijudge_request *r)
{
	json_t *ops = json_object(), *sets = json_array(), *files = json_array();
	for (size_t i = 0; i < r->nops; i++) {
		json_t *policy = json_loads(r->ops[i].policy, JSON_DECODE_ANY, NULL);
		if (json_is_array(policy))
			json_object_set_new(ops, r->ops[i].op, json_pack("{s:o}", "policy", policy));
		else
			json_decref(policy);
	}
	for (size_t i = 0; i < r->nkeysets; i++) {
		json_t *keys = json_array();
		for (size_t k = 0; k < r->keysets[i].n; k++)
			json_array_append_new(keys, json_string(r->keysets[i].v[k]));
		json_array_append_new(sets, keys);
	}
	for (size_t i = 0; i < r->npaths; i++)
		json_array_append_new(files, json_pack("{s:s, s:I}", "path", r->paths[i], "keyset",
						       (json_int_t)r->keyset[i]));
	return json_pack("{s:s, s:i, s:s, s:s?, s:o, s:o, s:o}", "protocol", PROTOCOL, "v",
			 PROTOCOL_VERSION, "flashinfer", r->flashinfer, "gpu", r->gpu, "ops", ops,
			 "keysets", sets, "files", files);
}

static char *str_dup(json_t *s)
{
	return json_is_string(s) ? xstrdup(json_string_value(s)) : NULL;
}

/* One file of the answer; false when it is not of the protocol's form. */
static bool read_file_answer(json_t *f, size_t nkeys, struct fijudge_file *out)
{
	static const char *loads[] = { [FIJ_MISSING] = "missing", [FIJ_LOADED] = "loaded",
				       [FIJ_IGNORED] = "ignored", [FIJ_RAISES] = "raises" };
	const char *load = json_string_value(json_object_get(f, "load"));
	json_t *keys = json_object_get(f, "keys");
	size_t l = 0;
	while (l < 4 && !(load && !strcmp(load, loads[l])))
		l++;
	if (l == 4 || !json_is_array(keys) || json_array_size(keys) != (l == FIJ_LOADED ? nkeys : 0))
		return false;
	out->load = (enum fijudge_load)l;
	out->detail = str_dup(json_object_get(f, "detail"));
	out->nkeys = json_array_size(keys);
	out->keys = xcalloc(out->nkeys ? out->nkeys : 1, sizeof *out->keys);
	for (size_t k = 0; k < out->nkeys; k++) {
		json_t *x = json_array_get(keys, k), *hit = json_object_get(x, "hit");
		struct fijudge_key *o = &out->keys[k];
		o->hit = json_is_true(hit) ? 1 : json_is_false(hit) ? 0 : -1;
		o->why = str_dup(json_object_get(x, "why"));
		o->looked_up = str_dup(json_object_get(x, "looked_up"));
	}
	return true;
}

static bool read_answer(const struct fijudge_request *r, json_t *a, struct fijudge_result *out,
			char *why, size_t n)
{
	const char *cannot = json_string_value(json_object_get(a, "cannot"));
	json_t *files = json_object_get(a, "files");
	if (cannot) {
		snprintf(why, n, "%s", cannot);
		return false;
	}
	out->flashinfer = str_dup(json_object_get(a, "flashinfer"));
	out->package = str_dup(json_object_get(a, "package"));
	out->files = xcalloc(r->npaths ? r->npaths : 1, sizeof *out->files);
	bool ok = out->flashinfer && out->package && json_array_size(files) == r->npaths;
	for (size_t i = 0; ok && i < r->npaths; i++, out->nfiles++)
		ok = read_file_answer(json_array_get(files, i), r->keysets[r->keyset[i]].n,
				      &out->files[i]);
	if (!ok)
		snprintf(why, n, "scripts/tunetab-fi-judge.py's answer is not of its protocol");
	return ok;
}

bool fijudge_run(const struct fijudge_request *r, struct fijudge_result *out, char *why,
		 size_t n)
{
	memset(out, 0, sizeof *out);
	const char *tmp = getenv("TMPDIR");
	tmp = tmp && *tmp ? tmp : "/tmp";
	char *path = xasprintf("%s/tunetab-fi-judge.XXXXXX", tmp);
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (fd >= 0 && !f)
		close(fd);
	json_t *req = request_json(r);
	bool written = f && !json_dumpf(req, f, JSON_COMPACT);
	json_decref(req);
	written = f && !fclose(f) && written;
	json_t *a = NULL;
	if (!written)
		snprintf(why, n, "cannot write its request in %s", tmp);
	else
		a = fienv_run(r->python, "tunetab-fi-judge.py", path, why, n);
	if (fd >= 0)
		unlink(path);
	free(path);
	bool ok = false;
	json_t *v = json_object_get(a, "v");
	const char *proto = json_string_value(json_object_get(a, "protocol"));
	if (a && (!proto || strcmp(proto, PROTOCOL)))
		snprintf(why, n, "%s gave no answer of scripts/tunetab-fi-judge.py", r->python);
	else if (a && json_integer_value(v) != PROTOCOL_VERSION)
		snprintf(why, n, "scripts/tunetab-fi-judge.py speaks protocol %lld, tunetab %d",
			 (long long)json_integer_value(v), PROTOCOL_VERSION);
	else if (a)
		ok = read_answer(r, a, out, why, n);
	json_decref(a);
	if (!ok)
		fijudge_release(out);
	return ok;
}

void fijudge_release(struct fijudge_result *out)
{
	for (size_t i = 0; i < out->nfiles; i++) {
		struct fijudge_file *f = &out->files[i];
		for (size_t k = 0; k < f->nkeys; k++) {
			free(f->keys[k].why);
			free(f->keys[k].looked_up);
		}
		free(f->keys);
		free(f->detail);
	}
	free(out->files);
	free(out->flashinfer);
	free(out->package);
	memset(out, 0, sizeof *out);
}
