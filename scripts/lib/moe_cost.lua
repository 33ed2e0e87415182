-- moe_cost.lua: the cost model behind tunetab's default heuristic: a model of FlashInfer's CUTLASS grouped
-- MoE GEMM (not a lookup table). For one GEMM stage at one token bucket it predicts the time
-- of every candidate and ranks them. The model, in order:
--  * routing: T tokens x top_k picks spread uniformly over all experts, every rank's, as
--    FlashInfer's profiler routes (tactics §1.2: its fake router draws from the local
--    experts x ep_size): lambda = T * top_k / experts_total tokens per local expert; the
--    token count c of one expert is Poisson(lambda);
--  * orientation: swap_ab (and every pre-0.5.3 list) puts tokens on N, else on M (§2);
--  * tiles: each expert needs E[ceil(c / token_tile)] token tiles (lib/waves) times
--    ceil(features / feature_tile) feature tiles; CTAs run one per SM in waves;
--  * clusters: CUTLASS's grouped tile scheduler rounds each expert's tiles up to whole
--    clusters along each side, so a 2x1 cluster along tokens gives an expert with one token
--    tile two CTAs, one of them idle (param cluster_round: the share of them that counts);
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
local order = tunetab.lib("order")
local occ = tunetab.lib("occupancy")

-- The model's free parameters: datasheet-model defaults, and the range `tunetab learn` may
-- fit them in from measured journals (a fit file, `generate --model-fit FILE`, overrides
-- them by name; scripts/README.md lists them).
local PARAMS = {
  { name = "cta_overhead_us", default = 1.5, min = 0.05, max = 20,
    doc = "prologue, pipeline fill and epilogue of one CTA tile" },
  { name = "launch_us", default = 4.0, min = 0.5, max = 40,
    doc = "kernel launch and grid scheduling" },
  { name = "l2_per_sm_factor", default = 2.5, min = 0.25, max = 20,
    doc = "L2->SM bandwidth per SM relative to an even HBM share" },
  { name = "sm80_efficiency", default = 0.45, min = 0.05, max = 1.5,
    doc = "mma.sync kernels on Hopper/Blackwell tensor cores" },
  { name = "no_smem_penalty", default = 1.02, min = 0.7, max = 1.5,
    doc = "the direct-store epilogue, relative to the staged one" },
  { name = "overlap", default = 0.3, min = 0, max = 1,
    doc = "share of the shorter of tile time and HBM time that shows" },
  { name = "mma_eff_base", default = 0.55, min = 0.05, max = 1.5,
    doc = "tensor-core efficiency of the narrowest tile" },
  { name = "mma_eff_rise", default = 0.45, min = 0, max = 1.5,
    doc = "what a tile gains in efficiency up to a narrow side of mma_eff_full" },
  { name = "mma_eff_full", default = 128, min = 16, max = 512,
    doc = "the narrow tile side at which a tile reaches full tensor-core efficiency" },
  { name = "swap_ab_factor", default = 1.0, min = 0.5, max = 2,
    doc = "time of a swap_ab (tokens on N) kernel relative to the model's" },
  { name = "cluster_factor", default = 1.0, min = 0.5, max = 2,
    doc = "time of a kernel with a cluster of 2 or more CTAs relative to the model's" },
  { name = "cluster_1x2", default = 1.0, min = 0.5, max = 2,
    doc = "time of a kernel with a 1x2 cluster (two CTAs along N) relative to other clusters" },
  { name = "cluster_2x2", default = 1.0, min = 0.5, max = 2,
    doc = "time of a kernel with a 2x2 cluster relative to other clusters" },
  { name = "epilogue_factor", default = 0, min = 0, max = 4,
    doc = "time of writing one CTA tile's output, relative to streaming as many bytes in" },
  { name = "swap_epilogue", default = 1.0, min = 0.5, max = 4,
    doc = "the epilogue of a swap_ab kernel (a transposed store) relative to another's" },
  { name = "neighbour_width", default = 1.0, min = 0.25, max = 4,
    doc = "how far measured neighbours reach (see Measured neighbours; tunetab learn picks it by cross-validation)" },
  { name = "sm80_stage_gain", default = 0, min = -0.3, max = 0.3,
    doc = "what each pipeline stage past two takes off an SM80-style CTA's time, as a share" },
  { name = "cluster_round", default = 0, min = 0, max = 1,
    doc = "share of the idle CTAs that rounding each expert's tiles up to whole clusters adds" },
}
-- Per-tile time factors: one CTA tile's time relative to the model's, by the kernel's own
-- M x N (the tensor-core efficiency and the pipeline a tile shape really reaches; 1 = the
-- model's curve). TILE_SHAPES lists the tile shapes of the catalogs (SM90 TMA, SM100, and
-- the SM80-style mma.sync tiles, named sm80_tile_MxN).
local TILE_SHAPES = { "128x16", "128x32", "128x64", "128x128", "128x256", "256x128",
  "64x32", "64x64", "64x128", "64x256" }
