-- attacks ..: a 1 MiB string copied again by every concatenation of a long loop
local s = string.rep("x", 1 << 20)
tunetab.heuristic{ name = "concat-loop", rank = function(q)
  local t
  while true do t = s .. "y" end
end }
