-- attacks the stack: unbounded recursion, then unbounded tail calls
local function f(n) return f(n + 1) + 1 end
local function g(n) return g(n + 1) end
tunetab.heuristic{ name = "recursion", rank = function(q)
  pcall(f, 1)
  return g(1)
end }
