1tunetab.heuristic{ name = "err", rank = function(q)
  local x = nil
  return x.field
end }
