-- attacks the budget's error: pcall and error handlers that catch it and carry on looping
tunetab.heuristic{ name = "pcall-swallow", rank = function(q)
  while true do
    pcall(function() while true do end end)
    xpcall(function() while true do end end, function() while true do end end)
  end
end }
