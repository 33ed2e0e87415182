/* consumer.c: consumers' cache locations (configs/consumers/), loaded strictly with libcyaml;
 * templates rendered, keys hashed (consumer.h). */
#include "consumer.h"

#include <openssl/evp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "version.h"
#include "yamlload.h"

const char *const consumer_vars[] = {
	"root", "flashinfer", "sm", "key", "model_path", "torch_dtype", "quantization",
	"moe_runner_backend", "tp", "pp", "attn_dp", "moe_ep", "hf_config_class", "skip_ops",
	"tp_rank", "pp_rank", "dp_rank", NULL,
};

struct consumer_doc {
	struct consumer *consumer;
};

static const cyaml_schema_value_t string_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, 512),
};

static const cyaml_schema_field_t version_fields[] = {
	CYAML_FIELD_STRING_PTR("min", CYAML_FLAG_POINTER, struct consumer_version, min, 1, 32),
	CYAML_FIELD_STRING_PTR("below", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer_version, below, 1, 32),
	CYAML_FIELD_STRING_PTR("read", CYAML_FLAG_POINTER, struct consumer_version, read, 1, 512),
	CYAML_FIELD_STRING_PTR("root_env", CYAML_FLAG_POINTER, struct consumer_version, root_env,
			       1, 128),
	CYAML_FIELD_STRING_PTR("root_default", CYAML_FLAG_POINTER, struct consumer_version,
			       root_default, 1, 512),
	CYAML_FIELD_STRING_PTR("dir", CYAML_FLAG_POINTER, struct consumer_version, dir, 1, 512),
	CYAML_FIELD_STRING_PTR("file", CYAML_FLAG_POINTER, struct consumer_version, file, 1, 256),
	CYAML_FIELD_UINT("key_hex", CYAML_FLAG_OPTIONAL, struct consumer_version, key_hex),
	CYAML_FIELD_STRING_PTR("key_join", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer_version, key_join, 0, 16),
	CYAML_FIELD_SEQUENCE("key_parts", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			     struct consumer_version, key_parts, &string_schema, 0, 64),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t version_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct consumer_version, version_fields),
};

static const cyaml_schema_field_t consumer_fields[] = {
	CYAML_FIELD_STRING_PTR("id", CYAML_FLAG_POINTER, struct consumer, id, 1, 64),
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct consumer, name, 1, 128),
	CYAML_FIELD_SEQUENCE("tuning_backends", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			     struct consumer, tuning_backends, &string_schema, 0, 32),
	CYAML_FIELD_UINT("min_sm", CYAML_FLAG_OPTIONAL, struct consumer, min_sm),
	CYAML_FIELD_STRING_PTR("fused_finalize_env", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct consumer, fused_finalize_env, 1, 128),
	CYAML_FIELD_BOOL("fused_finalize_default", CYAML_FLAG_OPTIONAL, struct consumer,
			 fused_finalize_default),
	CYAML_FIELD_SEQUENCE("versions", CYAML_FLAG_POINTER, struct consumer, versions,
			     &version_schema, 1, 64),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t doc_fields[] = {
	CYAML_FIELD_MAPPING_PTR("consumer", CYAML_FLAG_POINTER, struct consumer_doc, consumer,
				consumer_fields),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t doc_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct consumer_doc, doc_fields),
};

static const cyaml_schema_value_t consumer_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct consumer, consumer_fields),
};

void consumer_free(struct consumer *c)
{
	if (!c)
		return;
	free(c->path);
	c->path = NULL;
	yamldoc_free(&consumer_schema, c);
}

static bool known_var(const char *name, size_t len)
{
	for (size_t i = 0; consumer_vars[i]; i++)
		if (strlen(consumer_vars[i]) == len && !strncmp(consumer_vars[i], name, len))
			return true;
	return false;
}

/* Every {name} of t is a variable tunetab fills; else an error at ypath. */
static int check_template(const char *file, const char *ypath, const char *t, struct diags *d)
{
	for (const char *p = t; (p = strchr(p, '{'));) {
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
	FILE *f = safe ? fopen(path, "r") : NULL;
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
	struct consumer_doc *doc;
	if ((rc = yamldoc_load(path, &doc_schema, (void **)&doc, d)))
		goto done;
	struct consumer *c = doc->consumer;
	doc->consumer = NULL;
	yamldoc_free(&doc_schema, doc);
	c->path = xstrdup(path);
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
		snprintf(yp, sizeof yp, "consumer.versions[%u].dir", i);
		if (!rc)
			rc = check_template(path, yp, v->dir, d);
		snprintf(yp, sizeof yp, "consumer.versions[%u].file", i);
		if (!rc)
			rc = check_template(path, yp, v->file, d);
		for (unsigned k = 0; k < v->key_parts_count && !rc; k++) {
			snprintf(yp, sizeof yp, "consumer.versions[%u].key_parts[%u]", i, k);
			rc = check_template(path, yp, v->key_parts[k], d);
		}
		snprintf(yp, sizeof yp, "consumer.versions[%u].key_hex", i);
		if (!rc && v->key_parts_count && (v->key_hex < 1 || v->key_hex > 64))
			rc = yaml_error_at(d, path, yp, "key_hex must be 1 to 64");
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

static char *render_plain(const char *tmpl, consumer_var_fn var, void *ctx, const char *key,
			  struct diags *d)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s", "");
	for (const char *p = tmpl; *p;) {
		const char *o = strchr(p, '{'), *e = o ? strchr(o, '}') : NULL;
		if (!o || !e) {
			sb_addf(&sb, "%s", p);
			break;
		}
		sb_addf(&sb, "%.*s", (int)(o - p), p);
		char *name = xstrndup(o + 1, (size_t)(e - o - 1));
		const char *val = !strcmp(name, "key") ? key : var(ctx, name);
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

char *consumer_render(const struct consumer_version *v, const char *tmpl, consumer_var_fn var,
		      void *ctx, struct diags *d)
{
	char key[65] = "";
	if (strstr(tmpl, "{key}")) {
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
		unsigned char md[EVP_MAX_MD_SIZE];
		unsigned mdlen = 0;
		int ok = EVP_Digest(joined.buf, joined.len, md, &mdlen, EVP_sha256(), NULL);
		sb_release(&joined);
		if (!ok) {
			diag_error(d, TT_INTERNAL, "consumer", NULL, 0, 0, "sha256 failed");
			return NULL;
		}
		for (unsigned i = 0; i < mdlen && 2 * i < v->key_hex; i++)
			snprintf(key + 2 * i, 3, "%02x", md[i]);
		key[v->key_hex] = '\0';
	}
	return render_plain(tmpl, var, ctx, key, d);
}
