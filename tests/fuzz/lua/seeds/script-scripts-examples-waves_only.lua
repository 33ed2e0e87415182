1-- waves_only.lua: rank by wave quantization alone (the CUTLASS/TRT-LLM idle-fraction score
-- of tactics §6), using the shared helpers; dispatchable and fitting candidates only.
local waves = tunetab.lib("waves")
local occ = tunetab.lib("occupancy")

tunetab.heuristic {
  name = "waves-only",
  rank = function(q)
    local dep, dev = q.deploy, q.device
    local lambda = q.tokens * dep.top_k / math.max(1, dep.experts)
    local out = {}
    for _, c in ipairs(q.candidates) do
      if c.dispatchable and occ.fits(c, dev, dep.act_bits, dep.weight_bits) then
        local tok, feat = c.m, c.n
        if c.tokens_on_n then tok, feat = c.n, c.m end
        local ctas = dep.experts * waves.tiles_per_expert(lambda, tok) * math.ceil(q.features / feat)
        local slots = dev.sm_count or 100
        out[#out + 1] = { id = c.id, time = waves.waves(math.ceil(ctas), slots) + waves.tail(ctas, slots) }
      end
    end
    table.sort(out, function(a, b)
      if a.time ~= b.time then return a.time < b.time end
      return a.id < b.id
    end)
    return out
  end,
}
