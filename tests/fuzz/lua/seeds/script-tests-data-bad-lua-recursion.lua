1local function f(n) return f(n + 1) + 1 end
tunetab.heuristic{ name = 'recursion', rank = function(q) return f(1) end }
