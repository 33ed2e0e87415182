/* yamlload.h: the libcyaml boundary shared by the data loaders (devices, models, catalogs,
 * FlashInfer schemas). Only data loaders include this header. */
#ifndef TUNETAB_YAMLLOAD_H
#define TUNETAB_YAMLLOAD_H

#include <cyaml/cyaml.h>
#include <stddef.h>

#include "base/diag.h"

/* Strict load of one file: unknown keys and bad enum values are errors. On failure one
 * error with the file, line and column libcyaml or libyaml reported is added to d and
 * TT_INVALID (or TT_INTERNAL for I/O) is returned; *out is NULL. */
int yamldoc_load(const char *path, const cyaml_schema_value_t *schema, void **out, struct diags *d);
/* yamldoc_load in two steps, for a loader that looks at the text first: the file's text
 * (caller frees; the same errors), and the load of that text (path: where it was read, for
 * the diagnostics). */
int yamldoc_read(const char *path, char **text, size_t *len, struct diags *d);
int yamldoc_load_text(const char *path, const char *text, size_t len,
		      const cyaml_schema_value_t *schema, void **out, struct diags *d);
void yamldoc_free(const cyaml_schema_value_t *schema, void *doc);
/* The same strict load of text that is no file (a document composed by the caller): 0, or -1
 * with *out NULL and nothing said (the caller reads the file itself to say what is wrong). */
int yamldoc_parse(const char *text, size_t len, const cyaml_schema_value_t *schema, void **out);

/* A document kind of the data folder: one top-level key holding the object ("device:
 * {...}"), an object that keeps the path of its file (char *path). object is the object's
 * schema; doc the whole document's, a mapping whose one field is the object (a pointer,
 * stored at offset 0); path_at where the object keeps the path. */
struct yaml_kind {
	cyaml_schema_value_t object;
	cyaml_schema_field_t doc_fields[2];
	cyaml_schema_value_t doc;
	size_t path_at;
};
/* The initializer of the struct yaml_kind NAME (its own name: doc points into it): documents
 * "TOP: {...}" whose object is a TYPE with the libcyaml fields FIELDS. */
#define YAML_KIND(name, top, type, fields)                                                    \
	{                                                                                     \
		.object = { CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, type, fields) },          \
		.doc_fields = {                                                               \
			{ .key = (top), .data_offset = 0,                                     \
			  .value = { CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, type, fields) } }, \
			CYAML_FIELD_END,                                                      \
		},                                                                            \
		.doc = { CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, void *, (name).doc_fields) }, \
		.path_at = offsetof(type, path),                                              \
	}
/* Loads a document of kind k (yamldoc_load) and hands out its object as *obj, its path set to
 * a copy of path (free it with yaml_kind_free); on failure *obj is NULL and the error is in
 * d. */
int yaml_kind_load(const char *path, const struct yaml_kind *k, void **obj, struct diags *d);
/* The same for text already read from path (yamldoc_read). */
int yaml_kind_load_text(const char *path, const char *text, size_t len, const struct yaml_kind *k,
			void **obj, struct diags *d);
/* Frees an object of kind k and its path; NULL is allowed. */
void yaml_kind_free(const struct yaml_kind *k, void *obj);

/* Position of the node at a dotted YAML path such as "catalog.base[3].cta" (line, col
 * 1-based). Returns 0 when found; else leaves *line = *col = 0 and returns -1. */
int yaml_locate(const char *path, const char *ypath, int *line, int *col);

/* Adds an error located at ypath inside file (semantic checks after loading). */
int yaml_error_at(struct diags *d, const char *file, const char *ypath, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The first key of the top-level mapping (caller frees), or NULL. */
char *yaml_top_key(const char *path);

/* The dtype names as libcyaml enum values (dtypes.c; DT_COUNT of them, in enum dtype's
 * order), for the loaders that read a dtype. */
extern const cyaml_strval_t dtype_strings[];

/* Sorted list of *.yaml files in dir (caller frees each and the array). Returns 0 or errno. */
int yaml_list_dir(const char *dir, char ***files, size_t *n);

/* One file for yaml_load_dir: loads path and keeps what it holds in set (the loader's own
 * set; nfiles, the number of files in the folder, sizes it). Returns TT_OK or the error
 * code, the error in d (a file may be kept and still fail, such as a duplicate name). */
typedef int (*yaml_load_one_fn)(void *set, const char *path, size_t nfiles, struct diags *d);
/* The data loaders' *_load_dir: every *.yaml file of dir through load_one, in name order;
 * a file that fails does not stop the others. Returns TT_OK, the last failing file's code,
 * or TT_INTERNAL with an "io" error "cannot list WHAT: reason" when dir cannot be listed. */
int yaml_load_dir(const char *dir, const char *what, yaml_load_one_fn load_one, void *set,
		  struct diags *d);

#endif