local SM80_TILE_SHAPES = { "32x128", "64x128", "128x128" }
for _, t in ipairs(TILE_SHAPES) do
  PARAMS[#PARAMS + 1] = { name = "tile_" .. t, default = 1.0, min = 0.5, max = 2,
    doc = "time of one " .. t .. " CTA tile relative to the model's" }
end
for _, t in ipairs(SM80_TILE_SHAPES) do
  PARAMS[#PARAMS + 1] = { name = "sm80_tile_" .. t, default = 1.0, min = 0.5, max = 2,
    doc = "time of one " .. t .. " SM80-style CTA tile relative to the model's" }
end

-- Tensor-core efficiency of a tile: narrow tiles issue smaller MMAs. A calibrated device
-- (tunetab calibrate) gives measured efficiencies per tile shape instead.
local function mma_efficiency(c, sm, cal, dtype, p)
  if cal and cal.tiles and not c.sm80 then
    for _, t in ipairs(cal.tiles) do
      if t.m == c.m and t.n == c.n then
        local e = (dtype == "bf16" or dtype == "fp16") and t.eff_bf16 or t.eff_fp8
        if e and e > 0 then return e end
      end
    end
  end
  if c.sm80 then return p.sm80_efficiency end
  local narrow = math.min(c.m, c.n)
  local e = p.mma_eff_base + p.mma_eff_rise * math.min(1, narrow / p.mma_eff_full)
  -- on SM100 the 2SM MMA (tcgen05, 256 x N across a CTA pair) reads each operand once per
  -- pair; a 1SM MMA of the same per-CTA tile reaches a little less of the peak
  if c.mma == "1sm" and (c.sm_version or sm) >= 100 and (c.sm_version or sm) < 120 then
    e = e * 0.95
  end
  return e
end

-- What a query's candidates share, computed once per query.
-- The parameters in force: the defaults, each overridden by the device's fit when it has one.
local function params_of(dev)
  local fit, p = dev.fit, {}
  for _, d in ipairs(PARAMS) do
    p[d.name] = fit and fit[d.name] or d.default
  end
  return p
end

local function query_context(q)
  local dev, dep = q.device, q.deploy
  local x = {}
  x.p = params_of(dev)
  x.sms = roof.sms(dev)
  x.cal = dev.calibration
  -- measured rates, when the device was calibrated, instead of the datasheet's
  local flops, bw = roof.flops(dev, dep.dtype), roof.bandwidth(dev)
  if x.cal then
    local t = x.cal.dense_tflops or {}
    local m = (dep.dtype == "bf16" or dep.dtype == "fp16") and t.bf16 or t.fp8
    if m and m > 0 then flops = m * 1e12 end
    if x.cal.copy_gbs and x.cal.copy_gbs > 0 then bw = x.cal.copy_gbs * 1e9 end
  end
  x.flops_sm = flops / x.sms
  x.bw = bw
  x.stream_sm = x.p.l2_per_sm_factor * x.bw / x.sms
  x.F, x.K, x.E = q.features, q.k, math.max(1, dep.experts)
  x.abytes, x.wbytes = dep.act_bits / 8, dep.weight_bits / 8
  x.lambda = q.tokens * dep.top_k / math.max(1, dep.experts_total or dep.experts)
  -- the HBM floor: the active experts' weights, read once
  x.t_hbm = x.E * (1 - math.exp(-x.lambda)) * x.F * x.K * x.wbytes / x.bw * 1e6
  -- GEMM2 without FINALIZE: a separate pass reads the T x top_k permuted rows and writes T
  x.t_finalize = (dep.top_k + 1) * q.tokens * dep.hidden * (dep.out_bits / 8) / x.bw * 1e6 + x.p.launch_us
  x.smem_cap = dev.smem_per_sm or dev.smem_per_block_optin
  x.sm = dev.sm
  return x
end

