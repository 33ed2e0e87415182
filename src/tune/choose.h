/* choose.h: the heuristic's choice of a tactic for every entry (script.h ranks the catalog's
 * candidates), and the shards of the work list. */
#ifndef TUNETAB_CHOOSE_H
#define TUNETAB_CHOOSE_H

#include "data/catalog.h"
#include "flashinfer/lookup.h"
#include "script/script.h"

/* Keeps the entries of shard index of count: the plan split by each entry's expected
 * profiling cost, from its shape and candidate count alone (docs/fleet.md "Shards"). Call it
 * after choose_tactics (it needs the candidate lists); top is --top (< 0: all, 0: the default). */
void choose_shard(struct lookup_list *p, const struct deployment *dep, int rounds, int top,
		    int index, int count);

/* Ranks every entry's candidates with the script and picks the best dispatchable one. */
int choose_tactics(struct script *sc, const struct catalog *cat, const struct deployment *dep,
	       struct lookup_list *p, struct diags *d);

#endif
