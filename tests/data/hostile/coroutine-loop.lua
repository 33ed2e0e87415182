-- attacks with coroutines (the sandbox has none): a generator resumed forever
tunetab.heuristic{ name = "coroutine-loop", rank = function(q)
  local co = coroutine.wrap(function() while true do coroutine.yield() end end)
  while true do co() end
end }
