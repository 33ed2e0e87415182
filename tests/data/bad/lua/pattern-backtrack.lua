tunetab.heuristic{ name = 'backtrack', rank = function(q) local s = string.rep('a', 20000) s:find('.-.-.-.-.-b') return { q.fallback } end }
