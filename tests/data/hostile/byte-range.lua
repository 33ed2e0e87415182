-- attacks string.byte over huge ranges: 500,000 values per call, and a slice too long
local s = string.rep("b", 1 << 20)
tunetab.heuristic{ name = "byte-range", rank = function(q)
  pcall(string.byte, string.rep("b", 8 << 20), 1, -1)
  while true do string.byte(s, 1, 500000) end
end }
