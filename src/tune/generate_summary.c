/* generate_summary.c: the user's summary of a table `tunetab generate` wrote, and where
 * its files go (generate.h). */
#include <stdio.h>
#include <string.h>

#include "tune/generate.h"
#include "base/util.h"

/* What the table holds of the other ops (issue #39). */
static void ops_summary(const struct generate_result *r, struct strbuf *out)
{
	for (size_t i = 0; i < r->nops; i++) {
		const struct generate_op *g = &r->ops[i];
		if (!strcmp(g->covered, "measured"))
			sb_addf(out, "tunetab: %s (%s): %zu keys measured on this GPU through "
				"FlashInfer's runner: %zu faster than the fallback, %zu keep it\n", g->op,
				g->runner, g->keys, g->faster, g->keys - g->faster);
		else if (!strcmp(g->covered, "default"))
			sb_addf(out, "tunetab: %s (%s): %zu keys with the fallback tactic (-1), not "
				"measured (--profile --backend flashinfer on a GPU that runs the op measures "
				"them): a server that finds them does not profile them at start (tunetab "
				"install leaves them out unless --write-fallbacks)\n", g->op, g->runner,
				g->keys);
		else
			sb_addf(out, "tunetab: %s (%s): not covered: tunetab knows its keys from "
				"FlashInfer %s on, not in %s; the server profiles it at start\n", g->op,
				g->runner, g->why, r->version);
	}
}

/* The layer's pair choice (--routing, pairs.h). */
static void pairs_text(const struct generate_result *r, struct strbuf *out)
{
	const struct pairs_result *p = r->pairs;
	if (!p)
		return;
	sb_adds(out, "tunetab: routing: each bucket's (GEMM1, GEMM2) pair chosen with FlashInfer's "
		"whole MoE layer as the judge, for the least worst-case regret over");
	for (size_t l = 0; l < p->loads.n; l++)
		sb_addf(out, "%s %s", l ? (l + 1 == p->loads.n ? " and" : ",") : "", p->loads.v[l].name);
	size_t chosen = 0;
	for (size_t i = 0; i < p->n; i++)
		chosen += p->v[i].choice.index >= 0;
	sb_addf(out, " routing: %zu of %zu buckets, %zu pairs timed in %.1f s; %zu differ from the "
		"per-GEMM choice\n", chosen, p->n, p->timed, p->seconds, p->changed);
	for (size_t l = 0; l < p->loads.n; l++) {
		double c, g;
		pairs_summary(p, l, &c, &g);
		if (c >= 0 && g >= 0)
			sb_addf(out, "tunetab: routing %s: the chosen pairs %.2f%% geomean behind the "
				"best pair timed, the per-GEMM ones %.2f%%\n", p->loads.v[l].name, 100 * c,
				100 * g);
	}
	if (!chosen)
		sb_addf(out, "tunetab: routing: no pair could be timed as a layer (%s): the per-GEMM "
			"choices stand\n", p->why[0] ? p->why : "no bucket had both GEMMs measured");
}

void generate_summary(const struct generate_result *r, struct strbuf *out)
{
	if (r->ops_only) {
		sb_addf(out, "tunetab: %s on %s (SM%d), FlashInfer %s: no CUTLASS MoE keys (the server "
			"does not tune it)\n", r->model, r->device, r->sm, r->version);
		ops_summary(r, out);
		return;
	}
	sb_addf(out, "tunetab: %s on %s (SM%d), %s, TP %ld EP %ld, FlashInfer %s, heuristic '%s' "
		"(%s)\n", r->model, r->device, r->sm, r->dtype, r->tp, r->ep, r->version, r->heuristic,
		r->catalog);
	char scope[200];
	if (r->keys)
		snprintf(scope, sizeof scope, "the keys of %s", r->keys);
	else
		snprintf(scope, sizeof scope, "2 GEMM stages x token buckets up to %u", r->max_tokens);
	if (r->shard->count > 1) {
		size_t l = strlen(scope);
		snprintf(scope + l, sizeof scope - l, "; shard %d/%d of %zu", r->shard->index,
			 r->shard->count, r->total_entries);
	}
	sb_addf(out, "tunetab: %zu entries (%s); %zu differ from FlashInfer's fallback (tactic -1)%s\n",
		r->entries, scope, r->differ, r->skipped ? "; the heuristic's first choice was not "
		"dispatchable for some and was skipped" : "");
	if (r->profiled && r->nworkers > 1)
		sb_addf(out, "tunetab: %zu GPUs of this model measured from one queue\n", r->nworkers);
	const struct timing_stats *st = &r->stats;
	char pruned[96] = "";
	if (st->pruned)
		snprintf(pruned, sizeof pruned, ", %zu left out of a screen (over 2x the best a bucket "
			 "or two below)", st->pruned);
	if (r->profiled)
		sb_addf(out, "tunetab: profiled in %.1f s (backend %s: %s): %zu entries measured, %zu "
			"kept the fallback, %zu predicted (the backend cannot express the candidates, or "
			"the budget ran out); %zu timings, %zu resumed from the journal, %zu candidates "
			"failed, %zu not expressible%s\n", st->seconds, r->backend, r->timed,
			st->measured_entries, st->fallback_kept, st->predicted_entries, st->timed,
			st->resumed, st->failed_candidates, st->unsupported, pruned);
	if (r->profiled && r->gate == 0)
		sb_adds(out, "tunetab: correctness gate off (--no-gate): the fastest tactic was chosen "
			"whatever it computes\n");
	if (r->profiled && r->gate == 1) {
		sb_addf(out, "tunetab: correctness gate: %zu tactics checked in %.1f s (%.0f%% of "
			"profiling), %zu computed a wrong answer and were not chosen", st->gate_checked,
			st->gate_seconds, st->seconds > 0 ? 100.0 * st->gate_seconds / st->seconds : 0.0,
			st->nwrong);
		for (size_t i = 0; i < st->nwrong && i < 8; i++)
			sb_addf(out, "%s tactic %d at GEMM%d %ld tokens (max abs %.3g, %.3g of the "
				"reference's largest)", i ? ";" : ":", st->wrong[i].id, st->wrong[i].stage,
				st->wrong[i].tokens, st->wrong[i].max_abs, st->wrong[i].rel);
		if (st->nwrong > 8)
			sb_addf(out, "; %zu more (the journal)", st->nwrong - 8);
		if (st->gate_unchecked)
			sb_addf(out, "; %zu entries unchecked: %s", st->gate_unchecked, st->unchecked_why);
		sb_addc(out, '\n');
	}
	pairs_text(r, out);
	ops_summary(r, out);
}

void generate_written(const struct generate_result *r, struct strbuf *out)
{
	const struct fi_rules *rules = r->rules;
	if (r->written[0])
		sb_addf(out, "tunetab: wrote %s\n  FlashInfer imports it from <site-packages>/%s/ with "
			"%s=%s, only when not tuning (formats §1.1, §1.4); SGLang and vLLM tune at start: "
			"deploy the JSON cache\n", r->written[0], rules->bundled.package_dir,
			rules->bundled.env_var, rules->bundled.env_value);
	if (r->written[1])
		sb_addf(out, "tunetab: wrote %s\n  a server: tunetab install --for sglang|vllm --from "
			"%s -- LAUNCH (the command that starts it: install refuses keys it would not "
			"look up); your own FlashInfer code: autotune(True, cache=\"%s\") (formats §2.1)\n",
			r->written[1], r->written[1], r->written[1]);
	if (r->written[2])
		sb_addf(out, "tunetab: wrote %s (what was measured or predicted, for tunetab merge)\n",
			r->written[2]);
}
