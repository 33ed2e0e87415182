-- order.lua: the ranking rule the cost models share (moe_cost.rank, gemm_cost.rank): candidates
-- by predicted time, times within the same 0.1% bin tie, ties go to FlashInfer's fallback, then
-- to the lower id. One number orders each: its time bin, the fallback flag, its id.
local M = {}

local LOG_BIN = math.log(1.001)

-- ids: a list of candidate ids (non-negative, below 2e6); time_of[id]: its predicted us.
-- Returns { {id = , time = }, ... } best first.
function M.by_time(ids, time_of, fallback)
  local order = {}
  for _, id in ipairs(ids) do
    order[#order + 1] = math.floor(math.log(time_of[id]) / LOG_BIN) * 4e6
      + (id == fallback and 0 or 2e6) + id
  end
  table.sort(order)
  local out = {}
  for i, v in ipairs(order) do
    local id = math.floor(v % 2e6 + 0.5)
    out[i] = { id = id, time = time_of[id] }
  end
  return out
end

return M
