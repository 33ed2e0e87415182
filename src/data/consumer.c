/* consumer.c: consumers' cache locations (configs/consumers/), loaded strictly with libcyaml;
 * templates rendered, keys hashed (consumer.h). */
#include "data/consumer.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "base/version.h"
#include "data/yamlload.h"

const char *const consumer_vars[] = {
	"root", "flashinfer", "sm", "key", "model_path", "torch_dtype", "quantization",
	"moe_runner_backend", "tp", "pp", "dp", "attn_dp", "moe_ep", "hf_config_class", "skip_ops",
	"tp_rank", "pp_rank", "dp_rank", "world_rank", "fi_arch", "dp_size", NULL,
};

static const cyaml_schema_value_t string_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, 512),
};

static const cyaml_schema_field_t root_fields[] = {
	CYAML_FIELD_STRING_PTR("path", CYAML_FLAG_POINTER, struct consumer_root, path, 1, 512),
	CYAML_FIELD_BOOL("expand", CYAML_FLAG_OPTIONAL, struct consumer_root, expand),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t root_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct consumer_root, root_fields),
};

static const cyaml_schema_field_t managed_fields[] = {
	CYAML_FIELD_UINT("max_ranks", CYAML_FLAG_DEFAULT, struct consumer_managed, max_ranks),
	CYAML_FIELD_STRING_PTR("flashinfer_min", CYAML_FLAG_POINTER, struct consumer_managed,
			       flashinfer_min, 1, 32),
	CYAML_FIELD_STRING_PTR("read", CYAML_FLAG_POINTER, struct consumer_managed, read, 1, 512),
	CYAML_FIELD_SEQUENCE("root", CYAML_FLAG_POINTER, struct consumer_managed, root,
			     &root_schema, 1, 16),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t version_fields[] = {
	CYAML_FIELD_STRING_PTR("min", CYAML_FLAG_POINTER, struct consumer_version, min, 1, 32),
	CYAML_FIELD_STRING_PTR("below", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer_version, below, 1, 32),
	CYAML_FIELD_STRING_PTR("read", CYAML_FLAG_POINTER, struct consumer_version, read, 1, 512),
	CYAML_FIELD_SEQUENCE("root", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct consumer_version,
			     root, &root_schema, 1, 16),
	CYAML_FIELD_STRING_PTR("dir", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer_version, dir, 1, 512),
	CYAML_FIELD_STRING_PTR("file", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer_version, file, 1, 256),
	CYAML_FIELD_UINT("key_hex", CYAML_FLAG_OPTIONAL, struct consumer_version, key_hex),
	CYAML_FIELD_STRING_PTR("key_join", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer_version, key_join, 0, 16),
	CYAML_FIELD_SEQUENCE("key_parts", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			     struct consumer_version, key_parts, &string_schema, 0, 64),
	CYAML_FIELD_BOOL("key_found", CYAML_FLAG_OPTIONAL, struct consumer_version, key_found),
	CYAML_FIELD_STRING_PTR("key_log", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer_version, key_log, 1, 256),
	CYAML_FIELD_BOOL("skips_tuning_when_loaded", CYAML_FLAG_OPTIONAL, struct consumer_version,
			 skips_tuning_when_loaded),
	CYAML_FIELD_MAPPING_PTR("managed", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
				struct consumer_version, managed, managed_fields),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t version_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct consumer_version, version_fields),
};

static const cyaml_schema_field_t store_fields[] = {
	CYAML_FIELD_STRING_PTR("dir", CYAML_FLAG_POINTER, struct consumer_store, dir, 1, 256),
	CYAML_FIELD_UINT("env_hash_hex", CYAML_FLAG_DEFAULT, struct consumer_store, env_hash_hex),
	CYAML_FIELD_UINT("entry_hash_hex", CYAML_FLAG_DEFAULT, struct consumer_store, entry_hash_hex),
	CYAML_FIELD_STRING_PTR("cache_schema", CYAML_FLAG_POINTER, struct consumer_store,
			       cache_schema, 1, 32),
	CYAML_FIELD_STRING_PTR("entry_policy", CYAML_FLAG_POINTER, struct consumer_store,
			       entry_policy, 2, 512),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t word_fields[] = {
	CYAML_FIELD_STRING_PTR("option", CYAML_FLAG_POINTER, struct consumer_word, option, 1, 128),
	CYAML_FIELD_STRING_PTR("value", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct consumer_word,
			       value, 1, 256),
	CYAML_FIELD_STRING_PTR("when", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct consumer_word,
			       when, 1, 256),
	CYAML_FIELD_SEQUENCE("omit", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct consumer_word,
			     omit, &string_schema, 0, 16),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t word_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct consumer_word, word_fields),
};

