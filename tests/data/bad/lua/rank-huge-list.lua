tunetab.heuristic{ name = 'rank-huge-list', rank = function(q) local t = {} for i = 1, 10000000 do t[i] = i end return t end }
