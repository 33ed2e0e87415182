-- gemm_cost.lua: a model of one dense NVFP4 GEMM as FlashInfer's fp4_gemm runs it with its CUTLASS
-- runner (issue #39), for the heuristics' rank_op: q = { op, runner, m, n, k, device, fallback,
-- candidates = { {id, tile = {M, N, K bytes}, cluster = {M, N}, swap_ab, stream_k}, ... } }
-- (configs/ops/fp4_gemm.yaml lists them per SM, from FlashInfer's getConfigs()). It ranks the
-- tactics to time first; nothing it predicts is written as a table's tactic (no Blackwell GPU
-- has checked it yet: generate writes the fallback there unless --profile measures). The model:
--  * orientation: swap_ab puts the tokens (M) on the tile's N side (SM120's configs);
--  * tiles: ceil(rows / tile M) x ceil(cols / tile N) CTAs, each side rounded up to whole
--    clusters; data-parallel CTAs run in waves of one per SM; Stream-K spreads the K loop of
--    every CTA over all SMs (no wave tail, a fix-up pass per extra split);
--  * one CTA: the larger of its tensor-core time (2 * tile M * tile N * K at the fp4 dense
--    rate per SM, less efficient for a narrow tile) and streaming its A and B slices
--    (K / 2 bytes a row) from L2; a cluster shares the operand along its long side;
--  * the GEMM is never faster than reading the weights (N * K / 2 bytes) from HBM once;
--  * ties go to the fallback (the tactic -1 runs), then to the lower id.
local roof = tunetab.lib("roofline")
local waves = tunetab.lib("waves")
local order = tunetab.lib("order")

local M = {}

-- its free parameters, at their datasheet defaults (not registered with the heuristic: no
-- measurement of this op exists to fit them from yet)
M.params = {
  { name = "gemm_cta_overhead_us", default = 1.0, min = 0.05, max = 20,
    doc = "prologue, pipeline fill and epilogue of one fp4_gemm CTA" },
  { name = "gemm_launch_us", default = 3.0, min = 0.5, max = 40,
    doc = "kernel launch of one fp4_gemm" },
  { name = "gemm_l2_per_sm_factor", default = 2.5, min = 0.25, max = 20,
    doc = "L2->SM bandwidth per SM relative to an even HBM share" },
  { name = "gemm_stream_k_fixup", default = 0.15, min = 0, max = 2,
    doc = "Stream-K's fix-up pass, relative to one CTA's time, per extra split" },
}

local function params_of(dev)
  local fit, p = dev.fit, {}
  for _, d in ipairs(M.params) do p[d.name] = fit and fit[d.name] or d.default end
  return p
end

-- tensor-core efficiency of a tile whose narrow side is s (full from 128)
local function efficiency(s)
  return math.min(1, 0.5 + 0.5 * s / 128)
end

function M.cost_us(q, c, x)
  local tm, tn, tkb = c.tile[1], c.tile[2], c.tile[3]
  local rows, cols = q.m, q.n
  if c.swap_ab then rows, cols = q.n, q.m end
  local cm, cn = c.cluster[1] or 1, c.cluster[2] or 1
  local tiles_m = math.ceil(math.ceil(rows / tm) / cm) * cm
  local tiles_n = math.ceil(math.ceil(cols / tn) / cn) * cn
  local ctas = tiles_m * tiles_n
  local t_mma = 2 * tm * tn * q.k / x.flops_sm / efficiency(math.min(tm, tn)) * 1e6
  -- operands: a row of A or B is K / 2 bytes; a cluster multicasts the shared side
  local a_bytes = tm * q.k / 2 / cn
  local b_bytes = tn * q.k / 2 / cm
  local t_load = (a_bytes + b_bytes) / x.stream_sm * 1e6
  -- the K loop's pipeline wants a few stages of tkb-byte steps: a deep step on a short K idles
  local steps = math.max(1, math.ceil(q.k / 2 / tkb))
  local t_cta = math.max(t_mma, t_load) * (1 + 1 / (2 * steps)) + x.p.gemm_cta_overhead_us
  local t
  if c.stream_k then
    local splits = math.max(1, math.floor(x.sms / ctas))
    t = ctas * t_cta / x.sms + (splits - 1) * x.p.gemm_stream_k_fixup * t_cta
  else
    t = waves.waves(ctas, x.sms) * t_cta
  end
  return math.max(t, x.t_hbm) + x.p.gemm_launch_us
end

function M.rank(q)
  local dev = q.device
  local x = { p = params_of(dev), sms = roof.sms(dev) }
  x.flops_sm = roof.flops(dev, "nvfp4") / x.sms
  x.bw = roof.bandwidth(dev)
  x.stream_sm = x.p.gemm_l2_per_sm_factor * x.bw / x.sms
  x.t_hbm = (q.n * q.k / 2 + q.m * q.k / 2 + q.m * q.n * 2) / x.bw * 1e6
  local ids, time_of = {}, {}
  for _, c in ipairs(q.candidates) do
    time_of[c.id] = M.cost_us(q, c, x)
    ids[#ids + 1] = c.id
  end
  return order.by_time(ids, time_of, q.fallback)
end

return M
