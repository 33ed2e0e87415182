-- attacks string.format's float conversions: %99.99f of 1e308 (409 digits each) in a loop
tunetab.heuristic{ name = "format-float", rank = function(q)
  local n = 0
  while true do
    n = n + #string.format("%99.99f %99.99f %.99e %99.99g", 1e308, -1e308, 1e308, 1e-308)
  end
end }
