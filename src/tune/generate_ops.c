/* generate_ops.c: the other ops a server tunes at start (configs/ops; issue #39): their
 * keys, and with --profile their timings through FlashInfer's runner (generate_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/generate_int.h"
#include "base/util.h"
#include "script/script.h"

/* The keys of the other ops the server tunes at start (configs/ops; issue #39), each to be
 * stored with the op's fallback tactic: tunetab has no GPU of theirs to measure on here, and
 * an entry the server finds is not profiled again (its policy matching the op's). */
int gen_run_ops(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	const struct op_set *defs = &R->S->data->ops;
	R->opk = xcalloc(o->nops + 1, sizeof *R->opk);
	R->ops = xcalloc(o->nops + 1, sizeof *R->ops);
	for (size_t i = 0; i < o->nops; i++) {
		const struct op_use *so = &o->ops[i];
		if (!so->tunes)
			continue;
		const struct op_def *def = opdefs_find(defs, so->op);
		if (!def)
			return diag_error(d, TT_INTERNAL, "op", NULL, 0, 0, "the consumer's script names "
					  "op '%s', which configs/ops does not have", so->op);
		struct generate_op *g = &R->ops[R->nops];
		struct op_keys *k = &R->opk[R->nops++];
		g->op = def->name;
		g->runner = so->runner;
		if (!opdef_keys_known(def, &R->fv)) {
			g->covered = "not covered";
			g->why = def->flashinfer_min;
			if (!o->quiet)
				gen_warn(R->S, "%s: tunetab knows its keys from FlashInfer %s on, not in %s: the "
				     "server profiles it at start", def->name, def->flashinfer_min, R->version);
			continue;
		}
		for (size_t c = 0; c < so->ncalls; c++) {
			int rc = op_call_keys(def, &so->calls[c], c, k, d);
			if (rc)
				return rc;
		}
		g->covered = "default";
		g->keys = k->n;
	}
	return TT_OK;
}

/* --profile with the flashinfer backend: every key of the other ops measured on this GPU
 * through FlashInfer's own runner (the worker's OPPROF: the candidates and the fallback timed
 * at the key's bucket, the winner through the correctness gate unless --no-gate). The
 * candidates: the runner's integer tactics for this SM (configs/ops), else the runner's own
 * list there (CuTe-DSL, the TensorRT-LLM-gen MoE: it depends on the GPU). */
int gen_run_ops_measure(struct run *R, struct diags *d)
{
	const struct generate_request *o = R->o;
	struct generate_session *S = R->S;
	if (!o->profile || !R->nops)
		return TT_OK;
	if (!R->sc) { /* an ops-only table: the heuristic ranks the ops' tactics */
		char *hpath = o->heuristic ? xstrdup(o->heuristic)
					   : xasprintf("%s/scripts/heuristics/default.lua", S->data->root);
		struct script_limits lim = { (size_t)o->script_mem_mib << 20,
					     (unsigned long long)o->script_instructions,
					     S->hooks ? S->hooks->script_print : NULL };
		struct script_deploy sdep = { .model = o->model_profile ? o->model_profile->name : "",
					      .dtype = "nvfp4", .act_bits = 4, .weight_bits = 4,
					      .out_bits = 16 };
		int rc = script_open(&R->sc, S->data->root, hpath, &lim, d);
		free(hpath);
		if (!rc)
			rc = script_set_context(R->sc, &R->sdev, &sdep, d);
		if (rc)
			return rc;
	}
	if (S->backend != BACKEND_FLASHINFER) {
		if (o->ops_only)
			return diag_error(d, TT_USAGE, "generate", NULL, 0, 0, "only the flashinfer "
					  "backend times the server's other ops (the %s backend times "
					  "the CUTLASS MoE's GEMMs): --backend flashinfer", S->wb.name[0] ?
					  S->wb.name : "proxy");
		gen_warn(S, "the other ops keep the fallback tactic: only the flashinfer backend times them");
		return TT_OK;
	}
	struct strbuf words = STRBUF_INIT;
	int rc = TT_OK;
	for (size_t i = 0; i < R->nops && !rc; i++) {
		struct generate_op *g = &R->ops[i];
		if (strcmp(g->covered, "default"))
			continue;
		const struct op_def *def = opdefs_find(&S->data->ops, g->op);
		const struct op_use *use = NULL;
		for (size_t u = 0; u < o->nops && !use; u++)
			if (o->ops[u].tunes && opdefs_find(&S->data->ops, o->ops[u].op) == def)
				use = &o->ops[u];
		const struct op_runner *runner = opdef_runner(def, g->runner);
		const struct op_tactics *tl = runner ? opdef_tactics(runner, (unsigned)R->sdev.sm) : NULL;
		size_t ncand = tl ? tl->count : 0;
		int *cands = xcalloc(ncand + 1, sizeof *cands);
		struct script_rank *ranked = xcalloc(ncand + 1, sizeof *ranked);
		size_t faster = 0;
		for (size_t k = 0; k < R->opk[i].n && !rc; k++) {
			struct op_key *key = &R->opk[i].v[k];
			const struct op_call *call = &use->calls[key->call];
			/* the candidates, the heuristic's best first where it ranks this op's list
			 * (rank_op; --top N times its best N), else FlashInfer's order */
			size_t nc = ncand, nr = 0;
			const struct op_field *fn = op_call_get(call, "n"), *fk = op_call_get(call, "k");
			if (ncand && tl->list_count && fn && fk && R->sc && script_has_rank_op(R->sc)) {
				struct script_op_gemm gq = { def->name, g->runner, key->tokens, (long)fn->i,
							     (long)fk->i };
				if ((rc = script_rank_op(R->sc, &gq, tl->list, tl->list_count,
							 tl->fallback_id, ranked, &nr, d)))
					break;
			}
			for (size_t c = 0; c < nr; c++)
				cands[c] = ranked[c].id;
			if (!nr)
				for (size_t c = 0; c < ncand; c++)
					cands[c] = (int)c;
			else
				nc = nr;
			if (o->top > 0 && (size_t)o->top < nc)
				nc = (size_t)o->top;
			sb_reset(&words);
			op_call_words(call, &words);
			struct worker_opprof res;
			rc = worker_opprof(&S->workers[0], words.buf, key->tokens, 10, !o->no_gate, cands,
					   nc, &res, d);
			if (rc)
				break;
			key->measured = true;
			key->time_us = res.win_us;
			key->fallback_us = res.fallback_us;
			snprintf(key->gate, sizeof key->gate, "%s", res.gate);
			if (strcmp(res.win, "-1")) {
				key->tactic = xstrdup(res.win);
				faster++;
			}
			if (o->verbose)
				gen_say(S, "tunetab: %s %ld tokens: %s (%.2f us; the fallback %.2f us; %d "
				    "tactics timed; gate %s)%s%s", g->op, key->tokens, res.win, res.win_us,
				    res.fallback_us, res.timed, res.gate, res.detail[0] ? ": " : "",
				    res.detail);
		}
		free(cands);
		free(ranked);
		if (!rc) {
			g->covered = "measured";
			g->faster = faster;
		}
	}
	sb_release(&words);
	return rc;
}
