-- attacks select('#', table.unpack(...)) and a vararg call that passes them on
local t = {}
for i = 1, 300000 do t[i] = i end
local function pass(...) return select("#", ...) end
tunetab.heuristic{ name = "select-unpack", rank = function(q)
  local n = 0
  while true do n = n + select("#", table.unpack(t)) + pass(table.unpack(t)) end
end }
