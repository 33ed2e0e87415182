-- linears.lua: a model's linear layers as a serving stack builds them from the checkpoint's
-- config.json, per tensor-parallel rank, and which of them its NVFP4 linear method runs
-- through FlashInfer's fp4_gemm (issue #39). For the consumer scripts:
--
--   local linears = tunetab.lib("linears")
--   local list, why = linears.layout(model, { tp = 8, attn_tp = 8, shared_fused = false })
--   local gemms, notes = linears.fp4_gemms(list, model.exclude, "sglang")
--
-- model is facts.model (model.config: config.json's top-level scalars; model.exclude: the
-- checkpoint's exclude list). layout returns nil and why for an architecture it does not know.
-- Each linear: { module = "model.layers.3.mlp.gate_up_proj", shards = {"gate_proj", "up_proj"},
-- layer = 3, kind = "dense MLP gate_up", n = , k = } with n, k the rank's out and in features,
-- and decode = false for a linear the decode warm-up does not call.
-- The sandbox has no patterns: globs are matched by hand.
local M = {}

local function int(v)
  return math.tointeger(v)
end

-- the DeepSeek-V2/V3 family as SGLang 0.5.23 and vLLM 0.34.0 build it (SGLang
-- models/deepseek_v2.py:2070-2162, :305-321; GLM-5's GlmMoeDsaForCausalLM subclasses it,
-- models/glm4_moe.py:1284): MLA attention, dense MLP in the first first_k_dense_replace
-- layers, routed experts plus shared experts after
local DEEPSEEK = { deepseek_v2 = true, deepseek_v3 = true, deepseek_v32 = true, glm_moe_dsa = true,
                   kimi_k2 = true }

local function deepseek(c, p)
  local H, L = int(c.hidden_size), int(c.num_hidden_layers)
  local heads = int(c.num_attention_heads)
  local q_lora, kv_lora = int(c.q_lora_rank), int(c.kv_lora_rank)
  local nope, rope, v = int(c.qk_nope_head_dim), int(c.qk_rope_head_dim), int(c.v_head_dim)
  local inter, moe_inter = int(c.intermediate_size), int(c.moe_intermediate_size)
  local dense = int(c.first_k_dense_replace) or 0
  local shared = int(c.n_shared_experts) or 0
  if not (H and L and heads and kv_lora and nope and rope and v and inter and moe_inter) then
    return nil, "config.json lacks a DeepSeek-family size (hidden_size, num_hidden_layers, " ..
      "num_attention_heads, kv_lora_rank, qk_*_head_dim, v_head_dim, intermediate_size, " ..
      "moe_intermediate_size)"
  end
  local tp, atp = p.tp, p.attn_tp
  local function split(x, by, what)
    if x % by ~= 0 then error(string.format("%s %d does not split over TP %d", what, x, by)) end
    return x // by
  end
  local out = {}
  local function add(layer, module, shards, kind, n, k, decode)
    out[#out + 1] = { module = module, shards = shards, layer = layer, kind = kind, n = n, k = k,
                      decode = decode ~= false }
  end
  for i = 0, L - 1 do
    local pre = "model.layers." .. i .. "."
    local qk = nope + rope
    if q_lora then
      -- q_a_proj and kv_a_proj_with_mqa fused, replicated (deepseek_v2.py fused_qkv_a_proj_with_mqa)
      add(i, pre .. "self_attn.fused_qkv_a_proj_with_mqa", { "q_a_proj", "kv_a_proj_with_mqa" },
          "attention q/kv down-projection", q_lora + kv_lora + rope, H)
      add(i, pre .. "self_attn.q_b_proj", nil, "attention q up-projection",
          split(heads * qk, atp, "heads x qk_head_dim"), q_lora)
    else
      add(i, pre .. "self_attn.q_proj", nil, "attention q projection",
          split(heads * qk, atp, "heads x qk_head_dim"), H)
      add(i, pre .. "self_attn.kv_a_proj_with_mqa", nil, "attention kv down-projection",
          kv_lora + rope, H)
    end
    -- absorbed into the MLA kernels at decode: no linear call then (forward_mha only)
    add(i, pre .. "self_attn.kv_b_proj", nil, "attention kv up-projection",
        split(heads * (nope + v), atp, "heads x (nope + v)"), kv_lora, false)
    add(i, pre .. "self_attn.o_proj", nil, "attention output projection", H,
        split(heads * v, atp, "heads x v_head_dim"))
    if i < dense then
      add(i, pre .. "mlp.gate_up_proj", { "gate_proj", "up_proj" }, "dense MLP gate/up",
          2 * split(inter, tp, "intermediate_size"), H)
      add(i, pre .. "mlp.down_proj", nil, "dense MLP down", H, split(inter, tp, "intermediate_size"))
    elseif shared > 0 and not p.shared_fused then
      local si = moe_inter * shared
      local n1 = 2 * split(si, tp, "shared expert intermediate")
      -- p.shared_swiglu: SGLang on SM100 runs a w4a4 shared expert's gate/up through its fused
      -- SwiGLU kernel when N % 128 == 0, not mm_fp4 (SGLang deepseek_v2.py:908-929)
      add(i, pre .. "mlp.shared_experts.gate_up_proj", { "gate_proj", "up_proj" },
          "shared expert gate/up", n1, H, not (p.shared_swiglu and n1 % 128 == 0))
      add(i, pre .. "mlp.shared_experts.down_proj", nil, "shared expert down", H,
          split(si, tp, "shared expert intermediate"))
    end
  end
  return out
end

-- Qwen3 MoE as SGLang 0.5.23 builds it (models/qwen3_moe.py:508-540, 843-861; layers/linear.py
-- QKVParallelLinear :1139-1152): q, k and v fused, the KV heads split over TP or one a rank when
-- TP is wider; the MoE layers every decoder_sparse_step-th, dense MLP in mlp_only_layers
local QWEN3 = { qwen3_moe = true }

local function qwen3(c, p)
  local H, L = int(c.hidden_size), int(c.num_hidden_layers)
  local heads, kv = int(c.num_attention_heads), int(c.num_key_value_heads)
  local hd = int(c.head_dim) or (H and heads and H // heads)
  local inter = int(c.intermediate_size)
  local step = int(c.decoder_sparse_step) or 1
  if not (H and L and heads and kv and hd) then
    return nil, "config.json lacks a Qwen3 size (hidden_size, num_hidden_layers, " ..
      "num_attention_heads, num_key_value_heads)"
  end
  local atp = p.attn_tp
  if heads % atp ~= 0 then error(string.format("%d heads do not split over TP %d", heads, atp)) end
  local kv_local = kv >= atp and kv // atp or 1
  local dense = {}
  for _, l in ipairs(c.mlp_only_layers or {}) do dense[l] = true end
  local out = {}
  local function add(layer, module, shards, kind, n, k)
    out[#out + 1] = { module = module, shards = shards, layer = layer, kind = kind, n = n, k = k,
                      decode = true }
  end
  for i = 0, L - 1 do
    local pre = "model.layers." .. i .. "."
    add(i, pre .. "self_attn.qkv_proj", { "q_proj", "k_proj", "v_proj" }, "attention qkv",
        (heads // atp + 2 * kv_local) * hd, H)
    add(i, pre .. "self_attn.o_proj", nil, "attention output projection", H, heads // atp * hd)
    if dense[i] or step < 1 or (i + 1) % step ~= 0 then
      if not inter or inter % p.tp ~= 0 then error("intermediate_size does not split over TP") end
      add(i, pre .. "mlp.gate_up_proj", { "gate_proj", "up_proj" }, "dense MLP gate/up",
          2 * inter // p.tp, H)
      add(i, pre .. "mlp.down_proj", nil, "dense MLP down", H, inter // p.tp)
    end
  end
  return out
end

function M.layout(model, p)
  local c = model.config or {}
  local arch = DEEPSEEK[model.model_type] and deepseek or QWEN3[model.model_type] and qwen3
  if not arch then
    return nil, "tunetab does not know how the server lays out " .. tostring(model.model_type) ..
      "'s linear layers"
  end
  local ok, list, why = pcall(arch, c, p)
  if not ok then return nil, tostring(list) end
  if not list then return nil, why end
  if arch == deepseek and c.index_n_heads then
    -- the DSA indexer's linears (wq_b, wk, weights_proj): tunetab does not lay them out
    list.unknown = "model.layers.N.self_attn.indexer"
  end
  local vocab, H = int(c.vocab_size), int(c.hidden_size)
  -- the warm-ups that tune do not compute logits (SGLang base_runner.py:414-416
  -- run_lm_head=False; vLLM's _dummy_run), so the LM head's fp4_gemm is not tuned at start
  list[#list + 1] = { module = "lm_head", layer = -1, kind = "LM head",
                      n = vocab and (vocab + p.tp - 1) // p.tp, k = H, decode = false }
  return list
end

-- glob: '*' any run of characters, '?' one, anything else literal (fnmatch without classes)
local function glob(p, s)
  local function at(i, j)
    while i <= #p do
      local ch = string.sub(p, i, i)
      if ch == "*" then
        for k = j, #s + 1 do
          if at(i + 1, k) then return true end
        end
        return false
      end
      if j > #s then return false end
      if ch ~= "?" and ch ~= string.sub(s, j, j) then return false end
      i, j = i + 1, j + 1
    end
    return j > #s
  end
  return at(1, 1)
end

local function has_glob(p)
  return string.find(p, "*", 1, true) or string.find(p, "?", 1, true)
end

-- a list's globs by index, each as its literal text before the first '*' or '?' (false: not a
-- glob), worked out once per list: a checkpoint's exclude list has hundreds of entries, each
-- asked about for every module, and a name that does not start with a glob's literal part
-- cannot match it
local globs_of = setmetatable({}, { __mode = "k" })
local function globs(list)
  local g = globs_of[list]
  if not g then
    g = {}
    for i, p in ipairs(list) do
      local at = has_glob(p)
      if at then
        local q = string.find(p, "?", 1, true)
        if q and q < at then at = q end
        g[i] = string.sub(p, 1, at - 1)
      else
        g[i] = false
      end
    end
    globs_of[list] = g
  end
  return g
end

-- one module name against the exclude list: a glob matches the whole name; a plain name
-- matches the module or any module under it (SGLang modelopt_quant.py:379-420 is_layer_excluded,
-- quantization/utils.py:70-125 is_layer_skipped; vLLM modelopt.py is_layer_excluded)
local function excluded(name, list)
  local g = globs(list)
  for i, p in ipairs(list) do
    local pre = g[i]
    if pre then
      if string.sub(name, 1, #pre) == pre and glob(p, name) then return true end
    elseif name == p or string.sub(name, 1, #p + 1) == p .. "." then
      return true
    end
  end
  return false
end

-- "a.b.c" -> "a.b." (the module's parent with its dot)
local function parent(name)
  local last = 0
  local i = string.find(name, ".", 1, true)
  while i do
    last = i
    i = string.find(name, ".", i + 1, true)
  end
  return string.sub(name, 1, last)
end

-- the linears whose NVFP4 method calls fp4_gemm at the decode warm-up: not excluded (a fused
-- linear is excluded when all its shards are; SGLang refuses a mixed one)
function M.fp4_gemms(list, exclude)
  exclude = exclude or {}
  local out, notes = {}, {}
  for _, l in ipairs(list) do
    local skip
    if l.shards then
      local prefix = parent(l.module)
      local n = 0
      for _, s in ipairs(l.shards) do
        if excluded(prefix .. s, exclude) then n = n + 1 end
      end
      if n > 0 and n < #l.shards then
        notes[#notes + 1] = l.module .. ": some of its fused shards are excluded, others not " ..
          "(the server refuses such a checkpoint)"
      end
      skip = n == #l.shards or excluded(l.module, exclude)
    else
      skip = excluded(l.module, exclude)
    end
    if not skip and l.decode then out[#out + 1] = l end
  end
  if list.unknown then
    for _, l in ipairs(list) do
      if l.layer >= 0 and not excluded(parent(l.module) .. "indexer", exclude)
          and not excluded(parent(l.module) .. "indexer.wq_b", exclude) and string.find(l.module, "self_attn.", 1, true) then
        notes[#notes + 1] = "the DSA indexer's linears of layer " .. l.layer .. " are not " ..
          "excluded: tunetab does not know their shapes, so their fp4_gemm keys are not written"
        break
      end
    end
  end
  return out, notes
end

-- The call of FlashInfer's TensorRT-LLM-gen NVFP4 MoE that SGLang 0.5.23 and vLLM 0.34.0 both
-- make for an NVFP4 checkpoint's routed experts (docs/research/issue39-deployments.md §4): t
-- (tune, m, tune_max, inter, experts, local_experts, routing, ...) with the model's sizes and the
-- arguments both pass alike: e2m1 activations and weights, SwiGLU, MajorK shuffled weights, no
-- fused shared expert, finalized output
function M.nvfp4_moe_call(model, t)
  t.hidden, t.hidden_output, t.top_k = model.hidden, model.hidden, model.top_k
  t.local_expert_offset, t.shared, t.finalize = 0, 0, 1
  t.act_dtype, t.weight_dtype, t.activation = "e2m1", "e2m1", 3
  t.layout, t.shuffled, t.packed, t.per_token = 0, 1, 0, 0
  t.layer = "routed experts (" .. t.experts .. " experts, top-" .. model.top_k .. ")"
  return t
end

-- x rounded up to a multiple of a (SGLang's round_up, vLLM's round_up: (x + a - 1) // a * a)
function M.round_up(x, a)
  return (x + a - 1) // a * a
end

-- the distinct (n, k) shapes of gemms, in first-seen order, each with the layers it covers
function M.shapes(gemms)
  local seen, out = {}, {}
  for _, g in ipairs(gemms) do
    local key = g.n .. "x" .. g.k
    local s = seen[key]
    if not s then
      s = { n = g.n, k = g.k, kinds = {}, count = 0 }
      seen[key] = s
      out[#out + 1] = s
    end
    s.count = s.count + 1
    if not s.kinds[g.kind] then
      s.kinds[g.kind] = true
      s.kinds[#s.kinds + 1] = g.kind
    end
  end
  for _, s in ipairs(out) do
    s.layer = table.concat(s.kinds, ", ") .. " (" .. s.count .. " linears)"
  end
  return out
end

return M
