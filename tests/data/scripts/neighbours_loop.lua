-- calls the C neighbour mean (tunetab.neighbours) in a loop: C work the count hook never sees, so
-- each call is charged to the instruction budget, which must stop it
local cost = tunetab.lib("moe_cost")
tunetab.heuristic {
  params = cost.params,
  name = "nbbomb",
  rank = function(q)
    local nb = tunetab.neighbours(q.device.fit_points, q.stage)
    local n = 0
    for _ = 1, 1e9 do
      n = n + (nb:mean("x", 1, 1, 1, 1, 1, 1, 0) or 0)
      for _, c in ipairs(q.candidates) do nb:mean(c.config or "?", 1, 1024, 1024, 16, 1, 1, 0) end
    end
    return { q.fallback }
  end,
}
