-- neighbours_in_lua.lua: the default heuristic with tunetab.neighbours replaced by the Lua
-- estimate moe_cost.lua computed before it moved to C (issue #46): point by point, over
-- q.device.fit_points (built when read), each point's shift looked up by its place. Every
-- estimate is also asked of C, and must be the same number to the last bit; tests/cli/025
-- checks that both write the same tables, byte for byte.
local real = tunetab.neighbours
local LOG2 = math.log(2)

local function place(p)
  return string.format("%a %a %a %a", p.l, p.f, p.k, p.b)
end

tunetab.neighbours = function(points, stage)
  local nb = real(points, stage)
  local pts = points[stage]
  local site_of = {}
  for i, s in ipairs(nb:sites()) do site_of[place(s)] = i end
  local sites_of = {} -- by group: each point's site
  local o = {}
  function o:sites() return nb:sites() end
  function o:shift(v) return { v = v, c = nb:shift(v) } end
  function o:mean(config, lambda, F, K, bits, width, prior, mrel, P, pq)
    local want = nb:mean(config, lambda, F, K, bits, width, prior, mrel, P and P.c, pq)
    local g = pts[config]
    if not g then
      assert(want == nil, "C has measurements of " .. config)
      return nil
    end
    local at = sites_of[g]
    if not at then
      at = {}
      for i = 1, #g do at[i] = site_of[place(g[i])] end
      sites_of[g] = at
    end
    local ll, lf, lk, lb = math.log(1 + lambda), math.log(F), math.log(K), math.log(bits)
    local inv = 1 / (width * width)
    local num, den = prior * mrel, prior
    for i = 1, #g do
      local p = g[i]
      local a = math.log(1 + p.l) - ll
      local b = math.log(p.f) - lf
      local e = math.log(p.k) - lk
      local h = (math.log(p.b) - lb) / LOG2
      local w = math.exp(-(a * a + b * b + e * e + h * h) * inv)
      local r = p.r
      if P then r = r + (pq - P.v[at[i]]) end
      num = num + w * r
      den = den + w
    end
    local got = num / den
    if got ~= want then
      error(string.format("%s at lambda %a, stage %d: Lua %a, C %s", config, lambda, stage, got,
        want and string.format("%a", want) or "nil"), 0)
    end
    return got
  end
  return o
end

local cost = tunetab.lib("moe_cost")
tunetab.heuristic { name = "default", rank = cost.rank, params = cost.params }