static const cyaml_schema_field_t consumer_fields[] = {
	CYAML_FIELD_STRING_PTR("id", CYAML_FLAG_POINTER, struct consumer, id, 1, 64),
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct consumer, name, 1, 128),
	CYAML_FIELD_SEQUENCE("tuning_backends", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			     struct consumer, tuning_backends, &string_schema, 0, 32),
	CYAML_FIELD_UINT("min_sm", CYAML_FLAG_OPTIONAL, struct consumer, min_sm),
	CYAML_FIELD_STRING_PTR("tuning_note", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer, tuning_note, 1, 1024),
	CYAML_FIELD_STRING_PTR("fused_finalize_env", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer, fused_finalize_env, 1, 128),
	CYAML_FIELD_BOOL("fused_finalize_default", CYAML_FLAG_OPTIONAL, struct consumer,
			 fused_finalize_default),
	CYAML_FIELD_STRING_PTR("attn_dp", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer, attn_dp, 1, 256),
	CYAML_FIELD_SEQUENCE("versions", CYAML_FLAG_POINTER, struct consumer, versions,
			     &version_schema, 1, 64),
	CYAML_FIELD_MAPPING_PTR("managed_store", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
				struct consumer, managed_store, store_fields),
	CYAML_FIELD_SEQUENCE("flags_command", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct consumer,
			     flags_command, &string_schema, 1, 16),
	CYAML_FIELD_SEQUENCE("flags_options", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct consumer,
			     flags_options, &word_schema, 0, 64),
	CYAML_FIELD_END
};

static const struct yaml_kind doc_kind =
	YAML_KIND(doc_kind, "consumer", struct consumer, consumer_fields);

void consumer_free(struct consumer *c)
{
	yaml_kind_free(&doc_kind, c);
}

static bool known_var(const char *name, size_t len)
{
	for (size_t i = 0; consumer_vars[i]; i++)
		if (strlen(consumer_vars[i]) == len && !strncmp(consumer_vars[i], name, len))
			return true;
	return false;
}

/* Every {name} of t is a variable tunetab fills (${NAME}: an environment variable); else an
 * error at ypath. */
static int check_template(const char *file, const char *ypath, const char *t, struct diags *d)
{
	for (const char *p = t; (p = strchr(p, '{'));) {
		if (p > t && p[-1] == '$') {
			const char *e = strchr(p, '}');
			if (!e || e == p + 1)
				return yaml_error_at(d, file, ypath, "bad '${' in '%s'", t);
			p = e + 1;
			continue;
		}
		const char *e = strchr(p, '}');
		if (!e)
			return yaml_error_at(d, file, ypath, "unclosed '{' in '%s'", t);
		if (!known_var(p + 1, (size_t)(e - p - 1)))
			return yaml_error_at(d, file, ypath, "'%.*s' is not a variable tunetab fills "
					     "(configs/consumers/README in consumer.h)", (int)(e - p + 1), p);
		p = e + 1;
	}
	return TT_OK;
}

