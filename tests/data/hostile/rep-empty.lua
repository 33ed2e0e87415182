-- attacks string.rep("", 1 << 40): Lua 5.4.4 loops 2^40 times in C with nothing allocated
tunetab.heuristic{ name = "rep-empty", rank = function(q)
  local n = 0
  while true do n = n + #string.rep("", 1 << 40) + #string.rep("", 1 << 40, "") end
end }
