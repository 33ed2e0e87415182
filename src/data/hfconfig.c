/* hfconfig.c: Hugging Face config.json files found and read (hfconfig.h). */
#include "data/hfconfig.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/model.h"
#include "data/yamlload.h"

/* --- configs/hf/model-types.yaml ------------------------------------------------------- */

static const cyaml_schema_field_t type_fields[] = {
	CYAML_FIELD_STRING_PTR("model_type", CYAML_FLAG_POINTER, struct hf_model_type, model_type,
			       1, 64),
	CYAML_FIELD_STRING_PTR("config_class", CYAML_FLAG_POINTER, struct hf_model_type,
			       config_class, 1, 128),
	CYAML_FIELD_STRING_PTR("since", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct hf_model_type, since, 1, 32),
	CYAML_FIELD_STRING_PTR("hidden", CYAML_FLAG_POINTER, struct hf_model_type, hidden, 1, 128),
	CYAML_FIELD_STRING_PTR("intermediate", CYAML_FLAG_POINTER, struct hf_model_type,
			       intermediate, 1, 128),
	CYAML_FIELD_STRING_PTR("experts", CYAML_FLAG_POINTER, struct hf_model_type, experts, 1, 128),
	CYAML_FIELD_STRING_PTR("top_k", CYAML_FLAG_POINTER, struct hf_model_type, top_k, 1, 128),
	CYAML_FIELD_STRING_PTR("activation", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct hf_model_type, activation, 1, 64),
	CYAML_FIELD_STRING_PTR("activation_field", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct hf_model_type, activation_field, 1, 128),
	CYAML_FIELD_BOOL("biases", CYAML_FLAG_OPTIONAL, struct hf_model_type, biases),
	CYAML_FIELD_STRING_PTR("read", CYAML_FLAG_POINTER, struct hf_model_type, read, 1, 512),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t type_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct hf_model_type, type_fields),
};

static const cyaml_schema_field_t doc_fields[] = {
	CYAML_FIELD_SEQUENCE("hf_model_types", CYAML_FLAG_POINTER, struct hf_types, v, &type_schema,
			     1, 256),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t doc_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct hf_types, doc_fields),
};

void hf_types_free(struct hf_types *t)
{
	if (!t)
		return;
	free(t->path);
	t->path = NULL;
	yamldoc_free(&doc_schema, t);
}

int hf_types_load_file(const char *path, struct hf_types **out, struct diags *d)
{
	*out = NULL;
	struct hf_types *t;
	int rc = yamldoc_load(path, &doc_schema, (void **)&t, d);
	if (rc)
		return rc;
	t->path = xstrdup(path);
	for (unsigned i = 0; i < t->v_count && !rc; i++) {
		const struct hf_model_type *x = &t->v[i];
		char yp[64];
		snprintf(yp, sizeof yp, "hf_model_types[%u]", i);
		if (!x->activation == !x->activation_field)
			rc = yaml_error_at(d, path, yp, "give activation or activation_field, one of them");
		for (unsigned j = 0; j < i && !rc; j++)
			if (!strcmp(t->v[j].model_type, x->model_type))
				rc = yaml_error_at(d, path, yp, "model_type '%s' twice", x->model_type);
	}
	if (rc) {
		hf_types_free(t);
		return rc;
	}
	*out = t;
	return TT_OK;
}

int hf_types_load(const char *data_root, struct hf_types **out, struct diags *d)
{
	char *path = xasprintf("%s/configs/hf/model-types.yaml", data_root);
	int rc = hf_types_load_file(path, out, d);
	free(path);
	return rc;
}

const struct hf_model_type *hf_type_find(const struct hf_types *t, const char *model_type)
{
	for (unsigned i = 0; t && i < t->v_count; i++)
		if (!strcmp(t->v[i].model_type, model_type))
			return &t->v[i];
	return NULL;
}

/* --- finding config.json ------------------------------------------------------------- */


/* The hub cache folder, as huggingface_hub's constants compute it. Caller frees. */
static char *hub_cache(void)
{
	const char *v;
	if ((v = getenv("HF_HUB_CACHE")) && *v)
		return xstrdup(v);
	if ((v = getenv("HUGGINGFACE_HUB_CACHE")) && *v)
		return xstrdup(v);
	if ((v = getenv("HF_HOME")) && *v)
		return xasprintf("%s/hub", v);
	if ((v = getenv("XDG_CACHE_HOME")) && *v)
		return xasprintf("%s/huggingface/hub", v);
	const char *home = getenv("HOME");
	return xasprintf("%s/.cache/huggingface/hub", home && *home ? home : ".");
}

