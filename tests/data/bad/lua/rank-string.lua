tunetab.heuristic{ name = 'rank-string', rank = function(q) return 'fast' end }
