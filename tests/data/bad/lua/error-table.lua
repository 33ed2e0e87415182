tunetab.heuristic{ name = 'error-table', rank = function(q) error({code = 1}) end }
