1assert(string.rep("ab", 3, ",") == "ab,ab,ab") assert(("x"):rep(2) == "xx") assert(string.rep("", 5, "-") == "----") assert(string.rep("a", 0) == "")
tunetab.heuristic { name = "x", rank = function(q) return {} end }
