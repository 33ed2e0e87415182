-- conservative.lua: tunetab's default cost model, but FlashInfer's own fallback tactic stays
-- wherever the model predicts it within MARGIN of the best: only clear wins change the table.
local cost = tunetab.lib("moe_cost") -- the default heuristic's model (scripts/lib/moe_cost.lua)
local MARGIN = 0.05                   -- 5%

tunetab.heuristic {
  name = "conservative",
  rank = function(q)
    local ranked = cost.rank(q)       -- best first: { id = ID, time = microseconds }
    local best = ranked[1]
    for _, r in ipairs(ranked) do
      if r.id == q.fallback and r.time <= best.time * (1 + MARGIN) then
        return { q.fallback }         -- close enough: keep what FlashInfer runs anyway
      end
    end
    return ranked
  end,
  rank_op = tunetab.lib("gemm_cost").rank, -- the other ops' GEMMs as the default ranks them
}
