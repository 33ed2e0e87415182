1-- occupancy.lua: whether a candidate's tile fits the device's shared memory.
local M = {}

-- Shared memory one CTA needs: at least two pipeline stages of the A and B tiles plus the
-- epilogue staging. TMA-WS kernels carve their stage count out of the arch's capacity at
-- compile time (StageCountAutoCarveout, tactics §2), so a tile that cannot hold two stages
-- fails at initialize; SM80-style entries use their own stage count.
function M.smem_bytes(c, act_bits, weight_bits)
  local ka = c.k * act_bits / 8
  local kb = c.k * weight_bits / 8
  local a = c.m * ka
  local b = c.n * kb
  if c.tokens_on_n then a, b = c.m * kb, c.n * ka end
  local stages = c.sm80 and c.stages or 2
  local epilogue = 0
  if not c.sm80 and c.epilogue ~= "no_smem" then
    epilogue = math.min(c.m * c.n * 2, 32768) -- a bf16 output tile, staged in parts
  end
  return stages * (a + b) + epilogue
end

function M.fits(c, device, act_bits, weight_bits)
  local cap = device.smem_per_block_optin
  if not cap then return true end
  return M.smem_bytes(c, act_bits, weight_bits) <= cap
end

return M
