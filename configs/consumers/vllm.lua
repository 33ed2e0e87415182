-- vllm.lua: a vLLM launch command read as vLLM 0.33.0 reads it, and the FlashInfer CUTLASS
-- fused-MoE runner it builds from it. Every rule is from the released wheel
-- (pip download vllm==0.33.0 --no-deps); V: is its vllm/ folder, FI: flashinfer-python
-- 0.7.2.post1 (the version it pins, METADATA:90).
local launch = tunetab.lib("launch")
local linears = tunetab.lib("linears")

local COMMANDS = {
  { "vllm", "serve" },
  { "python*", "-m", "vllm.entrypoints.openai.api_server" },
  { "python*", "-m", "vllm.entrypoints.cli.main", "serve" },
}

-- vLLM's human_readable_int (V:utils/argparse_utils.py:30-74), the type= of
-- --max-num-batched-tokens (V:engine/arg_utils.py:395-411): a plain integer as int() takes it,
-- or digits with a decimal suffix k, m, g, t (decimals allowed: int(float(number) * 10^n)) or
-- a binary one K, M, G, T (no decimals)
local DECIMAL = { k = 10 ^ 3, m = 10 ^ 6, g = 10 ^ 9, t = 10 ^ 12 }
local BINARY = { K = 10, M = 20, G = 30, T = 40 }
local function human_readable_int(text)
  local v = launch.strip(text)
  local wants = "wants an integer (or one with a suffix: 1k, 25.6k, 1K, 1M)"
  local plain = launch.int(v)
  if plain then return plain end
  local suffix, number = string.sub(v, -1), string.sub(v, 1, -2)
  if not DECIMAL[suffix] and not BINARY[suffix] then return nil, wants end
  local dot = string.find(number, ".", 1, true)
  local whole, frac = number, nil
  if dot then whole, frac = string.sub(number, 1, dot - 1), string.sub(number, dot + 1) end
  if not launch.digits(whole) or (frac and not launch.digits(frac)) then return nil, wants end
  if DECIMAL[suffix] then
    -- as Python's float arithmetic does it (Lua's numbers are the same doubles)
    local n = math.tointeger(math.floor(tonumber(number) * DECIMAL[suffix]))
    if not n then return nil, wants end
    return n
  end
  if frac then
    return nil, "takes no decimals with a binary suffix like " .. suffix .. " (use " ..
      string.lower(suffix) .. ")"
  end
  local n = math.tointeger(tonumber(whole))
  if not n or n > (math.maxinteger >> BINARY[suffix]) then return nil, wants end
  return n << BINARY[suffix]
end

-- vLLM's own parser per release (scripts/lib/vllm_options.lua, dumped from the wheels with the
-- class tunetab gives each option). The script reads these dests, typed as vLLM types them
-- (V:engine/arg_utils.py), under short names, with vLLM's defaults where they are absent
local TABLES = tunetab.lib("vllm_options")
local inputs = tunetab.lib("inputs")
local TYPES = { tensor_parallel_size = "int", pipeline_parallel_size = "int",
                data_parallel_size = "int", prefill_context_parallel_size = "int",
                max_num_batched_tokens = human_readable_int }
local KEYS = {
  { "model", "model" }, { "revision", "revision" },
  { "tensor_parallel_size", "tp", 1 }, { "pipeline_parallel_size", "pp", 1 },   -- :1170-1208
  { "data_parallel_size", "dp", 1 }, { "prefill_context_parallel_size", "pcp", 1 },
  { "enable_expert_parallel", "ep", false },                                     -- :1304
  { "quantization", "quantization" }, { "dtype", "dtype", "auto" },             -- :977-992
  { "max_num_batched_tokens", "max_num_batched_tokens" },                        -- :1739
  { "performance_mode", "performance_mode" }, { "moe_backend", "moe_backend", "auto" },
  { "enable_flashinfer_autotune", "autotune" }, { "optimization_level", "opt_level" },
}

