1tunetab.heuristic{ name = "loop", rank = function(q)
  while true do end
end }
