-- attacks string.rep: a 1 GiB string in one call, then repeated 32 MiB ones
tunetab.heuristic{ name = "rep-bomb", rank = function(q)
  pcall(string.rep, "x", 1 << 30)
  while true do local _ = string.rep("xy", 16 << 20) end
end }
