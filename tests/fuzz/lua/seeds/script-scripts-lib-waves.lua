1-- waves.lua: wave quantization and the expected number of token tiles per expert.
local M = {}

-- Number of waves needed to run `ctas` tiles on `slots` concurrent slots.
function M.waves(ctas, slots)
  if ctas <= 0 then return 0 end
  return math.ceil(ctas / math.max(1, slots))
end

-- Idle fraction of the last wave (the CUTLASS/TRT-LLM wave score, tactics §6).
function M.tail(ctas, slots)
  local w = ctas / math.max(1, slots)
  return math.ceil(w) - w
end

-- Expected ceil(c / tile) for c ~ Poisson(lambda): the token tiles one expert needs when
-- tokens are routed uniformly at random (FlashInfer's profiler routes that way, tactics §1.2).
-- Sum over j >= 0 of P(c > j * tile); a normal approximation for large lambda.
local memo, memo_lambda = {}, nil

function M.tiles_per_expert(lambda, tile)
  if lambda <= 0 then return 0 end
  -- candidates share a handful of tile sizes: remember them for this lambda
  if memo_lambda ~= lambda then memo, memo_lambda = {}, lambda end
  local hit = memo[tile]
  if hit then return hit end
  local total, j = 0, 0
  local sd = math.sqrt(lambda)
  local upper = lambda + 8 * sd + tile
  -- exact Poisson tail for small lambda, accumulated once in x; normal beyond
  local term, cdf, i = math.exp(-lambda), 0, -1
  while j * tile < upper do
    local x = j * tile
    local p
    if lambda > 200 then
      local z = (x + 0.5 - lambda) / sd
      p = 0.5 * M.erfc(z / math.sqrt(2))
    else
      while i < x do
        i = i + 1
        if i > 0 then term = term * lambda / i end
        cdf = cdf + term
      end
      p = math.max(0, 1 - cdf)
    end
    total = total + p
    if p < 1e-9 then break end
    j = j + 1
  end
  memo[tile] = total
  return total
end

-- Complementary error function (Abramowitz-Stegun 7.1.26), enough for tail estimates.
function M.erfc(x)
  local s = 1
  if x < 0 then s, x = -1, -x end
  local t = 1 / (1 + 0.3275911 * x)
  local y = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
  local e = y * math.exp(-x * x)
  if s > 0 then return e else return 2 - e end
end

return M
