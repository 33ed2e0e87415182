tunetab.heuristic{ name = 'nul', rank = function(q) local s = string.rep('a', 20000) s:find('\0.-.-.-.-.-b') return { q.fallback } end }