-- The cluster round-up: the CUTLASS SM90 grouped scheduler gives each expert (group)
-- roundup(ceil(tokens / token tile), cluster along tokens) x roundup(ceil(features / feature
-- tile), cluster along features) CTAs; the idle ones in a cluster hold their SMs as long as
-- their partners. This is that count over the unrounded one, for lambda tokens per expert
-- (Poisson: E[2 ceil(c / 2t)] / E[ceil(c / t)]) and F features. 1 without a cluster.
-- The token side's factor (cl_tok > 1, lambda > 0), remembered by lambda, tile and cluster;
-- the feature side's multiplies the factor f so far.
local pad_memo = {}

local function token_pad(lambda, tok_tile, cl_tok)
  local key = lambda .. ":" .. tok_tile .. ":" .. cl_tok
  local v = pad_memo[key]
  if not v then
    local one = waves.tiles_per_expert(lambda, tok_tile)
    v = one > 0 and cl_tok * waves.tiles_per_expert(lambda, tok_tile * cl_tok) / one or 1
    pad_memo[key] = v
  end
  return v
end

local function feature_pad(f, F, feat_tile, cl_feat)
  if cl_feat > 1 then
    local nf = math.ceil(F / feat_tile)
    f = f * cl_feat * math.ceil(nf / cl_feat) / nf
  end
  return f
end

local function cluster_pad(lambda, F, tok_tile, feat_tile, cl_tok, cl_feat)
  local f = 1
  if cl_tok > 1 and lambda > 0 then f = token_pad(lambda, tok_tile, cl_tok) end
  return feature_pad(f, F, feat_tile, cl_feat)
end

-- Which tile side runs over tokens, and how many CTAs a cluster lines up along each side
-- (cluster = {M, N, K}): token tile, feature tile, cluster along tokens, along features.
local function orient(c)
  local tok_tile, feat_tile = c.m, c.n
  local cl_tok, cl_feat = c.cluster[1] or 1, c.cluster[2] or 1
  if c.tokens_on_n then
    tok_tile, feat_tile = c.n, c.m
    cl_tok, cl_feat = c.cluster[2] or 1, c.cluster[1] or 1
  end
  if c.sm80 then cl_tok, cl_feat = 1, 1 end
  return tok_tile, feat_tile, cl_tok, cl_feat
end

local function cost_with(x, q, c)
  local dep = q.deploy
  local K = x.K
  local p = x.p
  local tok_tile, feat_tile, cl_tok, cl_feat = orient(c)

  local nt = waves.tiles_per_expert(x.lambda, tok_tile) -- expected token tiles per expert
  local nf = math.ceil(x.F / feat_tile)
  -- the grouped tile scheduler rounds each expert's tiles up to whole clusters along each side
  -- (an expert with one token tile under a 2x1 cluster along tokens still takes two CTAs)
  local ctas = x.E * nt * nf * (1 + p.cluster_round * (cluster_pad(x.lambda, x.F, tok_tile, feat_tile,
    cl_tok, cl_feat) - 1))
  if ctas <= 0 then return p.launch_us end

  -- CTAs along the token side share (multicast) the weight slice; CTAs along the feature
  -- side share the token rows; only as many as exist along that side
  local tok_peers = math.max(1, math.min(cl_tok, nt))
  local feat_peers = math.max(1, math.min(cl_feat, nf))
  -- per CTA: the weight slice and the token rows the tile really has (TMA fetches no rows
  -- past the end)
  local rows = math.min(tok_tile, x.lambda / math.max(nt, 1e-9))
  local bytes = feat_tile * K * x.wbytes / tok_peers + rows * K * x.abytes / feat_peers
  local t_stream = bytes / x.stream_sm * 1e6
  local t_mma = 2 * c.m * c.n * K / (x.flops_sm * mma_efficiency(c, x.sm, x.cal, dep.dtype, p)) * 1e6
  local t_cta = math.max(t_stream, t_mma) + p.cta_overhead_us
  if p.epilogue_factor > 0 then
    -- the epilogue writes the tile's output after the main loop: it shows most when K is short
    local t_epi = c.m * c.n * (dep.out_bits / 8) / x.stream_sm * 1e6 * p.epilogue_factor
    if c.tokens_on_n then t_epi = t_epi * p.swap_epilogue end
    t_cta = t_cta + t_epi
  end
  if c.epilogue == "no_smem" then t_cta = t_cta * p.no_smem_penalty end
  local tf = p[(c.sm80 and "sm80_tile_" or "tile_") .. c.m .. "x" .. c.n]
  if tf then t_cta = t_cta * tf end
  if c.sm80 then t_cta = t_cta * (1 - p.sm80_stage_gain * math.max(0, (c.stages or 2) - 2)) end

  local slots = x.sms
  if c.sm80 then
    -- SM80-style kernels are not persistent: occupancy from shared memory
    local need = occ.smem_bytes(c, dep.act_bits, dep.weight_bits)
    local cap = x.smem_cap or need
    slots = x.sms * math.max(1, math.min(2, math.floor(cap / math.max(need, 1))))
  end
  local t = waves.waves(math.ceil(ctas - 1e-9), slots) * t_cta

  -- never faster than the HBM floor; the tiles' own time does not hide completely behind
  -- that stream (OVERLAP of the shorter one shows)
  t = math.max(t, x.t_hbm) + p.overlap * math.min(t, x.t_hbm) + p.launch_us
  if c.tokens_on_n and not c.sm80 then t = t * p.swap_ab_factor end
  if not c.sm80 and (c.cluster[1] or 1) * (c.cluster[2] or 1) > 1 then
    t = t * p.cluster_factor
    if (c.cluster[2] or 1) > 1 then
      t = t * ((c.cluster[1] or 1) > 1 and p.cluster_2x2 or p.cluster_1x2)
    end
  end
  if q.stage == 2 and not c.finalize then t = t + x.t_finalize end
  return t
