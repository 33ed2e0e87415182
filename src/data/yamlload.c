/* yamlload.c: strict libcyaml loading with located errors, and path lookup with libyaml. */
#include "data/yamlload.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/util.h"

#define YAML_MAX_BYTES (4u << 20) /* data files are small; refuse anything absurd */

struct log_capture {
	struct strbuf first;  /* the first error message */
	char field[128];      /* innermost "mapping field 'x'" */
	int line, col;        /* innermost position */
	int have_pos;
};

static void capture_log(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
	struct log_capture *c = ctx;
	if (level < CYAML_LOG_ERROR)
		return;
	char *msg = xvasprintf(fmt, args);
	char *s = msg;
	if (str_starts(s, "Load: "))
		s += 6;
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	const char *pos = strstr(s, "(line: ");
	if (pos && strstr(s, "in ")) {
		if (!c->have_pos && sscanf(pos, "(line: %d, column: %d)", &c->line, &c->col) == 2) {
			c->have_pos = 1;
			const char *f = strstr(s, "field '");
			if (f) {
				f += 7;
				const char *e = strchr(f, '\'');
				if (e && (size_t)(e - f) < sizeof c->field) {
					memcpy(c->field, f, (size_t)(e - f));
					c->field[e - f] = '\0';
				}
			}
		}
	} else if (!c->first.len && !str_starts(s, "Backtrace")) {
		if (n > 200)
			memcpy(s + 197, "...", 4); /* libcyaml quotes whole values: keep it one line */
		sb_adds(&c->first, s);
	}
	free(msg);
}

/* libcyaml reports an unknown key at its mapping; find the key itself. */
static void locate_key(const char *path, const char *key, int from_line, int *line, int *col)
{
	FILE *f = fopen_read(path);
	if (!f)
		return;
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	yaml_event_t ev;
	while (yaml_parser_parse(&p, &ev)) {
		int done = ev.type == YAML_STREAM_END_EVENT;
		if (ev.type == YAML_SCALAR_EVENT && (int)ev.start_mark.line + 1 >= from_line &&
		    strcmp((const char *)ev.data.scalar.value, key) == 0) {
			*line = (int)ev.start_mark.line + 1;
			*col = (int)ev.start_mark.column + 1;
			done = 1;
		}
		yaml_event_delete(&ev);
		if (done)
			break;
	}
	yaml_parser_delete(&p);
	fclose(f);
}

/* libyaml's own syntax error, which libcyaml reports without a position. */
static int syntax_error(const char *path, struct strbuf *msg, int *line, int *col)
{
	FILE *f = fopen_read(path);
	if (!f)
		return 0;
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	yaml_event_t ev;
	int found = 0;
	for (;;) {
		if (!yaml_parser_parse(&p, &ev)) {
			found = 1;
			*line = (int)p.problem_mark.line + 1;
			*col = (int)p.problem_mark.column + 1;
			sb_reset(msg);
			sb_addf(msg, "yaml syntax error: %s", p.problem ? p.problem : "unknown");
			if (p.context)
				sb_addf(msg, " %s", p.context);
			break;
		}
		int end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (end)
			break;
	}
	yaml_parser_delete(&p);
	fclose(f);
	return found;
}

static void rewrite_message(struct strbuf *out, const char *raw, const char *field)
{
	char key[128];
	if (sscanf(raw, "Unexpected key: %127s", key) == 1) {
		sb_addf(out, "unknown key '%s'", key);
		return;
	}
	if (sscanf(raw, "Missing required mapping field: %127s", key) == 1) {
		sb_addf(out, "missing required key '%s'", key);
		return;
	}
	if (!*raw)
		raw = "invalid document";
	sb_addc(out, (char)(raw[0] >= 'A' && raw[0] <= 'Z' && raw[1] >= 'a' ? raw[0] + 32 : raw[0]));
	sb_adds(out, raw + 1);
	if (*field)
		sb_addf(out, " (key '%s')", field);
}

int yamldoc_read(const char *path, char **text, size_t *len, struct diags *d)
{
	int err = read_file(path, YAML_MAX_BYTES, text, len);
	if (err == ENOBUFS)
		return diag_error(d, TT_INVALID, "yaml-size", path, 0, 0,
				  "file larger than %u bytes", YAML_MAX_BYTES);
	if (err)
		return diag_error(d, path_err_status(err), "io", path, 0, 0, "cannot read file: %s",
				  path_strerror(path, err));
	return TT_OK;
}