int consumer_load(const char *data_root, const char *id, struct consumer **out, struct diags *d)
{
	*out = NULL;
	char *dir = xasprintf("%s/configs/consumers", data_root);
	char *path = xasprintf("%s/%s.yaml", dir, id);
	int rc = TT_OK;
	bool safe = *id && strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(id);
	FILE *f = safe ? fopen_read(path) : NULL;
	if (!f) {
		char **files = NULL;
		size_t n = 0;
		struct strbuf known = STRBUF_INIT;
		sb_addf(&known, "%s", "");
		if (!yaml_list_dir(dir, &files, &n))
			for (size_t i = 0; i < n; i++) {
				const char *b = strrchr(files[i], '/');
				b = b ? b + 1 : files[i];
				sb_addf(&known, "%s%.*s", i ? ", " : "", (int)(strlen(b) - 5), b);
				free(files[i]);
			}
		free(files);
		rc = diag_error(d, TT_INVALID, "consumer", NULL, 0, 0, "no consumer '%s' (known: %s)",
				id, known.buf);
		sb_release(&known);
		goto done;
	}
	fclose(f);
	struct consumer *c;
	if ((rc = yaml_kind_load(path, &doc_kind, (void **)&c, d)))
		goto done;
	if (strcmp(c->id, id))
		rc = yaml_error_at(d, path, "consumer.id", "id '%s' differs from the file name", c->id);
	for (unsigned i = 0; i < c->versions_count && !rc; i++) {
		const struct consumer_version *v = &c->versions[i];
		char yp[64];
		struct fi_version a, b;
		snprintf(yp, sizeof yp, "consumer.versions[%u].min", i);
		if (version_parse(v->min, &a))
			rc = yaml_error_at(d, path, yp, "'%s' is not a version", v->min);
		snprintf(yp, sizeof yp, "consumer.versions[%u].below", i);
		if (!rc && v->below && (version_parse(v->below, &b) || version_cmp(&a, &b) >= 0))
			rc = yaml_error_at(d, path, yp, "'%s' is not a version above min", v->below);
		snprintf(yp, sizeof yp, "consumer.versions[%u]", i);
		if (!rc && (!v->dir != !v->file || !v->dir != !v->root_count))
			rc = yaml_error_at(d, path, yp, "root, dir and file go together (or none of "
					   "them: the file is named with --cache-file)");
		snprintf(yp, sizeof yp, "consumer.versions[%u].dir", i);
		if (!rc && v->dir)
			rc = check_template(path, yp, v->dir, d);
		snprintf(yp, sizeof yp, "consumer.versions[%u].file", i);
		if (!rc && v->file)
			rc = check_template(path, yp, v->file, d);
		for (unsigned k = 0; k < v->key_parts_count && !rc; k++) {
			snprintf(yp, sizeof yp, "consumer.versions[%u].key_parts[%u]", i, k);
			rc = check_template(path, yp, v->key_parts[k], d);
		}
		snprintf(yp, sizeof yp, "consumer.versions[%u].key_hex", i);
		if (!rc && (v->key_parts_count || v->key_found) && (v->key_hex < 1 || v->key_hex > 64))
			rc = yaml_error_at(d, path, yp, "key_hex must be 1 to 64");
		snprintf(yp, sizeof yp, "consumer.versions[%u].key_found", i);
		if (!rc && v->key_found && v->key_parts_count)
			rc = yaml_error_at(d, path, yp, "a key is either found (key_found) or hashed "
					   "(key_parts), not both");
		for (unsigned k = 0; k < v->root_count && !rc; k++) {
			snprintf(yp, sizeof yp, "consumer.versions[%u].root[%u].path", i, k);
			rc = check_template(path, yp, v->root[k].path, d);
		}
		for (unsigned k = 0; v->managed && k < v->managed->root_count && !rc; k++) {
			snprintf(yp, sizeof yp, "consumer.versions[%u].managed.root[%u].path", i, k);
			rc = check_template(path, yp, v->managed->root[k].path, d);
		}
		snprintf(yp, sizeof yp, "consumer.versions[%u].managed.flashinfer_min", i);
		if (!rc && v->managed && version_parse(v->managed->flashinfer_min, &a))
			rc = yaml_error_at(d, path, yp, "'%s' is not a version", v->managed->flashinfer_min);
	}
	for (unsigned i = 0; i < c->flags_command_count && !rc; i++) {
		char yp[64];
		snprintf(yp, sizeof yp, "consumer.flags_command[%u]", i);
		rc = check_template(path, yp, c->flags_command[i], d);
	}
	for (unsigned i = 0; i < c->flags_options_count && !rc; i++) {
		const struct consumer_word *w = &c->flags_options[i];
		char yp[64];
		snprintf(yp, sizeof yp, "consumer.flags_options[%u]", i);
		if (!w->value == !w->when)
			rc = yaml_error_at(d, path, yp, "an option has a value or a when, one of them");
		else
			rc = check_template(path, yp, w->value ? w->value : w->when, d);
	}
	if (!rc && c->flags_options_count && !c->flags_command_count)
		rc = yaml_error_at(d, path, "consumer.flags_options", "flags_options need flags_command");
	if (!rc && c->managed_store) {
		const struct consumer_store *st = c->managed_store;
		json_t *pol = json_loads(st->entry_policy, 0, NULL);
		if (!json_is_array(pol))
			rc = yaml_error_at(d, path, "consumer.managed_store.entry_policy", "not a JSON array");
		else if (st->env_hash_hex < 1 || st->env_hash_hex > 64 || st->entry_hash_hex < 1 ||
			 st->entry_hash_hex > 64)
			rc = yaml_error_at(d, path, "consumer.managed_store", "hash digits must be 1 to 64");
		json_decref(pol);
	}
	if (rc)
		consumer_free(c);
	else
		*out = c;
done:
	free(dir);
	free(path);
	return rc;
}