end

local function cost_us(q, c)
  return cost_with(query_context(q), q, c)
end

-- Measured neighbours: a fit made by `tunetab learn` carries the training measurements
-- (device.fit_points[stage][config] = { {l, f, k, b, r}, ... }: where each GEMM was, lambda
-- tokens per local expert (as above), features, reduction and weight bits, and
-- r = log(time / that entry's fastest)). A candidate's estimate for this query is the
-- kernel-weighted mean of its own configuration's r, the weight exp(-d^2) falling with the
-- distance
--   d^2 = (log(1+l) - log(1+l'))^2 + log(f/f')^2 + log(k/k')^2 + log2(b/b')^2
-- over width^2 (width = the param neighbour_width; at 1, one unit per term: a factor e in
-- lambda+1, features or reduction, or double the weight bits), shrunk toward the model's own
-- log(time / fastest) with the weight of PRIOR_WEIGHT close points: where no measurement is
-- near, the model decides. With a fit that models the cluster round-up (cluster_round > 0),
-- a clustered configuration's neighbour is first moved here by the round-up's whole change
-- in CTAs, log(round-up here / round-up there): the count jumps with integer tile counts (one
-- token tile or two, an odd number of feature tiles) where the smooth distance cannot follow.
-- (tunetab learn picks the width by leave-one-deployment-out over
-- its training journals; a width of 1 and PRIOR_WEIGHT are where a trial on six H200
-- deployments started, docs/benchmarks.md.)
-- The weighted mean runs in C, tunetab.neighbours (scripts/README.md): it visits every
-- measured point of a configuration for every query, which in Lua took most of a fitted
-- table's time (docs/benchmarks.md, "The cost model at datasheet speed"). The points of a
-- stage sit at a few places, its sites; each query weighs a site once.
local PRIOR_WEIGHT = 0.1

-- The token side's factor at a measured site or a query, by its exact lambda: both stages
-- (the same entries: the same lambdas) and every query read it, and token_pad's key is text.
local tok_at = {}

local function site_token_pad(lambda, tok_tile, cl_tok)
  if not (cl_tok > 1 and lambda > 0) then return 1 end
  local k = tok_tile * 16 + cl_tok
  local t = tok_at[k]
  if not t then
    t = {}
    tok_at[k] = t
  end
  local v = t[lambda]
  if not v then
    v = token_pad(lambda, tok_tile, cl_tok)
    t[lambda] = v
  end
  return v
end

-- A candidate's cluster as the shifts see it: orient's sides, a side without a cluster as 0
-- (it adds nothing: orientations that differ only there share a shift), and their key; false
-- without a cluster. Once per candidate table (weak), as config_key below.
local cluster_of = setmetatable({}, { __mode = "k" })

local function cluster_orient(c)
  local o = cluster_of[c]
  if o == nil then
    local tok_tile, feat_tile, cl_tok, cl_feat = orient(c)
    o = false
    if cl_tok > 1 or cl_feat > 1 then
      if cl_tok == 1 then tok_tile = 0 end
      if cl_feat == 1 then feat_tile = 0 end
      o = { key = ((tok_tile * 4096 + feat_tile) * 16 + cl_tok) * 16 + cl_feat,
        tok_tile = tok_tile, feat_tile = feat_tile, cl_tok = cl_tok, cl_feat = cl_feat }
    end
    cluster_of[c] = o
  end
  return o
end

-- log(cluster round-up) at each measured site, for one cluster orientation o, as nb:shift;
-- by neighbours object and orientation (every query of a stage reads them)
local pads_of = setmetatable({}, { __mode = "k" })

local function site_pads(nb, o)
  local by = pads_of[nb]
  if not by then
    by = { sites = nb:sites() }
    pads_of[nb] = by
  end
  local t = by[o.key]
  if not t then
    local v = {}
    for i, s in ipairs(by.sites) do
      v[i] = math.log(feature_pad(site_token_pad(s.l, o.tok_tile, o.cl_tok), s.f, o.feat_tile,
        o.cl_feat))
    end
    t = nb:shift(v)
    by[o.key] = t
  end
  return t
end

-- the neighbours' estimate of c's log(time / fastest); the model's own, mrel, when the fit
-- measured no such configuration
local function neighbour_score(nb, x, q, dep, c, mrel)
  -- a neighbour measured where its cluster rounded up to more (or fewer) idle CTAs than here
  -- is moved to here by the whole difference in the scheduler's CTA count (the measured
  -- kernels held those SMs), whatever share of it the model's own term counts
  local P, pq = nil, 0
  local o = x.p.cluster_round > 0 and cluster_orient(c)
  if o then
    P = site_pads(nb, o)
    -- log(cluster_pad) here, once per query and orientation
    x.pq = x.pq or {}
    pq = x.pq[o.key]
    if not pq then
      pq = math.log(feature_pad(site_token_pad(x.lambda, o.tok_tile, o.cl_tok), x.F, o.feat_tile,
        o.cl_feat))
      x.pq[o.key] = pq
    end
  end
  return nb:mean(c.config, x.lambda, x.F, x.K, dep.weight_bits, x.p.neighbour_width,
    PRIOR_WEIGHT, mrel, P, pq) or mrel
end

local M = {}

M.cost_us = cost_us
M.params = PARAMS

-- Ranks q.candidates: feasible ones only, fastest first.
-- candidate table -> its config key, or false when it cannot run (weak: per candidate list)
local config_key = setmetatable({}, { __mode = "k" })

function M.rank(q)
  local dep = q.deploy
  local x = query_context(q)
  local seen = {} -- lists repeat a config under other ids (dynamic clusters): cost it once
  local time_of, feasible = {}, {}
  for _, c in ipairs(q.candidates) do
    -- feasibility and the config key do not change between queries: computed once per
    -- candidate (tunetab hands the same candidate tables to every query of a stage)
    local key = config_key[c]
    if key == nil then
      if c.dispatchable and occ.fits(c, q.device, dep.act_bits, dep.weight_bits) then
        key = ((((c.m * 4096 + c.n) * 4096 + c.k) * 4 + c.cluster[1]) * 4 + c.cluster[2]) * 64
          + (c.tokens_on_n and 32 or 0) + (c.finalize and 16 or 0) + (c.sm80 and 8 or 0)
          + (c.epilogue == "no_smem" and 4 or 0) + (c.mma == "2sm" and 2 or 0) + (c.stages or 0) * 1e15
      else
        key = false
      end
      config_key[c] = key
    end
    if key then
      local t = seen[key]
      if not t then
        t = cost_with(x, q, c)
        seen[key] = t
      end
      time_of[c.id] = t
      feasible[#feasible + 1] = c
    end
  end
  -- with a fit's measurements, the neighbours' estimate ranks (as a time: the model's fastest
  -- times exp(score)); otherwise the model's time
  local nb = q.device.fit_points and tunetab.neighbours(q.device.fit_points, q.stage)
  if nb and #feasible > 0 then
    local tmin = math.huge
    for _, c in ipairs(feasible) do tmin = math.min(tmin, time_of[c.id]) end
    local score = {}
    for _, c in ipairs(feasible) do
      local s = score[c.config]
      if not s then
        s = neighbour_score(nb, x, q, dep, c, math.log(time_of[c.id] / tmin))
        score[c.config] = s
      end
      time_of[c.id] = tmin * math.exp(s)
    end
  end
  -- times within the same 0.1% bin tie; ties go to the fallback, then to the lower id
  local ids = {}
  for _, c in ipairs(feasible) do ids[#ids + 1] = c.id end
  return order.by_time(ids, time_of, q.fallback)
end

return M
