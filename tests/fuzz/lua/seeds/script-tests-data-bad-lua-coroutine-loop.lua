1tunetab.heuristic{ name = 'co', rank = function(q) local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end end }
