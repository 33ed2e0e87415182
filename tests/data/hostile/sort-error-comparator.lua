-- attacks table.sort with an inconsistent, erroring comparator, retried under pcall forever
local t = {}
for i = 1, 100000 do t[i] = i % 7 end
tunetab.heuristic{ name = "sort-error-comparator", rank = function(q)
  while true do
    pcall(table.sort, t, function(a, b) if a == 3 then error("no") end return true end)
  end
end }
