-- default.lua: tunetab's default heuristic. The cost model lives in lib/moe_cost.lua (see
-- its header for what it models); user scripts can reuse it the same way.
-- The other ops' GEMMs (fp4_gemm's CUTLASS tactics, issue #39) are ranked by lib/gemm_cost.lua.
local cost = tunetab.lib("moe_cost")
local gemm = tunetab.lib("gemm_cost")

tunetab.heuristic { name = "default", rank = cost.rank, rank_op = gemm.rank, params = cost.params }
