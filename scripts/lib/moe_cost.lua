-- moe_cost.lua: the cost model behind tunetab's default heuristic: a model of FlashInfer's CUTLASS grouped
-- MoE GEMM (not a lookup table). For one GEMM stage at one token bucket it predicts the time
-- of every candidate and ranks them. The model, in order:
--  * routing: T tokens x top_k picks spread uniformly over the rank's local experts, as
--    FlashInfer's profiler routes (tactics §1.2): lambda = T * top_k / E tokens per expert;
--    the token count c of one expert is Poisson(lambda);
--  * orientation: swap_ab (and every pre-0.5.3 list) puts tokens on N, else on M (§2);
--  * tiles: each expert needs E[ceil(c / token_tile)] token tiles (lib/waves) times
--    ceil(features / feature_tile) feature tiles; CTAs run one per SM in waves;
--  * one CTA: the larger of its tensor-core time (the padded tile's FLOPs at the dtype's
--    dense rate) and the time to stream its operands into shared memory (the weight slice,
--    plus the token rows it really has; TMA does not fetch rows past the end); a 2SM pair or a
--    cluster multicasts the operand the pair shares, halving that stream;
--  * the whole GEMM is never faster than reading the active experts' weights from HBM once;
--  * GEMM2's FINALIZE epilogue saves the separate un-permute pass over the output;
--  * feasibility: dispatchable entries whose tile fits the opt-in shared memory (lib/occupancy);
--  * ties go to FlashInfer's own default tactic (the fallback), then the lower id.

local roof = tunetab.lib("roofline")
local waves = tunetab.lib("waves")
local occ = tunetab.lib("occupancy")

local CTA_OVERHEAD_US = 1.5    -- prologue, pipeline fill and epilogue of one CTA tile
local LAUNCH_US = 4.0          -- kernel launch and grid scheduling
local L2_PER_SM_FACTOR = 2.5   -- L2->SM bandwidth per SM relative to an even HBM share
local SM80_EFFICIENCY = 0.45   -- mma.sync kernels on Hopper/Blackwell tensor cores
local NO_SMEM_PENALTY = 1.02   -- the direct-store epilogue, slightly slower on full tiles
local OVERLAP = 0.3            -- share of the shorter of tile time and HBM time that shows

-- Tensor-core efficiency of a tile: narrow tiles issue smaller MMAs.
local function mma_efficiency(c, sm)
  if c.sm80 then return SM80_EFFICIENCY end
  local narrow = math.min(c.m, c.n)
  local e = 0.55 + 0.45 * math.min(1, narrow / 128)
  -- on SM100 the 2SM MMA (tcgen05, 256 x N across a CTA pair) reads each operand once per
  -- pair; a 1SM MMA of the same per-CTA tile reaches a little less of the peak
  if c.mma == "1sm" and (c.sm_version or sm) >= 100 and (c.sm_version or sm) < 120 then
    e = e * 0.95
  end
  return e
end

local function cost_us(q, c)
  local dev, dep = q.device, q.deploy
  local sms = roof.sms(dev)
  local flops_sm = roof.flops(dev, dep.dtype) / sms
  local bw = roof.bandwidth(dev)
  local stream_sm = L2_PER_SM_FACTOR * bw / sms
  local F, K, E = q.features, q.k, math.max(1, dep.experts)
  local abytes, wbytes = dep.act_bits / 8, dep.weight_bits / 8
  local lambda = q.tokens * dep.top_k / E

  -- which tile side runs over tokens
  -- and how many CTAs a cluster lines up along each side (cluster = {M, N, K})
  local tok_tile, feat_tile = c.m, c.n
  local cl_tok, cl_feat = c.cluster[1] or 1, c.cluster[2] or 1
  if c.tokens_on_n then
    tok_tile, feat_tile = c.n, c.m
    cl_tok, cl_feat = c.cluster[2] or 1, c.cluster[1] or 1
  end
  if c.sm80 then cl_tok, cl_feat = 1, 1 end

  local nt = waves.tiles_per_expert(lambda, tok_tile) -- expected token tiles per expert
  local nf = math.ceil(F / feat_tile)
  local ctas = E * nt * nf
  if ctas <= 0 then return LAUNCH_US end

  -- CTAs along the token side share (multicast) the weight slice; CTAs along the feature
  -- side share the token rows; only as many as exist along that side
  local tok_peers = math.max(1, math.min(cl_tok, nt))
  local feat_peers = math.max(1, math.min(cl_feat, nf))
  -- per CTA: the weight slice (shared by CTAs along the token side) and the real token rows
  -- (shared by CTAs along the feature side)
  local rows = math.min(tok_tile, lambda / math.max(nt / 1, 1e-9))
  local bytes = feat_tile * K * wbytes / tok_peers + rows * K * abytes / feat_peers
  local t_stream = bytes / stream_sm * 1e6
  local t_mma = 2 * c.m * c.n * K / (flops_sm * mma_efficiency(c, dev.sm)) * 1e6
  local t_cta = math.max(t_stream, t_mma) + CTA_OVERHEAD_US
  if c.epilogue == "no_smem" then t_cta = t_cta * NO_SMEM_PENALTY end

  local slots = sms
  if c.sm80 then
    -- SM80-style kernels are not persistent: occupancy from shared memory
    local need = occ.smem_bytes(c, dep.act_bits, dep.weight_bits)
    local cap = dev.smem_per_sm or dev.smem_per_block_optin or need
    slots = sms * math.max(1, math.min(2, math.floor(cap / math.max(need, 1))))
  end
  local t = waves.waves(math.ceil(ctas - 1e-9), slots) * t_cta

  -- never faster than streaming the active experts' weights from HBM once; the tiles' own
  -- time does not hide completely behind that stream (OVERLAP of the shorter one shows)
  local active = E * (1 - math.exp(-lambda))
  local t_hbm = active * F * K * wbytes / bw * 1e6
  t = math.max(t, t_hbm) + OVERLAP * math.min(t, t_hbm) + LAUNCH_US

  -- GEMM2 without FINALIZE leaves a separate pass: read the T x top_k permuted rows, write
  -- the T finalized rows, plus a launch
  if q.stage == 2 and not c.finalize then
    local row = dep.hidden * (dep.out_bits / 8)
    t = t + (dep.top_k + 1) * q.tokens * row / bw * 1e6 + LAUNCH_US
  end
  return t
end

local M = {}

M.cost_us = cost_us

-- Ranks q.candidates: feasible ones only, fastest first.
function M.rank(q)
    local dep = q.deploy
    local scored = {}
    for _, c in ipairs(q.candidates) do
      if c.dispatchable and occ.fits(c, q.device, dep.act_bits, dep.weight_bits) then
        scored[#scored + 1] = { id = c.id, time = cost_us(q, c) }
      end
    end
    table.sort(scored, function(a, b)
      -- equal within 0.1% is a tie: prefer the fallback, then the lower id
      local ta, tb = a.time, b.time
      if math.abs(ta - tb) > 1e-3 * math.max(ta, tb) then return ta < tb end
      if (a.id == q.fallback) ~= (b.id == q.fallback) then return a.id == q.fallback end
      return a.id < b.id
    end)
    return scored
  end

return M
