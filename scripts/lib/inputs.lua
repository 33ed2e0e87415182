-- inputs.lua: the launch inputs whose effect tunetab cannot tell (issue #47, a closed world).
-- The consumer scripts (configs/consumers/*.lua) call it from resolve() with what they parsed;
-- the classes are their generated tables' (scripts/lib/<consumer>_options.lua, made from the
-- releases' own parsers and sources and configs/consumers/inputs/<consumer>.yaml).
--
--   local inputs = tunetab.lib("inputs")
--   local unknowns = inputs.unknowns{ stack = "SGLang 0.5.23", given = opts.given,
--     tables = TABLES, env = f.env, launch_env = f.launch_env or {} }
--
-- Returns a list of { what = , give = } (empty when every input is understood): options in
-- the command that are neither modelled nor shown to have no effect; VAR=VALUE words of the
-- command whose variable is neither; and variables of tunetab's own environment (which doctor
-- takes for the server's) under the stack's prefixes that are neither. (Other variables of
-- tunetab's environment that the stack reads, HOME or HF_HOME, tunetab reads the same way.)
local M = {}

local function starts(s, prefix)
  return string.sub(s, 1, #prefix) == prefix
end

local function sorted_keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

local function them(n)
  return n == 1 and "it" or "them"
end

function M.unknowns(q)
  local out = {}
  local env_class = q.tables.env or {}
  -- options, each once, in the order typed
  local names, seen = {}, {}
  for _, g in ipairs(q.given or {}) do
    if g.class ~= "m" and g.class ~= "n" and not seen[g.name] then
      seen[g.name] = true
      names[#names + 1] = g.name
    end
  end
  if #names > 0 then
    out[#out + 1] = {
      what = (#names == 1 and "option " or "options ") .. table.concat(names, ", ") ..
        ": tunetab does not model what " .. (#names == 1 and "it changes" or "they change") ..
        " in the cache folder, the keys or whether " .. q.stack .. " tunes",
      give = "a launch command without " .. them(#names) ..
        " to check the rest, knowing the server may differ",
    }
  end
  -- the command's own VAR=VALUE words: a closed world
  local words = {}
  for _, k in ipairs(sorted_keys(q.launch_env or {})) do
    local c = env_class[k]
    if c ~= "m" and c ~= "n" then words[#words + 1] = k end
  end
  if #words > 0 then
    out[#out + 1] = {
      what = "the launch command's " .. table.concat(words, ", ") .. " (" .. q.stack ..
        " or the libraries it loads may read " .. them(#words) .. "; tunetab does not model " ..
        them(#words) .. ")",
      give = "a launch command without " .. them(#words),
    }
  end
  -- tunetab's own environment, taken for the server's: the stack's variables
  local vars = {}
  for _, k in ipairs(sorted_keys(q.env or {})) do
    local c = env_class[k]
    if (q.launch_env or {})[k] == nil and q.env[k] ~= "" and c ~= "m" and c ~= "n" then
      local ours = false
      for _, p in ipairs(q.tables.prefixes or {}) do
        if starts(k, p) then ours = true end
      end
      if ours then vars[#vars + 1] = k end
    end
  end
  if #vars > 0 then
    out[#out + 1] = {
      what = "this environment's " .. table.concat(vars, ", ") .. " (" .. q.stack ..
        " reads " .. them(#vars) .. " if the server starts with it; tunetab does not model " ..
        them(#vars) .. ")",
      give = "doctor in the server's environment without " .. them(#vars),
    }
  end
  return out
end

return M
