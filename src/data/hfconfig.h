/* hfconfig.h: a model's Hugging Face config.json, found where a serving stack finds it (a
 * local folder, or the Hugging Face cache), read into what tunetab needs of it: the routed
 * experts' geometry, the activation, the checkpoint's quantization and the config class
 * transformers builds, by configs/hf/model-types.yaml. Fills structs and diagnostics; never
 * prints. */
#ifndef TUNETAB_HFCONFIG_H
#define TUNETAB_HFCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* One model_type of configs/hf/model-types.yaml: where its config.json keeps each number (a
 * dotted path, e.g. "text_config.hidden_size"). */
struct hf_model_type {
	char *model_type;
	char *config_class;          /* transformers' class for it (CONFIG_MAPPING_NAMES) */
	char *since;                 /* the first transformers release that has it */
	char *hidden, *intermediate, *experts, *top_k;
	char *activation;            /* the experts' activation as the serving code names it */
	char *activation_field;      /* or the config field that names it (hidden_act) */
	bool biases;                 /* the experts carry biases */
	char *read;                  /* where the facts were read */
};

struct hf_types {
	struct hf_model_type *v;
	unsigned v_count;
	char *path;
};

int hf_types_load(const char *data_root, struct hf_types **out, struct diags *d);
int hf_types_load_file(const char *path, struct hf_types **out, struct diags *d);
void hf_types_free(struct hf_types *t);
const struct hf_model_type *hf_type_find(const struct hf_types *t, const char *model_type);

/* What a config.json says. */
struct hf_model {
	char *config_path;           /* the file read */
	char *model_type;
	char *architecture;          /* architectures[0] ("DeepseekV3ForCausalLM"), or NULL */
	const struct hf_model_type *type;
	long hidden, inter, experts, top_k;
	char *activation;            /* as the serving code names it ("silu", "swigluoai") */
	bool biases;
	char *torch_dtype;           /* "bfloat16", or NULL when the config names none */
	/* the checkpoint's quantization: config.json quantization_config, else an old ModelOpt
	 * hf_quant_config.json beside it */
	bool quantized;
	char *quant_method;          /* "fp8", "modelopt", "mxfp4", "compressed-tensors", ... */
	char *quant_algo;            /* ModelOpt: "NVFP4", "FP8", ... (NULL otherwise) */
	char *quant_from;            /* the file the quantization was read from */
	bool weight_block;           /* fp8 with weight_block_size (block-scaled) */
	long block[2];
	char *activation_scheme;     /* fp8: "dynamic" (the default) or "static" */
	/* the modules the checkpoint leaves unquantized: quantization_config's "ignore",
	 * "modules_to_not_convert" or "exclude_modules", or hf_quant_config.json's
	 * quantization.exclude_modules (patterns as written) */
	char **exclude;
	size_t nexclude;
	char *exclude_from;          /* "FILE: FIELD", NULL when there is no list */
	/* the config's top-level numbers, booleans and strings, and its lists of integers as
	 * NAME.1, NAME.2 ..., for the consumer scripts that lay out the model's linear layers
	 * (scripts/lib/linears.lua) */
	struct hf_scalar *scalars;
	size_t nscalars;
};

struct hf_scalar {
	char *name;
	char *s;                     /* NULL: an integer or boolean in i */
	long long i;
	bool is_bool;
};

/* The config.json of model_path as a server resolves it: model_path/config.json when
 * model_path is a folder; else, for a hub id ORG/NAME, the Hugging Face cache's snapshot
 * ($HF_HUB_CACHE, $HUGGINGFACE_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub,
 * ~/.cache/huggingface/hub; models--ORG--NAME/snapshots/<refs/REVISION>/config.json,
 * revision NULL: main). Caller frees. NULL with an error naming where it looked. */
char *hf_config_find(const char *model_path, const char *revision, struct diags *d);

/* Reads config_path with types. TT_INVALID with an error at the file for a config that is
 * not JSON, a model_type types does not know (with the known ones), or a number missing. */
int hf_model_read(const struct hf_types *types, const char *config_path, struct hf_model *m,
		  struct diags *d);
void hf_model_release(struct hf_model *m);

#endif
