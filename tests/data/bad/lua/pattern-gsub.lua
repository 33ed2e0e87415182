tunetab.heuristic{ name = 'gsub', rank = function(q) local s = string.rep('a', 20000) s:gsub('(a-)-(a-)-(a-)b', '') return { q.fallback } end }
