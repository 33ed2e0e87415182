-- attacks next(): a table of a million array slots, all empty but the last, walked from the start
local t = {}
for i = 1, 1 << 20 do t[i] = true end
for i = 1, (1 << 20) - 1 do t[i] = nil end
tunetab.heuristic{ name = "next-sparse", rank = function(q)
  local n = 0
  while true do n = n + next(t) end
end }