int yamldoc_load(const char *path, const cyaml_schema_value_t *schema, void **out, struct diags *d)
{
	*out = NULL;
	char *text;
	size_t len;
	int rc = yamldoc_read(path, &text, &len, d);
	if (rc)
		return rc;
	rc = yamldoc_load_text(path, text, len, schema, out, d);
	free(text);
	return rc;
}

int yamldoc_load_text(const char *path, const char *text, size_t len,
		      const cyaml_schema_value_t *schema, void **out, struct diags *d)
{
	*out = NULL;
	struct log_capture cap = { .first = STRBUF_INIT };
	cyaml_config_t cfg = {
		.log_fn = capture_log,
		.log_ctx = &cap,
		.mem_fn = cyaml_mem,
		.log_level = CYAML_LOG_ERROR,
		.flags = CYAML_CFG_DEFAULT,
	};
	cyaml_err_t e = cyaml_load_data((const uint8_t *)text, len, &cfg, schema, out, NULL);
	if (e == CYAML_OK && *out) {
		sb_release(&cap.first);
		return TT_OK;
	}
	if (e == CYAML_OK) {
		sb_release(&cap.first);
		return diag_error(d, TT_INVALID, "yaml-schema", path, 1, 1, "empty document");
	}
	*out = NULL;
	struct strbuf msg = STRBUF_INIT;
	int line = cap.line, col = cap.col;
	if (e == CYAML_ERR_LIBYAML_PARSER && syntax_error(path, &msg, &line, &col)) {
		/* message already set from libyaml */
	} else {
		rewrite_message(&msg, cap.first.len ? cap.first.buf : cyaml_strerror(e), cap.field);
		char key[128];
		if (cap.first.len && sscanf(cap.first.buf, "Unexpected key: %127s", key) == 1)
			locate_key(path, key, line, &line, &col);
	}
	diags_add(d, SEV_ERROR, "yaml-schema", path, line, col, "%s", msg.buf);
	sb_release(&msg);
	sb_release(&cap.first);
	return TT_INVALID;
}

int yamldoc_parse(const char *text, size_t len, const cyaml_schema_value_t *schema, void **out)
{
	*out = NULL;
	cyaml_config_t cfg = { .mem_fn = cyaml_mem, .log_level = CYAML_LOG_ERROR,
			       .flags = CYAML_CFG_DEFAULT }; /* no log_fn: silent */
	if (cyaml_load_data((const uint8_t *)text, len, &cfg, schema, out, NULL) == CYAML_OK && *out)
		return 0;
	*out = NULL;
	return -1;
}

void yamldoc_free(const cyaml_schema_value_t *schema, void *doc)
{
	if (!doc)
		return;
	cyaml_config_t cfg = { .mem_fn = cyaml_mem, .log_level = CYAML_LOG_ERROR };
	cyaml_free(&cfg, schema, doc, 0);
}

int yaml_kind_load(const char *path, const struct yaml_kind *k, void **obj, struct diags *d)
{
	char *text;
	size_t len;
	*obj = NULL;
	int rc = yamldoc_read(path, &text, &len, d);
	if (rc)
		return rc;
	rc = yaml_kind_load_text(path, text, len, k, obj, d);
	free(text);
	return rc;
}

int yaml_kind_load_text(const char *path, const char *text, size_t len, const struct yaml_kind *k,
			void **obj, struct diags *d)
{
	void **doc;
	*obj = NULL;
	int rc = yamldoc_load_text(path, text, len, &k->doc, (void **)&doc, d);
	if (rc)
		return rc;
	*obj = doc[0];
	doc[0] = NULL;
	yamldoc_free(&k->doc, doc);
	char *copy = xstrdup(path);
	memcpy((char *)*obj + k->path_at, &copy, sizeof copy);
	return TT_OK;
}

void yaml_kind_free(const struct yaml_kind *k, void *obj)
{
	if (!obj)
		return;
	char **path = (char **)((char *)obj + k->path_at);
	free(*path);
	*path = NULL;
	yamldoc_free(&k->object, obj);
}

/* --- path lookup ---------------------------------------------------------- */

struct frame {
	int is_seq;
	long index;      /* next sequence index */
	int want_key;    /* mapping: next node is a key */
	char *path;      /* path of this container */
	char *key_path;  /* mapping: path of the current key's value */
};

static char *child_path(const char *parent, const char *key)
{
	return *parent ? xasprintf("%s.%s", parent, key) : xstrdup(key);
}

