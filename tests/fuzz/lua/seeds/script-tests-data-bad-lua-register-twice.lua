1tunetab.heuristic{ name = 'a', rank = function(q) return { q.fallback } end }
tunetab.heuristic{ name = 'b', rank = function(q) return { q.fallback } end }
