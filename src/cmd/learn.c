/* learn.c: `tunetab learn JOURNAL...`: the heuristic's params fitted to measured journals
 * (tune/learn.h), the regret before and after printed, the fit written atomically. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "tune/learn.h"
#include "base/util.h"

static void print_score(const char *what, const struct learn_score *s)
{
	if (s->entries || !s->ranked)
		fprintf(stderr, "tunetab: %s: %zu entries, heuristic-only regret geomean %.2f%% max "
			"%.2f%%; top 4: recall %zu/%zu, regret geomean %.2f%% max %.2f%%\n", what,
			s->entries, 100 * s->geo_regret, 100 * s->max_regret, s->recall4, s->entries,
			100 * s->top4_geo_regret, 100 * s->top4_max_regret);
	if (s->ranked)
		fprintf(stderr, "tunetab: %s: agreement %zu/%zu with the ranking tables (%zu table "
			"tactics not ranked)\n", what, s->agree, s->ranked, s->rank_unranked);
}

static json_t *score_json(const struct learn_score *s)
{
	json_t *o = json_pack("{s:I, s:f, s:f, s:I, s:f, s:f, s:I}", "entries", (json_int_t)s->entries,
			      "geomean_regret", s->geo_regret, "max_regret", s->max_regret, "recall4",
			      (json_int_t)s->recall4, "top4_geomean_regret", s->top4_geo_regret,
			      "top4_max_regret", s->top4_max_regret, "unmeasured_picks",
			      (json_int_t)s->unmeasured);
	json_object_set_new(o, "ranked", json_integer((json_int_t)s->ranked));
	json_object_set_new(o, "agreement", json_integer((json_int_t)s->agree));
	json_object_set_new(o, "table_tactic_not_ranked", json_integer((json_int_t)s->rank_unranked));
	return o;
}

static void print_json(const struct learn_result *r)
{
	json_t *params = json_array(), *train = json_array(), *held = json_array();
	for (size_t k = 0; k < r->nparams; k++)
		json_array_append_new(params, json_pack("{s:s, s:f, s:f}", "name", r->params[k].name,
							"default", r->params[k].def, "fit", r->fitted[k]));
	for (size_t i = 0; i < r->ntrain; i++)
		json_array_append_new(train, json_string(r->train[i]));
	for (size_t i = 0; i < r->nheld; i++)
		json_array_append_new(held, json_string(r->held[i]));
	json_t *doc = json_pack("{s:s, s:s, s:o, s:o, s:o, s:{s:o, s:o}}", "device", r->device,
				"heuristic", r->heuristic, "params", params, "trained_on", train,
				"held_out", held, "train", "default", score_json(&r->train_default),
				"fit", score_json(&r->train_fit));
	if (r->rank_keys)
		json_object_set_new(doc, "ranking_keys", json_pack("{s:I, s:I}", "selected",
								   (json_int_t)r->rank_keys, "unmatched",
								   (json_int_t)r->rank_unmatched));
	if (r->nheld) {
		json_t *picks = json_array();
		for (size_t i = 0; i < r->held_picks.n; i++) {
			const struct learn_pick *p = &r->held_picks.v[i];
			json_t *top = json_array();
			for (int k = 0; k < p->ntop; k++)
				json_array_append_new(top, json_integer(p->top[k]));
			json_array_append_new(picks, json_pack("{s:s, s:i, s:I, s:o}", "deployment",
							       p->deployment, "stage", p->stage, "tokens",
							       (json_int_t)p->tokens, "top", top));
		}
		json_object_set_new(doc, "held", json_pack("{s:o, s:o, s:o, s:o}", "default",
							   score_json(&r->held_default), "params",
							   score_json(&r->held_params), "fit",
							   score_json(&r->held_fit), "picks", picks));
	}
	cli_print_json(doc, JSON_INDENT(2));
}

static void print_text(const struct learn_result *r)
{
	fprintf(stderr, "tunetab: learn: %zu %s to fit on %s, heuristic '%s', %zu params\n",
		r->ntrain, r->rank_keys ? "deployments" : "journals", r->device, r->heuristic,
		r->nparams);
	if (r->rank_keys)
		fprintf(stderr, "tunetab: ranking tables: %zu keys selected, %zu of them looked up by "
			"no deployment (left out)\n", r->rank_keys, r->rank_unmatched);
	print_score("fit set, defaults", &r->train_default);
	print_score("fit set, fitted params", &r->train_fit);
	size_t npts = 0;
	for (size_t i = 0; i < r->nmeasured; i++)
		npts += r->measured[i].points_count;
	if (r->nmeasured)
		fprintf(stderr, "tunetab: measured neighbours: %zu points of %zu candidate "
			"configurations\n", npts, r->nmeasured);
	for (size_t i = 0; i < r->nheld; i++)
		fprintf(stderr, "tunetab: held out: %s\n", r->held[i]);
	if (r->nheld) {
		print_score("held out, defaults", &r->held_default);
		if (r->nmeasured) {
			print_score("held out, fitted params", &r->held_params);
			print_score("held out, fitted params and measured neighbours", &r->held_fit);
		} else {
			print_score("held out, fitted", &r->held_fit);
		}
	}
}

int cmd_learn(int argc, char **argv)
{
	struct learn_request rq = { 0 };
	const char *out = NULL;
	bool json = false;
	long sweeps = 0;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "learn")) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'H': rq.holdout = optarg; break;
		case 'h': rq.heuristic = optarg; break;
		case 's': CLI_LONG_OPT("learn", sweeps, "--sweeps", 1, 1000); break;
		case 'j': json = true; break;
		case 'L':
			if (!strcmp(optarg, "both")) rq.loss = LEARN_LOSS_BOTH;
			else if (!strcmp(optarg, "time")) rq.loss = LEARN_LOSS_TIME;
			else if (!strcmp(optarg, "regret")) rq.loss = LEARN_LOSS_REGRET;
			else return cli_usage_error("learn", "--loss wants both, time or regret, not '%s'", optarg);
			break;
		default:
			return cli_usage_error("learn", "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("learn", "want at least one journal");
	rq.journals = argv + optind;
	rq.njournals = (size_t)(argc - optind);
	rq.sweeps = (int)sweeps;
	struct tt_data data;
	int rc = cli_load_data(&data, DATA_ALL);
	if (rc)
		return rc;
	struct learn_result r;
	struct diags d = DIAGS_INIT;
	rc = learn_run(&data, &rq, &r, &d);
	cli_print_diags(&d);
	if (rc == TT_USAGE)
		cli_print_usage("learn");
	diags_release(&d);
	if (!rc && json)
		print_json(&r);
	else if (!rc)
		print_text(&r);
	if (!rc && out) {
		char *yaml = learn_yaml(&r);
		int err = write_file_atomic(out, yaml, strlen(yaml), 0644);
		if (err)
			rc = cli_error(TT_INTERNAL, "%s: cannot write: %s", out, strerror(err));
		else if (!json)
			fprintf(stderr, "tunetab: wrote %s (generate --model-fit %s)\n", out, out);
		free(yaml);
	}
	learn_result_release(&r);
	cli_release_data(&data);
	return rc;
}
