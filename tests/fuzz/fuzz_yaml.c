/* fuzz_yaml.c: libFuzzer target for every YAML loader. The first input byte picks the loader
 * (byte % 8: 0 device_load_file + device_load_dir, 1 model_load_file + model_load_dir,
 * 2 catalog_load_file + catalog_load_dir + catalog_expand, 3 firules_load_file +
 * firules_load_dir, 4 dtypes_load, 5 calibration_load, 6 ranking_load + ranking_file_is,
 * 7 model_fit_load); the rest is the document. The
 * loaders take paths, so the document is written to a private folder under /dev/shm, named
 * after its first `id:` value so the id-matches-file-name rule can pass. Whatever loads is
 * then used the way the CLI uses it (lookups, expansion, bucket lists, file names), and
 * yaml_top_key / yaml_locate run on the file as check-data and the located errors do. */
#include "fuzz_common.h"
#include "data/calibration.h"
#include "data/modelfit.h"
#include "data/ranking.h"
#include "base/version.h"
#include "data/yamlload.h"

static char *scratch;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_load_data();
	scratch = fuzz_scratch_dir();
	return 0;
}

/* The stem the document's own id asks for: [A-Za-z0-9_.-]{1,64}, else "fuzz". */
static void id_stem(const unsigned char *p, size_t n, char out[72])
{
	strcpy(out, "fuzz");
	for (size_t i = 0; i + 3 < n; i++) {
		if (memcmp(p + i, "id:", 3) || (i && p[i - 1] != ' ' && p[i - 1] != '\n'))
			continue;
		size_t j = i + 3, k = 0;
		while (j < n && (p[j] == ' ' || p[j] == '"' || p[j] == '\''))
			j++;
		char s[72];
		while (j < n && k < 64 && p[j] != '"' && p[j] != '\'' &&
		       (isalnum(p[j]) || p[j] == '_' || p[j] == '-' || (p[j] == '.' && k)))
			s[k++] = (char)p[j++];
		s[k] = '\0';
		if (k)
			strcpy(out, s);
		return;
	}
}

static void locate(const char *path)
{
	static const char *const ypaths[] = {
		"device.name", "model.aliases[1]", "catalog.base[3].cta", "catalog.sm80[0]",
		"flashinfer_schema.key.ops[1].runners[0]", "flashinfer_schema.buckets.phases[2].upto",
		"dtypes[1].weight_views[0].pack", "calibration.tiles[0]", "ranking.deployments[1].tp",
		"model_fit.params[1]", "", "[0]", "a..b", "x[",
	};
	int line, col;
	char *key = yaml_top_key(path);
	if (key) {
		yaml_locate(path, key, &line, &col);
		free(key);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ypaths); i++)
		yaml_locate(path, ypaths[i], &line, &col);
}

static void use_catalog(const struct catalog *c)
{
	struct diags d = DIAGS_INIT;
	struct tactic_list l;
	memset(&l, 0, sizeof l);
	if (catalog_expand(c, &l, &d) == TT_OK) {
		char buf[256];
		for (size_t i = 0; i < l.n1; i++)
			tactic_describe(&l.g1[i], buf, sizeof buf);
		for (size_t i = 0; i < l.n2; i++)
			tactic_describe(&l.g2[i], buf, sizeof buf);
		for (int id = -2; id < 70; id++) {
			(void)tactic_lookup(&l, 1, id, false);
			(void)tactic_lookup(&l, 2, id, true);
			(void)tactic_lookup(&l, 2, id, false);
		}
	}
	tactic_list_release(&l);
	for (size_t i = 0; i < fz.rules.n; i++) {
		struct fi_version v;
		if (version_parse(fz.rules.v[i]->release, &v) == 0)
			(void)catalog_covers_version(c, &v);
	}
	diags_release(&d);
}

