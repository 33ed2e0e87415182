1-- check_default.lua (test): the default cost model, with an assertion that its ranking never
-- holds a non-dispatchable candidate or one whose tile does not fit shared memory.
local cost = tunetab.lib("moe_cost")
local occ = tunetab.lib("occupancy")

tunetab.heuristic {
  name = "check-default",
  rank = function(q)
    local ranked = cost.rank(q)
    local by_id = {}
    for _, c in ipairs(q.candidates) do by_id[c.id] = c end
    for _, r in ipairs(ranked) do
      local c = by_id[r.id]
      if not c.dispatchable then
        error(("ranked non-dispatchable tactic %d at %d tokens"):format(c.id, q.tokens))
      end
      if not occ.fits(c, q.device, q.deploy.act_bits, q.deploy.weight_bits) then
        error(("ranked tactic %d, whose tile needs %d B of shared memory"):format(c.id,
          occ.smem_bytes(c, q.deploy.act_bits, q.deploy.weight_bits)))
      end
    end
    if #ranked == 0 then error("no feasible candidate at " .. q.tokens .. " tokens") end
    return ranked
  end,
}
