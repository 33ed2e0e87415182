1tunetab.heuristic{ name = 'rank-nan', rank = function(q) return { 0/0 } end }