static void use_schema(const struct fi_rules *s)
{
	unsigned max = s->buckets.default_max_tokens;
	if (max > 1u << 16) /* the CLI's --max-tokens range, not the file's concern */
		max = 1u << 16;
	unsigned *b = NULL;
	size_t n = firules_buckets(s, max, &b);
	(void)n;
	free(b);
	for (unsigned t = 0; t < 70000; t = t * 3 + 1)
		(void)firules_map_tokens(s, max, t);
	char *name = firules_bundled_name(s, s->release, "NVIDIA B200");
	free(name);
	(void)numbering_name(s->tactics.numbering);
	(void)bucket_map_name(s->buckets.map);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size < 1)
		return 0;
	int which = data[0] % 8; /* the seeds' first bytes '0'..'7' pick 0..7 */
	data++, size--;
	fuzz_scratch_begin();
	static const char *const subdir[] = { "devices", "models", "catalogs", "schemas", "dtypes",
					      "calibration", "rankings", "fits" };
	char stem[72];
	id_stem(data, size, stem);
	char *dir = xasprintf("%s/%s", scratch, subdir[which]);
	(void)mkdir_p(dir);
	char *path = xasprintf("%s/%s.yaml", dir, stem);
	fuzz_write(path, data, size);
	struct diags d = DIAGS_INIT;
	switch (which) {
	case 0: {
		struct device_profile *p;
		if (device_load_file(path, &p, &d) == TT_OK) {
			(void)device_sm(p);
			(void)device_find(&fz.devices, p->name);
			const char *near[3];
			(void)device_nearest(&fz.devices, p->name, near, 3);
			for (unsigned i = 0; i < p->aliases_count; i++)
				(void)device_find(&fz.devices, p->aliases[i]);
			device_free(p);
		}
		struct device_set set;
		device_load_dir(dir, &set, &d);
		if (set.n)
			(void)device_find(&set, "b200");
		device_set_release(&set);
		break;
	}
	case 1: {
		struct model_profile *m;
		if (model_load_file(path, &m, &d) == TT_OK) {
			(void)model_activation_name(m->activation);
			(void)model_activation_gated(m->activation);
			(void)model_find(&fz.models, m->name);
			model_free(m);
		}
		struct model_set set;
		model_load_dir(dir, &set, &d);
		if (set.n)
			(void)model_find(&set, "deepseek-v3");
		model_set_release(&set);
		break;
	}
	case 2: {
		struct catalog *c;
		if (catalog_load_file(path, &c, &d) == TT_OK) {
			use_catalog(c);
			catalog_free(c);
		}
		struct catalog_set set;
		catalog_load_dir(dir, &set, &d);
		for (size_t i = 0; i < fz.rules.n && set.n; i++) {
			struct fi_version v;
			if (version_parse(fz.rules.v[i]->release, &v) == 0)
				for (int t = 0; t < DT_COUNT; t++)
					(void)catalog_find(&set, &v, 100, (enum dtype)t);
		}
		catalog_set_release(&set);
		break;
	}
	case 3: {
		struct fi_rules *s;
		if (firules_load_file(path, &s, &d) == TT_OK) {
			use_schema(s);
			firules_free(s);
		}
		struct firules_set set;
		if (firules_load_dir(dir, &set, &d) == TT_OK && set.n) {
			struct fi_version v;
			bool newer;
			if (version_parse("0.6.18", &v) == 0)
				(void)firules_find(&set, &v, &newer);
			(void)firules_newest(&set);
		}
		firules_set_release(&set);
		break;
	}
	case 4: {
		struct dtype_set *s;
		if (dtypes_load(path, &s, &d) == TT_OK) {
			for (unsigned i = 0; i < s->v_count; i++) {
				(void)dtypes_find(s, s->v[i].name);
				(void)dtype_weight_view(&s->v[i], NULL);
				(void)dtype_weight_view(&s->v[i], "int64");
			}
			dtypes_free(s);
		}
		break;
	}
	case 5: {
		struct calibration *c;
		if (calibration_load(path, &c, &d) == TT_OK)
			calibration_free(c);
		break;
	}
	case 6: {
		struct ranking *r;
		(void)ranking_file_is(path);
		if (ranking_load(path, &r, &d) == TT_OK)
			ranking_free(r);
		break;
	}
	default: {
		struct model_fit *f;
		if (model_fit_load(path, &f, &d) == TT_OK)
			model_fit_free(f);
		break;
	}
	}
	locate(path);
	unlink(path);
	free(path);
	free(dir);
	diags_release(&d);
	fuzz_scratch_cleanup();
	return 0;
}
