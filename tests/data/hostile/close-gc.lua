-- attacks finalizers: a looping __gc (refused), then a looping __close run while the error unwinds
tunetab.heuristic{ name = "close-gc", rank = function(q)
  pcall(setmetatable, {}, { __gc = function() while true do end end })
  local x <close> = setmetatable({}, { __close = function() while true do end end })
  while true do end
end }
