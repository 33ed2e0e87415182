1-- rank() returns entries whose __index raises: script_rank read them with lua_getfield outside
-- any protected call, so the error reached Lua's panic handler and aborted tunetab
local bad = setmetatable({}, { __index = function() error("no id here") end })
tunetab.heuristic { name = "x", rank = function(q) return { bad, q.candidates[1].id } end }
