-- default.lua: tunetab's default heuristic. The cost model lives in lib/moe_cost.lua (see
-- its header for what it models); user scripts can reuse it the same way.
local cost = tunetab.lib("moe_cost")

tunetab.heuristic { name = "default", rank = cost.rank, params = cost.params }
