-- attacks print(): a line after line to stderr, and 1 MiB lines
local big = string.rep("p", 1 << 20)
tunetab.heuristic{ name = "print-spam", rank = function(q)
  for i = 1, 20 do print(big) end
  while true do print("spam") end
end }
