-- attacks table.insert/remove at the front of a million-element list (each moves every element)
local t = {}
for i = 1, 1000000 do t[i] = i end
tunetab.heuristic{ name = "insert-remove-front", rank = function(q)
  while true do
    table.insert(t, 1, 0)
    table.remove(t, 1)
  end
end }
