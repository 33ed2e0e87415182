tunetab.heuristic{ name = 'nf', rank = 5 }
