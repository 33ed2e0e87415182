-- print.lua (test): print() from the script body, from a rank call and with several values
-- reaches stderr at once, prefixed "tunetab: script:", tab-separated (scripts/README.md).
local cost = tunetab.lib("moe_cost")
print("loading", 1, nil, true)
local said = false
tunetab.heuristic {
  name = "print",
  rank = function(q)
    if not said then
      said = true
      print(("first rank call: GEMM%d at %d tokens on %s"):format(q.stage, q.tokens, q.device.name))
    end
    return cost.rank(q)
  end,
}