const struct consumer_version *consumer_pick(const struct consumer *c, const char *version)
{
	const struct consumer_version *best = NULL;
	for (unsigned i = 0; i < c->versions_count; i++) {
		const struct consumer_version *v = &c->versions[i];
		if (version) {
			if (version_cmp_str(version, v->min) >= 0 &&
			    (!v->below || version_cmp_str(version, v->below) < 0))
				return v;
		} else if (!best || version_cmp_str(v->min, best->min) > 0) {
			best = v;
		}
	}
	return best;
}

/* A variable of the server's environment: envvar's, else tunetab's own. */
static const char *env_get(consumer_var_fn envvar, void *ctx, const char *name)
{
	return envvar ? envvar(ctx, name) : getenv(name);
}

static char *render_env(const char *tmpl, consumer_var_fn var, consumer_var_fn envvar, void *ctx,
			const char *key, struct diags *d)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s", "");
	for (const char *p = tmpl; *p;) {
		const char *o = strchr(p, '{'), *e = o ? strchr(o, '}') : NULL;
		if (!o || !e) {
			sb_addf(&sb, "%s", p);
			break;
		}
		bool env = o > p && o[-1] == '$';
		sb_addf(&sb, "%.*s", (int)(o - p - env), p);
		char *name = xstrndup(o + 1, (size_t)(e - o - 1));
		const char *val = env ? env_get(envvar, ctx, name)
				      : !strcmp(name, "key") ? key : var(ctx, name);
		if (!val) {
			diag_error(d, TT_USAGE, "consumer", NULL, 0, 0, "no value for {%s} (in '%s')",
				   name, tmpl);
			free(name);
			sb_release(&sb);
			return NULL;
		}
		sb_addf(&sb, "%s", val);
		free(name);
		p = e + 1;
	}
	return sb_detach(&sb);
}

static char *render_plain(const char *tmpl, consumer_var_fn var, void *ctx, const char *key,
			  struct diags *d)
{
	return render_env(tmpl, var, NULL, ctx, key, d);
}

char *consumer_render(const struct consumer_version *v, const char *tmpl, consumer_var_fn var,
		      void *ctx, struct diags *d)
{
	char key[65] = "";
	if (v->key_found) { /* the folder's name, found by the caller */
		const char *k = var(ctx, "key");
		snprintf(key, sizeof key, "%s", k ? k : "");
		if (!k && strstr(tmpl, "{key}")) {
			diag_error(d, TT_USAGE, "consumer", NULL, 0, 0, "no value for {key} (in '%s')", tmpl);
			return NULL;
		}
	} else if (strstr(tmpl, "{key}")) {
		struct strbuf joined = STRBUF_INIT;
		sb_addf(&joined, "%s", "");
		for (unsigned i = 0; i < v->key_parts_count; i++) {
			char *part = render_plain(v->key_parts[i], var, ctx, NULL, d);
			if (!part) {
				sb_release(&joined);
				return NULL;
			}
			sb_addf(&joined, "%s%s", i ? (v->key_join ? v->key_join : "") : "", part);
			free(part);
		}
		int bad = sha256_hex(joined.buf, joined.len, v->key_hex, key);
		sb_release(&joined);
		if (bad) {
			diag_error(d, TT_INTERNAL, "consumer", NULL, 0, 0, "sha256 failed");
			return NULL;
		}
	}
	return render_plain(tmpl, var, ctx, key, d);
}

