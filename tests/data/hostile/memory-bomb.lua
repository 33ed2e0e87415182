-- attacks the memory cap: a table of ever-longer distinct strings
tunetab.heuristic{ name = "memory-bomb", rank = function(q)
  local t, s = {}, "m"
  for i = 1, math.huge do
    t[i] = s .. i
    if #s < (1 << 20) then s = s .. s end
  end
end }
