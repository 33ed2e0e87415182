-- attacks string patterns: a backtracking find, then match/gmatch/gsub under pcall
local s = string.rep("a", 1 << 20)
tunetab.heuristic{ name = "find-pattern", rank = function(q)
  pcall(string.match, s, "(.-)(.-)(.-)(.-)b")
  pcall(string.gsub, s, "a", "%0%0")
  pcall(string.gmatch, s, ".-b")
  return { s:find(".-.-.-.-.-b") }
end }
