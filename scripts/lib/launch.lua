-- launch.lua: a serving stack's launch command read the way its argparse reads it, for the
-- consumer scripts (configs/consumers/*.lua). The sandbox has no patterns: plain find and sub.
--
--   local launch = tunetab.lib("launch")
--   local cmd, why = launch.command(words, { {"python*", "-m", "sglang.launch_server"}, ... })
--   local opts, why = launch.parse(words, cmd.start, OPTIONS)
--
-- OPTIONS is a list of { names = {"--tp-size", "--tp"}, key = "tp", kind = "int"|"str"|
-- "flag"|"list", value = <what a flag sets, default true>, default = <value when absent> }.
-- A list option (nargs="*") takes every word up to the next option. An option the list does
-- not name is kept in opts.unknown with the word after it when that word is not an option
-- (argparse would need the server's own parser to know; no server flag tunetab reads is
-- affected). Words that are not options go to opts.positional.
local M = {}

local function basename(p)
  local last = 1
  local i = string.find(p, "/", 1, true)
  while i do
    last = i + 1
    i = string.find(p, "/", i + 1, true)
  end
  return string.sub(p, last)
end

local function starts(s, prefix)
  return string.sub(s, 1, #prefix) == prefix
end

-- "python*" matches python, python3, python3.12 (a path's last part); other words exactly.
local function word_matches(pattern, word)
  if string.sub(pattern, -1) == "*" then
    return starts(basename(word), string.sub(pattern, 1, -2))
  end
  return word == pattern or basename(word) == pattern
end

-- Which of the command forms the words start with: { form = i, start = first option word,
-- python = the interpreter word or nil }, or nil and why.
function M.command(words, forms)
  for i, form in ipairs(forms) do
    local ok = #words >= #form
    for j = 1, #form do
      if ok and not word_matches(form[j], words[j]) then ok = false end
    end
    if ok then
      local py = nil
      if string.sub(form[1], -1) == "*" and starts(form[1], "python") then py = words[1] end
      return { form = i, start = #form + 1, python = py }
    end
  end
  local names = {}
  for _, form in ipairs(forms) do names[#names + 1] = table.concat(form, " ") end
  return nil, "the command starts with '" .. table.concat(words, " ", 1, math.min(#words, 3)) ..
    "', not one of: " .. table.concat(names, "; ")
end

local function is_option(w)
  return starts(w, "-") and #w > 1 and not tonumber(w)
end

local function convert(o, name, v)
  if o.kind == "int" then
    local n = math.tointeger(tonumber(v))
    if not n then return nil, name .. " wants an integer, not '" .. v .. "'" end
    return n
  end
  return v
end

-- Options from rows of { "--a --b", dest, nargs } (argparse's own table: nargs "0" a flag,
-- "" one value, "+"/"*" a list, "?" an optional value).
function M.from_rows(rows)
  local kinds = { ["0"] = "flag", [""] = "str", ["+"] = "list", ["*"] = "list", ["?"] = "opt" }
  local options = {}
  for _, r in ipairs(rows) do
    local names, i = {}, 1
    while i <= #r[1] do
      local j = string.find(r[1], " ", i, true) or (#r[1] + 1)
      names[#names + 1] = string.sub(r[1], i, j - 1)
      i = j + 1
    end
    options[#options + 1] = { names = names, key = r[2], kind = kinds[r[3]] or "str" }
  end
  return options
end

-- argparse's allow_abbrev: an exact name, else the one option some long name of which starts
-- with the given text; several: ambiguous (argparse exits with "ambiguous option").
local function lookup(by_name, options, name, abbrev)
  if by_name[name] then return by_name[name] end
  if not abbrev or not starts(name, "--") then return nil end
  local found, which = nil, {}
  for _, o in ipairs(options) do
    for _, n in ipairs(o.names) do
      if starts(n, "--") and starts(n, name) then
        if found ~= o then which[#which + 1] = n end
        if found and found ~= o then found = false end
        if found == nil then found = o end
        break
      end
    end
  end
  if found == false then
    return nil, "ambiguous option: " .. name .. " could match " .. table.concat(which, ", ")
  end
  return found
end

-- parse(words, start, options [, abbrev]): opts[key] for each option given (flags true, or
-- false for a --no-... name), opts.unknown, opts.positional; nil and why on what the server's
-- parser refuses too (a value missing, an ambiguous abbreviation).
function M.parse(words, start, options, abbrev)
  local by_name = {}
  for _, o in ipairs(options) do
    for _, n in ipairs(o.names) do by_name[n] = o end
  end
  local opts = { unknown = {}, positional = {} }
  for _, o in ipairs(options) do
    if o.default ~= nil and opts[o.key] == nil then opts[o.key] = o.default end
  end
  local i = start
  while i <= #words do
    local w = words[i]
    local name, inline = w, nil
    local eq = string.find(w, "=", 1, true)
    if starts(w, "--") and eq then
      name, inline = string.sub(w, 1, eq - 1), string.sub(w, eq + 1)
    end
    local o, amb = nil, nil
    if is_option(w) and w ~= "--" then o, amb = lookup(by_name, options, name, abbrev) end
    if amb then return nil, amb end
    if w == "--" then
      i = i + 1
    elseif not is_option(w) then
      opts.positional[#opts.positional + 1] = w
      i = i + 1
    elseif not o then
      local u = { name = name }
      if inline then
        u.value = inline
      elseif words[i + 1] and not is_option(words[i + 1]) then
        u.value = words[i + 1]
        i = i + 1
      end
      opts.unknown[#opts.unknown + 1] = u
      i = i + 1
    elseif o.kind == "flag" then
      if inline then return nil, name .. " takes no value" end
      if o.value ~= nil then opts[o.key] = o.value
      else opts[o.key] = not starts(name, "--no-") end
      i = i + 1
    elseif o.kind == "list" then
      local list = {}
      if inline then list[1] = inline end
      i = i + 1
      while not inline and words[i] and not is_option(words[i]) do
        list[#list + 1] = words[i]
        i = i + 1
      end
      opts[o.key] = list
    else
      local v = inline
      if not v and o.kind == "opt" and (words[i + 1] == nil or is_option(words[i + 1])) then
        v = true
      elseif not v then
        v = words[i + 1]
        if v == nil then return nil, name .. " needs a value" end
        i = i + 1
      end
      local cv, why = v, nil
      if v ~= true then cv, why = convert(o, name, v) end
      if cv == nil then return nil, why end
      opts[o.key] = cv
      i = i + 1
    end
  end
  return opts
end

-- The first of names that env sets to a non-empty value, else nil.
function M.env(env, name)
  local v = env[name]
  if v == nil or v == "" then return nil end
  return v
end

-- An environment variable read as a boolean the way the consumer reads it: `truthy` lists the
-- values that mean true (lower-cased), anything else set means false.
function M.env_bool(env, name, default, truthy)
  local v = M.env(env, name)
  if v == nil then return default end
  v = string.lower(v)
  for _, t in ipairs(truthy) do
    if v == t then return true end
  end
  return false
end

return M