local version_less = launch.version_less

-- FlexibleArgumentParser.parse_args rewrites the words first (V:utils/argparse_utils.py:379-407):
-- "_" made "-" in a --name up to its first "."; -O3, -O=3 and -O 3 are --optimization-level 3.
-- A dotted --name.key VALUE sets one field of a config option (:445-490): read here as that
-- option, given (its class decides), with its value.
local function flexible(words, start)
  local out = {}
  for i = 1, start - 1 do out[i] = words[i] end
  local i = start
  while i <= #words do
    local w = words[i]
    if string.sub(w, 1, 2) == "--" then
      local eq = string.find(w, "=", 1, true)
      local key, rest = w, ""
      if eq then key, rest = string.sub(w, 1, eq - 1), string.sub(w, eq) end
      local dot = string.find(key, ".", 3, true)
      local head = dot and string.sub(key, 1, dot - 1) or key
      local tail = dot and string.sub(key, dot) or ""
      local dashed = {}
      for k = 1, #head do
        local c = string.sub(head, k, k)
        dashed[k] = c == "_" and "-" or c
      end
      head = table.concat(dashed)
      if dot then
        out[#out + 1] = head
        if eq then out[#out + 1] = string.sub(rest, 2)
        else
          out[#out + 1] = words[i + 1] or ""
          i = i + 1
        end
      else
        out[#out + 1] = head .. tail .. rest
      end
    elseif string.sub(w, 1, 2) == "-O" and w ~= "-O" then
      out[#out + 1] = "--optimization-level"
      out[#out + 1] = string.sub(w, 3, 3) == "=" and string.sub(w, 4) or string.sub(w, 3)
    elseif w == "-O" and words[i + 1] and string.find("0123", words[i + 1], 1, true) and
           #words[i + 1] == 1 then
      out[#out + 1] = "--optimization-level"
    else
      out[#out + 1] = w
    end
    i = i + 1
  end
  return out
end

-- The launch command as vLLM `version`'s parser reads it: the options by the script's short
-- names (KEYS), opts.given, opts.positional; nil and why where vLLM refuses the command.
local function read(words, start, version)
  local options, table_version, abbrev = launch.options_for(TABLES, version, TYPES)
  local o, why = launch.parse(flexible(words, start), start, options, abbrev)
  if not o then
    return nil, "vLLM " .. version .. " would refuse this launch command (its parser: " ..
      why .. ")"
  end
  if #o.unknown > 0 then -- argparse: "unrecognized arguments" (exit 2)
    local names = {}
    for _, u in ipairs(o.unknown) do names[#names + 1] = u.name end
    return nil, "vLLM " .. table_version .. " would refuse this launch command: its parser " ..
      "has no " .. table.concat(names, ", ") .. " (unrecognized arguments)"
  end
  for _, k in ipairs(KEYS) do
    local v = o[k[1]]
    if v == nil then v = k[3] end
    o[k[2]] = v
  end
  return o, table_version
end

local function parse(words, env)
  local cmd, why = launch.command(words, COMMANDS)
  if not cmd then return nil, why end
  local o, err = read(words, cmd.start, "999")
  if not o then return nil, err end
  o.model_path = o.model or o.positional[1]
  if not o.model_path then return nil, "vllm serve needs the model (vllm serve MODEL)" end
  if o.model and o.positional[1] then
    return nil, "vllm: the model is given twice ('" .. o.positional[1] .. "' and --model)"
  end
  o.python = cmd.python
  o.words, o.start = words, cmd.start
  return o
end

-- the experts' activation as FlashInfer's ActivationType (tunetab's model names):
-- V:model_executor/layers/quantization/utils/flashinfer_utils.py:31-52
local ACTIVATION = { silu = "swiglu", swigluoai = "swiglu", gelu_tanh = "geglu",
                     gelu_pytorch_tanh = "geglu", relu2 = "relu2" }

-- What vLLM runs the experts with, and whether it is FlashInfer's CUTLASS fused MoE
-- (V:model_executor/layers/fused_moe/oracle/*.py; flashinfer_cutlass_moe.py:127-199).
local function experts(o, m, sm, ep_on, dp, python)
  local family = sm // 10
  local explicit = o.moe_backend ~= "auto"
  local q = o.quantization
  local method, dtype
  -- V:config/model.py:1383-1468, transformers_utils/model_arch_config_convertor.py:247-270
  if not m.quantized then
    method, dtype = "unquantized", nil
  elseif m.quant_method == "fp8" then
    if m.weight_block then method, dtype = "fp8_block", "fp8_block"
    elseif m.activation_scheme == "static" then method, dtype = "fp8_static", "fp8"
    else method = "fp8_dynamic" end
  elseif m.quant_method == "modelopt" and m.quant_algo == "NVFP4" then
    method, dtype = "nvfp4", "nvfp4"
  elseif m.quant_method == "modelopt" and m.quant_algo == "FP8" then
    method, dtype = "modelopt_fp8", "fp8"
  elseif m.quant_method == "mxfp4" and m.model_type == "gpt_oss" then
    method, dtype = "gpt_oss_mxfp4", "w4a16_mxfp4"
  else
    return nil, "a " .. tostring(m.quant_method) .. (m.quant_algo and (" " .. m.quant_algo) or "") ..
      " checkpoint: tunetab does not know which MoE kernels vLLM 0.33.0 runs it with"
  end
  if q and q ~= "fp8" and q ~= "modelopt" and q ~= "modelopt_fp4" and q ~= "mxfp4" and q ~= "gpt_oss_mxfp4" then
    return nil, "--quantization " .. q .. ": tunetab does not know which MoE kernels vLLM runs it with"
  end
  local fi, why
  if method == "unquantized" then
    -- oracle/unquantized.py:62-106: TRT-LLM-gen first on SM10x, Triton ahead on SM90, and
    -- FlashInfer CUTLASS behind Triton when DP > 1 (:85-94)
    if family == 12 and dp == 1 then fi = true
    elseif family == 9 then why = "vLLM runs Triton's fused MoE for bf16 on SM90 (oracle/unquantized.py:85-94)"
    elseif family == 10 then why = "vLLM runs TRT-LLM-gen's bf16 MoE on SM10x (oracle/unquantized.py:62-106)"
    else why = "vLLM prefers Triton's fused MoE here (DP > 1, oracle/unquantized.py:85-94)" end
  elseif method == "fp8_dynamic" then
    why = "per-tensor fp8 with dynamic activation scales: FlashInfer's CUTLASS MoE does not take " ..
      "it (flashinfer_cutlass_moe.py:155-161)"
  elseif method == "fp8_static" or method == "modelopt_fp8" then
    if family == 9 or family == 12 then fi = true
    else why = "vLLM runs TRT-LLM's fp8 MoE on SM10x (oracle/fp8.py:88-104)" end
  elseif method == "fp8_block" then
    if sm == 90 and ep_on then fi = true
    elseif sm == 90 then why = "block fp8 without expert parallelism runs Triton's MoE (oracle/fp8.py:122-132); with --enable-expert-parallel it is FlashInfer's CUTLASS"
    else why = "block fp8 runs FlashInfer's CUTLASS MoE on SM90 only (flashinfer_cutlass_moe.py:163-171)" end
  elseif method == "nvfp4" then
    if family == 12 then fi = true
    elseif family == 10 then why = "vLLM runs TRT-LLM-gen's NVFP4 MoE on SM10x (oracle/nvfp4.py:191-320)"
    else why = "NVFP4 needs SM100 or newer for FlashInfer's CUTLASS MoE" end
  elseif method == "gpt_oss_mxfp4" then
    -- the wheel bundles OpenAI's triton_kernels (vllm/third_party/triton_kernels), so Triton's
    -- MXFP4 MoE wins on SM90 (oracle/mxfp4.py:402-435; vLLM's own selection, tests/consumers/
    -- vllm_launch.py); FlashInfer's CUTLASS only where that package is removed
    if sm == 90 then why = "gpt-oss on SM90 runs the triton_kernels MoE vLLM bundles (oracle/mxfp4.py:402-435)"
    else why = "gpt-oss runs TRT-LLM-gen (SM10x) or Marlin (SM12x) MoE (oracle/mxfp4.py:614-631)" end
  end
  if explicit and o.moe_backend == "flashinfer_cutlass" and not fi then
    return nil, "--moe-backend flashinfer_cutlass is not supported for this model here, and " ..
      "vLLM raises at start (" .. (why or "?") .. ")"
  elseif explicit and o.moe_backend ~= "flashinfer_cutlass" then
    fi, why = false, "--moe-backend " .. o.moe_backend .. ": not FlashInfer's CUTLASS fused MoE"
  end
  return { fi = fi, why = why, method = method, dtype = dtype }
end

-- the method as vLLM names it (model_config.quantization: config/model.py:1383-1468)
local QUANT_NAME = { unquantized = "None", fp8_block = "fp8", fp8_static = "fp8",
                     fp8_dynamic = "fp8", modelopt_fp8 = "modelopt", nvfp4 = "modelopt_fp4", gpt_oss_mxfp4 = "gpt_oss_mxfp4" }

local function hybrid_default_tokens(o, gpu)
  -- V:engine/arg_utils.py:2940-3037 (get_batch_defaults, vllm serve) and :3184-3186
  if o.max_num_batched_tokens then return o.max_num_batched_tokens, "--max-num-batched-tokens" end
  local mem = gpu.memory_gib
  if not mem then return nil end
  local t
  local a100 = string.find(gpu.name, "A100", 1, true) ~= nil
  local gb10 = string.find(gpu.name, "GB10", 1, true) ~= nil
  if mem >= 160 then t = 16384
  elseif mem >= 70 and not a100 and not gb10 then t = 8192
  else t = 2048 end
  if o.performance_mode == "throughput" then t = t * 2 end
  return t, string.format("vllm serve's default for a %d GiB GPU", mem)
end

-- the ops vLLM 0.34.0's kernel warm-up tunes besides the CUTLASS MoE (issue #39;
-- model_executor/warmup/kernel_warmup.py:385-490): every op inside
-- autotune(tuning_buckets=get_hybrid_num_tokens_buckets(tokens), round_up=True), which replaces
-- each op's own buckets (FlashInfer autotuner _apply_tuning_overrides), with one dummy run at
-- max_num_batched_tokens
local function start_ops(o, m, f, c)
  local ops = {}
  local gpu = f.gpu
  local family = gpu.sm // 10
  if c.method ~= "nvfp4" then return ops end
  local skip = {}
  local env_skip = launch.env(f.env, "VLLM_FLASHINFER_AUTOTUNE_SKIP_OPS") or ""
  local i = 1
  while i <= #env_skip do
    local j = string.find(env_skip, ",", i, true) or (#env_skip + 1)
    skip[launch.strip(string.sub(env_skip, i, j - 1))] = true
    i = j + 1
  end
  local out_dtype = c.torch_dtype == "float16" and "float16" or "bfloat16"
  -- the NVFP4 linear kernel (model_executor/kernels/linear/__init__.py:593-610, first supported
  -- wins): CuTe-DSL on the SM100 family, FlashInfer's CUTLASS from SM100 up; fp4_gemm is in
  -- the warm-up's skip set whenever a CuTe-DSL NVFP4 kernel is used (kernel_warmup.py:397-416)
  if family >= 10 then
    local cute = family == 10
    local g = { op = "fp4_gemm", runner = cute and "CuteDSLFp4GemmRunner" or "CutlassFp4GemmRunner",
                calls = {} }
    ops[#ops + 1] = g
    if cute then
      g.tunes, g.why = false, "vLLM skips fp4_gemm when its CuTe-DSL NVFP4 linear kernel runs " ..
        "(kernel_warmup.py:397-416); at run time the runner's heuristic picks"
    elseif c.off then g.tunes, g.why = false, c.off
    elseif skip.fp4_gemm then g.tunes, g.why = false, "VLLM_FLASHINFER_AUTOTUNE_SKIP_OPS names fp4_gemm"
    else
      local list, why = linears.layout(m, { tp = c.tp, attn_tp = c.tp })
      if not list then
        g.tunes, g.why, g.unknown = true, why, true -- tuned, laid out as tunetab cannot tell
      else
        local gemms = linears.fp4_gemms(list, m.exclude)
        g.tunes = #gemms > 0
        if not g.tunes then
          g.why = "the checkpoint excludes every linear layer from NVFP4 (" .. tostring(m.exclude_from) .. ")"
        end
        for _, sh in ipairs(linears.shapes(gemms)) do
          g.calls[#g.calls + 1] = { tune = "buckets", m = c.tokens, tune_max = c.tokens, n = sh.n,
                                    k = sh.k, out = out_dtype, layer = sh.layer }
        end
        g.from = "the warm-up's buckets up to " .. c.tokens .. " (" .. c.tfrom .. ")"
      end
    end
  end
  -- the TensorRT-LLM-gen NVFP4 MoE, first on the SM100 family (fused_moe/oracle/nvfp4.py:237-305;
  -- experts/trtllm_nvfp4_moe.py:227-232, 599-633: the monolithic logits path)
  if family == 10 and c.moe_backend_auto then
    local t = { op = "flashinfer::trtllm_fp4_block_scale_moe", runner = "MoERunner", calls = {} }
    ops[#ops + 1] = t
    if c.off then t.tunes, t.why = false, c.off
    elseif skip["flashinfer::trtllm_fp4_block_scale_moe"] then
      t.tunes, t.why = false, "VLLM_FLASHINFER_AUTOTUNE_SKIP_OPS names it"
    else
      local experts = m.experts
      -- vLLM pads the weights for this kernel and gives it the padded sizes (0.34.0 wheel,
      -- model_executor/layers/quantization/utils/flashinfer_fp4_moe.py:509-534; 0.33.0 :404-425):
      -- the per-GPU intermediate size to a multiple of 64 for a gated MoE, 128 otherwise
      -- (align_fp4_moe_weights_for_fi, utils/flashinfer_utils.py:229-295; 0.33.0 :214-280),
      -- into moe_config.intermediate_size_per_partition, which the experts read
      -- (fused_moe/experts/trtllm_nvfp4_moe.py:88-90, 624; 0.33.0 :59-61, 591); the hidden
      -- size to a multiple of 256 (align_fp4_moe_hidden_dim_for_fi, :312-325; modelopt.py:
      -- 1122-1125 passes trtllm_nvfp4_hidden_alignment, :298-309: 256 unless per-token and not
      -- gated; 0.33.0 :283-306, modelopt.py:1087). The call is gated (SwiGLU:
      -- linears.nvfp4_moe_call).
      local inter = linears.round_up(m.intermediate // c.runner_tp, 64)
      if m.hidden % 256 ~= 0 then
        t.tunes, t.unknown = true, true -- it tunes the op; tunetab cannot tell its keys
        t.why = "vLLM pads the hidden size " .. m.hidden .. " to " ..
          linears.round_up(m.hidden, 256) .. " for this kernel (utils/flashinfer_utils.py:" ..
          "312-325), which tunetab does not model in its keys"
      else
        t.tunes = true
        -- tune_max_num_tokens = max(max_num_tokens x dp, 8192) (fused_moe/utils.py:698-713);
        -- the warm-up's buckets replace the op's own
        local tmax = math.max(c.tokens * c.dp, 8192)
        t.calls[1] = linears.nvfp4_moe_call(m, { tune = "buckets", m = c.tokens,
          tune_max = c.tokens, inter = inter, experts = experts,
          local_experts = experts // c.runner_ep, routing = "logits", passed_tune_max = tmax })
        t.from = "the warm-up's buckets up to " .. c.tokens .. " (" .. c.tfrom .. ")"
      end
    end
  end
  return ops
end

local function resolve(p, f)
  local m, gpu = f.model, f.gpu
  local notes = {}
  -- the command again as the server's release reads it
  local o, table_version = read(p.words, p.start, f.version)
  if not o then return nil, table_version end
  o.model_path, o.python = p.model_path, p.python
  if #o.positional > 1 then
    return nil, "vLLM " .. f.version .. " would refuse this launch command: unrecognized " ..
      "arguments: " .. table.concat(o.positional, " ", 2)
  end
  local unknowns = inputs.unknowns{ stack = "vLLM " .. f.version, given = o.given,
    tables = TABLES, env = f.env, launch_env = f.launch_env or {} }
  if version_less(table_version, f.version) then
    unknowns[#unknowns + 1] = { what = "vLLM " .. f.version .. "'s options: tunetab has its " ..
      "parser up to " .. table_version, give = "--consumer-version " .. table_version ..
      " if the server is that release" }
  end
  local tp, pp, dp, pcp = o.tp, o.pp, o.dp, o.pcp
  -- Field(ge=1): V:config/parallel.py:140-147, config/scheduler.py:48
  local P, S = "config/parallel.py:140-147", "config/scheduler.py:48"
  for _, w in ipairs({ { "--tensor-parallel-size", tp, P }, { "--pipeline-parallel-size", pp, P },
                       { "--data-parallel-size", dp, P },
                       { "--prefill-context-parallel-size", pcp, P },
                       { "--max-num-batched-tokens", o.max_num_batched_tokens or 1, S } }) do
    if w[2] < 1 then
      return nil, w[1] .. " " .. w[2] .. ": vLLM wants at least 1 (" .. w[3] .. ")"
    end
  end
  local world = tp * pp * pcp
  -- V:model_executor/layers/fused_moe/config.py:1106-1245 (FusedMoEParallelConfig.make)
  local flat = dp * pcp * tp
  local ep_on = o.ep and flat > 1
  local runner_tp, runner_ep = flat, 1
  if ep_on then runner_tp, runner_ep = 1, flat end
  local act = ACTIVATION[m.activation]
  -- torch dtype: V:config/model.py:2423-2464 (auto: the config's, float32 -> bfloat16)
  local td = o.dtype
  if td == "auto" then
    td = m.torch_dtype or "bfloat16"
    if td == "float32" then td = "bfloat16" end
    if not m.torch_dtype then
      notes[#notes + 1] = "config.json names no dtype: bfloat16 assumed (vLLM reads the " ..
        "weights' dtype from the safetensors then)"
    end
  elseif td == "half" then td = "float16"
  elseif td == "float" then td = "float32" end
  local x, why = experts(o, m, gpu.sm, ep_on, dp, f.python or {})
  -- a command vLLM takes whose MoE kernels or token buckets tunetab cannot tell: a cannot-tell
  -- (#47), the keys of every op unknown
  local tokens, tfrom = hybrid_default_tokens(o, gpu)
  local moe_unknown = not x and why or not tokens and ("vLLM's default --max-num-batched-" ..
    "tokens depends on the GPU's memory, which tunetab does not know for '" .. gpu.name ..
    "': give --max-num-batched-tokens in the command") or nil
  local off_early = o.autotune == false or (o.autotune == nil and o.opt_level == "0")
  if moe_unknown and (off_early or gpu.sm < 90) then -- it tunes nothing whatever the kernels
    moe_unknown = nil
    x = x or { fi = false, why = off_early and "FlashInfer autotuning is off " ..
      "(--disable-flashinfer-autotune or -O0)" or "vLLM tunes FlashInfer only on SM90 and up " ..
      "(kernel_warmup.py:265-272)", method = "unquantized" }
    tokens, tfrom = tokens or 0, tfrom or "not tuned"
  end
  if moe_unknown then
    return { ops = {}, model_path = o.model_path, torch_dtype = "torch." .. td,
      quantization = o.quantization or "None", moe_runner_backend = tostring(o.moe_backend),
      skip_ops = "", hf_config_class = m.config_class, tp = tp, pp = pp, dp = dp,
      attn_dp = 1, moe_ep = runner_ep, biases = m.biases, runner_tp = runner_tp,
      runner_ep = runner_ep, fused_finalize = true, max_tokens = 0, tunes = true,
      moe_unknown = moe_unknown, notes = notes, unknowns = unknowns }
  end
  local dtype = x.dtype or (td == "float16" and "fp16" or "bf16")
  notes[#notes + 1] = string.format("tunes token buckets up to %d (%s)", tokens, tfrom)
  local autotune = o.autotune
  if autotune == nil then autotune = o.opt_level ~= "0" end
  local tunes, why_not = x.fi == true, x.why
  if not act and tunes then
    tunes, why_not = false, "activation '" .. m.activation .. "' does not reach FlashInfer's " ..
      "CUTLASS MoE (flashinfer_cutlass_moe.py:183-191)"
  end
  if tunes and gpu.sm < 90 then
    tunes, why_not = false, "vLLM tunes FlashInfer only on SM90 and up (kernel_warmup.py:265-272)"
  elseif tunes and not autotune then
    tunes, why_not = false, "FlashInfer autotuning is off (--disable-flashinfer-autotune or -O0)"
  end
  local off
  if gpu.sm < 90 then off = "vLLM tunes FlashInfer only on SM90 and up (kernel_warmup.py:385-393)"
  elseif not autotune then off = "FlashInfer autotuning is off (--disable-flashinfer-autotune or -O0)" end
  local ops = start_ops(o, m, f, { method = x.method, torch_dtype = td, tp = tp, dp = dp,
    runner_tp = runner_tp, runner_ep = runner_ep, tokens = tokens, tfrom = tfrom, off = off,
    moe_backend_auto = o.moe_backend == "auto" or o.moe_backend == "flashinfer_trtllm" })
  return {
    ops = ops,
    -- every op in the warm-up's autotune(tuning_buckets=hybrid(tokens), round_up=True)
    moe_tune = "buckets", moe_m = tokens,
    model_path = o.model_path,
    torch_dtype = "torch." .. td,
    quantization = o.quantization or QUANT_NAME[x.method],
    moe_runner_backend = tunes and "flashinfer_cutlass" or tostring(o.moe_backend),
    skip_ops = launch.env(f.env, "VLLM_FLASHINFER_AUTOTUNE_SKIP_OPS") or "",
    hf_config_class = m.config_class,
    tp = tp, pp = pp, dp = dp, attn_dp = 1, moe_ep = runner_ep,
    dtype = dtype, activation = act or m.activation,
    biases = m.biases,
    runner_tp = runner_tp, runner_ep = runner_ep,
    -- vLLM passes no use_fused_finalize: FlashInfer's default, True (FI fused_moe/core.py:1309)
    fused_finalize = true,
    fused_finalize_from = "vLLM passes none: FlashInfer's default (on)",
    max_tokens = tokens,
    tunes = tunes, why_not = why_not,
    notes = notes,
    unknowns = unknowns,
  }
end

tunetab.consumer{ parse = parse, resolve = resolve }
