/* ranking.c: ranking files (tunetab learn's FlashInfer-table inputs), loaded strictly. */
#include "data/ranking.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "data/yamlload.h"

static const cyaml_schema_value_t string_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, 1024),
};
#define OPT_LONG(key, field) \
	CYAML_FIELD_INT_PTR(key, CYAML_FLAG_OPTIONAL, struct ranking_deployment, field)
static const cyaml_schema_field_t deployment_fields[] = {
	CYAML_FIELD_STRING_PTR("model", CYAML_FLAG_POINTER, struct ranking_deployment, model, 1, 255),
	CYAML_FIELD_ENUM("dtype", CYAML_FLAG_STRICT, struct ranking_deployment, dtype, dtype_strings,
			 DT_COUNT),
	OPT_LONG("tp", tp),
	OPT_LONG("ep", ep),
	OPT_LONG("tp_rank", tp_rank),
	OPT_LONG("ep_rank", ep_rank),
	OPT_LONG("top_k", top_k),
	OPT_LONG("max_tokens", max_tokens),
	OPT_LONG("experts", experts),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t deployment_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct ranking_deployment, deployment_fields),
};
static const cyaml_schema_field_t ranking_fields[] = {
	CYAML_FIELD_STRING_PTR("table", CYAML_FLAG_POINTER, struct ranking, table, 1, 4096),
	CYAML_FIELD_STRING_PTR("device", CYAML_FLAG_POINTER, struct ranking, device, 1, 255),
	CYAML_FIELD_STRING_PTR("flashinfer", CYAML_FLAG_POINTER, struct ranking, flashinfer, 1, 64),
	CYAML_FIELD_SEQUENCE("deployments", CYAML_FLAG_POINTER, struct ranking, deployments,
			     &deployment_schema, 1, RANKING_MAX_DEPLOYMENTS),
	CYAML_FIELD_SEQUENCE("only", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct ranking, only,
			     &string_schema, 1, RANKING_MAX_ONLY),
	CYAML_FIELD_END
};
static const struct yaml_kind doc_kind =
	YAML_KIND(doc_kind, "ranking", struct ranking, ranking_fields);

bool ranking_file_is(const char *path)
{
	char *key = yaml_top_key(path);
	bool yes = key && !strcmp(key, "ranking");
	free(key);
	return yes;
}

void ranking_free(struct ranking *r)
{
	if (!r)
		return;
	free(r->table_path);
	r->table_path = NULL;
	yaml_kind_free(&doc_kind, r);
}

int ranking_error_at(struct diags *d, const struct ranking *r, const char *ypath,
		     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	yaml_error_at(d, r->path, ypath, "%s", msg);
	free(msg);
	return TT_INVALID;
}

/* A number given must lie in [lo, hi]. */
static int check_range(struct diags *d, const char *path, unsigned i, const char *key,
		       const long *v, long lo, long hi)
{
	if (!v || (*v >= lo && *v <= hi))
		return TT_OK;
	char yp[80];
	snprintf(yp, sizeof yp, "ranking.deployments[%u].%s", i, key);
	return yaml_error_at(d, path, yp, "%ld is out of range (%ld to %ld)", *v, lo, hi);
}

int ranking_load(const char *path, struct ranking **out, struct diags *d)
{
	*out = NULL;
	struct ranking *r;
	int rc = yaml_kind_load(path, &doc_kind, (void **)&r, d);
	if (rc)
		return rc;
	const char *slash = strrchr(path, '/');
	r->table_path = r->table[0] == '/' || !slash
				? xstrdup(r->table)
				: xasprintf("%.*s/%s", (int)(slash - path), path, r->table);
	if (access(r->table_path, R_OK))
		rc = yaml_error_at(d, path, "ranking.table", "cannot read the table '%s': %s",
				   r->table_path, strerror(errno));
	for (unsigned i = 0; i < r->deployments_count; i++) {
		const struct ranking_deployment *x = &r->deployments[i];
		int e = check_range(d, path, i, "tp", x->tp, 1, 1L << 20);
		e = e ? e : check_range(d, path, i, "ep", x->ep, 1, 1L << 20);
		e = e ? e : check_range(d, path, i, "tp_rank", x->tp_rank, 0, (x->tp ? *x->tp : 1) - 1);
		e = e ? e : check_range(d, path, i, "ep_rank", x->ep_rank, 0, (x->ep ? *x->ep : 1) - 1);
		e = e ? e : check_range(d, path, i, "top_k", x->top_k, 1, 1024);
		e = e ? e : check_range(d, path, i, "max_tokens", x->max_tokens, 1, RANKING_MAX_TOKENS);
		e = e ? e : check_range(d, path, i, "experts", x->experts, 1, 1L << 20);
		if (e)
			rc = e;
	}
	if (rc) {
		ranking_free(r);
		return rc;
	}
	*out = r;
	return TT_OK;
}
