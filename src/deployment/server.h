/* serve.h: a deployment as a serving stack runs it, derived from the command that starts the
 * server (the launch command the user pastes): what the consumer's script
 * (configs/consumers/<id>.lua) reads of it, the model's config.json (data/hfconfig.h), the GPU,
 * and the Python environment the server runs in (its FlashInfer and consumer versions). One
 * description for generate, install and doctor, so the keys written are the keys looked up.
 * Fills structs and diagnostics; never prints. */
#ifndef TUNETAB_SERVE_H
#define TUNETAB_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/device.h"
#include "data/hfconfig.h"
#include "ops/ops.h"
#include "script/script.h"

/* What the user gave besides the launch command; NULL/0: derived. */
struct serve_request {
	const char *consumer;          /* --for */
	char *const *words;            /* the launch command (VAR=VALUE words first allowed) */
	size_t nwords;
	const char *consumer_version;  /* --consumer-version */
	const char *flashinfer;        /* --flashinfer */
	const char *python;            /* --python: the server's interpreter */
	const char *model_config;      /* --model-config: the model's config.json */
	const char *device;            /* --device NAME, or NULL/"auto": GPU 0 */
	long sm;                       /* --sm (when the device is not known) */
};

/* A deployment as flags give it (install --for and doctor --for without a launch command):
 * the server's options that name its cache folder and shape its MoE runner. */
struct serve_flags {
	const char *model_path, *hf_config_class, *torch_dtype, *quantization, *backend, *skip_ops;
	long tp, pp, dp, attn_dp, ep;
};

struct serve_deployment {
	char *consumer, *consumer_name;
	char *consumer_version;        /* the consumer's version the rules are for */
	char *consumer_version_from;   /* where that came from */
	char *python;                  /* the server's interpreter, NULL when none was found */
	char *python_from;
	char *python_why;              /* why its probe gave no FlashInfer, or NULL */
	char *flashinfer;              /* the FlashInfer version the server imports */
	char *flashinfer_from;
	/* the GPU */
	char *device;                  /* its name (profile or detected) */
	int sm;
	/* the model */
	struct hf_model model;
	/* the consumer's cache key and files (configs/consumers/ template variables) */
	char *model_path, *torch_dtype, *quantization, *moe_runner_backend, *skip_ops;
	char *hf_config_class;
	long tp, pp, dp, attn_dp, moe_ep;
	/* FlashInfer's CUTLASS MoE runner as the server builds it */
	char *dtype;                   /* configs/dtypes.yaml name */
	char *activation;              /* model activation name (configs/models) */
	char *input_view;              /* how the input is passed (dtypes.yaml input_views), or NULL */
	bool biases;
	long runner_tp, runner_ep;     /* the tp_size and ep_size it is given */
	bool fused_finalize;
	char *fused_finalize_from;     /* why that value */
	long max_tokens;               /* the largest token bucket it tunes */
	char *moe_tune;                /* how the warm-up tunes it: "at_m" (one call of moe_m
					* tokens), "buckets" (the consumer's bucket list); NULL */
	long moe_m;
	long moe_experts, moe_top_k;   /* its experts and top-k (a fused shared expert added);
					* 0: the model's */
	/* the other ops its start-up autotune profiles */
	struct op_use *ops;
	size_t nops;
	/* does the server read a cache of these keys at start */
	bool tunes;
	char *why_not;                 /* when it does not: why */
	char *moe_unknown;             /* it does, at token buckets tunetab cannot tell: why
					* (its keys are then unknown: a cannot-tell) */
	char **notes;                  /* what the script says of its choices */
	size_t nnotes;
	/* inputs whose effect tunetab cannot tell (issue #47: the consumer's closed world of
	 * options and variables, scripts/lib/inputs.lua): what, and what to give instead */
	struct serve_unknown {
		char *what, *give;
	} *unknowns;
	size_t nunknowns;
	char **words;                  /* the launch command it was derived from (for flags: the
					* one they make) */
	size_t nwords;
	char **env;                    /* the server's environment: the VAR=VALUE words */
	size_t nenv;
	struct script_field *probed;   /* what the server's Python has ("python.triton_kernels") */
	size_t nprobed, probed_alloc;
};

/* Appends a field (a copy of name and str) to v. */
void serve_add_field(struct script_field **v, size_t *n, size_t *alloc, const char *name,
		     enum script_kind kind, const char *str, long long i);

/* Derives the deployment. TT_USAGE with an error naming what is missing (asked for by name,
 * never guessed), TT_INVALID for a config.json tunetab cannot read, TT_SCRIPT for an error in
 * the consumer's script. */
int serve_derive(const struct serve_request *q, const char *data_root,
		 const struct device_set *devices, struct serve_deployment *out, struct diags *d);
void serve_release(struct serve_deployment *s);

/* The flags that describe deployment s (install's flags of a launch command's server). */
struct serve_flags serve_flags_of(const struct serve_deployment *s);

/* The deployment the flags f describe: q without words (its consumer, versions, Python,
 * model config, GPU). The consumer's flags_command and flags_options (configs/consumers/)
 * make the launch command f stands for, derived as serve_derive derives one pasted: the
 * same deployment, field by field. TT_INVALID (and why in d) when the consumer has no such
 * command or f lacks what it needs (--model-path); else as serve_derive. */
int serve_derive_flags(const struct serve_request *q, const struct serve_flags *f,
		       const char *data_root, const struct device_set *devices,
		       struct serve_deployment *out, struct diags *d);

/* Whether a and b are the same deployment, field by field (what the server computes, not
 * where each value came from). When not, *field names the first that differs. */
bool serve_equal(const struct serve_deployment *a, const struct serve_deployment *b,
		 const char **field);
/* Whether the server's start-up autotune runs at all: the CUTLASS MoE or another op tuned. */
bool serve_autotunes(const struct serve_deployment *s);
/* That it does not, in words: "<consumer> does not tune FlashInfer at start for this command,
 * so it reads no table: " the CUTLASS MoE's reason, then each other op's ("fp4_gemm: ...").
 * Caller frees. */
char *serve_why_no_autotune(const struct serve_deployment *s);

/* The model as configs/models describes one (for generate's deployment): pointers into s. */
struct model_profile;
int serve_model_profile(const struct serve_deployment *s, struct model_profile *out,
			struct diags *d);

#endif