static bool hex40(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n == 40 && !s[n];
}

char *hf_config_find(const char *model_path, const char *revision, struct diags *d)
{
	if (path_is_dir(model_path)) {
		char *p = xasprintf("%s/config.json", model_path);
		if (path_is_file(p))
			return p;
		diag_error(d, TT_INVALID, "model-config", NULL, 0, 0, "the model folder '%s' has no "
			   "config.json", model_path);
		free(p);
		return NULL;
	}
	const char *slash = strchr(model_path, '/');
	if (!slash || slash == model_path || strchr(slash + 1, '/') || model_path[0] == '.') {
		diag_error(d, TT_INVALID, "model-config", NULL, 0, 0, "'%s' is neither a folder nor a "
			   "Hugging Face model id (ORG/NAME)", model_path);
		return NULL;
	}
	char *cache = hub_cache();
	struct strbuf repo = STRBUF_INIT;
	sb_addf(&repo, "%s/models--", cache);
	for (const char *p = model_path; *p; p++)
		if (*p == '/')
			sb_adds(&repo, "--");
		else
			sb_addc(&repo, *p);
	const char *rev = revision ? revision : "main";
	char *commit = NULL, *bad_ref = NULL;
	if (hex40(rev)) {
		commit = xstrdup(rev);
	} else {
		char *ref = xasprintf("%s/refs/%s", repo.buf, rev), *text = NULL;
		size_t len;
		if (!read_file(ref, 4096, &text, &len)) {
			text[strcspn(text, " \r\n")] = '\0';
			if (hex40(text))
				commit = xstrdup(text);
			else /* a hand-made cache: say what the ref holds (#48) */
				bad_ref = xasprintf("%s holds '%.60s', not a commit (40 hex digits, as "
						    "huggingface-cli writes it)", ref, text);
		}
		free(text);
		free(ref);
	}
	char *p = commit ? xasprintf("%s/snapshots/%s/config.json", repo.buf, commit) : NULL;
	if (bad_ref) {
		diag_error(d, TT_INVALID, "model-config", NULL, 0, 0, "no config.json of '%s' in the "
			   "Hugging Face cache: %s; give --model-config FILE", model_path, bad_ref);
		free(bad_ref);
	} else if (!p || !path_is_file(p)) {
		diag_error(d, TT_INVALID, "model-config", NULL, 0, 0, "no config.json of '%s' "
			   "(revision %s) here: not a folder, and not in the Hugging Face cache (%s); "
			   "download it there (huggingface-cli download %s config.json) or give "
			   "--model-config FILE", model_path, rev, repo.buf, model_path);
		free(p);
		p = NULL;
	}
	free(commit);
	sb_release(&repo);
	free(cache);
	return p;
}

/* --- reading it ----------------------------------------------------------------------- */

/* The value at a dotted path ("text_config.hidden_size"). */
static json_t *at_path(json_t *root, const char *path)
{
	json_t *v = root;
	const char *p = path;
	while (v && *p) {
		size_t n = strcspn(p, ".");
		v = json_is_object(v) ? json_object_getn(v, p, n) : NULL;
		p += n + (p[n] == '.');
	}
	return v;
}

/* Where "KEY" (field's last component) first appears in the file, as line and column (1, 1
 * when it does not): jansson keeps no positions. */
static void key_position(const char *file, const char *field, int *line, int *col)
{
	*line = *col = 1;
	const char *leaf = strrchr(field, '.');
	leaf = leaf ? leaf + 1 : field;
	char *text = NULL, *key = xasprintf("\"%s\"", leaf);
	size_t len;
	if (!read_file(file, 64u << 20, &text, &len)) {
		const char *at = strstr(text, key);
		for (const char *p = text; at && p < at; p++)
			if (*p == '\n')
				++*line, *col = 1;
			else
				++*col;
	}
	free(text);
	free(key);
}

/* A model size: a positive integer (exit 2 otherwise, issue #48: a value out of range is the
 * user's input, not a heuristic's fault); missing, exit 1. */
static int number(const char *file, json_t *root, const char *mt, const char *field,
		  const char *what, long *out, struct diags *d)
{
	json_t *v = at_path(root, field);
	if (!v)
		return diag_error(d, TT_INVALID, "model-config", file, 0, 0, "no '%s' (%s's %s, "
				  "configs/hf/model-types.yaml)", field, mt, what);
	if (!json_is_integer(v) || json_integer_value(v) < 1) {
		int line, col;
		key_position(file, field, &line, &col);
		return diag_error(d, TT_USAGE, "model-config", file, line, col, "'%s' (%s's %s, "
				  "configs/hf/model-types.yaml) must be a positive integer", field, mt,
				  what);
	}
	*out = (long)json_integer_value(v);
	return TT_OK;
}

