1-- print() with a __tostring that raises: the C buffer of the arguments before it leaked
local t = setmetatable({}, { __tostring = function() error("no string") end })
pcall(print, "a", t)
pcall(print, setmetatable({}, { __tostring = function() return {} end }))
tunetab.heuristic { name = "x", rank = function(q) return {} end }