int yaml_locate(const char *path, const char *ypath, int *line, int *col)
{
	*line = *col = 0;
	FILE *f = fopen_read(path);
	if (!f)
		return -1;
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	struct frame st[64];
	int depth = 0, found = -1;
	yaml_event_t ev;
	while (found && yaml_parser_parse(&p, &ev)) {
		int end = ev.type == YAML_STREAM_END_EVENT;
		int is_node = ev.type == YAML_SCALAR_EVENT || ev.type == YAML_MAPPING_START_EVENT ||
			      ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_ALIAS_EVENT;
		char *node = NULL;
		if (is_node && depth == 0) {
			node = xstrdup("");
		} else if (is_node) {
			struct frame *fr = &st[depth - 1];
			if (fr->is_seq) {
				node = xasprintf("%s[%ld]", fr->path, fr->index++);
			} else if (fr->want_key) {
				fr->want_key = 0;
				free(fr->key_path);
				fr->key_path = child_path(fr->path, ev.type == YAML_SCALAR_EVENT
							    ? (const char *)ev.data.scalar.value : "?");
				if (strcmp(fr->key_path, ypath) == 0 && !*line) {
					/* remember the key; the value's position wins below */
					*line = (int)ev.start_mark.line + 1;
					*col = (int)ev.start_mark.column + 1;
				}
				if (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_ALIAS_EVENT) {
					yaml_event_delete(&ev);
					continue;
				}
				node = xstrdup("?");
			} else {
				fr->want_key = 1;
				node = xstrdup(fr->key_path ? fr->key_path : "?");
			}
		}
		if (node && strcmp(node, ypath) == 0) {
			*line = (int)ev.start_mark.line + 1;
			*col = (int)ev.start_mark.column + 1;
			found = 0;
		}
		if (ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT) {
			if (depth == 64) {
				free(node);
				yaml_event_delete(&ev);
				break;
			}
			st[depth].is_seq = ev.type == YAML_SEQUENCE_START_EVENT;
			st[depth].index = 0;
			st[depth].want_key = 1;
			st[depth].path = node;
			st[depth].key_path = NULL;
			depth++;
			node = NULL;
		} else if (ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT) {
			depth--;
			free(st[depth].path);
			free(st[depth].key_path);
		}
		free(node);
		yaml_event_delete(&ev);
		if (end)
			break;
	}
	while (depth > 0) {
		depth--;
		free(st[depth].path);
		free(st[depth].key_path);
	}
	if (found && *line)
		found = 0;
	yaml_parser_delete(&p);
	fclose(f);
	return found;
}

int yaml_error_at(struct diags *d, const char *file, const char *ypath, const char *fmt, ...)
{
	int line, col;
	yaml_locate(file, ypath, &line, &col);
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	diags_add(d, SEV_ERROR, "data-check", file, line, col, "%s: %s", ypath, msg);
	free(msg);
	return TT_INVALID;
}

char *yaml_top_key(const char *path)
{
	FILE *f = fopen_read(path);
	if (!f)
		return NULL;
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	yaml_event_t ev;
	char *key = NULL;
	int depth = 0;
	while (!key && yaml_parser_parse(&p, &ev)) {
		int stop = ev.type == YAML_STREAM_END_EVENT;
		if (ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT)
			stop = ++depth > 1; /* no key first: not a data file; and libyaml's flow
					     * nesting is quadratic in depth, never walk it */
		else if (ev.type == YAML_SCALAR_EVENT && depth == 1)
			key = xstrdup((const char *)ev.data.scalar.value);
		else if (ev.type == YAML_SCALAR_EVENT && depth == 0)
			stop = 1;
		yaml_event_delete(&ev);
		if (stop)
			break;
	}
	yaml_parser_delete(&p);
	fclose(f);
	return key;
}

int yaml_list_dir(const char *dir, char ***files, size_t *n)
{
	*files = NULL;
	*n = 0;
	DIR *dh = opendir(dir);
	if (!dh)
		return errno;
	struct dirent *de;
	size_t alloc = 0;
	while ((de = readdir(dh))) {
		if (de->d_name[0] == '.' || !str_ends(de->d_name, ".yaml"))
			continue;
		ALLOC_GROW(*files, *n + 1, alloc);
		(*files)[(*n)++] = xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(dh);
	if (*n)
		qsort(*files, *n, sizeof **files, str_ptr_cmp);
	return 0;
}

int yaml_load_dir(const char *dir, const char *what, yaml_load_one_fn load_one, void *set,
		  struct diags *d)
{
	char **files;
	size_t n;
	int err = yaml_list_dir(dir, &files, &n);
	if (err)
		return diag_error(d, path_err_status(err), "io", dir, 0, 0, "cannot list %s: %s", what,
				  path_strerror(dir, err));
	int rc = TT_OK;
	for (size_t i = 0; i < n; i++) {
		int r = load_one(set, files[i], n, d);
		if (r)
			rc = r;
		free(files[i]);
	}
	free(files);
	return rc;
}
