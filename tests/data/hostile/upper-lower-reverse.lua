-- attacks string.upper/lower/reverse: a byte-at-a-time C loop over 8 MiB per call
local s = string.rep("aB", 4 << 20)
tunetab.heuristic{ name = "upper-lower-reverse", rank = function(q)
  while true do
    local _ = s:upper()
    _ = s:lower()
    _ = s:reverse()
  end
end }
