-- sglang.lua: an SGLang launch command read as SGLang 0.5.22 / 0.5.23 reads it, the cache key
-- it hashes and the FlashInfer CUTLASS fused-MoE runner it builds. Every rule is from the
-- released wheels (pip download sglang==0.5.23 --no-deps); paths below are under sglang/srt/
-- of 0.5.23 (0.5.22's line where it differs). tests/consumers/sglang_launch.py runs SGLang's
-- own parser and resolution on the same commands (make test-consumers).
local launch = tunetab.lib("launch")
local TABLES = tunetab.lib("sglang_options")   -- SGLang's own option tables, per release
local inputs = tunetab.lib("inputs")
local linears = tunetab.lib("linears")

local COMMANDS = {
  { "python*", "-m", "sglang.launch_server" },
  { "sglang", "serve" },
}

local version_less = launch.version_less

-- SGLang's human_readable_int (utils/common.py:3394-3428, 0.5.22 and 0.5.23 alike): a plain
-- integer as int() takes it, or digits with an SI suffix (k, M, G, T; decimals allowed, the
-- product truncated as int(Decimal) does) or an IEC one (Ki, Mi, Gi, Ti; no decimals)
local SI = { k = 3, M = 6, G = 9, T = 12 }
local IEC = { Ki = 10, Mi = 20, Gi = 30, Ti = 40 }
local WANTS = "wants an integer (or one with a suffix: 1k, 1M, 1Ki, 1Mi)"
local function human_readable_int(text)
  local v = launch.strip(text)
  local plain = launch.int(v)
  if plain then return plain end
  local suffix, shift, si
  for sfx, e in pairs(IEC) do
    if #v > 2 and string.sub(v, -2) == sfx then suffix, shift = sfx, e end
  end
  if not suffix then
    for sfx, e in pairs(SI) do
      if #v > 1 and string.sub(v, -1) == sfx then suffix, shift, si = sfx, e, true end
    end
  end
  if not suffix then return nil, WANTS end
  local number = string.sub(v, 1, #v - #suffix)
  local dot = string.find(number, ".", 1, true)
  local whole, frac = number, ""
  if dot then whole, frac = string.sub(number, 1, dot - 1), string.sub(number, dot + 1) end
  if not launch.digits(whole) or (dot and not launch.digits(frac)) then return nil, WANTS end
  if not si then
    if dot then return nil, "takes no decimals with an IEC suffix (Ki, Mi, Gi, Ti)" end
    local n = math.tointeger(tonumber(whole))
    if not n or n > (math.maxinteger >> shift) then return nil, WANTS end
    return n << shift
  end
  -- SI: whole x 10^e plus the fraction's first e digits (the rest truncated)
  local frac_e = string.sub(frac .. string.rep("0", shift), 1, shift)
  local n = math.tointeger(tonumber(whole .. frac_e))
  if not n then return nil, WANTS end
  return n
end

-- the options resolve() reads as numbers, with the type= SGLang's parser gives each (int
-- fields get type=int: arg_groups/arg_utils.py:267-275; fields/parallel.py tp_size, pp_size,
-- dp_size, attn_dp_size, moe_dp_size, ep_size; fields/schedule.py chunked_prefill_size,
-- max_running_requests, max_prefill_tokens (type_parser=human_readable_int);
-- fields/exec_.py cuda_graph_max_bs_decode; the same in 0.5.22)
local TYPES = { tp_size = "int", pp_size = "int", dp_size = "int", attn_dp_size = "int",
                moe_dp_size = "int", ep_size = "int", chunked_prefill_size = "int",
                max_running_requests = "int", cuda_graph_max_bs_decode = "int",
                max_prefill_tokens = human_readable_int }

local function read(words, start, version)
  local options, table_version = launch.options_for(TABLES, version, TYPES)
  -- argparse's allow_abbrev is on: --tp and --dp are prefixes of --tp-size and --dp-size
  -- (server_args.py:668-720 builds the parser; SGLang's own parser checked the prefixes)
  local o, why = launch.parse(words, start, options, true)
  if not o then return nil, why end
  return o, table_version
end

local function parse(words, env)
  local cmd, why = launch.command(words, COMMANDS)
  if not cmd then return nil, why end
  local o, err = read(words, cmd.start, "999")
  if not o then return nil, "SGLang would refuse this launch command (its parser: " .. err .. ")" end
  if not o.model_path then return nil, "sglang needs --model-path (arg_groups/fields/model.py:51)" end
  return { model_path = o.model_path, revision = o.revision, python = cmd.python,
           words = words, start = cmd.start }
end

local function int(v, default)
  if v == nil then return default end
  return math.tointeger(tonumber(v))
end

local function contains(list, x)
  for _, v in ipairs(list) do
    if v == x then return true end
  end
  return false
end

-- the model families SGLang's overrides name by architecture (arg_groups/overrides.py:745-760,
-- model_overrides/qwen3_moe.py:29-50, glm4_moe.py:15-33)
local DEEPSEEK = { "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM",
                   "KimiK25ForConditionalGeneration", "MistralLarge3ForCausalLM" }
local QWEN3 = { "Qwen3MoeForCausalLM", "Qwen3VLMoeForConditionalGeneration", "Qwen3NextForCausalLM",
                "Qwen3_5MoeForCausalLM", "Qwen3_5ForCausalLM" }

-- the config classes SGLang registers itself (utils/hf_transformers/common.py:117-233; the
-- config is re-loaded with them, config.py:281-297)
local OWN_CLASS = { deepseek_v32 = "_DeepseekV32ConfigAlias", kimi_k2 = "_KimiK2ConfigAlias",
                    deepseek_v4 = "_DeepseekV4ConfigAlias", kimi_k25 = "KimiK25Config",
                    qwen3_next = "Qwen3NextConfig", glm5_next = "Glm5NextConfig" }

-- a2a backends that span experts over the TP group: ep_size = tp_size (overrides.py:1578-1621)
local EP_SPANNING = { "deepep", "deepep_v2", "megamoe", "mooncake", "nixl", "ascend_fuseep",
                      "flashinfer", "flashinfer_megamoe", "mori", "pplx" }

-- the checkpoint's quantization as SGLang's ModelConfig names it (configs/model_config.py:1850-1900)
local function checkpoint_quant(m)
  if not m.quantized then return nil end
  if m.quant_method == "modelopt" then
    if m.quant_algo and (string.find(m.quant_algo, "FP4", 1, true)) then return "modelopt_fp4" end
    if m.quant_algo == "FP8" then return "modelopt_fp8" end
    if m.quant_algo == "MXFP8" then return "mxfp8" end
    return "modelopt"
  end
  return m.quant_method
end

-- the batch of the warm-up's one decode-shaped dummy forward: the decode CUDA graph's largest
-- batch (0.5.23 base_runner.py:279-285, 392-416; decode_cuda_graph_runner.py:704-717), by GPU
-- memory and TP (arg_groups/memory_hook.py:47-188), capped by --max-running-requests
local function decode_bs(o, gpu, tp, version)
  local mem = gpu.memory_mib
  local bs = int(o.cuda_graph_max_bs_decode)
  local from = "--cuda-graph-max-bs-decode"
  if o.disable_cuda_graph then
    return nil, "--disable-cuda-graph: SGLang " .. version .. " tunes at its eager runner's " ..
      "batch size, which tunetab does not know (give a launch command without it to check the rest)"
  end
  if not bs then
    if not mem then
      return nil, "SGLang " .. version .. " tunes at its CUDA graph's largest decode batch, " ..
        "sized by GPU memory, which tunetab does not know for '" .. gpu.name .. "': give " ..
        "--cuda-graph-max-bs-decode in the command"
    end
    if mem < 20 * 1024 then bs = 8
    elseif mem < 35 * 1024 then bs = tp < 4 and 48 or 160
    elseif mem < 60 * 1024 then bs = tp < 4 and 32 or 160
    elseif mem < 160 * 1024 then bs = tp < 4 and 256 or 512
    else bs = 512 end
    from = string.format("SGLang %s's largest decode batch for a %d MiB GPU at TP %d", version, mem, tp)
  end
  local mrr = int(o.max_running_requests)
  if mrr and mrr < bs then bs, from = mrr, "--max-running-requests" end
  return bs, from
end

-- the flashinfer_cutlass runner's tune_max_num_tokens
local function tune_max(version, o, gpu, tp, attn_dp)
  local mem = gpu.memory_mib   -- SGLang's thresholds are MiB (arg_groups/memory_hook.py:90-170)
  if not version_less(version, "0.5.23") then
    -- 0.5.23 moe_runner/flashinfer_cutlass.py:168-181: min(prefill chunk x attention DP, 8192);
    -- the chunk by GPU memory (arg_groups/memory_hook.py:47-180), divided over attention DP
    -- (parallel_hook.py:327-332) and multiplied back
    if o.disaggregation_mode == "decode" then
      return nil, "prefill-decode disaggregation (decode): SGLang 0.5.23 tunes the power of two " ..
        "of each call's tokens; tunetab does not know them"
    end
    local chunk = int(o.chunked_prefill_size)
    local from = "--chunked-prefill-size"
    if chunk == nil then
      if not mem then
        return nil, "SGLang sizes its prefill chunk by GPU memory, which tunetab does not " ..
          "know for '" .. gpu.name .. "': give --chunked-prefill-size in the command"
      end
      if mem < 20 * 1024 then chunk = 2048 elseif mem < 60 * 1024 then chunk = 4096
      elseif mem < 160 * 1024 then chunk = 8192 else chunk = 16384 end
      from = string.format("SGLang's prefill chunk for a %d MiB GPU", mem)
    end
    if chunk <= 0 then chunk, from = int(o.max_prefill_tokens, 16384), "--max-prefill-tokens" end
    return math.min(chunk, 8192), "min(" .. from .. ", 8192), as SGLang 0.5.23 passes it"
  end
  -- 0.5.22 (moe_runner/flashinfer_cutlass.py:315): the power of two of the call's tokens; the
  -- warm-up's one call is decode-shaped at the CUDA graph's largest batch (base_runner.py,
  -- decode_cuda_graph_runner.py:345, memory_hook.py:47-180)
  local bs, from = decode_bs(o, gpu, tp, "0.5.22")
  if not bs then return nil, from end
  local p = 1
  while p < bs do p = p * 2 end
  return p, "the power of two of " .. from .. " (" .. bs .. "), as SGLang 0.5.22 passes it"
end

-- the architectures whose shared expert SGLang fuses into the routed MoE, and the rule
-- (models/deepseek_v2.py:3322-3398 shared_experts_fusion_disable_reason, glm4_moe.py:1285;
-- layers/moe/utils.py:601-623; arg_groups/overrides.py:1528-1556 turns it off for these MoE
-- runners; modelopt_quant.py:1552-1559 for an exclude list that keeps the shared expert)
local FUSES_SHARED = { DeepseekV3ForCausalLM = true, GlmMoeDsaForCausalLM = true }
local NO_FUSION_RUNNERS = { flashinfer_cutedsl = true, flashinfer_trtllm = true,
  flashinfer_trtllm_routed = true, experimental_sgl_trtllm = true, lora_triton = true,
  lora_cutedsl = true, lora_marlin = true }
local function fused_shared(o, m, gpu, backend, a2a, ep, q)
  local c = m.config or {}
  local shared = math.tointeger(c.n_shared_experts) or 0
  if shared == 0 or not FUSES_SHARED[m.architecture] then return 0 end
  if o.disable_shared_experts_fusion or NO_FUSION_RUNNERS[backend] then return 0 end
  for _, x in ipairs(m.exclude or {}) do
    if string.find(x, "shared_expert", 1, true) and not string.find(x, "shared_expert_gate", 1, true) then
      return 0
    end
  end
  if not o.enforce_shared_experts_fusion then
    if q == "modelopt_fp4" and gpu.sm // 10 == 9 and backend == "marlin" then return 0 end
    if o.enable_two_batch_overlap or o.enable_single_batch_overlap then return 0 end
    if a2a == "deepep" or a2a == "deepep_v2" or a2a == "mooncake" then return 0 end
    local routed = math.tointeger(c.n_routed_experts)
    if routed ~= 256 or shared ~= 1 then return 0 end
    if gpu.sm < 80 or ep > 1 then return 0 end
  end
  return shared
end

-- the ops SGLang 0.5.23's start-up autotune profiles besides the CUTLASS MoE (issue #39;
-- runner/flashinfer_autotune.py:77-161, read with model_config.quantization: the checkpoint's
-- when the command names none): the dense NVFP4 GEMM (fp4_gemm) and, on SM10x, the
-- TensorRT-LLM-gen NVFP4 MoE. Each op: { op, runner, tunes, why, calls = { {fields} } }.
local function start_ops(o, m, gpu, version, c)
  local ops, notes = {}, {}
  local major = gpu.sm // 10
  if version_less(version, "0.5.23") then return ops, notes end
  local fp4 = c.runtime_q == "modelopt_fp4" or c.runtime_q == "modelopt_mixed"
  if not fp4 then return ops, notes end
  local bs, bs_from = decode_bs(o, gpu, c.tp, version)
  local out_dtype = c.dtype == "float16" and "float16" or "bfloat16"
  local skip = {}
  for _, x in ipairs(o.flashinfer_autotune_skip_ops or {}) do skip[x] = true end
  -- the dense FP4 GEMM backend (layers/quantization/fp4_utils.py:149-160): auto is CuTe-DSL on
  -- SM100/SM103 (is_sm100: major 10), Marlin on SM80-SM99, else FlashInfer's CUTLASS
  local backend = o.fp4_gemm_runner_backend or "auto"
  if backend == "auto" then
    if major == 10 then backend = "flashinfer_cutedsl"
    elseif gpu.sm >= 80 and gpu.sm < 100 then backend = "marlin"
    else backend = "flashinfer_cutlass" end
  end
  local runner = ({ flashinfer_cutlass = "CutlassFp4GemmRunner",
                    flashinfer_cutedsl = "CuteDSLFp4GemmRunner" })[backend]
  local g = { op = "fp4_gemm", runner = runner or backend, calls = {} }
  ops[#ops + 1] = g
  if not runner then
    g.tunes, g.why = false, "the dense FP4 GEMM backend is " .. backend .. ", not one SGLang " ..
      "tunes (flashinfer_autotune.py:135-138)"
  elseif c.off then
    g.tunes, g.why = false, c.off
  elseif skip.fp4_gemm then
    g.tunes, g.why = false, "--flashinfer-autotune-skip-ops names fp4_gemm"
  elseif not bs then -- tuned, at a batch tunetab cannot tell: its keys unknown
    g.tunes, g.why, g.unknown = true, bs_from, true
  else
    local list, why = linears.layout(m, { tp = c.tp, attn_tp = c.tp // c.attn_dp,
                                           shared_fused = c.fused_shared > 0,
                                           shared_swiglu = major == 10 and backend ~= "marlin" and backend ~= "flashinfer_trtllm" })
    if not list then -- an NVFP4 checkpoint's linears SGLang tunes, laid out as tunetab cannot
      g.tunes, g.why = true, why
      g.unknown = true
    else
      local gemms, gnotes = linears.fp4_gemms(list, m.exclude)
      for _, n in ipairs(gnotes) do notes[#notes + 1] = n end
      g.tunes = #gemms > 0
      if not g.tunes then
        g.why = "the checkpoint excludes every linear layer from NVFP4 (" ..
          tostring(m.exclude_from) .. ")"
      end
      for _, sh in ipairs(linears.shapes(gemms)) do
        g.calls[#g.calls + 1] = { tune = "at_m", m = bs, tune_max = bs, n = sh.n, k = sh.k, out = out_dtype,
                                  layer = sh.layer }
      end
      g.from = "the decode warm-up at " .. bs .. " tokens (" .. bs_from .. ")"
    end
  end
  -- the TensorRT-LLM-gen NVFP4 MoE (moe_runner/flashinfer_trtllm.py:1371-1399, 1588, 1642):
  -- tune_max_num_tokens = next_power_of_2(tokens of the call)
  if major == 10 and (c.backend == "flashinfer_trtllm" or c.backend == "flashinfer_trtllm_routed") then
    local t = { op = "flashinfer::trtllm_fp4_block_scale_moe", runner = "MoERunner", calls = {} }
    ops[#ops + 1] = t
    local skipped = skip["flashinfer::trtllm_fp4_block_scale_moe"]
    if c.off then t.tunes, t.why = false, c.off
    elseif skipped then
      t.tunes, t.why = false, "--flashinfer-autotune-skip-ops names flashinfer::trtllm_fp4_block_scale_moe"
    elseif not bs then t.tunes, t.why, t.unknown = true, bs_from, true
    else
      local p = 1
      while p < bs do p = p * 2 end
      local experts, ep = m.experts, c.ep
      local moe_tp = c.tp // ep
      -- the per-GPU intermediate size the kernel gets (and its key's intermediate_size): SGLang
      -- pads it for the NVFP4 TensorRT-LLM-gen MoE. 0.5.23 wheel, layers/quantization/
      -- modelopt_quant.py:2476-2490 (create_weights): round_up to 64 for a gated MoE in the
      -- TensorRT-LLM weight layout (128 otherwise), kept in layer.intermediate_size_per_partition
      -- (:3267 passes it on); then moe_runner/flashinfer_trtllm.py:524-545, 667
      -- (_align_fp4_moe_weights: 16 gated, 128 not), a no-op after it. The call is gated
      -- (SwiGLU: linears.nvfp4_moe_call), and its hidden size unpadded (trtllm_nvfp4_hidden_
      -- alignment, :613-625: 1 unless per-token and not gated). 0.5.22 pads to 16 only
      -- (flashinfer_trtllm.py:513-534, 656; its create_weights, modelopt_quant.py:2423-2436,
      -- does not round), but tunetab models these ops from 0.5.23 on.
      local inter = linears.round_up(m.intermediate // moe_tp, 64)
      t.tunes = true
      t.calls[1] = linears.nvfp4_moe_call(m, { tune = "at_m", m = bs, tune_max = p, inter = inter,
        experts = experts, local_experts = experts // ep,
        routing = c.backend == "flashinfer_trtllm_routed" and "routed" or "logits" })
      t.from = "the decode warm-up at " .. bs .. " tokens, tune_max_num_tokens " .. p
    end
  end
  return ops, notes
end

local function resolve(p, f)
  local version = f.version
  local o, table_version = read(p.words, p.start, version)
  if not o then
    return nil, "SGLang " .. version .. " would refuse this launch command (its parser: " ..
      table_version .. ")"
  end
  local m, gpu, env = f.model, f.gpu, f.env
  local major = gpu.sm // 10
  local notes = {}
  if #o.unknown > 0 then -- argparse: "unrecognized arguments" (exit 2)
    local names = {}
    for _, u in ipairs(o.unknown) do names[#names + 1] = u.name end
    return nil, "SGLang " .. table_version .. " would refuse this launch command: its parser " ..
      "has no " .. table.concat(names, ", ") .. " (unrecognized arguments)"
  end
  -- the closed world (inputs.lua): what tunetab cannot tell the effect of
  local unknowns = inputs.unknowns{ stack = "SGLang " .. version, given = o.given,
    tables = TABLES, env = env, launch_env = f.launch_env or {} }
  if version_less(table_version, version) then
    unknowns[#unknowns + 1] = { what = "SGLang " .. version .. "'s options: tunetab has its " ..
      "parser up to " .. table_version, give = "--consumer-version " .. table_version ..
      " if the server is that release" }
  end
  -- parallel widths (arg_groups/parallel_hook.py:39-61, :287-292; runtime_context.py:106-171)
  local tp, pp, dp = int(o.tp_size, 1), int(o.pp_size, 1), int(o.dp_size, 1)
  local attn_dp = int(o.attn_dp_size, 1)
  for _, w in ipairs({ { "--tp-size", tp }, { "--pp-size", pp }, { "--dp-size", dp },
                       { "--attn-dp-size", attn_dp }, { "--ep-size", int(o.ep_size, 1) },
                       { "--moe-dp-size", int(o.moe_dp_size, 1) } }) do
    if w[2] < 1 then return nil, w[1] .. " " .. w[2] .. ": a parallel size is at least 1" end
  end
  if o.enable_dp_attention then attn_dp, dp = dp, 1 end
  if attn_dp > 1 and dp > 1 then
    return nil, "SGLang refuses attention DP together with --dp-size replicas (parallel_hook.py:287-292)"
  end
  local a2a = o.moe_a2a_backend or "none"
  local ep = int(o.ep_size, 1)
  if contains(EP_SPANNING, a2a) then ep = tp end
  local moe_dp = int(o.moe_dp_size, 1)
  if tp % (ep * moe_dp) ~= 0 then
    return nil, string.format("TP %d does not split into EP %d x MoE DP %d", tp, ep, moe_dp)
  end
  -- quantization as hashed: the command's, filled from the checkpoint only on SM10x for these
  -- families (overrides.py:764-841, qwen3_moe.py:29-50, glm4_moe.py:15-33);
  -- "unquant" is None (serving_hook.py:692-703)
  local ckpt = checkpoint_quant(m)
  local q = o.quantization
  if q == "unquant" then q = nil end
  if not q and major == 10 and (contains(DEEPSEEK, m.architecture) or contains(QWEN3, m.architecture)
                                or m.architecture == "Glm4MoeForCausalLM") then
    q = ckpt
  end
  local runtime_q = q or ckpt
  -- the model's dtype (configs/model_config.py:2284-2345): the config's, float32 -> float16 with
  -- auto; an MXFP4 gpt-oss checkpoint sets bfloat16 (model_overrides/gpt_oss.py:56-63)
  local dtype = o.dtype or "auto"
  if m.model_type == "gpt_oss" and ckpt == "mxfp4" and dtype == "auto" then dtype = "bfloat16" end
  if dtype == "auto" then
    dtype = m.torch_dtype or "float32"
    if dtype == "float32" then
      dtype = string.find(m.model_type, "gemma", 1, true) == 1 and "bfloat16" or "float16"
    end
  elseif dtype == "half" then dtype = "float16"
  elseif dtype == "float" then dtype = "float32" end
  -- the MoE runner backend as hashed (overrides.py:1449-1525, moe_hook.py, model_overrides/)
  local backend = o.moe_runner_backend or "auto"
  if backend == "auto" then
    if a2a == "megamoe" or a2a == "flashinfer_megamoe" then backend = "flashinfer_megamoe"
    elseif a2a == "deepep_v2" or a2a == "pplx" then backend = "deep_gemm"
    elseif m.model_type == "gpt_oss" and ckpt == "mxfp4" and (major == 10 or major == 12) then
      backend = "flashinfer_mxfp4"
    elseif major == 10 and a2a == "none" and contains(DEEPSEEK, m.architecture) and
        (q == nil or contains({ "fp8", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed" }, q)) then
      backend = "flashinfer_trtllm"
    elseif major == 10 and a2a == "none" and contains(QWEN3, m.architecture) and
        (q == nil or contains({ "fp8", "modelopt_fp4", "modelopt_mixed" }, q)) then
      backend = "flashinfer_trtllm"
    elseif major == 10 and a2a == "none" and m.architecture == "Glm4MoeForCausalLM" and
        (q == nil or q == "modelopt_fp4") then
      backend = "flashinfer_trtllm"
    elseif q == "nvfp4_online" or q == "mxfp8" then backend = "flashinfer_trtllm"
    elseif q == "modelopt_fp4" and (gpu.sm == 120 or gpu.sm == 121 or gpu.sm == 110) then
      backend = "flashinfer_cutlass"
    end
    if a2a == "deepep" and backend == "flashinfer_trtllm" then backend = "flashinfer_trtllm_routed" end
  end
  if backend == "flashinfer_cutlass" then -- moe_hook.py:80-92
    if q and not contains({ "modelopt_fp4", "modelopt_fp8", "modelopt_mixed" }, q) then
      return nil, "--moe-runner-backend flashinfer_cutlass with quantization '" .. q .. "': " ..
        "SGLang refuses it at start (moe_hook.py:80-92)"
    end
    if ep ~= 1 and ep ~= tp then
      return nil, "--moe-runner-backend flashinfer_cutlass needs --ep-size 1 or equal to TP " ..
        "(moe_hook.py:80-92)"
    end
  end
  -- FlashInfer's CUTLASS MoE as the runner calls it (moe_runner/flashinfer_cutlass.py:297-396,
  -- layers/quantization/mxfp4.py:1275-1424)
  local tunes, why_not, tdtype, input_view = true, nil, nil, nil
  if backend == "flashinfer_cutlass" then
    if not m.quantized then
      tdtype = dtype == "float16" and "fp16" or "bf16"
    elseif runtime_q == "modelopt_fp4" then
      tdtype = "nvfp4"
      -- bf16 in, quantized by the kernel, unless the attention-DP all-gather quantizes first
      -- (token_dispatcher/standard.py:157-211; moe/utils.py:707-718)
      local fp4_gather = attn_dp > 1 and ep == attn_dp and a2a == "none" and q == "modelopt_fp4"
        and not o.disable_flashinfer_cutlass_moe_fp4_allgather
      if not fp4_gather then input_view = "bf16" end
    elseif runtime_q == "modelopt_fp8" then
      tdtype = "fp8"  -- the input quantized to fp8 by SGLang (flashinfer_cutlass.py:261)
    else
      tunes, why_not = false, "a " .. tostring(runtime_q) .. " checkpoint runs other MoE kernels " ..
        "than FlashInfer's CUTLASS even with --moe-runner-backend flashinfer_cutlass (block fp8: " ..
        "Triton, layers/quantization/fp8.py:2974-2984)"
    end
  elseif backend == "flashinfer_mxfp4" and ckpt == "mxfp4" and (gpu.sm == 90 or major == 12) then
    -- the MXFP4 CUTLASS path (moe_runner/flashinfer_cutlass.py:483-619): bf16 x mxfp4 with
    -- w4 group scaling on SM90, mxfp8 activations on SM12x
    tdtype = gpu.sm == 90 and "w4a16_mxfp4" or "fp8_mxfp4"
  elseif backend == "auto" then
    tunes, why_not = false, "the MoE runner backend stays 'auto' (" ..
      (q and ("quantization " .. q) or "no --quantization") .. " on SM" .. gpu.sm ..
      "), and SGLang tunes no MoE kernel then (flashinfer_autotune.py:117-124)" ..
      (ckpt == "modelopt_fp4" and (major == 12 or gpu.sm == 110)
       and "; with --quantization modelopt_fp4 it picks flashinfer_cutlass (overrides.py:1511-1521)" or "")
  else
    tunes, why_not = false, "MoE runner backend " .. backend .. ": not FlashInfer's CUTLASS fused MoE"
  end
  if tunes then
    if major < 9 then
      tunes, why_not = false, "SGLang tunes FlashInfer only on SM90 and up (flashinfer_autotune.py:155)"
    elseif o.disable_flashinfer_autotune then
      tunes, why_not = false, "--disable-flashinfer-autotune"
    elseif o.enable_deterministic_inference then
      tunes, why_not = false, "--enable-deterministic-inference turns FlashInfer autotuning off"
    elseif o.enable_kv_cache_sharding and not version_less(version, "0.5.23") then
      tunes, why_not = false, "--enable-kv-cache-sharding turns FlashInfer autotuning off (0.5.23)"
    end
  end
  -- the activation (moe_runner/flashinfer_cutlass.py:184-205; flashinfer_trtllm.py:717-740):
  -- gated silu is Swiglu, gelu Geglu; non-gated relu2 Relu2
  local acts = { silu = "swiglu", gelu = "geglu", swigluoai = "swiglu", relu2 = "relu2" }
  local act = acts[m.activation]
  if tunes and not act then
    tunes, why_not = false, "activation '" .. m.activation .. "': tunetab does not know what SGLang " ..
      "passes FlashInfer for it"
  end
  -- use_fused_finalize (flashinfer_cutlass.py:391; environ.py:1251, EnvBool: true/1/yes/y): the
  -- variable and its default are sglang.yaml's (fused_finalize_env, fused_finalize_default)
  local ff_env, ff_default = f.consumer.fused_finalize_env, f.consumer.fused_finalize_default
  local ff = launch.env_bool(env, ff_env, ff_default, { "true", "1", "yes", "y" })
  local ff_from = launch.env(env, ff_env) and (ff_env .. "=" .. env[ff_env])
    or (ff_env .. " unset: SGLang's default, " .. (ff_default and "on" or "off"))
  local max_tokens, why, moe_unknown = nil, nil, nil
  if tunes then -- a command SGLang takes: buckets tunetab cannot tell are a cannot-tell (#47)
    max_tokens, why = tune_max(version, o, gpu, tp, attn_dp)
    if max_tokens then
      notes[#notes + 1] = "tunes token buckets up to " .. max_tokens .. " (" .. why .. ")"
    else
      moe_unknown = why
    end
  end
  -- what turns FlashInfer's start-up autotune off for every op (flashinfer_autotune.py:77-161)
  local off
  if major < 9 then off = "SGLang tunes FlashInfer only on SM90 and up (flashinfer_autotune.py:155)"
  elseif o.disable_flashinfer_autotune then off = "--disable-flashinfer-autotune"
  elseif o.enable_deterministic_inference then
    off = "--enable-deterministic-inference turns FlashInfer autotuning off"
  elseif o.enable_kv_cache_sharding and not version_less(version, "0.5.23") then
    off = "--enable-kv-cache-sharding turns FlashInfer autotuning off (0.5.23)"
  end
  local nfused = fused_shared(o, m, gpu, backend, a2a, ep, runtime_q)
  if nfused > 0 and tunes then
    notes[#notes + 1] = string.format("the shared expert is fused into the routed MoE: %d " ..
      "experts, top-%d (models/deepseek_v2.py:698-703, 3322-3398)", m.experts + nfused, m.top_k + nfused)
  end
  local ops, onotes = start_ops(o, m, gpu, version, { runtime_q = runtime_q, tp = tp, ep = ep,
    attn_dp = attn_dp, dtype = dtype, backend = backend, off = off, fused_shared = nfused })
  if not ops then return nil, onotes end
  for _, n in ipairs(onotes) do notes[#notes + 1] = n end
  local skip = {}
  for _, x in ipairs(o.flashinfer_autotune_skip_ops or {}) do skip[#skip + 1] = x end
  table.sort(skip)
  return {
    ops = ops,
    moe_experts = m.experts + nfused, moe_top_k = m.top_k + nfused,
    -- the CUTLASS MoE is tuned in the warm-up's call with tune_max_num_tokens = max_tokens
    moe_tune = "at_m", moe_m = decode_bs(o, gpu, tp, version),
    model_path = p.model_path,
    torch_dtype = "torch." .. dtype,
    quantization = q or "None",
    moe_runner_backend = backend,
    skip_ops = table.concat(skip, ","),
    hf_config_class = OWN_CLASS[m.model_type] or m.config_class,
    tp = tp, pp = pp, dp = dp, attn_dp = attn_dp, moe_ep = ep,
    dtype = tdtype, input_view = input_view, activation = act or m.activation,
    biases = m.biases,
    runner_tp = tp // ep // moe_dp, runner_ep = ep,
    fused_finalize = ff, fused_finalize_from = ff_from,
    max_tokens = max_tokens or 0,
    tunes = tunes, why_not = why_not, moe_unknown = moe_unknown,
    notes = notes,
    unknowns = unknowns,
  }
end

tunetab.consumer{ parse = parse, resolve = resolve }
