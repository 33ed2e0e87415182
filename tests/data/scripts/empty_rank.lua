-- empty_rank.lua: ranks GEMM1 (the fallback only) and returns an empty list for GEMM2: not an
-- error, but generate warns that those entries keep FlashInfer's fallback (tests/cli/188).
tunetab.heuristic {
  name = "empty-gemm2",
  rank = function(q)
    if q.stage == 2 then return {} end
    return { q.fallback }
  end,
}
