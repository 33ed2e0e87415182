-- attacks table.concat with a long separator over a range of empty strings
local t = setmetatable({}, { __index = function() return "" end })
local sep = string.rep(",", 4096)
tunetab.heuristic{ name = "table-concat-sep", rank = function(q)
  while true do local _ = table.concat(t, sep, 1, 2000) end
end }
