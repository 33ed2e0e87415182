-- lua_driver.lua: the fixed part of fuzz_lua's script. fuzz_lua.c prepends `local D = "..."`
-- (the fuzz input); every value below is drawn from D, so the fuzzer steers which API is
-- called with what. It calls everything a heuristic can reach that is tunetab's own C code:
-- tunetab.heuristic, tunetab.lib, tunetab.version, the sandbox's load and print, the error
-- path (error objects of every type, __tostring that fails), and, through rank(), what
-- script_rank reads back (ids of every type, duplicates, {id=, time=}, too many, none).
local pos = 0
local function b()
	pos = pos + 1
	if pos > #D then return 0 end
	return D:byte(pos)
end
local function s()
	local n = b() % 72
	local r = D:sub(pos + 1, pos + n)
	pos = pos + n
	return r
end
local T, H, L, P, LD = tunetab, tunetab.heuristic, tunetab.lib, print, load
local bad_ts = setmetatable({}, { __tostring = function() error("tostring fails") end })
local bad_ts2 = setmetatable({}, { __tostring = function() return {} end })
local bad_idx = setmetatable({}, { __index = function(_, k) error("index " .. tostring(k)) end })
local named = setmetatable({}, { __name = "x\0y" })
local consts = {
	0, -1, 1, 2, 3, math.maxinteger, math.mininteger, 0 / 0, math.huge, -math.huge, 2 ^ 53,
	2 ^ 63, 1.5, -0.0, "", string.rep("a", 64), string.rep("b", 65), "moe_cost", "roofline",
	"waves", "occupancy", "../lib/moe_cost", "MOE", "a\0b", "%s%s%n", string.rep("x", 4096),
	"default", true, false, bad_ts, bad_ts2, bad_idx, named, {}, P, T, L, error, H,
}
local val
local function tbl(depth)
	local t = {}
	for _ = 1, b() % 5 do
		local k = val(depth + 1)
		if k ~= nil and k == k then t[k] = val(depth + 1) end
	end
	return t
end
function val(depth)
	depth = depth or 0
	local c = b()
	if c < 64 then return consts[c % #consts + 1]
	elseif c < 96 then return nil
	elseif c < 144 then return s()
	elseif c < 176 then return (c - 160) * (b() - 128) * 2 ^ (b() % 70 - 8)
	elseif c < 200 and depth < 3 then return tbl(depth)
	elseif c < 216 then return c * 1103515245 + b()
	else return function() return val(depth + 1) end
	end
end

local rank
function rank(q)
	local c = q.candidates
	local m = b() % 12
	if m == 0 then return val() end
	if m == 1 then error(val()) end
	if m == 2 then H { name = "fuzz" .. b(), rank = rank } end
	if type(c) ~= "table" or #c == 0 then return {} end
	local out = {}
	for i = 1, b() % (#c + 3) do
		local k = b() % 6
		if k == 0 then out[i] = val()
		elseif k == 1 then out[i] = { id = c[b() % #c + 1].id, time = val() }
		elseif k == 2 then out[i] = { id = val(), time = 1 }
		elseif k == 3 then out[i] = c[#c - (b() % #c)].id + 0.0
		else out[i] = c[b() % #c + 1].id end
	end
	if m == 3 then for i = 1, #c do out[#out + 1] = c[i].id end end
	if m == 4 then q.candidates = nil; c[1] = val(); q.device = nil end
	if m == 5 then
		setmetatable(out, { __index = function() error("idx") end, __len = function() return 1e9 end })
	end
	if m == 6 then for i = 1, 2 * #c do out[i] = c[(i % #c) + 1].id end end
	return out
end

local calls = {
	function() return H(val()) end,
	function() return H { name = val(), rank = val() } end,
	function() return H { name = s(), rank = rank } end,
	function() return H(setmetatable({}, { __index = function() error("no") end })) end,
	function() return L(val()) end,
	function() return L(s()) end,
	function()
		local m = L(consts[18 + b() % 4])
		if type(m) == "table" and type(m.rank) == "function" then
			return m.rank({ candidates = val(), device = val(), deploy = val(), tokens = val() })
		end
	end,
	function()
		local f = LD(val(), val(), val(), val())
		if type(f) == "function" then return f() end
	end,
	function()
		local f = LD(s(), "=x", "t", {})
		if f then return f() end
	end,
	function() return LD("\27Lua" .. s()) end,
	function() P(val(), val()) end,
	function() return T.version .. tostring(val()) end,
	function() error(val()) end,
	function() local t = {} for i = 1, 1e7 do t[i] = i end end,
	function() return string.rep(s(), 1 << (b() % 40)) end,
	function() T.version = val(); T.lib = val(); T.heuristic = val() end,
}
for _ = 1, 1 + b() % 12 do
	pcall(calls[b() % #calls + 1])
end
H { name = "fuzz", rank = rank }
