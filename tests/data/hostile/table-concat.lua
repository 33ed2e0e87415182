-- attacks table.concat: a million elements joined again and again
local t = {}
for i = 1, 1000000 do t[i] = "x" end
tunetab.heuristic{ name = "table-concat", rank = function(q)
  while true do local _ = table.concat(t) end
end }
