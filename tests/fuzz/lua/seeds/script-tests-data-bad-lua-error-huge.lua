1tunetab.heuristic{ name = 'error-huge', rank = function(q) error(string.rep('x', 100000)) end }