/* The sizes read, in range (model_sizes_problem): exit 2 at the first key out of range. */
static int sizes_in_range(const char *file, const struct hf_model_type *t,
			  const struct hf_model *m, struct diags *d)
{
	char why[200];
	if (!model_sizes_problem(m->hidden, m->inter, m->experts, m->top_k, why, sizeof why))
		return TT_OK;
	const char *field = m->hidden > MODEL_HIDDEN_MAX ? t->hidden : m->inter > MODEL_INTER_MAX
		? t->intermediate : m->experts > MODEL_EXPERTS_MAX ? t->experts : m->top_k > m->experts
		? t->top_k : t->intermediate;
	int line, col;
	key_position(file, field, &line, &col);
	return diag_error(d, TT_USAGE, "model-config", file, line, col, "'%s': %s", field, why);
}

static char *str_or_null(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

/* The quantization a checkpoint declares: quantization_config, else (old ModelOpt exports)
 * hf_quant_config.json's "quantization" beside config.json. */
static void read_quant(json_t *root, const char *config_path, struct hf_model *m)
{
	json_t *q = json_object_get(root, "quantization_config"), *other = NULL;
	const char *from = config_path;
	char *alt = NULL;
	if (!json_is_object(q)) {
		const char *slash = strrchr(config_path, '/');
		alt = xasprintf("%.*shf_quant_config.json", slash ? (int)(slash - config_path + 1) : 0,
				config_path);
		FILE *f = fopen_read(alt); /* not a FIFO or a device (#48) */
		other = f ? json_loadf(f, 0, NULL) : NULL;
		if (f)
			fclose(f);
		q = json_object_get(other, "quantization");
		if (json_is_object(q)) {
			from = alt;
			if (!json_object_get(q, "quant_method"))
				m->quant_method = xstrdup("modelopt");
		}
	}
	if (json_is_object(q)) {
		m->quantized = true;
		m->quant_from = xstrdup(from);
		if (!m->quant_method)
			m->quant_method = str_or_null(q, "quant_method");
		m->quant_algo = str_or_null(q, "quant_algo");
		m->activation_scheme = str_or_null(q, "activation_scheme");
		json_t *b = json_object_get(q, "weight_block_size");
		if (json_array_size(b) == 2) {
			m->weight_block = true;
			m->block[0] = (long)json_integer_value(json_array_get(b, 0));
			m->block[1] = (long)json_integer_value(json_array_get(b, 1));
		}
	}
	/* the exclude list under the first name the consumers read it by (SGLang 0.5.23
	 * modelopt_quant.py:1595-1702; vLLM 0.34.0 modelopt.py) */
	static const char *const lists[] = { "ignore", "modules_to_not_convert", "exclude_modules" };
	for (size_t l = 0; l < ARRAY_SIZE(lists) && json_is_object(q) && !m->exclude_from; l++) {
		json_t *a = json_object_get(q, lists[l]);
		if (!json_is_array(a))
			continue;
		m->exclude_from = xasprintf("%s: %s%s", from, other ? "quantization." : "quantization_config.",
					    lists[l]);
		m->exclude = xcalloc(json_array_size(a) + 1, sizeof *m->exclude);
		size_t i;
		json_t *x;
		json_array_foreach(a, i, x)
			if (json_is_string(x))
				m->exclude[m->nexclude++] = xstrdup(json_string_value(x));
	}
	json_decref(other);
	free(alt);
}

/* The config's top-level scalars (hf_model.scalars). */
static void read_scalars(json_t *root, struct hf_model *m)
{
	m->scalars = xcalloc(json_object_size(root) + 1, sizeof *m->scalars);
	const char *k;
	json_t *v;
	json_object_foreach(root, k, v) {
		if (json_is_array(v) && json_array_size(v) <= 512 && !strchr(k, '.')) {
			/* a list of numbers (Qwen3's mlp_only_layers): NAME.1, NAME.2, ... */
			m->scalars = xrealloc(m->scalars, (m->nscalars + json_array_size(v) + 1 +
							   json_object_size(root)) * sizeof *m->scalars);
			size_t i;
			json_t *e;
			json_array_foreach(v, i, e)
				if (json_is_integer(e))
					m->scalars[m->nscalars++] = (struct hf_scalar){
						.name = xasprintf("%s.%zu", k, i + 1),
						.i = (long long)json_integer_value(e) };
			continue;
		}
		struct hf_scalar x = { 0 };
		if (json_is_integer(v))
			x.i = (long long)json_integer_value(v);
		else if (json_is_boolean(v))
			x.i = json_is_true(v), x.is_bool = true;
		else if (json_is_string(v))
			x.s = xstrdup(json_string_value(v));
		else
			continue;
		x.name = xstrdup(k);
		m->scalars[m->nscalars++] = x;
	}
}

int hf_model_read(const struct hf_types *types, const char *config_path, struct hf_model *m,
		  struct diags *d)
{
	memset(m, 0, sizeof *m);
	m->config_path = xstrdup(config_path);
	json_error_t err;
	FILE *f = fopen_read(config_path); /* not a FIFO or a device (#48) */
	if (!f) {
		int e = errno;
		return diag_error(d, path_err_status(e), "model-config", config_path, 0, 0,
				  "cannot read: %s", path_strerror(config_path, e));
	}
	json_t *root = json_loadf(f, 0, &err);
	fclose(f);
	if (!root)
		return diag_error(d, TT_INVALID, "model-config", config_path, err.line > 0 ? err.line : 1,
				  err.column > 0 ? err.column : 1, "not JSON: %s", err.text);
	int rc = TT_OK;
	json_t *mt = json_object_get(root, "model_type");
	if (!json_is_string(mt)) {
		rc = diag_error(d, TT_INVALID, "model-config", config_path, 1, 1, "no \"model_type\": "
				"not a Hugging Face model config");
		goto out;
	}
	m->model_type = xstrdup(json_string_value(mt));
	json_t *arch = json_array_get(json_object_get(root, "architectures"), 0);
	m->architecture = json_is_string(arch) ? xstrdup(json_string_value(arch)) : NULL;
	if (!(m->type = hf_type_find(types, m->model_type))) {
		struct strbuf known = STRBUF_INIT;
		for (unsigned i = 0; i < types->v_count; i++)
			sb_addf(&known, "%s%s", i ? ", " : "", types->v[i].model_type);
		rc = diag_error(d, TT_INVALID, "model-config", config_path, 0, 0, "model_type '%s' is "
				"not in %s (known: %s): add it there (its config class and where its "
				"config.json keeps the experts' numbers)", m->model_type, types->path,
				known.buf);
		sb_release(&known);
		goto out;
	}
	const struct hf_model_type *t = m->type;
	if ((rc = number(config_path, root, t->model_type, t->hidden, "hidden size", &m->hidden, d)) ||
	    (rc = number(config_path, root, t->model_type, t->intermediate, "expert intermediate size",
			 &m->inter, d)) ||
	    (rc = number(config_path, root, t->model_type, t->experts, "routed experts", &m->experts, d)) ||
	    (rc = number(config_path, root, t->model_type, t->top_k, "experts per token", &m->top_k, d)) ||
	    (rc = sizes_in_range(config_path, t, m, d)))
		goto out;
	if (t->activation) {
		m->activation = xstrdup(t->activation);
	} else {
		json_t *a = at_path(root, t->activation_field);
		if (!json_is_string(a)) {
			rc = diag_error(d, TT_INVALID, "model-config", config_path, 0, 0, "no '%s' (%s's "
					"activation, configs/hf/model-types.yaml)", t->activation_field,
					t->model_type);
			goto out;
		}
		m->activation = xstrdup(json_string_value(a));
	}
	m->biases = t->biases;
	/* transformers 5 writes "dtype", 4 "torch_dtype" */
	m->torch_dtype = str_or_null(root, "dtype");
	if (!m->torch_dtype)
		m->torch_dtype = str_or_null(root, "torch_dtype");
	read_quant(root, config_path, m);
	read_scalars(root, m);
out:
	json_decref(root);
	return rc;
}

void hf_model_release(struct hf_model *m)
{
	free(m->config_path);
	free(m->model_type);
	free(m->architecture);
	free(m->activation);
	free(m->torch_dtype);
	free(m->quant_method);
	free(m->quant_algo);
	free(m->quant_from);
	free(m->activation_scheme);
	free_strings(m->exclude, m->nexclude);
	free(m->exclude_from);
	for (size_t i = 0; i < m->nscalars; i++) {
		free(m->scalars[i].name);
		free(m->scalars[i].s);
	}
	free(m->scalars);
	memset(m, 0, sizeof *m);
}
