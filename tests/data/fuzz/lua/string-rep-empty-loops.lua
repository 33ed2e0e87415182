1local s = string.rep("", 1 << 40)
tunetab.heuristic { name = "x", rank = function(q) return {} end }
