-- attacks math.max/min with half a million arguments, and string.char of as many
local t = {}
for i = 1, 500000 do t[i] = i % 200 end
tunetab.heuristic{ name = "math-varargs", rank = function(q)
  local n = 0
  while true do
    n = n + math.max(table.unpack(t)) + math.min(table.unpack(t))
    n = n + #string.char(table.unpack(t))
  end
end }
