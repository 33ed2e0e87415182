1-- fallback_only.lua: FlashInfer's own behaviour without a table: always the fallback
-- (tactic -1 = the first entry of each stage's list). Useful as a baseline.
tunetab.heuristic {
  name = "fallback-only",
  rank = function(q)
    return { q.fallback }
  end,
}
