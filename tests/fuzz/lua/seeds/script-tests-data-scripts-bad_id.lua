1tunetab.heuristic{ name = "bad", rank = function(q) return { 999999 } end }
