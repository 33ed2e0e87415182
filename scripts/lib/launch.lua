-- launch.lua: a serving stack's launch command read the way its argparse reads it, for the
-- consumer scripts (configs/consumers/*.lua). The sandbox has no patterns: plain find and sub.
--
--   local launch = tunetab.lib("launch")
--   local cmd, why = launch.command(words, { {"python*", "-m", "sglang.launch_server"}, ... })
--   local opts, why = launch.parse(words, cmd.start, OPTIONS)
--
-- OPTIONS is a list of { names = {"--tp-size", "--tp"}, key = "tp", kind = "int"|"str"|
-- "flag"|"list", value = <what a flag sets, default true>, default = <value when absent>,
-- convert = <function(text) -> value, or nil and why: the server's own type= parser> }. An
-- "int" option takes what Python's int() takes (argparse's type=int), nothing else.
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

local function is_digit(b)
  return b and b >= 48 and b <= 57
end

-- s without the whitespace Python's str.strip() takes off (ASCII)
function M.strip(s)
  local i, j = 1, #s
  local function space(b) return b == 32 or (b >= 9 and b <= 13) end
  while i <= j and space(string.byte(s, i)) do i = i + 1 end
  while j >= i and space(string.byte(s, j)) do j = j - 1 end
  return string.sub(s, i, j)
end

-- Whether s is one or more ASCII decimal digits (regex \d+ on what a command line holds).
function M.digits(s)
  if #s == 0 then return false end
  for i = 1, #s do
    if not is_digit(string.byte(s, i)) then return false end
  end
  return true
end

-- What Python's int(s) makes of a string (argparse's type=int), or nil: optional whitespace
-- around, an optional sign, decimal digits with single underscores between them. Not "2.0",
-- "1e3", "0x10" or "eight", which Lua's tonumber would take.
function M.int(s)
  s = M.strip(s)
  local sign, i = 1, 1
  local c = string.sub(s, 1, 1)
  if c == "+" or c == "-" then
    if c == "-" then sign = -1 end
    i = 2
  end
  local digits, prev_digit = {}, false
  while i <= #s do
    local b = string.byte(s, i)
    if is_digit(b) then
      digits[#digits + 1] = string.char(b)
      prev_digit = true
    elseif b == 95 and prev_digit and is_digit(string.byte(s, i + 1)) then
      prev_digit = false -- "_" between two digits
    else
      return nil
    end
    i = i + 1
  end
  if #digits == 0 then return nil end
  local n = math.tointeger(tonumber(table.concat(digits)))
  if not n then return nil end -- beyond 64 bits: no size or count is that large
  return sign * n
end

-- How an option is named in the server's usage errors: every name, as argparse prints them
-- ("argument --tp-size/--tensor-parallel-size: invalid int value").
local function display(o)
  return table.concat(o.names, "/")
end

local function convert(o, name, v)
  if o.convert then
    local n, why = o.convert(v)
    if n == nil then return nil, display(o) .. " " .. why .. ", not '" .. v .. "'" end
    return n
  end
  if o.kind == "int" then
    local n = M.int(v)
    if not n then return nil, display(o) .. " wants an integer, not '" .. v .. "'" end
    return n
  end
  return v
end

local function words_of(text, sep)
  local out, i = {}, 1
  while i <= #text do
    local j = string.find(text, sep or " ", i, true) or (#text + 1)
    if j > i then out[#out + 1] = string.sub(text, i, j - 1) end
    i = j + 1
  end
  return out
end

-- Options from rows of { "--a --b", dest, nargs [, class, negatives, action, choices] }
-- (argparse's own table: nargs "0" a flag, "" one value, "+"/"*" a list, "?" an optional value;
-- the class tunetab gives the input, "m" modelled, "n" no effect, "" neither; the strings of a
-- boolean-optional flag that store false; argparse's action class: _StoreFalseAction stores
-- false; the values choices= allows, comma-separated). types (optional) gives the value options
-- whose text the script reads as something else, by dest: "int" (type=int) or a function (the
-- server's own type= parser, as convert).
function M.from_rows(rows, types)
  local kinds = { ["0"] = "flag", [""] = "str", ["+"] = "list", ["*"] = "list", ["?"] = "opt" }
  local options = {}
  for _, r in ipairs(rows) do
    local names = words_of(r[1])
    local o = { names = names, key = r[2], kind = kinds[r[3]] or "str", class = r[4] }
    if r[5] and r[5] ~= "" then
      o.negative = {}
      for _, n in ipairs(words_of(r[5])) do o.negative[n] = true end
    end
    if o.kind == "flag" and not o.negative and r[6] and r[6] ~= "" then
      o.value = r[6] ~= "_StoreFalseAction" -- store_true (deprecated ones too), store_const
    end
    if r[7] and r[7] ~= "" then
      o.choices = words_of(r[7], ",")
    end
    local t = types and types[r[2]]
    if t and o.kind == "str" then
      if type(t) == "function" then o.convert = t else o.kind = t end
    end
    options[#options + 1] = o
  end
  return options
end

-- argparse's choices=: the value is one of them (a number as the int type= would read it), else
-- "argument --a/--b: invalid choice: 'x' (choose from 'y', 'z')", argparse's own words
local function choose(o, v)
  if not o.choices then return true end
  local n = M.int(v)
  for _, c in ipairs(o.choices) do
    if c == v or (n and c == tostring(n)) then return true end
  end
  local quoted = {}
  for _, c in ipairs(o.choices) do quoted[#quoted + 1] = "'" .. c .. "'" end
  return nil, "argument " .. display(o) .. ": invalid choice: '" .. v .. "' (choose from " ..
    table.concat(quoted, ", ") .. ")"
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
-- false for one of its negative names, or a --no-... name where the flag lists none),
-- opts.given (each option as typed, in order: { name, key, class }), opts.unknown,
-- opts.positional; nil and why on what the server's parser refuses too (a value missing, an
-- ambiguous abbreviation).
function M.parse(words, start, options, abbrev)
  local by_name = {}
  for _, o in ipairs(options) do
    for _, n in ipairs(o.names) do by_name[n] = o end
  end
  local opts = { unknown = {}, positional = {}, given = {} }
  for _, o in ipairs(options) do
    if o.default ~= nil and opts[o.key] == nil then opts[o.key] = o.default end
  end
  local i = start
  while i <= #words do
    local w = words[i]
    local name, inline = w, nil
    local eq = string.find(w, "=", 1, true)
    -- argparse splits --name=VALUE, and -x=VALUE where -x is an option's whole name
    if eq and (starts(w, "--") or by_name[string.sub(w, 1, eq - 1)]) then
      name, inline = string.sub(w, 1, eq - 1), string.sub(w, eq + 1)
    end
    local o, amb = nil, nil
    if is_option(w) and w ~= "--" then o, amb = lookup(by_name, options, name, abbrev) end
    if amb then return nil, amb end
    if o then opts.given[#opts.given + 1] = { name = name, key = o.key, class = o.class } end
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
      if o.negative then opts[o.key] = not o.negative[name]
      elseif o.value ~= nil then opts[o.key] = o.value
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
      for _, v in ipairs(list) do
        local ok, why = choose(o, v)
        if not ok then return nil, why end
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
      if v ~= true then
        local ok, bad = choose(o, v)
        if not ok then return nil, bad end
        cv, why = convert(o, name, v)
      end
      if cv == nil then return nil, why end
      opts[o.key] = cv
      i = i + 1
    end
  end
  return opts
end

-- Whether release a is older than b ("0.5.22" < "0.5.23"; missing parts are 0).
function M.version_less(a, b)
  local function parts(v)
    local t = {}
    local i = 1
    while i <= #v do
      local j = string.find(v, ".", i, true) or (#v + 1)
      t[#t + 1] = math.tointeger(tonumber(string.sub(v, i, j - 1))) or 0
      i = j + 1
    end
    return t
  end
  local x, y = parts(a), parts(b)
  for i = 1, math.max(#x, #y) do
    if (x[i] or 0) ~= (y[i] or 0) then return (x[i] or 0) < (y[i] or 0) end
  end
  return false
end

-- options_for(tables, version, types): a consumer's generated option tables
-- (scripts/lib/<id>_options.lua) for `version`: the newest release's not newer than it (the
-- oldest's for older ones), as from_rows options; then that release and its allow_abbrev.
function M.options_for(tables, version, types)
  local best, oldest
  for v, _ in pairs(tables.versions) do
    if not oldest or M.version_less(v, oldest) then oldest = v end
    if not M.version_less(version, v) and (not best or M.version_less(best, v)) then best = v end
  end
  local v = best or oldest
  return M.from_rows(tables.versions[v].options, types), v, tables.versions[v].abbrev
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
