-- attacks table.sort with a comparator that never returns
local t = {}
for i = 1, 1000 do t[i] = i end
tunetab.heuristic{ name = "sort-loop-comparator", rank = function(q)
  table.sort(t, function(a, b) while true do end end)
end }