/* The ${VAR}s of t are all set and non-empty. */
static bool env_set(const char *t, consumer_var_fn envvar, void *ctx, const char **first)
{
	static char name[128];
	*first = NULL;
	for (const char *p = t; (p = strstr(p, "${"));) {
		const char *e = strchr(p, '}');
		if (!e)
			return false;
		snprintf(name, sizeof name, "%.*s", (int)(e - p - 2), p + 2);
		if (!*first)
			*first = name;
		const char *v = env_get(envvar, ctx, name);
		if (!v || !*v)
			return false;
		p = e + 1;
	}
	return true;
}

const char *consumer_root_env(const struct consumer_root *roots, unsigned n)
{
	static char first_env[128];
	const char *f = NULL;
	if (n)
		env_set(roots[0].path, NULL, NULL, &f);
	if (!f)
		return NULL;
	snprintf(first_env, sizeof first_env, "%s", f);
	return first_env;
}

char *consumer_root(const struct consumer_root *roots, unsigned n, consumer_var_fn var,
		    consumer_var_fn envvar, void *ctx, const char **env, struct diags *d)
{
	*env = consumer_root_env(roots, n);
	const char *home = env_get(envvar, ctx, "HOME");
	for (unsigned i = 0; i < n; i++) {
		const char *f;
		if (!env_set(roots[i].path, envvar, ctx, &f))
			continue;
		char *r = render_env(roots[i].path, var, envvar, ctx, NULL, d);
		if (r && roots[i].expand && (!strcmp(r, "~") || !strncmp(r, "~/", 2)) && home) {
			char *x = xasprintf("%s%s", home, r + 1);
			free(r);
			r = x;
		}
		return r;
	}
	diag_error(d, TT_USAGE, "consumer", NULL, 0, 0, "no cache root applies (none of its "
		   "variables is set)");
	return NULL;
}

const struct consumer_managed *consumer_managed_for(const struct consumer_version *v,
						     unsigned ranks, const char *fi)
{
	const struct consumer_managed *m = v->managed;
	if (!m || ranks > m->max_ranks || !fi || version_cmp_str(fi, m->flashinfer_min) < 0)
		return NULL;
	return m;
}

char **consumer_flags_words(const struct consumer *c, consumer_var_fn var, void *ctx, size_t *n,
			    struct diags *d)
{
	*n = 0;
	if (!c->flags_command_count)
		return NULL;
	size_t cap = c->flags_command_count + 2 * (size_t)c->flags_options_count;
	char **w = xcalloc(cap, sizeof *w);
	bool bad = false;
	for (unsigned i = 0; i < c->flags_command_count && !bad; i++)
		bad = !(w[(*n)++] = render_plain(c->flags_command[i], var, ctx, NULL, d));
	for (unsigned i = 0; i < c->flags_options_count && !bad; i++) {
		const struct consumer_word *o = &c->flags_options[i];
		char *v = render_plain(o->value ? o->value : o->when, var, ctx, NULL, d);
		bool omit = !v;
		bad = !v;
		for (unsigned k = 0; v && k < o->omit_count && !omit; k++)
			omit = !strcmp(v, o->omit[k]);
		if (!omit) {
			w[(*n)++] = xstrdup(o->option);
			if (o->value)
				w[(*n)++] = xstrdup(v);
		}
		free(v);
	}
	if (bad) {
		free_strings(w, *n);
		*n = 0;
		return NULL;
	}
	return w;
}
